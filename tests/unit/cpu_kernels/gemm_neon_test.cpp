// The NEON GEMM tiles (src/cpu/quants/gemm_neon*.cpp, gemm_float_neon.cpp; aarch64 only, run under qemu-user):
//   - the integer tiles, widening and dotprod (the latter where the CPU has it), give the portable tile's results
//     (gemm_tile_scalar) bit for bit: on packed weights of every type with a GEMM form, and on raw panels and chunks
//     of random bytes (levels 0..255 against -128..127, every sum's extreme);
//   - the float tile: each output is the chain fma(w[i], x[i], acc) over k from zero, restated here with std::fma on
//     the original weights (f16 converted) and the chunk's activations; partial panels, a second panel, every column
//     count;
//   - the NEON column picks the dotprod tile exactly where the CPU reports dotprod.
// The MUL_MAT graphs on these tiles are gemm_test.cpp's (upstream's product to float rounding).
#if defined(__aarch64__)

#include "matvec_test_util.h"

#include "base/cpuid.h"
#include "cpu/kernel_registry.h"
#include "cpu/quants/gemm.h"
#include "cpu/quants/gemm_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace switchyard::matvec_test;
namespace q = switchyard::cpu::quants;

uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof(b));
    return b;
}

// The NEON integer tiles this CPU can run, by name.
std::vector<std::pair<q::GemmTileFn, std::string>> neon_int_tiles() {
    std::vector<std::pair<q::GemmTileFn, std::string>> tiles = {{q::gemm_tile_neon, "neon"}};
    if (switchyard::cpu_features().dotprod) {
        tiles.emplace_back(q::gemm_tile_neon_dotprod, "neon dotprod");
    }
    return tiles;
}

// Runs `tile` and the portable tile on the same panel and chunk; every output (and every one they must not write)
// must have the same bits.
void expect_portable_bits(q::GemmTileFn tile, const q::GemmFormat & f, const void * panel, const void * chunk,
                          int64_t k, int rows, int cols, const std::string & what) {
    constexpr int64_t  out_col = 19; // more rows than a panel: what the tiles leave must stay
    std::vector<float> want(static_cast<size_t>(out_col * cols), -7.0f), got(want);
    q::gemm_tile_scalar(f, {panel, k, chunk, cols, rows, want.data(), out_col});
    tile(f, {panel, k, chunk, cols, rows, got.data(), out_col});
    int failures = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (bits(got[i]) != bits(want[i]) && failures++ < 3) {
            ADD_FAILURE() << what << ": row " << i % out_col << " column " << i / out_col << ": " << got[i]
                          << ", the portable tile " << want[i];
        }
    }
}

TEST(GemmTileNeon, IntegerTilesGiveThePortableTilesBitsOnPackedWeights) {
    std::mt19937 rng(81);
    for (ggml_type type : gemm_types()) {
        const q::GemmFormat f = q::gemm_format(type);
        const int64_t       k = ggml_blck_size(type) == 256 ? 512 : 160;
        for (bool random_bytes : {false, true}) {
            const std::vector<uint8_t> w =
                random_bytes ? random_block_rows(type, 16, k, rng) : quantized_rows(type, 16, k, rng);
            std::vector<uint8_t> chunk(q::gemm_chunk_bytes(f, k), 0xCD), scratch(ggml_row_size(f.act_type, k));
            for (int c = 0; c < q::kGemmMaxCols; ++c) {
                const std::vector<float> x = normal_floats(rng, k, c % 2 ? 3.0f : 0.2f);
                q::gemm_activation(f, x.data(), k, scratch.data(), chunk.data(), c);
            }
            for (int rows : {16, 1, 7, 13}) {
                std::vector<uint8_t> panel(q::gemm_panel_bytes(f, k));
                q::gemm_pack(type, w.data(), ggml_row_size(type, k), rows, k, panel.data());
                for (const auto & [tile, name] : neon_int_tiles()) {
                    for (int cols = 1; cols <= q::kGemmMaxCols; ++cols) {
                        expect_portable_bits(tile, f, panel.data(), chunk.data(), k, rows, cols,
                                             name + " " + ggml_type_name(type) + (random_bytes ? " random" : "") +
                                                 ", " + std::to_string(rows) + " rows, " + std::to_string(cols) +
                                                 " columns");
                    }
                }
            }
        }
    }
}

