#version 450
// Small f32 ops, one invocation per destination element unless said otherwise:
//   SSM_CONV            d[ch, t, s] = sum over k < ne_b.x of a[t + k, ch, s] * b[k, ch] (the conv window of each
//                       channel times its kernel row)
//   CUMSUM              one workgroup per row: d[i0] = a[0] + ... + a[i0]; each invocation sums a contiguous
//                       chunk, the chunk totals are added up in order, then each chunk is written from its start
//                       (llvmpipe ends any loop after 65535 iterations: no invocation walks a whole long row)
//   PAD_REFLECT_1D      d[i0] = a[j] with j = i0 - x.x mirrored into the row (its first and last element not
//                       repeated)
//   TIMESTEP_EMBEDDING  row i of d for timestep t = a[i]: cos(t f_j) at j, sin(t f_j) at j + half, f_j =
//                       exp(-ln(x.y) j / half), half = x.x / 2; an odd dim's last element 0
#include "common.glsl"

layout(constant_id = 1) const uint OP = 0; // 0 ssm_conv, 1 cumsum, 2 pad_reflect_1d, 3 timestep_embedding

layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) readonly buffer B { float b[]; };
layout(binding = 2) buffer D { float d[]; };

layout(push_constant) uniform Params {
    uvec4 ne_d;
    uvec4 nb_d; // strides in elements
    uvec4 ne_a;
    uvec4 nb_a;
    uvec4 nb_b;
    uint  off_a, off_b, off_d, n; // n: destination elements (rows for cumsum)
    uvec2 x;
    uint  ne_b0;
} p;

uint at_a(uint i0, uint i1, uint i2, uint i3) {
    return p.off_a + i0 * p.nb_a.x + i1 * p.nb_a.y + i2 * p.nb_a.z + i3 * p.nb_a.w;
}

uint at_d(uvec4 c) { return p.off_d + c.x * p.nb_d.x + c.y * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w; }

shared float chunk_start[256];

void cumsum_row(uint row) {
    const uvec4 r     = unravel(row, uvec4(p.ne_d.y, p.ne_d.z, p.ne_d.w, 1)); // (i1, i2, i3)
    const uint  t     = gl_LocalInvocationID.x;
    const uint  len   = (p.ne_d.x + gl_WorkGroupSize.x - 1) / gl_WorkGroupSize.x;
    const uint  first = min(t * len, p.ne_d.x), end = min(first + len, p.ne_d.x);
    float       total = 0.0;
    for (uint i0 = first; i0 < end; ++i0) {
        total += a[at_a(i0, r.x, r.y, r.z)];
    }
    chunk_start[t] = total;
    barrier();
    if (t == 0) {
        float run = 0.0;
        for (uint k = 0; k < gl_WorkGroupSize.x; ++k) {
            const float c  = chunk_start[k];
            chunk_start[k] = run;
            run += c;
        }
    }
    barrier();
    float acc = chunk_start[t];
    for (uint i0 = first; i0 < end; ++i0) {
        acc += a[at_a(i0, r.x, r.y, r.z)];
        d[at_d(uvec4(i0, r.x, r.y, r.z))] = acc;
    }
}

void main() {
    if (OP == 1) {
        const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
        if (row < p.n) {
            cumsum_row(row);
        }
        return;
    }
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uvec4 c = unravel(i, p.ne_d);
    float       v = 0.0;
    if (OP == 0) {
        for (uint k = 0; k < p.ne_b0; ++k) {
            v += a[at_a(c.y + k, c.x, c.z, c.w)] * b[p.off_b + k * p.nb_b.x + c.x * p.nb_b.y];
        }
    } else if (OP == 2) {
        const int n = int(p.ne_a.x);
        int       j = int(c.x) - int(p.x.x);
        j           = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
        v           = a[at_a(uint(j), c.y, c.z, c.w)];
    } else {
        const uint half_dim = p.x.x / 2;
        if (c.x < 2 * half_dim) {
            const uint  j    = c.x % half_dim;
            const float freq = exp(-log(float(p.x.y)) * float(j) / float(half_dim));
            const float arg  = a[p.off_a + c.y * p.nb_a.x] * freq;
            v                = c.x < half_dim ? cos(arg) : sin(arg);
        }
    }
    d[at_d(c)] = v;
}
