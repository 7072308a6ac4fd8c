#version 450
// MUL_MAT_ID: dst[m, e, t] = sum_k W[k, m, ids[e, t]] * B[k, e % n_b, t], the expert matrices picked per slot e
// and token t. One workgroup per output element (mul_mat_dot.glsl); an id outside the experts gives NaN. The
// weights' binding holds experts [expert_first, expert_first + n_expert) of n_expert_total; outputs of other
// experts are left to the dispatches of the other windows (split.h).
#include "common.glsl"

layout(constant_id = 1) const uint TW         = 0; // dequant.glsl type code
layout(constant_id = 2) const uint TB         = 0;
layout(constant_id = 3) const uint HAS_EXCESS = 0;

layout(binding = 0) readonly buffer W { uint8_t w8[]; };
TYPED_BUFFER(1, b, readonly)
layout(binding = 2) readonly buffer Excess { float excess[]; };
layout(binding = 3) readonly buffer I { int ids[]; };
layout(binding = 4) buffer D { float d[]; };

#include "dequant.glsl"

layout(push_constant) uniform Params {
    uint  K, M, n_used, n_tokens, n_b, n_expert;
    uint  nb01, nb02, off_w; // bytes
    uvec4 nb_b;              // elements (.w unused)
    uint  off_b;
    uint  nb_i0, nb_i1, off_i; // elements
    uint  nb_d1, nb_d2, off_d; // elements
    uint  excess_base;
    uint  expert_first, n_expert_total;
} p;

#include "mul_mat_dot.glsl"

void main() {
    const uint id = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (id >= p.M * p.n_used * p.n_tokens) {
        return;
    }
    const uint m = id % p.M, e = (id / p.M) % p.n_used, t = id / (p.M * p.n_used);
    const int  expert = ids[p.off_i + e * p.nb_i0 + t * p.nb_i1];
    const uint di     = p.off_d + m + e * p.nb_d1 + t * p.nb_d2;
    if (expert < 0 || uint(expert) >= p.n_expert_total) { // uniform in the group
        if (gl_LocalInvocationID.x == 0) {
            d[di] = uintBitsToFloat(0x7fc00000u);
        }
        return;
    }
    const uint local = uint(expert) - p.expert_first;
    if (local >= p.n_expert) {
        return;
    }
    const uint n    = e % p.n_b;
    const uint row  = p.off_w + m * p.nb01 + local * p.nb02;
    const uint col  = p.off_b + n * p.nb_b.y + t * p.nb_b.z;
    const uint nblk = p.K / block_elements(TW);
    const float r   = row_dot(p.K, row, col, p.nb_b.x, p.excess_base + (t * p.n_b + n) * nblk);
    if (gl_LocalInvocationID.x == 0) {
        d[di] = r;
    }
}
