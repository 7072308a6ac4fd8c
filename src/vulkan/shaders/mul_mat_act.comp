#version 450
// The activations (B) of a matrix product rounded the way the CPU's dot products see them, into f32 scratch:
// MODE 0 rounds to f16, 1 to bf16 (one invocation per element); 2 quantizes to Q8_0 and 3 to Q8_1 blocks of 32
// (one invocation per block), writing the dequantized values and, for Q8_1, the block's stored sum minus the
// sum of its values (the excess term the Q4_1/Q5_1 products add, times the weights' min).
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TB   = 0;
layout(constant_id = 2) const uint MODE = 0;

TYPED_BUFFER(0, b, readonly)
layout(binding = 1) buffer Out { float o[]; };

layout(push_constant) uniform Params {
    uvec4 ne;   // of b
    uvec4 nb_b; // elements
    uint  off_b, n, excess_base;
} p;

// a / b correctly rounded (one residual correction of the device's division)
float div_rn(float a, float b) {
    const float q = a / b;
    return fma(fma(-q, b, a), 1.0 / b, q);
}

float load_b(uint i) {
    const uvec4 c = unravel(i, p.ne);
    return LOAD(b, TB, p.off_b + c.x * p.nb_b.x + c.y * p.nb_b.y + c.z * p.nb_b.z + c.w * p.nb_b.w);
}

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    if (MODE == 0) {
        o[i] = f16_bits_to_f32(f32_to_f16(load_b(i)));
        return;
    }
    if (MODE == 1) {
        o[i] = uintBitsToFloat(f32_to_bf16(load_b(i)) << 16);
        return;
    }
    const uint first = i * 32; // blocks run along rows (ne0 is a multiple of 32)
    float      amax  = 0.0;
    for (uint j = 0; j < 32; ++j) {
        amax = max(amax, abs(load_b(first + j)));
    }
    const float d   = div_rn(amax, 127.0);
    const float id  = amax != 0.0 ? div_rn(127.0, amax) : 0.0;
    const float dh  = f16_bits_to_f32(f32_to_f16(d));
    int         sum = 0;
    for (uint j = 0; j < 32; ++j) {
        const float q = roundEven(load_b(first + j) * id);
        sum += int(q);
        o[first + j] = dh * q;
    }
    if (MODE == 3) {
        const float s = f16_bits_to_f32(f32_to_f16(d * float(sum)));
        o[p.excess_base + i] = s - dh * float(sum);
    }
}
