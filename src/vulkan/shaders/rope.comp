#version 450
// ROPE, normal (adjacent pairs) and neox (pairs n_dims/2 apart), with YaRN and frequency factors; f32 or f16
// (source and destination of one type). One invocation per pair of elements of a row: the n_dims/2 pairs from
// element n_offs on rotate (window pair k as the row's first pairs would without an offset), the others copy
// their two elements (2k, 2k + 1).
#include "common.glsl"

layout(constant_id = 1) const uint T = 0;

TYPED_BUFFER(0, a, readonly)
layout(binding = 1) readonly buffer Pos { int pos[]; };
layout(binding = 2) readonly buffer Ff { float ff[]; };
TYPED_BUFFER(3, d, )

layout(push_constant) uniform Params {
    uvec4 ne;   // of a and d
    uvec4 nb_a; // strides in elements
    uvec4 nb_d;
    uint  off_a, off_pos, off_ff, off_d;
    uint  n_dims, neox, has_ff, n_pairs;
    float log2_base, freq_scale, ext_factor, mscale;
    float corr_low, corr_high;
    uint  n_offs; // first rotated element of each row (even)
} p;

void main() {
    const uint i = flat_index();
    if (i >= p.n_pairs) {
        return;
    }
    const uint half_ne = p.ne.x / 2;
    const uint k = i % half_ne, row = i / half_ne;
    const uint i1 = row % p.ne.y, i2 = (row / p.ne.y) % p.ne.z, i3 = row / (p.ne.y * p.ne.z);
    const uint base_a = p.off_a + i1 * p.nb_a.y + i2 * p.nb_a.z + i3 * p.nb_a.w;
    const uint base_d = p.off_d + i1 * p.nb_d.y + i2 * p.nb_d.z + i3 * p.nb_d.w;
    const uint w0 = p.n_offs / 2; // the window's first pair of the row
    if (k < w0 || k - w0 >= p.n_dims / 2) {
        const uint e = 2 * k;
        STORE(d, T, base_d + e * p.nb_d.x, LOAD(a, T, base_a + e * p.nb_a.x))
        STORE(d, T, base_d + (e + 1) * p.nb_d.x, LOAD(a, T, base_a + (e + 1) * p.nb_a.x))
        return;
    }
    const uint  w      = k - w0; // pair index within the window
    const uint  i0     = 2 * w;
    const float f      = p.has_ff != 0 ? ff[p.off_ff + w] : 1.0;
    const float extrap = float(pos[p.off_pos + i2]) * exp2(-float(i0) / float(p.n_dims) * p.log2_base) / f;
    const float interp = p.freq_scale * extrap;
    float       theta  = interp;
    if (p.ext_factor != 0.0) {
        const float y   = (float(w) - p.corr_low) / max(0.001, p.corr_high - p.corr_low);
        const float mix = (1.0 - clamp(y, 0.0, 1.0)) * p.ext_factor;
        theta           = interp * (1.0 - mix) + extrap * mix;
    }
    const uint  j0 = p.n_offs + (p.neox != 0 ? w : i0);
    const uint  j1 = p.n_offs + (p.neox != 0 ? w + p.n_dims / 2 : i0 + 1);
    const float x0 = LOAD(a, T, base_a + j0 * p.nb_a.x);
    const float x1 = LOAD(a, T, base_a + j1 * p.nb_a.x);
    const float c = cos(theta), s = sin(theta);
    STORE(d, T, base_d + j0 * p.nb_d.x, (x0 * c - x1 * s) * p.mscale)
    STORE(d, T, base_d + j1 * p.nb_d.x, (x0 * s + x1 * c) * p.mscale)
}
