// The integer GEMM (src/cpu/quants/gemm.h): its tiles directly, the portable one and the one this CPU runs, on
// every weight type with a GEMM form, with quantized and random-byte weights (every level and scale pattern),
// partial panels and every column count of a tile; and MUL_MAT graphs that take the GEMM path (more columns than
// the matrix-vector path takes) with broadcasting, F16 activations and 1 to 3 threads. Every result must be
// upstream's product (the dequantized weights times the q8-rounded activations, tools/conformance/reference) to float
// rounding.
#include "kernel_test_util.h"
#include "matvec_test_util.h"

#include "cpu/kernels/mul_mat/gemm.h"
#include "cpu/kernels/mul_mat/vec.h"
#include "cpu/quants/gemm.h"
#include "cpu/quants/gemm_float.h"
#include "cpu/quants/matvec.h"
#include "cpu/simd/isa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using switchyard::testing::reference::upstream_product;
using namespace switchyard::kernel_test;
using namespace switchyard::matvec_test;
namespace q = switchyard::cpu::quants;

// (but ggml 0.25.1's q1_0, q2_0 and nvfp4, which take their matrix-vector kernel at every batch size, as upstream)
TEST(GemmFormat, EveryQuantizedTypeWithAMatVecKernelHasOne) {
    for (ggml_type t : weight_types()) {
        const bool matvec_only = t == GGML_TYPE_Q1_0 || t == GGML_TYPE_Q2_0 || t == GGML_TYPE_NVFP4;
        const bool quantized   = ggml_is_quantized(t) && !matvec_only;
        const q::GemmFormat f = q::gemm_format(t);
        EXPECT_EQ(f.act_type != GGML_TYPE_COUNT, quantized) << ggml_type_name(t);
        if (quantized) {
            EXPECT_EQ(f.act_type, q::act_type_for(t)) << ggml_type_name(t) << ": upstream's activation format";
            EXPECT_TRUE(f.group == 32 || f.group == 16) << ggml_type_name(t);
        }
    }
    EXPECT_EQ(q::gemm_format(GGML_TYPE_F32).act_type, GGML_TYPE_COUNT);
}

// Packs `rows` weight rows, converts `cols` activation columns and runs `tile` on them; compares every product.
void check_tile(q::GemmTileFn tile, ggml_type type, const std::vector<uint8_t> & w, int rows, int cols, int64_t k,
                std::mt19937 & rng, const std::string & what) {
    const q::GemmFormat f  = q::gemm_format(type);
    const size_t        wr = ggml_row_size(type, k);
    std::vector<uint8_t> panel(q::gemm_panel_bytes(f, k), 0xAB); // garbage: packing must write every byte it reads
    q::gemm_pack(type, w.data(), wr, rows, k, panel.data());
    std::vector<uint8_t>            chunk(q::gemm_chunk_bytes(f, k), 0xCD); // columns >= cols stay garbage
    std::vector<uint8_t>            scratch(ggml_row_size(f.act_type, k));
    std::vector<std::vector<float>> x;
    for (int c = 0; c < cols; ++c) {
        x.push_back(normal_floats(rng, k, c % 2 ? 3.0f : 0.2f));
        q::gemm_activation(f, x.back().data(), k, scratch.data(), chunk.data(), c);
    }
    const int64_t      out_col = 21; // rows of the output per column, more than the tile writes
    std::vector<float> out(static_cast<size_t>(out_col * cols), -7.0f);
    q::GemmTileArgs    a{panel.data(), k, chunk.data(), cols, rows, out.data(), out_col};
    tile(f, a);
    int failures = 0;
    for (int c = 0; c < cols; ++c) {
        for (int r = 0; r < out_col; ++r) {
            const float got = out[static_cast<size_t>(r + c * out_col)];
            if (r >= rows) {
                EXPECT_EQ(got, -7.0f) << what << ": wrote row " << r << " past the panel's " << rows;
                continue;
            }
            const uint8_t * row  = w.data() + static_cast<size_t>(r) * wr;
            const double    want = upstream_product(type, row, x[c].data(), k);
            if (std::fabs(got - want) > tolerance(type, row, x[c].data(), k) && failures++ < 3) {
                ADD_FAILURE() << what << " row " << r << " column " << c << ": got " << got << ", want " << want;
            }
        }
    }
}

