#version 450
// Row reductions, one workgroup per row: SUM_ROWS (the sum of each row, in the destination's float type) and
// ARGMAX (the index of the first maximum of each row, i32; NaNs never win, a row without a value above -inf
// gives 0).
#include "common.glsl"

layout(constant_id = 1) const uint OP = 0; // 0 sum_rows, 1 argmax
layout(constant_id = 2) const uint TS = 0;
layout(constant_id = 3) const uint TD = 0; // sum_rows only

TYPED_BUFFER(0, s, readonly)
TYPED_BUFFER(1, d, )
layout(binding = 1) buffer DI32 { int d_i[]; };

layout(push_constant) uniform Params {
    uvec4 ne;   // of the source
    uvec4 nb_s; // strides in elements
    uvec4 nb_d; // strides in elements
    uint  off_s, off_d, n_rows;
} p;

shared float best_v[256];
shared uint  best_i[256];

// (v, i) beats (w, j): the larger value, the smaller index on ties
bool beats(float v, uint i, float w, uint j) { return v > w || (v == w && i < j); }

void main() {
    const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= p.n_rows) {
        return;
    }
    const uint i1 = row % p.ne.y, i2 = (row / p.ne.y) % p.ne.z, i3 = row / (p.ne.y * p.ne.z);
    const uint base_s = p.off_s + i1 * p.nb_s.y + i2 * p.nb_s.z + i3 * p.nb_s.w;
    const uint t      = gl_LocalInvocationID.x;

    float acc = OP == 0 ? 0.0 : uintBitsToFloat(0xff800000u); // -inf
    uint  idx = 0;
    for (uint i = t; i < p.ne.x; i += gl_WorkGroupSize.x) {
        const float v = LOAD(s, TS, base_s + i * p.nb_s.x);
        if (OP == 0) {
            acc += v;
        } else if (v > acc) {
            acc = v;
            idx = i;
        }
    }
    best_v[t] = acc;
    best_i[t] = idx;
    barrier();
    for (uint h = gl_WorkGroupSize.x / 2; h > 0; h >>= 1) {
        if (t < h) {
            if (OP == 0) {
                best_v[t] += best_v[t + h];
            } else if (beats(best_v[t + h], best_i[t + h], best_v[t], best_i[t])) {
                best_v[t] = best_v[t + h];
                best_i[t] = best_i[t + h];
            }
        }
        barrier();
    }
    if (t != 0) {
        return;
    }
    const uint di = p.off_d + i1 * p.nb_d.y + i2 * p.nb_d.z + i3 * p.nb_d.w;
    if (OP == 0) {
        STORE(d, TD, di, best_v[0])
    } else {
        d_i[di] = int(best_i[0]);
    }
}
