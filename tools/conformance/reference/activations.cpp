#include "conformance/reference/activations.h"

#include "ggml-cpu.h"

#include <cmath>
#include <cstring>

namespace switchyard::testing::reference {

namespace {

constexpr int kQ8Block = 32;
constexpr int kQ8_0Bytes = 34; // fp16 d, 32 int8
constexpr int kQ8_1Bytes = 36; // fp16 d, fp16 s, 32 int8

// One block of 32 as upstream's x86 quantize_row_q8_0 / q8_1: d = amax / 127, levels x * (127 / amax) rounded to
// nearest even (the current rounding mode, which the tests leave at its default).
void q8_block(const float * x, float * d, int8_t * q, int * sum) {
    float amax = 0.0f;
    for (int j = 0; j < kQ8Block; ++j) {
        amax = std::fmax(amax, std::fabs(x[j]));
    }
    *d             = amax / 127.0f;
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    *sum           = 0;
    for (int j = 0; j < kQ8Block; ++j) {
        q[j] = static_cast<int8_t>(std::nearbyint(x[j] * id));
        *sum += q[j];
    }
}

float half(const uint8_t * p) {
    ggml_fp16_t h;
    std::memcpy(&h, p, sizeof(h));
    return ggml_fp16_to_fp32(h);
}

} // namespace

ggml_type activation_type(ggml_type weight) {
    switch (weight) {
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:   return weight;
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_IQ4_NL:
        case GGML_TYPE_MXFP4:
        case GGML_TYPE_NVFP4:
        case GGML_TYPE_Q1_0:
        case GGML_TYPE_Q2_0:   return GGML_TYPE_Q8_0;
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q5_1:   return GGML_TYPE_Q8_1;
        case GGML_TYPE_Q2_K:
        case GGML_TYPE_Q3_K:
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K:
        case GGML_TYPE_Q6_K:
        case GGML_TYPE_IQ4_XS:
        case GGML_TYPE_IQ2_XXS:
        case GGML_TYPE_IQ2_XS:
        case GGML_TYPE_IQ2_S:
        case GGML_TYPE_IQ3_XXS:
        case GGML_TYPE_IQ3_S:
        case GGML_TYPE_IQ1_S:
        case GGML_TYPE_IQ1_M:
        case GGML_TYPE_TQ1_0:
        case GGML_TYPE_TQ2_0:  return GGML_TYPE_Q8_K;
        default:               return GGML_TYPE_F32;
    }
}

std::vector<uint8_t> convert_activations(ggml_type act, const float * x, int64_t k) {
    std::vector<uint8_t> out(ggml_row_size(act, k));
    switch (act) {
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_Q8_1: {
            const size_t bytes = act == GGML_TYPE_Q8_0 ? kQ8_0Bytes : kQ8_1Bytes;
            for (int64_t b = 0; b < k / kQ8Block; ++b) {
                uint8_t *         blk = out.data() + static_cast<size_t>(b) * bytes;
                float             d;
                int               sum;
                int8_t            q[kQ8Block];
                q8_block(x + b * kQ8Block, &d, q, &sum);
                const ggml_fp16_t dh = ggml_fp32_to_fp16(d);
                std::memcpy(blk, &dh, 2);
                if (act == GGML_TYPE_Q8_1) {
                    const ggml_fp16_t s = ggml_fp32_to_fp16(d * static_cast<float>(sum));
                    std::memcpy(blk + 2, &s, 2);
                }
                std::memcpy(blk + bytes - kQ8Block, q, kQ8Block);
            }
            break;
        }
        case GGML_TYPE_Q8_K: ggml_get_type_traits_cpu(act)->from_float(x, out.data(), k); break; // upstream's bytes
        case GGML_TYPE_F16:
            for (int64_t i = 0; i < k; ++i) {
                const ggml_fp16_t h = ggml_fp32_to_fp16(x[i]);
                std::memcpy(out.data() + 2 * i, &h, 2);
            }
            break;
        case GGML_TYPE_BF16:
            for (int64_t i = 0; i < k; ++i) {
                const ggml_bf16_t h = ggml_fp32_to_bf16(x[i]);
                std::memcpy(out.data() + 2 * i, &h, 2);
            }
            break;
        default: std::memcpy(out.data(), x, static_cast<size_t>(k) * sizeof(float)); break;
    }
    return out;
}

ConvertedActivations converted_activations(ggml_type weight, const float * x, int64_t k) {
    const ggml_type act = activation_type(weight);
    ConvertedActivations c;
    c.values.assign(x, x + k);
    if (act == GGML_TYPE_F32) {
        return c;
    }
    const std::vector<uint8_t> bytes = convert_activations(act, x, k);
    if (act == GGML_TYPE_F16 || act == GGML_TYPE_BF16) {
        for (int64_t i = 0; i < k; ++i) {
            uint16_t h;
            std::memcpy(&h, bytes.data() + 2 * i, 2);
            c.values[i] = act == GGML_TYPE_F16 ? ggml_fp16_to_fp32(ggml_fp16_t{h}) : ggml_bf16_to_fp32(ggml_bf16_t{h});
        }
        return c;
    }
    decode_q8(act, bytes.data(), c.values.data(), k);
    if (act == GGML_TYPE_Q8_1) {
        for (int64_t b = 0; b < k / kQ8Block; ++b) {
            const uint8_t * blk = bytes.data() + static_cast<size_t>(b) * kQ8_1Bytes;
            const float     d   = half(blk);
            int             sum = 0;
            for (int j = 0; j < kQ8Block; ++j) {
                sum += static_cast<int8_t>(blk[4 + j]);
            }
            c.min_term_excess.push_back(half(blk + 2) - d * static_cast<float>(sum));
        }
    }
    return c;
}

// q8_0: fp16 d, 32 levels; q8_1: fp16 d and s, 32 levels; q8_K: float d, 256 levels, then the sums (not read).
void decode_q8(ggml_type act, const uint8_t * bytes, float * out, int64_t k) {
    const int64_t block = act == GGML_TYPE_Q8_K ? 256 : kQ8Block;
    const size_t  size  = ggml_type_size(act);
    const size_t  qs    = act == GGML_TYPE_Q8_0 ? 2 : 4;
    for (int64_t b = 0; b < k / block; ++b) {
        const uint8_t * blk = bytes + static_cast<size_t>(b) * size;
        float           d;
        if (act == GGML_TYPE_Q8_K) {
            std::memcpy(&d, blk, sizeof(d));
        } else {
            d = half(blk);
        }
        for (int64_t j = 0; j < block; ++j) {
            out[b * block + j] = d * static_cast<float>(static_cast<int8_t>(blk[qs + static_cast<size_t>(j)]));
        }
    }
}

double upstream_product(ggml_type weight, const void * w_row, const float * x, int64_t k) {
    const ConvertedActivations a = converted_activations(weight, x, k);
    std::vector<float>         w(static_cast<size_t>(k));
    const auto *               row = static_cast<const uint8_t *>(w_row);
    switch (weight) {
        case GGML_TYPE_F32: std::memcpy(w.data(), w_row, w.size() * sizeof(float)); break;
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:
            for (int64_t i = 0; i < k; ++i) {
                uint16_t h;
                std::memcpy(&h, row + 2 * i, 2);
                w[i] = weight == GGML_TYPE_F16 ? ggml_fp16_to_fp32(ggml_fp16_t{h}) : ggml_bf16_to_fp32(ggml_bf16_t{h});
            }
            break;
        default: ggml_get_type_traits(weight)->to_float(w_row, w.data(), k); break;
    }
    double acc = 0.0;
    for (int64_t i = 0; i < k; ++i) {
        acc += static_cast<double>(w[i]) * a.values[i];
    }
    // q4_1 / q5_1 blocks keep their min m (fp16) at byte 2
    const size_t block_bytes = ggml_type_size(weight);
    for (size_t b = 0; b < a.min_term_excess.size(); ++b) {
        acc += static_cast<double>(half(row + b * block_bytes + 2)) * a.min_term_excess[b];
    }
    return acc;
}

} // namespace switchyard::testing::reference
