#version 450
// MUL_MAT: dst[m, n, i2, i3] = sum_k W[k, m, i2 / r2, i3 / r3] * B[k, n, i2, i3] for float and block-quantized
// W. One workgroup per output element (the matrix-vector shape, mul_mat_dot.glsl). For Q4_1 / Q5_1 the Q8_1
// excess term of each block is added, times the block's min.
#include "common.glsl"

layout(constant_id = 1) const uint TW         = 0; // dequant.glsl type code
layout(constant_id = 2) const uint TB         = 0;
layout(constant_id = 3) const uint HAS_EXCESS = 0;

layout(binding = 0) readonly buffer W { uint8_t w8[]; };
TYPED_BUFFER(1, b, readonly)
layout(binding = 2) readonly buffer Excess { float excess[]; };
layout(binding = 3) buffer D { float d[]; };

#include "dequant.glsl"

layout(push_constant) uniform Params {
    uint  K, M, N, ne12, ne13, r2, r3;
    uint  nb01, nb02, nb03, off_w; // bytes
    uvec4 nb_b;                    // elements
    uint  off_b;
    uint  nb_d1, nb_d2, nb_d3, off_d; // elements
    uint  excess_base;
} p;

#include "mul_mat_dot.glsl"

void main() {
    const uint id = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (id >= p.M * p.N * p.ne12 * p.ne13) {
        return;
    }
    const uint m = id % p.M, n = (id / p.M) % p.N, batch = id / (p.M * p.N);
    const uint i2 = batch % p.ne12, i3 = batch / p.ne12;
    const uint row  = p.off_w + m * p.nb01 + (i2 / p.r2) * p.nb02 + (i3 / p.r3) * p.nb03;
    const uint col  = p.off_b + n * p.nb_b.y + i2 * p.nb_b.z + i3 * p.nb_b.w;
    const uint nblk = p.K / block_elements(TW);
    const float r   = row_dot(p.K, row, col, p.nb_b.x, p.excess_base + ((i3 * p.ne12 + i2) * p.N + n) * nblk);
    if (gl_LocalInvocationID.x == 0) {
        d[p.off_d + m + n * p.nb_d1 + i2 * p.nb_d2 + i3 * p.nb_d3] = r;
    }
}
