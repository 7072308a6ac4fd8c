#version 450
// MUL_MAT for many activation columns: dst[m, n, i2, i3] = sum_k W[k, m, i2 / r2, i3 / r3] * B[k, n, i2, i3] as
// a tiled matrix product. Workgroup (x, y, z) computes the BM x BN outputs of rows x * BM.., columns y * BN.. of
// batch z (i2 + i3 * ne12); its 256 invocations, a 16 x 16 grid, hold (BM / 16) x (BN / 16) outputs each. K is
// walked in steps of BK: the step's weights (dequantized, dequant.glsl, any weight type) and activations are
// staged in shared memory, then every invocation accumulates its outputs from them. For Q4_1 / Q5_1
// (HAS_EXCESS, BK = 32: a step is one block) the Q8_1 excess term of the step's block is added, times the
// block's min. The bindings and push constants are mul_mat.comp's, and [k_begin, k_end): the part of K this
// dispatch sums, added to d when `accumulate` (lavapipe ends the loops of an invocation after 65535 iterations of
// all of them, about 1300 steps here, so ops/mul_mat.cpp cuts a long K into several dispatches).
#include "common.glsl"

layout(constant_id = 1) const uint TW         = 0; // dequant.glsl type code
layout(constant_id = 2) const uint TB         = 0;
layout(constant_id = 3) const uint HAS_EXCESS = 0;
layout(constant_id = 4) const uint BM         = 64; // multiple of 16
layout(constant_id = 5) const uint BN         = 64; // multiple of 16
layout(constant_id = 6) const uint BK         = 32; // 32 with HAS_EXCESS

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
    uint  k_begin, k_end, accumulate;
} p;

const uint TM = BM / 16, TN = BN / 16; // outputs per invocation along m and n
const uint SW = BM + 1, SB = BN + 1;   // shared row strides, padded against bank conflicts

shared float tile_w[BK * SW]; // [k][m]
shared float tile_b[BK * SB]; // [k][n]
shared float tile_min[BM];    // HAS_EXCESS: the step's block min of each row
shared float tile_excess[BN]; // HAS_EXCESS: the step's block excess of each column

// Stages step k0 of the weights; row_w: the first byte of the batch's weight matrix.
void load_weights(uint m0, uint k0, uint row_w) {
    const uint be = block_elements(TW), bb = block_bytes(TW);
    for (uint i = gl_LocalInvocationID.x; i < BM * BK; i += gl_WorkGroupSize.x) {
        const uint mm = i / BK, kk = i % BK, m = m0 + mm, k = k0 + kk;
        float      v  = 0.0;
        if (m < p.M && k < p.K) {
            v = dequant(TW, row_w + m * p.nb01 + (k / be) * bb, k % be);
        }
        tile_w[kk * SW + mm] = v;
    }
    if (HAS_EXCESS != 0) {
        for (uint mm = gl_LocalInvocationID.x; mm < BM; mm += gl_WorkGroupSize.x) {
            const uint m = m0 + mm;
            tile_min[mm] = m < p.M ? wf16(row_w + m * p.nb01 + (k0 / 32u) * bb + 2u) : 0.0;
        }
    }
}

// Stages step k0 of the activations; col_b: the batch's first element in b; first_excess: its first block's
// excess term.
void load_activations(uint n0, uint k0, uint col_b, uint first_excess) {
    for (uint i = gl_LocalInvocationID.x; i < BN * BK; i += gl_WorkGroupSize.x) {
        const uint nn = i / BK, kk = i % BK, n = n0 + nn, k = k0 + kk;
        tile_b[kk * SB + nn] = n < p.N && k < p.K ? LOAD(b, TB, col_b + k * p.nb_b.x + n * p.nb_b.y) : 0.0;
    }
    if (HAS_EXCESS != 0) {
        const uint nblk = p.K / 32u;
        for (uint nn = gl_LocalInvocationID.x; nn < BN; nn += gl_WorkGroupSize.x) {
            const uint n = n0 + nn;
            tile_excess[nn] = n < p.N ? excess[first_excess + n * nblk + k0 / 32u] : 0.0;
        }
    }
}

void main() {
    const uint m0 = gl_WorkGroupID.x * BM, n0 = gl_WorkGroupID.y * BN, batch = gl_WorkGroupID.z;
    const uint i2 = batch % p.ne12, i3 = batch / p.ne12;
    const uint tx = gl_LocalInvocationID.x % 16u, ty = gl_LocalInvocationID.x / 16u;
    const uint row_w        = p.off_w + (i2 / p.r2) * p.nb02 + (i3 / p.r3) * p.nb03;
    const uint col_b        = p.off_b + i2 * p.nb_b.z + i3 * p.nb_b.w;
    const uint first_excess = p.excess_base + batch * p.N * (p.K / 32u);

    float acc[TM * TN];
    for (uint i = 0; i < TM * TN; ++i) {
        acc[i] = 0.0;
    }
    for (uint k0 = p.k_begin; k0 < p.k_end; k0 += BK) {
        load_weights(m0, k0, row_w);
        load_activations(n0, k0, col_b, first_excess);
        barrier();
        for (uint kk = 0; kk < BK; ++kk) {
            float a[TM], v[TN];
            for (uint i = 0; i < TM; ++i) {
                a[i] = tile_w[kk * SW + tx + 16u * i];
            }
            for (uint j = 0; j < TN; ++j) {
                v[j] = tile_b[kk * SB + ty + 16u * j];
            }
            for (uint i = 0; i < TM; ++i) {
                for (uint j = 0; j < TN; ++j) {
                    acc[i * TN + j] += a[i] * v[j];
                }
            }
        }
        if (HAS_EXCESS != 0) {
            for (uint i = 0; i < TM; ++i) {
                for (uint j = 0; j < TN; ++j) {
                    acc[i * TN + j] += tile_min[tx + 16u * i] * tile_excess[ty + 16u * j];
                }
            }
        }
        barrier();
    }
    for (uint i = 0; i < TM; ++i) {
        for (uint j = 0; j < TN; ++j) {
            const uint m = m0 + tx + 16u * i, n = n0 + ty + 16u * j;
            if (m < p.M && n < p.N) {
                const uint at = p.off_d + m + n * p.nb_d1 + i2 * p.nb_d2 + i3 * p.nb_d3;
                d[at]         = p.accumulate != 0 ? d[at] + acc[i * TN + j] : acc[i * TN + j];
            }
        }
    }
}