// Panels and chunks written directly: levels of every byte value against activations of every int8 value (-128
// included, which the quantizer never writes), all levels at their extremes, random scales and column pairs. For
// each form: groups of 32 and 16, with and without the min term.
TEST(GemmTileNeon, IntegerTilesGiveThePortableTilesBitsOnRawBytes) {
    std::mt19937                          rng(82);
    std::uniform_real_distribution<float> scale(-2.0f, 2.0f);
    const q::GemmFormat                   forms[] = {
        {GGML_TYPE_Q8_0, 32, 128, false}, {GGML_TYPE_Q8_1, 32, 0, true},
        {GGML_TYPE_Q8_K, 16, 32, false},  {GGML_TYPE_Q8_K, 16, 0, true},
    };
    for (const q::GemmFormat & f : forms) {
        const int64_t k  = 256;
        const int64_t ng = k / f.group;
        for (int pattern = 0; pattern < 3; ++pattern) {
            // pattern 0: random bytes; 1: levels 255 against -128; 2: levels 255 against 127
            std::vector<uint8_t> panel(q::gemm_panel_bytes(f, k)), chunk(q::gemm_chunk_bytes(f, k));
            const size_t         levels = static_cast<size_t>(f.group) * q::kGemmRows;
            const size_t         x_levels = static_cast<size_t>(f.group) * q::kGemmMaxCols;
            for (int64_t g = 0; g < ng; ++g) {
                uint8_t * p = panel.data() + static_cast<size_t>(g) * q::gemm_group_bytes(f);
                uint8_t * x = chunk.data() + static_cast<size_t>(g) * (chunk.size() / static_cast<size_t>(ng));
                for (size_t i = 0; i < levels; ++i) {
                    p[i] = pattern == 0 ? static_cast<uint8_t>(rng()) : 255;
                }
                auto * s = reinterpret_cast<float *>(p + levels);
                for (int r = 0; r < 2 * q::kGemmRows; ++r) {
                    s[r] = scale(rng); // the scales, then the min terms
                }
                for (size_t i = 0; i < x_levels; ++i) {
                    x[i] = pattern == 0 ? static_cast<uint8_t>(rng()) : pattern == 1 ? 0x80 : 0x7f;
                }
                auto * aux = reinterpret_cast<q::GemmColumnAux *>(x + x_levels);
                for (int c = 0; c < q::kGemmMaxCols; ++c) {
                    aux[c].da = scale(rng);
                    if (f.has_min) {
                        const float min_sum = scale(rng);
                        std::memcpy(&aux[c].word, &min_sum, sizeof(min_sum));
                    } else {
                        aux[c].word = static_cast<int32_t>(rng() % 2000001) - 1000000;
                    }
                }
            }
            for (const auto & [tile, name] : neon_int_tiles()) {
                for (int rows : {16, 5}) {
                    for (int cols = 1; cols <= q::kGemmMaxCols; ++cols) {
                        expect_portable_bits(tile, f, panel.data(), chunk.data(), k, rows, cols,
                                             name + ", group " + std::to_string(f.group) +
                                                 (f.has_min ? " with min" : "") + ", pattern " +
                                                 std::to_string(pattern) + ", " + std::to_string(rows) + " rows, " +
                                                 std::to_string(cols) + " columns");
                    }
                }
            }
        }
    }
}

// The weights of `rows` rows (f32, or f16 converted) and one column of the chunk: the fma chain the tile computes.
float fma_chain(ggml_type type, const uint8_t * row, const float * chunk, int col, int64_t k) {
    float acc = 0.0f;
    for (int64_t i = 0; i < k; ++i) {
        float w;
        if (type == GGML_TYPE_F16) {
            ggml_fp16_t h;
            std::memcpy(&h, row + i * 2, sizeof(h));
            w = ggml_fp16_to_fp32(h);
        } else {
            std::memcpy(&w, row + i * 4, sizeof(w));
        }
        acc = std::fma(w, chunk[i * q::kGemmFloatCols + col], acc);
    }
    return acc;
}