TEST(GemmPack, VectorAndPortablePackersWriteTheSameBytes) {
    std::mt19937 rng(40);
    for (ggml_type type : gemm_types()) {
        const q::GemmFormat f = q::gemm_format(type);
        for (int64_t k : {int64_t{256}, int64_t{768}}) {
            for (bool random_bytes : {false, true}) {
                const std::vector<uint8_t> w =
                    random_bytes ? random_block_rows(type, 16, k, rng) : quantized_rows(type, 16, k, rng);
                for (int rows : {16, 1, 9}) {
                    std::vector<uint8_t> fast(q::gemm_panel_bytes(f, k), 0x11), portable(fast.size(), 0x22);
                    q::gemm_pack(type, w.data(), ggml_row_size(type, k), rows, k, fast.data());
                    q::gemm_pack_portable(type, w.data(), ggml_row_size(type, k), rows, k, portable.data());
                    const auto diff = std::mismatch(fast.begin(), fast.end(), portable.begin());
                    EXPECT_TRUE(diff.first == fast.end())
                        << ggml_type_name(type) << ", k " << k << ", " << rows << " rows"
                        << (random_bytes ? ", random bytes" : "") << ": first difference at byte "
                        << (diff.first - fast.begin()) << " of " << fast.size() << " (group "
                        << (diff.first - fast.begin()) / static_cast<ptrdiff_t>(q::gemm_group_bytes(f)) << ")";
                }
            }
        }
    }
}

TEST(GemmTile, PortableAndFastTilesGiveUpstreamsProduct) {
    std::vector<std::pair<q::GemmTileFn, const char *>> tiles = {{q::gemm_tile_scalar, "scalar"}};
    if (q::gemm_tile_fast() != nullptr) {
        tiles.emplace_back(q::gemm_tile_fast(), "fast");
    }
    std::mt19937 rng(41);
    for (ggml_type type : gemm_types()) {
        const int64_t k = ggml_blck_size(type) == 256 ? 512 : 96;
        for (bool random_bytes : {false, true}) {
            const std::vector<uint8_t> w =
                random_bytes ? random_block_rows(type, 16, k, rng) : quantized_rows(type, 16, k, rng);
            for (const auto & [tile, name] : tiles) {
                for (int rows : {16, 1, 7}) {
                    for (int cols = 1; cols <= q::kGemmMaxCols; ++cols) {
                        check_tile(tile, type, w, rows, cols, k, rng,
                                   std::string(name) + " " + ggml_type_name(type) + (random_bytes ? " random" : "") +
                                       ", " + std::to_string(rows) + " rows, " + std::to_string(cols) + " columns");
                    }
                }
            }
        }
    }
}

// A call with two panels (GemmTileArgs::panel2: 16 rows, then 1 .. 16 more at out + 16) gives, bit for bit, what two
// one-panel calls give: every output keeps the one-panel tile's arithmetic (the batch invariance of the repacked
// weights relies on it: their GEMM passes pair the expanded panels, their decode tile takes one).
TEST(GemmTile, TwoPanelsPerCallGiveTheOnePanelBits) {
    std::vector<std::pair<q::GemmTileFn, const char *>> tiles = {{q::gemm_tile_scalar, "scalar"}};
    if (q::gemm_tile_fast() != nullptr) {
        tiles.emplace_back(q::gemm_tile_fast(), "fast");
    }
    std::mt19937 rng(45);
    for (ggml_type type : gemm_types()) {
        const q::GemmFormat f  = q::gemm_format(type);
        const int64_t       k  = ggml_blck_size(type) == 256 ? 512 : 96;
        const size_t        wr = ggml_row_size(type, k), pb = q::gemm_panel_bytes(f, k);
        const std::vector<uint8_t> w = random_block_rows(type, 32, k, rng);
        std::vector<uint8_t>       panels(2 * pb);
        q::gemm_pack(type, w.data(), wr, 16, k, panels.data());
        std::vector<uint8_t> chunk(q::gemm_chunk_bytes(f, k));
        std::vector<uint8_t> scratch(ggml_row_size(f.act_type, k));
        for (int c = 0; c < q::kGemmMaxCols; ++c) {
            const std::vector<float> x = normal_floats(rng, k, c % 2 ? 3.0f : 0.2f);
            q::gemm_activation(f, x.data(), k, scratch.data(), chunk.data(), c);
        }
        for (const auto & [tile, name] : tiles) {
            for (int rows2 : {16, 1, 11}) {
                q::gemm_pack(type, w.data() + 16 * wr, wr, rows2, k, panels.data() + pb);
                for (int cols = 1; cols <= q::kGemmMaxCols; ++cols) {
                    const int64_t   out_col = 40; // more rows than the two panels write
                    std::vector<float> two(static_cast<size_t>(out_col * cols), -7.0f), one(two);
                    q::GemmTileArgs a{panels.data(), k, chunk.data(), cols, 16, two.data(), out_col};
                    a.panel2 = panels.data() + pb;
                    a.rows2  = rows2;
                    tile(f, a);
                    q::GemmTileArgs b{panels.data(), k, chunk.data(), cols, 16, one.data(), out_col};
                    tile(f, b);
                    b.panel = panels.data() + pb;
                    b.rows  = rows2;
                    b.out   = one.data() + 16;
                    tile(f, b);
                    EXPECT_EQ(0, std::memcmp(two.data(), one.data(), two.size() * sizeof(float)))
                        << name << " " << ggml_type_name(type) << ", " << rows2 << " rows in the second panel, " << cols
                        << " columns";
                    EXPECT_EQ(two[static_cast<size_t>(16 + rows2)], -7.0f) << name << ": wrote past the second panel";
                }
            }
        }
    }
}

