// The float GEMM's sizes, activation chunks and dispatch (gemm_float.h).
#include "cpu/quants/gemm_float.h"

#include "base/fp16.h"
#include "cpu/kernel_registry.h"
#include "cpu/quants/act_quant.h"

#include <cstring>

namespace switchyard::cpu::quants {

namespace {

// The kernel registry's choice of `family` for `weight`, once per family (nullptr: none on this CPU): the float
// GEMM (gemm_float: F32 and F16 at AVX-512 or NEON, BF16 at AVX-512 BF16) and the AMX one (gemm_float_amx: F16, BF16).
template <auto Family>
const FloatGemmKernels * chosen(ggml_type weight) {
    static const auto table = select_kernel_per_type(Family);
    return weight >= 0 && weight < GGML_TYPE_COUNT ? table[static_cast<size_t>(weight)] : nullptr;
}

const FloatGemmKernels * plain_kernels(ggml_type weight) { return chosen<&IsaColumn::gemm_float>(weight); }
const FloatGemmKernels * amx_kernels(ggml_type weight) { return chosen<&IsaColumn::gemm_float_amx>(weight); }

// The kernels rows of k elements run on.
const FloatGemmKernels * kernels_for(ggml_type weight, int64_t k) {
    return gemm_float_amx(weight, k) ? amx_kernels(weight) : plain_kernels(weight);
}

} // namespace

bool gemm_float_available(ggml_type weight) { return plain_kernels(weight) != nullptr; }

bool gemm_float_amx(ggml_type weight, int64_t k) { return k % kGemmAmxBlock == 0 && amx_kernels(weight) != nullptr; }

int gemm_float_cols(ggml_type weight, int64_t k) {
    if (weight == GGML_TYPE_F32) {
        return kGemmFloatCols;
    }
    if (weight == GGML_TYPE_F16) {
        return gemm_float_amx(weight, k) ? kGemmAmxF16Cols : kGemmFloatCols;
    }
    return gemm_float_amx(weight, k) ? kGemmAmxCols : kGemmMaxCols;
}

int gemm_float_panels_per_tile(ggml_type weight, int64_t k) {
    return weight == GGML_TYPE_BF16 && !gemm_float_amx(weight, k) ? 1 : 2;
}

void gemm_float_split_f16(float v, uint16_t * hi, uint16_t * lo) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    const uint32_t abs = bits & 0x7fffffffu, top = bits & 0xffff0000u;
    const bool     inf = abs == 0x7f800000u, nan = abs > 0x7f800000u;
    *hi                = static_cast<uint16_t>((nan ? top | 0x00400000u : top) >> 16);
    float top_f;
    std::memcpy(&top_f, &top, sizeof top_f);
    const float rest = inf || nan ? 0.0f : v - top_f;
    uint32_t    rest_bits;
    std::memcpy(&rest_bits, &rest, sizeof rest_bits);
    *lo = static_cast<uint16_t>(rest_bits >> 16);
    if ((*lo == 0 && abs != 0 && !nan) || inf) {
        *lo = static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x0080u);
    }
}

size_t gemm_float_panel_bytes(ggml_type weight, int64_t k) {
    return static_cast<size_t>(k) * kGemmRows * (weight == GGML_TYPE_BF16 ? 2 : 4);
}

size_t gemm_float_chunk_bytes(ggml_type weight, int64_t k) {
    return static_cast<size_t>(k) * static_cast<size_t>(gemm_float_cols(weight, k)) * (weight == GGML_TYPE_BF16 ? 2 : 4);
}

void gemm_float_activation(ggml_type weight, const float * x, int64_t k, void * chunk, int col) {
    constexpr int64_t kStep = 256; // elements converted at once (the row converters are vectorised)
    uint16_t          half[kStep];
    float             rounded[kStep];
    const bool        amx = gemm_float_amx(weight, k);
    for (int64_t i0 = 0; i0 < k; i0 += kStep) {
        const int64_t n = k - i0 < kStep ? k - i0 : kStep;
        if (amx && weight == GGML_TYPE_F16) {
            // rounded through f16, then split into bf16 hi and lo (gemm_float_split_f16); block b of the column:
            // hi at b * 2 * (16 columns x 32 bf16) + col * 32, lo 16 x 32 bf16 further
            fp32_to_fp16_row(x + i0, half, n);
            fp16_to_fp32_row(half, rounded, n);
            auto * out = static_cast<uint16_t *>(chunk);
            for (int64_t j = 0; j < n; ++j) {
                const int64_t e = i0 + j, b = e / kGemmAmxBlock;
                uint16_t *    at = out + (b * 2 * kGemmAmxF16Cols + col) * kGemmAmxBlock + e % kGemmAmxBlock;
                gemm_float_split_f16(rounded[j], &at[0], &at[kGemmAmxF16Cols * kGemmAmxBlock]);
            }
            continue;
        }
        if (amx) {
            // block b of the column at b * (32 columns x 32 bf16) + col * 32 (n is a whole number of blocks)
            fp32_to_bf16_row(x + i0, half, n);
            auto * out = static_cast<uint16_t *>(chunk);
            for (int64_t j = 0; j < n; j += kGemmAmxBlock) {
                const int64_t b = (i0 + j) / kGemmAmxBlock;
                std::memcpy(out + (b * kGemmAmxCols + col) * kGemmAmxBlock, half + j, kGemmAmxBlock * sizeof(uint16_t));
            }
            continue;
        }
        if (weight == GGML_TYPE_BF16) {
            // pairs: step s holds (x[2s], x[2s + 1]) of each column, one 32-bit word per column
            fp32_to_bf16_row(x + i0, half, n);
            auto * out = static_cast<uint32_t *>(chunk);
            for (int64_t j = 0; j < n; j += 2) {
                out[((i0 + j) / 2) * kGemmMaxCols + col] = half[j] | static_cast<uint32_t>(half[j + 1]) << 16;
            }
            continue;
        }
        const float * v = x + i0;
        if (weight == GGML_TYPE_F16) {
            fp32_to_fp16_row(x + i0, half, n);
            fp16_to_fp32_row(half, rounded, n);
            v = rounded;
        }
        auto * out = static_cast<float *>(chunk);
        for (int64_t j = 0; j < n; ++j) {
            out[(i0 + j) * kGemmFloatCols + col] = v[j];
        }
    }
}

void gemm_float_pack(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    if (const FloatGemmKernels * g = kernels_for(weight, k)) {
        g->pack(weight, w, w_row, rows, k, panel);
    }
}

void gemm_float_tile(ggml_type weight, const GemmTileArgs & a) {
    if (const FloatGemmKernels * g = kernels_for(weight, a.k)) {
        g->tile(a);
    }
}

} // namespace switchyard::cpu::quants
