#version 450
// FLASH_ATTN_EXT: out = softmax(cap(scale * q k^T) + slope * mask) v per head, with an online softmax over tiles
// of keys and optional sinks (ops/flash_attn.cpp).
//
// One workgroup per block of R rows that share one K/V head: nq queries of R / nq heads of one GQA group, row r
// being query q0 + r % nq of head h0 + r / nq (rows past the queries or the group are idle). The keys go in tiles
// of one key per invocation: each invocation reads its key's K row once and scores it against all R rows (q in
// shared memory), one invocation per row finds the row's new maximum, each invocation turns its scores into
// weights, and then each invocation adds, for its output dimensions of all R rows (in registers), the weighted
// V rows of the tile, each V element read once. The running sums stay per invocation until the end.
// Keys the mask hides (-inf) add nothing, whatever K and V hold there. Loops over keys, rows and dimensions have
// the same trip count in every invocation (indices are clamped rather than branched on), so shared-memory reads
// at uniform addresses stay uniform.
//
// The keys are taken in chunks of KV_CHUNK (a multiple of the workgroup size), one chunk per workgroup along z
// (z = i3 * chunks + chunk): lavapipe ends the loops of an invocation after 65535 iterations of all of them
// together, and a tile costs about D + 2 x 128 (ops/flash_attn.cpp sizes the chunks well below that). With one
// chunk the workgroup writes the output; with more it writes each row's running maximum, sum and unnormalised
// output to `part` ([chunks][rows][DV + 2], rows in the output's order), and flash_attn_combine.comp merges them.
#include "common.glsl"
#include "activations.glsl"

layout(constant_id = 1) const uint D         = 64; // head size of q and k
layout(constant_id = 2) const uint DV        = 64; // head size of v
layout(constant_id = 3) const uint R         = 1;  // rows per workgroup
layout(constant_id = 4) const uint NDV       = 1;  // output dimensions per invocation and row (DV / workgroup, up)
layout(constant_id = 5) const uint TQ        = 0;  // common.glsl type codes
layout(constant_id = 6) const uint TK        = 0;  // float codes or the block codes below (ops/types.h)
layout(constant_id = 7) const uint TV        = 0;
layout(constant_id = 8) const uint TM        = 0;
layout(constant_id = 9) const uint HAS_MASK  = 0;
layout(constant_id = 10) const uint HAS_SINKS = 0;
layout(constant_id = 11) const uint KV_CHUNK  = 4096; // keys per chunk

#define KV_Q4_0   10u
#define KV_Q4_1   11u
#define KV_Q5_0   12u
#define KV_Q5_1   13u
#define KV_Q8_0   14u
#define KV_IQ4_NL 15u

const uint kMaxRows = 8;  // the host keeps R <= kMaxRows and R * NDV <= kMaxOut
const uint kMaxOut  = 16;

TYPED_BUFFER(0, q, readonly)
TYPED_BUFFER(1, k, readonly)
layout(binding = 1) readonly buffer K8 { uint8_t k8[]; };
TYPED_BUFFER(2, v, readonly)
layout(binding = 2) readonly buffer V8 { uint8_t v8[]; };
TYPED_BUFFER(3, m, readonly)
layout(binding = 4) readonly buffer Sinks { float sinks[]; };
layout(binding = 5) writeonly buffer Dst { float dst[]; };
layout(binding = 6) writeonly buffer Part { float part[]; };

layout(push_constant) uniform Params {
    uint  n_q, n_kv, n_head, group, nq;
    uint  nb_q1, nb_q2, nb_q3, off_q; // elements
    uint  nb_k1, nb_k2, nb_k3, off_k; // bytes
    uint  nb_v1, nb_v2, nb_v3, off_v; // bytes
    uint  nb_m1, nb_m2, nb_m3, ne_m2, ne_m3, off_m; // elements
    uint  nb_d1, nb_d2, nb_d3, off_d; // elements
    uint  off_s;
    float scale, softcap, max_bias;
} p;

