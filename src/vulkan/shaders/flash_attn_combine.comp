#version 450
// FLASH_ATTN_EXT over several chunks of keys, second pass: merges the chunks' partial results that
// flash_attn.comp wrote (per chunk and row: DV unnormalised outputs, the running maximum m and sum l) into the
// output, with the sinks. With M the largest m, a chunk weighs exp(m - M) (0 for a chunk whose keys were all
// hidden); out = sum(o exp(m - M)) / sum(l exp(m - M)), the sink adding exp(sink - M') to the sum as in the
// one-pass shader. One invocation per output element.
#include "common.glsl"

layout(constant_id = 1) const uint DV        = 64;
layout(constant_id = 2) const uint HAS_SINKS = 0;

layout(binding = 0) readonly buffer Part { float part[]; };
layout(binding = 1) readonly buffer Sinks { float sinks[]; };
layout(binding = 2) writeonly buffer Dst { float dst[]; };

layout(push_constant) uniform Params {
    uint n_chunks, n_head, n_q, rows; // rows: n_head * n_q * ne3
    uint nb_d1, nb_d2, nb_d3, off_d;  // elements
    uint off_s;
} p;

void main() {
    const uint i = flat_index();
    if (i >= p.rows * DV) {
        return;
    }
    const uint d = i % DV, row = i / DV;
    const uint h = row % p.n_head, q = (row / p.n_head) % p.n_q, i3 = row / (p.n_head * p.n_q);
    float      mx = -1.0 / 0.0;
    for (uint c = 0; c < p.n_chunks; ++c) {
        mx = max(mx, part[(c * p.rows + row) * (DV + 2u) + DV]);
    }
    float sum = 0.0, x = 0.0;
    for (uint c = 0; c < p.n_chunks; ++c) {
        const uint  at = (c * p.rows + row) * (DV + 2u);
        const float m  = part[at + DV];
        const float w  = isinf(m) ? 0.0 : exp(m - mx);
        sum += part[at + DV + 1u] * w;
        x += part[at + d] * w;
    }
    if (HAS_SINKS != 0) {
        const float sink = sinks[p.off_s + h];
        const float m2   = max(mx, sink);
        const float corr = isinf(mx) ? 0.0 : exp(mx - m2);
        x *= corr;
        sum = sum * corr + exp(sink - m2);
    }
    dst[p.off_d + d + h * p.nb_d1 + q * p.nb_d2 + i3 * p.nb_d3] = sum > 0.0 ? x * (1.0 / sum) : 0.0;
}