TEST(GemmTileNeon, FloatTileIsAChainOfFusedMultiplyAdds) {
    ASSERT_EQ(q::gemm_float_cols(GGML_TYPE_F32, 64), q::kGemmFloatCols);
    std::mt19937 rng(83);
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        for (int64_t k : {2, 6, 8, 38, 600}) {
            const int64_t              n_rows = 2 * q::kGemmRows;
            const std::vector<uint8_t> w      = quantized_rows(type, n_rows, k, rng);
            const size_t               w_row  = ggml_row_size(type, k);
            std::vector<float>         chunk(q::gemm_float_chunk_bytes(type, k) / sizeof(float), NAN);
            for (int c = 0; c < q::kGemmFloatCols; ++c) {
                const std::vector<float> x = normal_floats(rng, k, c % 2 ? 4.0f : 0.5f);
                q::gemm_float_activation(type, x.data(), k, chunk.data(), c);
            }
            // one panel, a partial one, two, a full one and a partial second
            for (const auto & [rows, rows2] :
                 {std::pair{16, 0}, std::pair{5, 0}, std::pair{16, 16}, std::pair{16, 3}}) {
                // garbage: the packer must write every float of the panel
                std::vector<float> panel(q::gemm_float_panel_bytes(type, k) / sizeof(float), NAN), panel2(panel);
                q::gemm_float_pack_neon(type, w.data(), w_row, rows, k, panel.data());
                q::gemm_float_pack_neon(type, w.data() + q::kGemmRows * w_row, w_row, rows2, k, panel2.data());
                for (int cols = 1; cols <= q::kGemmFloatCols; ++cols) {
                    constexpr int64_t  out_col = 2 * q::kGemmRows + 3;
                    std::vector<float> out(static_cast<size_t>(out_col * cols), -7.0f);
                    q::GemmTileArgs    a{panel.data(), k, chunk.data(), cols, rows, out.data(), out_col};
                    if (rows2 > 0) {
                        a.panel2 = panel2.data();
                        a.rows2  = rows2;
                    }
                    q::gemm_float_tile_neon(a);
                    int failures = 0;
                    for (int c = 0; c < cols; ++c) {
                        for (int r = 0; r < out_col; ++r) {
                            const bool  written = r < rows || (r >= q::kGemmRows && r < q::kGemmRows + rows2);
                            const float want    = written ? fma_chain(type, w.data() + r * w_row, chunk.data(), c, k)
                                                          : -7.0f;
                            const float got     = out[static_cast<size_t>(r + c * out_col)];
                            if (bits(got) != bits(want) && failures++ < 3) {
                                ADD_FAILURE() << ggml_type_name(type) << " k " << k << ", rows " << rows << " + "
                                              << rows2 << ", " << cols << " columns: row " << r << " column " << c
                                              << ": " << got << ", want " << want;
                            }
                        }
                    }
                }
            }
        }
    }
}

TEST(GemmTileNeon, TheColumnTakesTheDotprodTileWhereTheCpuHasIt) {
    const switchyard::cpu::IsaColumn & neon = switchyard::cpu::isa_column(switchyard::IsaLevel::kNeon);
    EXPECT_EQ(neon.gemm_tile, switchyard::cpu_features().dotprod ? q::gemm_tile_neon_dotprod : q::gemm_tile_neon);
    EXPECT_NE(neon.gemm_float, nullptr);
    if (!switchyard::cpu_features().neon) {
        EXPECT_EQ(q::gemm_tile_fast(), nullptr) << "capped below NEON: no integer tile";
        return;
    }
    EXPECT_EQ(q::gemm_tile_fast(), neon.gemm_tile);
    EXPECT_TRUE(q::gemm_float_available(GGML_TYPE_F32));
    EXPECT_TRUE(q::gemm_float_available(GGML_TYPE_F16));
    EXPECT_FALSE(q::gemm_float_available(GGML_TYPE_BF16));
}

} // namespace

#endif // __aarch64__