shared float q_s[R * D];  // the rows' q, times scale (divided by softcap when capping)
shared float s_s[R * gl_WorkGroupSize.x]; // the tile's scores, then weights; at the end the partial sums
shared float m_s[R], l_s[R], c_s[R], slope_s[R]; // running maximum, sum, the tile's correction, ALiBi slope

// K (is_v false) or V as bytes. The block formats are those of dequant.glsl, restated here because dequant.glsl
// reads one byte view and attention reads two.
uint kv_byte(const bool is_v, uint i) { return is_v ? uint(v8[i]) : uint(k8[i]); }
float kv_f16(const bool is_v, uint i) { return unpackHalf2x16(kv_byte(is_v, i) | (kv_byte(is_v, i + 1u) << 8)).x; }
uint kv_nibble(const bool is_v, uint qs, uint j) {
    return j < 16u ? kv_byte(is_v, qs + j) & 15u : kv_byte(is_v, qs + j - 16u) >> 4;
}
uint kv_high_bit(const bool is_v, uint qh, uint j) { return (kv_byte(is_v, qh + j / 8u) >> (j % 8u)) & 1u; }

const float kIq4nl[16] = float[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);

uint kv_block_bytes(uint t) {
    return t == KV_Q8_0 ? 34u : t == KV_Q4_1 ? 20u : t == KV_Q5_0 ? 22u : t == KV_Q5_1 ? 24u : 18u;
}

// element j (0..31) of the block starting at byte blk
float kv_block(const bool is_v, uint t, uint blk, uint j) {
    const float d = kv_f16(is_v, blk);
    switch (t) {
        case KV_Q4_0: return d * (float(kv_nibble(is_v, blk + 2u, j)) - 8.0);
        case KV_Q4_1: return d * float(kv_nibble(is_v, blk + 4u, j)) + kv_f16(is_v, blk + 2u);
        case KV_Q5_0: return d * (float(kv_nibble(is_v, blk + 6u, j) | (kv_high_bit(is_v, blk + 2u, j) << 4)) - 16.0);
        case KV_Q5_1: {
            const uint q = kv_nibble(is_v, blk + 8u, j) | (kv_high_bit(is_v, blk + 4u, j) << 4);
            return d * float(q) + kv_f16(is_v, blk + 2u);
        }
        case KV_Q8_0: return d * float(bitfieldExtract(int(kv_byte(is_v, blk + 2u + j)), 0, 8));
        default:      return d * kIq4nl[kv_nibble(is_v, blk + 2u, j)];
    }
}

// element c of the K or V row starting at byte `row`
float kv_value(const bool is_v, uint row, uint c) {
    const uint t = is_v ? TV : TK;
    if (t == TYPE_F32) {
        return is_v ? v_f[row / 4u + c] : k_f[row / 4u + c];
    }
    if (t == TYPE_F16 || t == TYPE_BF16) {
        return is_v ? LOAD(v, t, row / 2u + c) : LOAD(k, t, row / 2u + c);
    }
    return kv_block(is_v, t, row + (c / 32u) * kv_block_bytes(t), c % 32u);
}

float alibi_slope(uint h) {
    if (p.max_bias <= 0.0) {
        return 1.0;
    }
    const uint  n_log2 = 1u << findMSB(p.n_head);
    const float m0     = exp2(-p.max_bias / float(n_log2));
    const float m1     = exp2(-p.max_bias / 2.0 / float(n_log2));
    return h < n_log2 ? pow(m0, float(h + 1u)) : pow(m1, float(2u * (h - n_log2) + 1u));
}

// The block's rows: head and query of row r, and whether it is one.
struct Rows {
    uint h0, q0, i3;
    uint group_left; // heads of the group from h0 on
};

uint row_head(Rows b, uint r) { return b.h0 + r / p.nq; }
uint row_query(Rows b, uint r) { return b.q0 + r % p.nq; }
bool row_valid(Rows b, uint r) { return r / p.nq < b.group_left && row_query(b, r) < p.n_q; }