// The fast tile's floats follow gemm.h's order, recomputed here from the panel's and the chunk's bytes step by step
// (x86-64's vector tiles fuse each multiply-add, the NEON tiles round each product and sum as the portable tile
// does): with q8_0 / q8_1 activations each group into the output,
// out = fma(sum, s * da, out), then out = fma(m, min_sum, out); with q8_K activations (the K-quants, i-quants and
// ternary types) the groups of a super-block into t, t = fma(sum, s, t), then t = fma(m, sum(q), t), and the
// super-block into the output once, out = fma(t, da, out). The q8_K formats with a min carry the plain sum(q) in the
// column's word. The batch invariance of the repacked weights rests on every tile computing this one order.
TEST(GemmTile, FastTileScalesInTheDocumentedFloatOrder) {
    if (q::gemm_tile_fast() == nullptr) {
        GTEST_SKIP() << "no integer GEMM tile faster than the portable one on this CPU";
    }
#if defined(__aarch64__)
    const auto fma = [](float a, float b, float c) { return a * b + c; }; // (the build does not contract it)
#else
    const auto fma = [](float a, float b, float c) { return std::fma(a, b, c); };
#endif
    std::mt19937 rng(46);
    int          superblock_formats = 0;
    for (ggml_type type : gemm_types()) {
        const q::GemmFormat f = q::gemm_format(type);
        const int64_t       k = 512, ng = k / f.group;
        const int           per = f.act_type == GGML_TYPE_Q8_K ? 256 / f.group : 1;
        superblock_formats += per > 1;
        EXPECT_EQ(q::gemm_scales_per_superblock(f), per > 1) << ggml_type_name(type);
        const std::vector<uint8_t> w = random_block_rows(type, 16, k, rng);
        std::vector<uint8_t>       panel(q::gemm_panel_bytes(f, k));
        q::gemm_pack(type, w.data(), ggml_row_size(type, k), 16, k, panel.data());
        std::vector<uint8_t> chunk(q::gemm_chunk_bytes(f, k));
        std::vector<uint8_t> scratch(ggml_row_size(f.act_type, k));
        for (int c = 0; c < q::kGemmMaxCols; ++c) {
            const std::vector<float> x = normal_floats(rng, k, c % 2 ? 3.0f : 0.2f);
            q::gemm_activation(f, x.data(), k, scratch.data(), chunk.data(), c);
        }
        const size_t gb = q::gemm_group_bytes(f), cb = q::gemm_chunk_bytes(f, k) / static_cast<size_t>(ng);
        // group g's panel factor (0: s, 1: m) of row r, chunk levels and (da, word) of column c
        const auto factor = [&](int64_t g, int which, int r) {
            float v;
            std::memcpy(&v, panel.data() + g * gb + f.group * 16 + (which * 16 + r) * 4, 4);
            return v;
        };
        const auto level = [&](int64_t g, int e, int r) { return panel[g * gb + (e / 4 * 16 + r) * 4 + e % 4]; };
        const auto act   = [&](int64_t g, int e, int c) {
            return static_cast<int8_t>(chunk[g * cb + (e / 4 * 8 + c) * 4 + e % 4]);
        };
        const auto aux = [&](int64_t g, int c) {
            q::GemmColumnAux a;
            std::memcpy(&a, chunk.data() + g * cb + f.group * 8 + c * 8, 8);
            return a;
        };
        std::vector<float> out(16 * q::kGemmMaxCols);
        q::gemm_tile_fast()(f, q::GemmTileArgs{panel.data(), k, chunk.data(), q::kGemmMaxCols, 16, out.data(), 16});
        int failures = 0;
        for (int c = 0; c < q::kGemmMaxCols; ++c) {
            for (int r = 0; r < 16; ++r) {
                float want = 0.0f;
                for (int64_t g0 = 0; g0 < ng; g0 += per) {
                    float t = 0.0f;
                    for (int64_t g = g0; g < g0 + per; ++g) {
                        const q::GemmColumnAux a = aux(g, c);
                        int32_t                dot = f.has_min ? 0 : a.word, sum_q = 0;
                        for (int e = 0; e < f.group; ++e) {
                            dot += level(g, e, r) * act(g, e, c);
                            sum_q += act(g, e, c);
                        }
                        float word;
                        std::memcpy(&word, &a.word, 4);
                        if (per > 1 && f.has_min && word != static_cast<float>(sum_q) && failures++ < 3) {
                            ADD_FAILURE() << ggml_type_name(type) << ": column " << c << "'s word of group " << g
                                          << " is " << word << ", not sum(q) " << sum_q;
                        }
                        float & into = per > 1 ? t : want;
                        into = fma(static_cast<float>(dot), per > 1 ? factor(g, 0, r) : factor(g, 0, r) * a.da, into);
                        if (f.has_min) {
                            into = fma(factor(g, 1, r), word, into);
                        }
                    }
                    if (per > 1) {
                        want = fma(t, aux(g0, c).da, want);
                    }
                }
                const float got = out[static_cast<size_t>(r + 16 * c)];
                if (std::memcmp(&got, &want, sizeof(got)) != 0 && failures++ < 3) {
                    ADD_FAILURE() << ggml_type_name(type) << " row " << r << " column " << c << ": tile " << got
                                  << ", the documented order " << want;
                }
            }
        }
    }
    EXPECT_GE(superblock_formats, 10) << "the K-quants, i-quants and ternary types take q8_K activations";
}

