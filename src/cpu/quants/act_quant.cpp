#include "cpu/quants/act_quant.h"

#include "cpu/kernel_registry.h"

#include "base/fp16.h"
#include "quant/blocks.h"
#include "quant/formats.h"

#include <cmath>
#include <cstring>

namespace switchyard::cpu::quants {

namespace {

using quant::BlockQ8_0;
using quant::BlockQ8_1;
using quant::kQK32;

// v rounded to the nearest integer, ties to even, for |v| < 2^22: adding 1.5 * 2^23 rounds away the fraction
// under the default rounding mode, as the vector round instruction does (no -ffast-math here: the compiler may
// not merge the two operations)
inline float round_even(float v) {
    constexpr float kMagic = 12582912.0f;
    return (v + kMagic) - kMagic;
}

// One block of 32 as upstream's x86 quantize_row_q8_0: returns d (as float) and writes the levels and their sum.
float q8_levels_x86(const float * x, int8_t * qs, int * sum) {
    float amax = 0.0f;
    for (int j = 0; j < kQK32; ++j) {
        amax = std::fmax(amax, std::fabs(x[j]));
    }
    const float d  = amax / 127.0f;
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    int         s  = 0;
    for (int j = 0; j < kQK32; ++j) {
        float q = round_even(x[j] * id);
        q       = q > 127.0f ? 127.0f : (q < -128.0f ? -128.0f : q);
        qs[j]   = static_cast<int8_t>(q);
        s += static_cast<int>(q);
    }
    *sum = s;
    return d;
}

} // namespace

void act_quantize_q8_0(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockQ8_0   b;
        int         sum = 0;
        const float d   = q8_levels_x86(x + i * kQK32, b.qs, &sum);
        b.d             = fp32_to_fp16(d);
        quant::store_block(y, i, b);
    }
}

void act_quantize_q8_1(const float * x, void * y, int64_t k) {
    for (int64_t i = 0; i < k / kQK32; ++i) {
        BlockQ8_1   b;
        int         sum = 0;
        const float d   = q8_levels_x86(x + i * kQK32, b.qs, &sum);
        b.d             = fp32_to_fp16(d);
        b.s             = fp32_to_fp16(d * static_cast<float>(sum));
        quant::store_block(y, i, b);
    }
}

void act_quantize_q8_K_ref(const float * x, void * y, int64_t k) {
    static const ggml_from_float_t ref = quant::from_float_ref_fn(GGML_TYPE_Q8_K);
    ref(x, y, k);
}

void act_quantize_q8_K(const float * x, void * y, int64_t k) {
    static const ActConvert chosen = select_kernel(&IsaColumn::act_q8_K);
    chosen(x, y, k);
}

void act_convert_f16(const float * x, void * y, int64_t k) { fp32_to_fp16_row(x, static_cast<uint16_t *>(y), k); }

void act_convert_bf16(const float * x, void * y, int64_t k) { fp32_to_bf16_row(x, static_cast<uint16_t *>(y), k); }

void act_convert_f32(const float * x, void * y, int64_t k) {
    std::memcpy(y, x, static_cast<size_t>(k) * sizeof(float));
}

void act_widen_f16(const float * x, void * y, int64_t k) {
    float * out = static_cast<float *>(y);
    if (out != x) {
        std::memcpy(out, x, static_cast<size_t>(k) * sizeof(float));
    }
    act_round_trip(GGML_TYPE_F16, out, k);
}

void act_round_trip(ggml_type act_type, float * x, int64_t n) {
    constexpr int64_t kStep = 256; // a whole number of blocks of every activation format
    const ActConvert  to    = act_converter(act_type);
    alignas(64) uint8_t bytes[kStep * sizeof(float)];
    for (int64_t i = 0; i < n; i += kStep) {
        const int64_t m = n - i < kStep ? n - i : kStep;
        to(x + i, bytes, m);
        switch (act_type) {
            case GGML_TYPE_F16:  fp16_to_fp32_row(reinterpret_cast<const uint16_t *>(bytes), x + i, m); break;
            case GGML_TYPE_BF16: bf16_to_fp32_row(reinterpret_cast<const uint16_t *>(bytes), x + i, m); break;
            case GGML_TYPE_F32:  break;
            default:             quant::to_float_fn(act_type)(bytes, x + i, m); break;
        }
    }
}

ActConvert act_converter(ggml_type act_type) {
    switch (act_type) {
        case GGML_TYPE_Q8_0: return act_quantize_q8_0;
        case GGML_TYPE_Q8_1: return act_quantize_q8_1;
        case GGML_TYPE_Q8_K: return act_quantize_q8_K;
        case GGML_TYPE_F16:  return act_convert_f16;
        case GGML_TYPE_BF16: return act_convert_bf16;
        case GGML_TYPE_F32:  return act_convert_f32;
        default:             return nullptr;
    }
}

} // namespace switchyard::cpu::quants