void init_rows(Rows b) {
    const float f = p.softcap != 0.0 ? p.scale / p.softcap : p.scale;
    for (uint e = gl_LocalInvocationID.x; e < R * D; e += gl_WorkGroupSize.x) {
        const uint r = e / D;
        float      x = 0.0;
        if (row_valid(b, r)) {
            const uint i = p.off_q + e % D + row_query(b, r) * p.nb_q1 + row_head(b, r) * p.nb_q2 + b.i3 * p.nb_q3;
            x            = LOAD(q, TQ, i) * f;
        }
        q_s[e] = x;
    }
    for (uint r = gl_LocalInvocationID.x; r < R; r += gl_WorkGroupSize.x) {
        m_s[r]     = -1.0 / 0.0;
        slope_s[r] = alibi_slope(row_head(b, r));
    }
}

// The scores of key `key` (this invocation's) against the R rows: -inf where the key is hidden or absent.
void score_key(Rows b, uint key, inout float s[kMaxRows]) {
    const uint row = p.off_k + min(key, p.n_kv - 1u) * p.nb_k1 + (b.h0 / p.group) * p.nb_k2 + b.i3 * p.nb_k3;
    for (uint r = 0; r < R; ++r) {
        s[r] = 0.0;
    }
    for (uint c = 0; c < D; ++c) {
        const float kc = kv_value(false, row, c);
        for (uint r = 0; r < R; ++r) {
            s[r] += q_s[r * D + c] * kc;
        }
    }
    for (uint r = 0; r < R; ++r) {
        float mv = 0.0;
        if (HAS_MASK != 0) {
            const uint h = row_head(b, r);
            mv = LOAD(m, TM, p.off_m + min(key, p.n_kv - 1u) + min(row_query(b, r), p.n_q - 1u) * p.nb_m1 +
                                 (h % p.ne_m2) * p.nb_m2 + (b.i3 % p.ne_m3) * p.nb_m3) *
                 slope_s[r];
        }
        float x = s[r];
        if (p.softcap != 0.0) {
            x = p.softcap * tanh_(x);
        }
        const bool hidden = (isinf(mv) && mv < 0.0) || key >= p.n_kv || !row_valid(b, r);
        s[r] = hidden ? -1.0 / 0.0 : x + mv;
    }
}

// Invocation r < R: the row's new maximum over the tile's scores in s_s, and the correction of what it had.
void update_max() {
    const uint r = gl_LocalInvocationID.x;
    if (r < R) {
        const float m_old = m_s[r];
        float       m_new = m_old;
        for (uint j = 0; j < gl_WorkGroupSize.x; ++j) {
            m_new = max(m_new, s_s[r * gl_WorkGroupSize.x + j]);
        }
        c_s[r] = isinf(m_old) ? 0.0 : exp(m_old - m_new);
        m_s[r] = m_new;
    }
}

// o (this invocation's dimensions of every row, row-major) += the tile's weights in s_s times V rows [j0, ...)
void accumulate(Rows b, uint j0, inout float o[kMaxOut]) {
    const uint W = gl_WorkGroupSize.x;
    for (uint r = 0; r < R; ++r) {
        for (uint i = 0; i < NDV; ++i) {
            o[r * NDV + i] *= c_s[r];
        }
    }
    const uint head = p.off_v + (b.h0 / p.group) * p.nb_v2 + b.i3 * p.nb_v3;
    const uint n    = min(W, p.n_kv - j0);
    for (uint j = 0; j < n; ++j) {
        const uint row = head + (j0 + j) * p.nb_v1;
        for (uint i = 0; i < NDV; ++i) {
            const float x = kv_value(true, row, min(gl_LocalInvocationID.x + i * W, DV - 1u));
            for (uint r = 0; r < R; ++r) {
                const float w = s_s[r * W + j];
                if (w != 0.0) {
                    o[r * NDV + i] += w * x;
                }
            }
        }
    }
}