// MUL_MAT graphs on the GEMM paths (integer and float, gemm_float.h): a [k, rows, 2, 3] broadcast over
// b [k, cols, 4, 3].
TEST(GemmMulMat, BroadcastF16ActivationsAndThreadCountsGiveUpstreamsProduct) {
    std::mt19937           rng(42);
    std::vector<ggml_type> types = gemm_types();
    types.insert(types.end(), {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16});
    for (ggml_type type : types) {
        const int64_t k = ggml_blck_size(type) == 256 ? 256 : 64;
        for (ggml_type b_type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            Ctx           ctx;
            ggml_tensor * a = ggml_new_tensor_4d(ctx, type, k, 29, 2, 3); // float tiles: a pair with a partial second panel
            ggml_tensor * b = ggml_new_tensor_4d(ctx, b_type, k, 41, 4, 3);
            const std::vector<uint8_t> bytes = quantized_rows(type, ggml_nrows(a), k, rng);
            std::memcpy(a->data, bytes.data(), bytes.size());
            fill(b, rng);
            ggml_tensor * out = ggml_mul_mat(ctx, a, b);
            const bool fast = ggml_is_quantized(type) ? q::gemm_tile_fast() != nullptr : q::gemm_float_available(type);
            EXPECT_EQ(switchyard::cpu::kernels::mul_mat_gemm_applies(out), fast) << ggml_type_name(type);
            for (int nt : {1, 2, 3}) {
                ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
                const int64_t r2 = b->ne[2] / a->ne[2], r3 = b->ne[3] / a->ne[3];
                int           failures = 0;
                for (int64_t i3 = 0; i3 < out->ne[3]; ++i3) {
                    for (int64_t i2 = 0; i2 < out->ne[2]; ++i2) {
                        for (int64_t m = 0; m < out->ne[1]; ++m) {
                            std::vector<float> x(static_cast<size_t>(k));
                            for (int64_t i = 0; i < k; ++i) {
                                x[i] = static_cast<float>(get(b, i, m, i2, i3));
                            }
                            for (int64_t n = 0; n < out->ne[0]; ++n) {
                                const char * row = static_cast<const char *>(a->data) + n * a->nb[1] +
                                                   (i2 / r2) * a->nb[2] + (i3 / r3) * a->nb[3];
                                const double want = upstream_product(type, row, x.data(), k);
                                const double got  = get(out, n, m, i2, i3);
                                if (std::fabs(got - want) > tolerance(type, row, x.data(), k) && failures++ < 3) {
                                    ADD_FAILURE() << ggml_type_name(type) << " x " << ggml_type_name(b_type) << ", "
                                                  << nt << " threads, at (" << n << ", " << m << ", " << i2 << ", "
                                                  << i3 << "): got " << got << ", want " << want;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

// A 2-D weight of `rows` x k (f32, f16, bf16 or a quantized type) times `cols` f32 columns (past the matrix-vector
// path's columns), on the GEMM, at 1 and 2 threads: every output equals upstream's product to its tolerance.
void expect_float_gemm_gives_upstreams_product(ggml_type type, int64_t k, int64_t rows, std::mt19937 & rng,
                                               int64_t cols = 37) {
    Ctx           ctx;
    ggml_tensor * a = ggml_new_tensor_2d(ctx, type, k, rows);
    ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, cols);
    const std::vector<uint8_t> bytes = quantized_rows(type, ggml_nrows(a), k, rng);
    std::memcpy(a->data, bytes.data(), bytes.size());
    fill(b, rng);
    ggml_tensor * out = ggml_mul_mat(ctx, a, b);
    const bool fast = ggml_is_quantized(type) ? q::gemm_tile_fast() != nullptr : q::gemm_float_available(type);
    ASSERT_EQ(switchyard::cpu::kernels::mul_mat_gemm_applies(out), fast);
    for (int nt : {1, 2}) {
        ASSERT_EQ(compute(ctx, out, nt), GGML_STATUS_SUCCESS);
        int failures = 0;
        for (int64_t m = 0; m < out->ne[1]; ++m) {
            std::vector<float> x(static_cast<size_t>(k));
            for (int64_t i = 0; i < k; ++i) {
                x[i] = static_cast<float>(get(b, i, m, 0, 0));
            }
            for (int64_t n = 0; n < out->ne[0]; ++n) {
                const char * row  = static_cast<const char *>(a->data) + n * a->nb[1];
                const double want = upstream_product(type, row, x.data(), k);
                const double got  = get(out, n, m, 0, 0);
                if (std::fabs(got - want) > tolerance(type, row, x.data(), k) && failures++ < 3) {
                    ADD_FAILURE() << ggml_type_name(type) << ", k " << k << ", " << rows << " rows, " << cols
                                  << " columns, " << nt
                                  << " threads, at (" << n << ", " << m << "): got " << got << ", want " << want;
                }
            }
        }
    }
}

// The f32 / f16 tiles over a longer k (600: no multiple of 256 or 64), rows of a full panel pair and a lone
// partial panel.
TEST(GemmMulMat, FloatTilesOverALongerKGiveUpstreamsProduct) {
    std::mt19937 rng(43);
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        expect_float_gemm_gives_upstreams_product(type, 600, 45, rng);
    }
}

// The f32 / f16 GEMM over row counts around whole groups of two and three panels (40, 47, 48, 49, 100 rows: a
// partial last panel, exact multiples, one row over), 1 and 2 threads.
TEST(GemmMulMat, FloatTilesOverPartialPanelGroupsGiveUpstreamsProduct) {
    std::mt19937 rng(44);
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        for (int64_t rows : {40, 47, 48, 49, 100}) {
            expect_float_gemm_gives_upstreams_product(type, 200, rows, rng);
        }
    }
}

// The bf16 and f16 GEMMs: on the AMX tiles where the CPU has AMX and k is a multiple of 32 (96), on the
// vdpbf16ps / FMA tiles otherwise (100, or the CPU capped below AMX): column counts around the AMX chunks (bf16: 32
// columns in two halves of 16; f16: 16) (33, 47, 49, 64, 70), rows of one full panel, of a pair with a partial
// second panel, of three panels and one row.
TEST(GemmMulMat, AmxTilesOverColumnAndRowEdgesGiveUpstreamsProduct) {
    const bool amx = switchyard::cpu::simd::isa_supported(switchyard::cpu::simd::Isa::kAmx);
    EXPECT_EQ(q::gemm_float_amx(GGML_TYPE_BF16, 96), amx);
    EXPECT_EQ(q::gemm_float_amx(GGML_TYPE_F16, 96), amx);
    EXPECT_FALSE(q::gemm_float_amx(GGML_TYPE_BF16, 100));
    EXPECT_FALSE(q::gemm_float_amx(GGML_TYPE_F32, 96));
    EXPECT_EQ(q::gemm_float_cols(GGML_TYPE_BF16, 96), amx ? q::kGemmAmxCols : q::kGemmMaxCols);
    EXPECT_EQ(q::gemm_float_cols(GGML_TYPE_F16, 96), amx ? q::kGemmAmxF16Cols : q::kGemmFloatCols);
    std::mt19937 rng(45);
    for (ggml_type type : {GGML_TYPE_BF16, GGML_TYPE_F16}) {
        for (int64_t k : {96, 100}) {
            for (int64_t rows : {16, 29, 49}) {
                for (int64_t cols : {33, 47, 49, 64, 70}) {
                    expect_float_gemm_gives_upstreams_product(type, k, rows, rng, cols);
                }
            }
        }
    }
}

// The integer GEMM (on AMX tiles where the CPU has AMX: chunks of 16 columns, two panels per call; on the VNNI
// tile otherwise) over column counts around the chunks and row counts around the panel pairs, for formats without
// a min term (q4_0, q8_0), with one (q4_1, q4_K) and with groups of 16 (q6_K, q2_K).
TEST(GemmMulMat, IntegerTilesOverColumnAndRowEdgesGiveUpstreamsProduct) {
    EXPECT_EQ(q::gemm_int_amx(), switchyard::cpu::simd::isa_supported(switchyard::cpu::simd::Isa::kAmx));
    std::mt19937 rng(48);
    for (ggml_type type : {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_1, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K, GGML_TYPE_Q2_K}) {
        for (int64_t rows : {16, 29, 49}) {
            for (int64_t cols : {33, 47, 49, 70}) {
                expect_float_gemm_gives_upstreams_product(type, 256, rows, rng, cols);
            }
        }
    }
}

// f16 weights and activations that are infinite, NaN, subnormal in f16 or at its largest finite value: the AMX
// split (hi + lo) keeps infinities and NaNs as upstream's f16 product has them and loses no subnormal.
TEST(GemmMulMat, F16SpecialValuesGiveUpstreamsProduct) {
    constexpr int64_t k = 64, rows = 20, cols = 40;
    Ctx               ctx;
    ggml_tensor *     a = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, k, rows);
    ggml_tensor *     b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, cols);
    auto *            w = static_cast<ggml_fp16_t *>(a->data);
    auto *            x = static_cast<float *>(b->data);
    std::mt19937      rng(46);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int64_t i = 0; i < k * rows; ++i) {
        w[i] = ggml_fp32_to_fp16(u(rng));
    }
    for (int64_t i = 0; i < k * cols; ++i) {
        x[i] = u(rng);
    }
    // row 1: an infinity; row 2: a NaN; row 3: f16 subnormals (2^-24 .. 1023 * 2^-24) and 65504; column 1: an
    // activation past f16's range (rounds to infinity, as upstream rounds it); column 2: f16 subnormal activations
    w[1 * k + 5] = ggml_fp32_to_fp16(INFINITY);
    w[2 * k + 7] = ggml_fp32_to_fp16(NAN);
    for (int64_t i = 0; i < k; ++i) {
        w[3 * k + i] = static_cast<ggml_fp16_t>(i % 2 == 0 ? 1 + i * 15 : 0x7bff); // subnormal bit patterns, 65504
        x[2 * k + i] = std::ldexp(static_cast<float>(i + 1), -24);
    }
    x[1 * k + 9] = 1e6f;
    ggml_tensor * out = ggml_mul_mat(ctx, a, b);
    ASSERT_EQ(compute(ctx, out, 2), GGML_STATUS_SUCCESS);
    for (int64_t m = 0; m < cols; ++m) {
        for (int64_t n = 0; n < rows; ++n) {
            const char * row  = static_cast<const char *>(a->data) + n * a->nb[1];
            const double want = upstream_product(GGML_TYPE_F16, row, x + m * k, k);
            const double got  = get(out, n, m, 0, 0);
            if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(got)) << "at (" << n << ", " << m << ")";
            } else if (std::isinf(want)) {
                EXPECT_EQ(got, want) << "at (" << n << ", " << m << ")";
            } else {
                EXPECT_NEAR(got, want, tolerance(GGML_TYPE_F16, row, x + m * k, k)) << "at (" << n << ", " << m << ")";
            }
        }
    }
}

// The f16 split (gemm_float.h) over every f16 value: hi + lo is the value exactly, hi keeps its top 16 bits; where
// the rest is zero (or the value infinite) lo is 2^-126 with the value's sign; zero splits into zeros, NaN into a NaN.
TEST(GemmFloatSplit, EveryF16ValueIsHiPlusLoExactly) {
    for (uint32_t h = 0; h < 65536; ++h) {
        const float v = ggml_fp16_to_fp32(static_cast<ggml_fp16_t>(h));
        uint16_t    hi = 0, lo = 0;
        q::gemm_float_split_f16(v, &hi, &lo);
        const float hi_f = ggml_bf16_to_fp32(ggml_bf16_t{hi}), lo_f = ggml_bf16_to_fp32(ggml_bf16_t{lo});
        const float tiny = std::copysign(std::ldexp(1.0f, -126), v);
        if (std::isnan(v)) {
            EXPECT_TRUE(std::isnan(hi_f)) << h;
        } else if (std::isinf(v)) {
            EXPECT_EQ(hi_f, v) << h;
            EXPECT_EQ(lo_f, tiny) << h;
        } else if (v == 0.0f) {
            EXPECT_EQ(hi_f, 0.0f) << h;
            EXPECT_EQ(lo_f, 0.0f) << h;
        } else if (lo_f == tiny) {
            EXPECT_EQ(hi_f, v) << h; // the value has at most 8 significant bits
        } else {
            EXPECT_EQ(static_cast<double>(hi_f) + lo_f, static_cast<double>(v)) << h;
            EXPECT_NE(lo_f, 0.0f) << h;
            EXPECT_LT(std::fabs(lo_f), std::ldexp(std::fabs(hi_f), -7)) << h; // lo holds the bits below hi's 8
        }
    }
}

// The AMX f16 panel: per block of 32 elements a hi B tile then a lo B tile, pair-row s holding (element 2s, element
// 2s + 1) of each of the 16 rows, each part split by the rule above; rows past `rows` are zero.
TEST(GemmFloatSplit, AmxF16PanelHoldsTheSplitPairs) {
    if (!q::gemm_float_amx(GGML_TYPE_F16, 64)) {
        GTEST_SKIP() << "this CPU has no AMX (or SWITCHYARD_CPU_ISA caps it)";
    }
    constexpr int64_t k = 64;
    constexpr int     rows = 13;
    std::mt19937      rng(47);
    std::vector<ggml_fp16_t> w(static_cast<size_t>(rows * k));
    for (auto & h : w) {
        h = static_cast<ggml_fp16_t>(rng() & 0xffff);
    }
    w[3] = 0x7c00; // inf
    w[4] = 0x0000;
    w[5] = 0x3c00; // 1.0: 8 significant bits or fewer
    std::vector<uint16_t> panel(static_cast<size_t>(k * 16 * 2), 0xdead);
    q::gemm_float_pack(GGML_TYPE_F16, w.data(), k * sizeof(ggml_fp16_t), rows, k, panel.data());
    for (int r = 0; r < 16; ++r) {
        for (int64_t e = 0; e < k; ++e) {
            uint16_t hi = 0, lo = 0;
            if (r < rows) {
                q::gemm_float_split_f16(ggml_fp16_to_fp32(w[static_cast<size_t>(r * k + e)]), &hi, &lo);
            }
            const int64_t b = e / 32, s = (e % 32) / 2;
            const size_t  at = static_cast<size_t>(b * 1024 + s * 32 + r * 2 + e % 2);
            const float   v  = r < rows ? ggml_fp16_to_fp32(w[static_cast<size_t>(r * k + e)]) : 0.0f;
            if (std::isnan(v)) {
                EXPECT_TRUE(std::isnan(ggml_bf16_to_fp32(ggml_bf16_t{panel[at]}))) << r << ", " << e;
                continue;
            }
            EXPECT_EQ(panel[at], hi) << "hi of row " << r << ", element " << e;
            EXPECT_EQ(panel[at + 512], lo) << "lo of row " << r << ", element " << e;
        }
    }
}

} // namespace
