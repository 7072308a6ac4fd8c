#version 450
// Float values quantized into Q8_0 or Q4_0 blocks as the host's reference quantizers do (src/quant), one
// invocation per block of 32: MODE 0 is CPY (element i of the source in logical order to element i of the
// destination), MODE 1 SET_ROWS (source row r of plane (i2, i3) to destination row idx[r, i2 % ne_i1, i3 % ne_i2]).
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TS   = 0;
layout(constant_id = 2) const uint TQ   = 14; // dequant.glsl codes: 10 Q4_0, 14 Q8_0
layout(constant_id = 3) const uint MODE = 0;

TYPED_BUFFER(0, s, readonly)
layout(binding = 1) readonly buffer I { int idx[]; };
layout(binding = 2) buffer D { uint8_t d8[]; };

layout(push_constant) uniform Params {
    uvec4 ne_s;
    uvec4 nb_s; // elements
    uvec4 ne_d; // CPY: the destination's shape
    uvec4 nb_d; // bytes
    uvec4 nb_i; // SET_ROWS: strides of idx in elements; .w: ne_i1
    uint  off_s, off_i, off_d, n_blocks;
    uint  ne_i2, i64_idx;
} p;

// a / b correctly rounded (one residual correction of the device's division)
float div_rn(float a, float b) {
    const float q = a / b;
    return fma(fma(-q, b, a), 1.0 / b, q);
}

float load_s(uint e) {
    const uvec4 c = unravel(e, p.ne_s);
    return LOAD(s, TS, p.off_s + c.x * p.nb_s.x + c.y * p.nb_s.y + c.z * p.nb_s.z + c.w * p.nb_s.w);
}

void store_f16(uint at, float v) {
    const uint h = f32_to_f16(v);
    d8[at]       = uint8_t(h & 255u);
    d8[at + 1u]  = uint8_t(h >> 8);
}

// the 32 values x of the block starting at byte `at`
void quantize(const float x[32], uint at) {
    if (TQ == 14u) { // d = amax / 127, q = round(x / d), half away from zero
        float amax = 0.0;
        for (uint j = 0; j < 32u; ++j) {
            amax = max(amax, abs(x[j]));
        }
        const float d  = div_rn(amax, 127.0);
        const float id = d != 0.0 ? div_rn(1.0, d) : 0.0;
        store_f16(at, d);
        for (uint j = 0; j < 32u; ++j) {
            precise const float v = x[j] * id;
            const float a = abs(v), f = floor(a);
            const float q = clamp(sign(v) * (a - f >= 0.5 ? f + 1.0 : f), -128.0, 127.0);
            d8[at + 2u + j] = uint8_t(uint(int(q)) & 255u);
        }
        return;
    }
    // Q4_0: d = max / -8 (max: the value of largest magnitude), q = trunc(x / d + 8.5) in [0, 15]
    float amax = 0.0, mx = 0.0;
    for (uint j = 0; j < 32u; ++j) {
        if (amax < abs(x[j])) {
            amax = abs(x[j]);
            mx   = x[j];
        }
    }
    const float d  = mx / -8.0;
    const float id = d != 0.0 ? div_rn(1.0, d) : 0.0;
    store_f16(at, d);
    uint L[32];
    for (uint j = 0; j < 32u; ++j) {
        precise const float v = x[j] * id + 8.5;
        L[j] = uint(v > 0.0 ? (v < 15.0 ? v : 15.0) : 0.0);
    }
    for (uint j = 0; j < 16u; ++j) {
        d8[at + 2u + j] = uint8_t(L[j] | (L[j + 16u] << 4));
    }
}

void main() {
    const uint b = flat_index();
    if (b >= p.n_blocks) {
        return;
    }
    const uint e = b * 32u;
    float      x[32];
    for (uint j = 0; j < 32u; ++j) {
        x[j] = load_s(e + j);
    }
    const uint bytes = TQ == 14u ? 34u : 18u;
    uint       at;
    if (MODE == 0) {
        const uvec4 c = unravel(e, p.ne_d);
        at = p.off_d + (c.x / 32u) * bytes + c.y * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w;
    } else {
        const uvec4 c   = unravel(e, p.ne_s);
        const uint  ii  = p.off_i + (c.y * p.nb_i.x + (c.z % p.nb_i.w) * p.nb_i.y + (c.w % p.ne_i2) * p.nb_i.z) *
                                     (p.i64_idx != 0 ? 2u : 1u);
        const uint  row = uint(idx[ii]);
        at = p.off_d + (c.x / 32u) * bytes + row * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w;
    }
    quantize(x, at);
}
