#version 450
// Reductions, one workgroup per row: SUM_ROWS (the sum of each row, in the destination's float type), MEAN (that
// sum over the row's length), ARGMAX (the index of the first maximum of each row, i32; NaNs never win, a row
// without a value above -inf gives 0); and SUM, one workgroup over every element of the source (any strides).
#include "common.glsl"

layout(constant_id = 1) const uint OP = 0; // 0 sum_rows, 1 argmax, 2 mean, 3 sum of every element
layout(constant_id = 2) const uint TS = 0;
layout(constant_id = 3) const uint TD = 0; // not argmax

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

    float acc = OP == 1 ? uintBitsToFloat(0xff800000u) : 0.0; // -inf for argmax
    uint  idx = 0;
    if (OP == 3) {
        const uint n = p.ne.x * p.ne.y * p.ne.z * p.ne.w;
        for (uint e = t; e < n; e += gl_WorkGroupSize.x) {
            const uint j0 = e % p.ne.x, r = e / p.ne.x;
            const uint j1 = r % p.ne.y, j2 = (r / p.ne.y) % p.ne.z, j3 = r / (p.ne.y * p.ne.z);
            acc += LOAD(s, TS, p.off_s + j0 * p.nb_s.x + j1 * p.nb_s.y + j2 * p.nb_s.z + j3 * p.nb_s.w);
        }
    } else {
        for (uint i = t; i < p.ne.x; i += gl_WorkGroupSize.x) {
            const float v = LOAD(s, TS, base_s + i * p.nb_s.x);
            if (OP != 1) {
                acc += v;
            } else if (v > acc) {
                acc = v;
                idx = i;
            }
        }
    }
    best_v[t] = acc;
    best_i[t] = idx;
    barrier();
    for (uint h = gl_WorkGroupSize.x / 2; h > 0; h >>= 1) {
        if (t < h) {
            if (OP != 1) {
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
    if (OP == 1) {
        d_i[di] = int(best_i[0]);
    } else {
        STORE(d, TD, di, OP == 2 ? best_v[0] / float(p.ne.x) : best_v[0])
    }
}