// With several chunks: this chunk's unnormalised output, maximum and sum of every row, for the combine pass.
void write_partial(Rows b, uint chunk, uint n_chunks, float o[kMaxOut]) {
    const uint t = gl_LocalInvocationID.x, W = gl_WorkGroupSize.x;
    const uint rows = p.n_head * p.n_q * (gl_NumWorkGroups.z / n_chunks);
    for (uint r = 0; r < R; ++r) {
        if (!row_valid(b, r)) {
            continue;
        }
        const uint at = (chunk * rows + row_head(b, r) + p.n_head * (row_query(b, r) + p.n_q * b.i3)) * (DV + 2u);
        for (uint i = 0; i < NDV; ++i) {
            if (t + i * W < DV) {
                part[at + t + i * W] = o[r * NDV + i];
            }
        }
        if (t == 0) {
            part[at + DV]      = m_s[r];
            part[at + DV + 1u] = l_s[r];
        }
    }
}

void main() {
    const uint W  = gl_WorkGroupSize.x, t = gl_LocalInvocationID.x;
    const uint nh = R / p.nq, h_blocks = (p.group + nh - 1u) / nh;
    const uint hb = gl_WorkGroupID.y % h_blocks;
    const uint n_chunks = (p.n_kv + KV_CHUNK - 1u) / KV_CHUNK;
    const uint chunk    = gl_WorkGroupID.z % n_chunks;
    Rows       b;
    b.h0         = (gl_WorkGroupID.y / h_blocks) * p.group + hb * nh;
    b.q0         = gl_WorkGroupID.x * p.nq;
    b.i3         = gl_WorkGroupID.z / n_chunks;
    b.group_left = p.group - hb * nh;
    init_rows(b);
    float o[kMaxOut], l[kMaxRows], s[kMaxRows];
    for (uint i = 0; i < kMaxOut; ++i) {
        o[i] = 0.0;
    }
    for (uint r = 0; r < kMaxRows; ++r) {
        l[r] = 0.0;
    }
    barrier();
    const uint kv_end = min(p.n_kv, (chunk + 1u) * KV_CHUNK);
    for (uint j0 = chunk * KV_CHUNK; j0 < kv_end; j0 += W) {
        score_key(b, j0 + t, s);
        for (uint r = 0; r < R; ++r) {
            s_s[r * W + t] = s[r];
        }
        barrier();
        update_max();
        barrier();
        for (uint r = 0; r < R; ++r) {
            const float w = isinf(s[r]) && s[r] < 0.0 ? 0.0 : exp(s[r] - m_s[r]);
            s_s[r * W + t] = w;
            l[r]           = l[r] * c_s[r] + w;
        }
        barrier();
        accumulate(b, j0, o);
        barrier();
    }
    for (uint r = 0; r < R; ++r) {
        s_s[r * W + t] = l[r];
    }
    barrier();
    if (t < R) {
        float sum = 0.0;
        for (uint j = 0; j < W; ++j) {
            sum += s_s[t * W + j];
        }
        l_s[t] = sum;
    }
    barrier();
    if (n_chunks > 1u) {
        write_partial(b, chunk, n_chunks, o);
        return;
    }
    for (uint r = 0; r < R; ++r) {
        for (uint i = 0; i < NDV; ++i) {
            const uint d = t + i * W;
            if (d >= DV || !row_valid(b, r)) {
                continue;
            }
            const uint h  = row_head(b, r);
            float      mx = m_s[r], sum = l_s[r], x = o[r * NDV + i];
            if (HAS_SINKS != 0) {
                const float sink = sinks[p.off_s + h];
                const float m2   = max(mx, sink);
                const float corr = isinf(mx) ? 0.0 : exp(mx - m2);
                x *= corr;
                sum = sum * corr + exp(sink - m2);
            }
            const uint at = p.off_d + d + h * p.nb_d1 + row_query(b, r) * p.nb_d2 + b.i3 * p.nb_d3;
            dst[at]       = sum > 0.0 ? x * (1.0 / sum) : 0.0;
        }
    }
}
