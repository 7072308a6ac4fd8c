// Weights repacked at load time (src/cpu/repack): the layout's packer, tiles and expanders directly (round trip of
// the original bytes, the portable and the fast tile against upstream's product and against the integer GEMM's own
// tile, the expanded panels against the GEMM's packer byte for byte), then the CPU_REPACK buffer type through the
// public API: listed by ggml_backend_dev_get_extra_bufts, get_tensor returns the bytes set, MUL_MAT by 1 .. 100
// columns at 1 and 3 threads equals the plain CPU kernel and upstream's product, and around the column count where
// passes are expanded equals the GEMM's tiles exactly, supports_op refuses what the kernel does not handle, tensors
// that are not repackable are stored plainly, and the scheduler runs the product on the CPU.
#include "kernel_test_util.h"
#include "quant/formats.h"
#include "matvec_test_util.h"

#include "cpu/kernels/mul_mat/vec.h"
#include "cpu/quants/gemm.h"
#include "cpu/quants/gemm_float.h"
#include "cpu/repack/buffer_type.h"
#include "cpu/repack/format.h"
#include "cpu/repack/mul_mat.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace {

using switchyard::testing::reference::upstream_product;
using namespace switchyard::matvec_test;
namespace q  = switchyard::cpu::quants;
namespace rp = switchyard::cpu::repack;

const ggml_type kTypes[] = {GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
                             GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K,
                             GGML_TYPE_Q6_K, GGML_TYPE_IQ4_NL, GGML_TYPE_MXFP4, GGML_TYPE_Q8_0, GGML_TYPE_IQ4_XS,
                             GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0,
                             // the rows form: the rows' own bytes
                             GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S,
                             GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M};

// The float form's types: packed and unpacked on every CPU, stored repacked where this CPU has their tile.
const ggml_type kFloatTypes[] = {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16};

// Every type the layout has (kTypes, then the floats).
std::vector<ggml_type> layout_types() {
    std::vector<ggml_type> v(std::begin(kTypes), std::end(kTypes));
    v.insert(v.end(), std::begin(kFloatTypes), std::end(kFloatTypes));
    return v;
}

// The types CPU_REPACK stores repacked on this CPU for rows of k elements: kTypes, and the floats that have a tile
// (rp::repacks).
std::vector<ggml_type> buffer_types(int64_t k) {
    std::vector<ggml_type> v(std::begin(kTypes), std::end(kTypes));
    for (ggml_type t : kFloatTypes) {
        if (rp::repacks(t, k)) {
            v.push_back(t);
        }
    }
    return v;
}

// Row lengths: whole super-blocks, and for the 32-element formats (and the floats) a k that is not.
std::vector<int64_t> ks(ggml_type type) {
    return ggml_blck_size(type) == 256 ? std::vector<int64_t>{256, 512} : std::vector<int64_t>{256, 96};
}

std::vector<uint8_t> weights(ggml_type type, int64_t rows, int64_t k, bool random_bytes, std::mt19937 & rng) {
    return random_bytes ? random_block_rows(type, rows, k, rng) : quantized_rows(type, rows, k, rng);
}

TEST(RepackFormat, KeepsTheWeightsSize) {
    for (ggml_type type : layout_types()) {
        const int64_t k     = 4096;
        const double  ratio = static_cast<double>(rp::panel_bytes(type, k)) /
                             static_cast<double>(rp::kPanelRows * ggml_row_size(type, k));
        EXPECT_GE(ratio, 1.0) << ggml_type_name(type);
        EXPECT_LE(ratio, 1.06) << ggml_type_name(type); // q3_K 1.055: its header on whole cache lines
        EXPECT_EQ(rp::panel_bytes(type, k) % 64, 0u) << ggml_type_name(type);
    }
    for (ggml_type type : {GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0, GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ1_S}) {
        EXPECT_EQ(rp::panel_bytes(type, 4096), rp::kPanelRows * ggml_row_size(type, 4096))
            << ggml_type_name(type) << ": its own size (the ternary types: their d after all levels)";
    }
    EXPECT_EQ(rp::repack_form(GGML_TYPE_IQ2_XXS), rp::RepackForm::kRows);
    EXPECT_FALSE(rp::repackable_type(GGML_TYPE_Q8_1)) << "an activation format";
    EXPECT_FALSE(rp::repacks(GGML_TYPE_Q4_K, 128)) << "a part of a super-block";
    EXPECT_FALSE(rp::repacks(GGML_TYPE_F16, 95)) << "bf16 and f16 pairs";
    for (ggml_type t : kFloatTypes) { // floats: where this CPU has their tile and does not take them on AMX
        EXPECT_EQ(rp::repacks(t, 4096), rp::float_tile(t) != nullptr && !q::gemm_float_amx(t, 4096)) << ggml_type_name(t);
    }
}

TEST(RepackPack, UnpackGivesTheOriginalBytes) {
    std::mt19937 rng(50);
    for (ggml_type type : layout_types()) {
        for (int64_t k : ks(type)) {
            for (bool random_bytes : {false, true}) {
                const std::vector<uint8_t> w  = weights(type, 16, k, random_bytes, rng);
                const size_t               wr = ggml_row_size(type, k);
                for (int rows : {16, 1, 9}) {
                    std::vector<uint8_t> panel(rp::panel_bytes(type, k), 0xAB);
                    rp::pack_panel(type, w.data(), wr, rows, k, panel.data());
                    std::vector<uint8_t> back(wr * 16, 0x5A);
                    rp::unpack_panel(type, panel.data(), rows, k, back.data(), wr);
                    EXPECT_TRUE(std::equal(w.begin(), w.begin() + static_cast<ptrdiff_t>(wr * rows), back.begin()))
                        << ggml_type_name(type) << ", k " << k << ", " << rows << " rows"
                        << (random_bytes ? ", random bytes" : "");
                    EXPECT_TRUE(std::all_of(back.begin() + static_cast<ptrdiff_t>(wr * rows), back.end(),
                                            [](uint8_t b) { return b == 0x5A; }))
                        << ggml_type_name(type) << ": wrote past " << rows << " rows";
                    for (int first = 0; first < rows; first += 4) { // rows first .. first + 2 (and no more), alone
                        const int            end = std::min(rows, first + 3);
                        std::vector<uint8_t> part(wr * 4, 0x5A);
                        rp::unpack_panel_rows(type, panel.data(), first, end, k, part.data(), wr);
                        EXPECT_TRUE(std::equal(part.begin(), part.begin() + static_cast<ptrdiff_t>(wr * (end - first)),
                                               w.begin() + static_cast<ptrdiff_t>(wr * first)))
                            << ggml_type_name(type) << ", k " << k << ": rows " << first << " .. " << end - 1;
                        EXPECT_TRUE(std::all_of(part.begin() + static_cast<ptrdiff_t>(wr * (end - first)), part.end(),
                                                [](uint8_t b) { return b == 0x5A; }))
                            << ggml_type_name(type) << ": rows " << first << " .. " << end - 1 << " wrote past them";
                    }
                }
            }
        }
    }
}

// Packs `rows` rows both ways, converts `cols` columns, runs the repacked tile and the GEMM's tile of the same
// level; checks against upstream's product, and the fast tiles against each other exactly.
void check_tile(rp::TileFn tile, q::GemmTileFn gemm_tile, ggml_type type, const std::vector<uint8_t> & w, int rows,
                int cols, int64_t k, std::mt19937 & rng, const std::string & what) {
    const q::GemmFormat  f  = q::gemm_format(type);
    const size_t         wr = ggml_row_size(type, k);
    std::vector<uint8_t> panel(rp::panel_bytes(type, k), 0xAB);
    rp::pack_panel(type, w.data(), wr, rows, k, panel.data());
    std::vector<uint8_t> gemm_panel(q::gemm_panel_bytes(f, k));
    q::gemm_pack(type, w.data(), wr, rows, k, gemm_panel.data());
    std::vector<uint8_t>            chunk(q::gemm_chunk_bytes(f, k), 0xCD);
    std::vector<uint8_t>            scratch(ggml_row_size(f.act_type, k));
    std::vector<std::vector<float>> x;
    for (int c = 0; c < cols; ++c) {
        x.push_back(normal_floats(rng, k, c % 2 ? 3.0f : 0.2f));
        q::gemm_activation(f, x.back().data(), k, scratch.data(), chunk.data(), c);
    }
    const int64_t      out_col = 19;
    std::vector<float> out(static_cast<size_t>(out_col * cols), -7.0f), gemm_out(out);
    tile(type, q::GemmTileArgs{panel.data(), k, chunk.data(), cols, rows, out.data(), out_col});
    gemm_tile(f, q::GemmTileArgs{gemm_panel.data(), k, chunk.data(), cols, rows, gemm_out.data(), out_col});
    if (cols < q::kGemmMaxCols) { // a narrow chunk of just these columns (decoding: one): the same bits
        const size_t cb = static_cast<size_t>(k / f.group) * static_cast<size_t>((f.group + 8) * cols);
        EXPECT_EQ(q::gemm_chunk_bytes(f, k, cols), cb) << what;
        std::vector<uint8_t> narrow(cb, 0xCD);
        for (int c = 0; c < cols; ++c) {
            q::gemm_activation(f, x[static_cast<size_t>(c)].data(), k, scratch.data(), narrow.data(), c, cols);
        }
        std::vector<float> narrow_out(out.size(), -7.0f);
        q::GemmTileArgs    na{panel.data(), k, narrow.data(), cols, rows, narrow_out.data(), out_col};
        na.chunk_cols = cols;
        tile(type, na);
        for (size_t i = 0; i < out.size(); ++i) {
            EXPECT_EQ(narrow_out[i], out[i]) << what << ", narrow chunk, output " << i;
        }
    }
    const bool exact = tile != rp::tile_scalar; // the fast tiles compute in the same order
    int        failures = 0;
    for (int c = 0; c < cols; ++c) {
        for (int r = 0; r < out_col; ++r) {
            const size_t i = static_cast<size_t>(r + c * out_col);
            if (r >= rows) {
                EXPECT_EQ(out[i], -7.0f) << what << ": wrote row " << r;
                continue;
            }
            const uint8_t * row  = w.data() + static_cast<size_t>(r) * wr;
            const double    want = upstream_product(type, row, x[c].data(), k);
            const double    tol  = tolerance(type, row, x[c].data(), k);
            if ((std::fabs(out[i] - want) > tol || (exact ? out[i] != gemm_out[i] : std::fabs(out[i] - gemm_out[i]) > tol)) &&
                failures++ < 3) {
                ADD_FAILURE() << what << " row " << r << " column " << c << ": got " << out[i] << ", GEMM "
                              << gemm_out[i] << ", want " << want;
            }
        }
    }
}

TEST(RepackTile, PortableAndFastTilesGiveTheGemmsProduct) {
    std::vector<std::pair<rp::TileFn, q::GemmTileFn>> tiles = {{rp::tile_scalar, q::gemm_tile_scalar}};
    if (rp::tile_fast() != nullptr && q::gemm_tile_fast() != nullptr) {
        tiles.emplace_back(rp::tile_fast(), q::gemm_tile_fast());
    }
    std::mt19937 rng(51);
    for (ggml_type type : kTypes) {
        for (int64_t k : ks(type)) {
            for (bool random_bytes : {false, true}) {
                const std::vector<uint8_t> w = weights(type, 16, k, random_bytes, rng);
                for (const auto & [tile, gemm_tile] : tiles) {
                    for (int rows : {16, 1, 7}) {
                        for (int cols = 1; cols <= q::kGemmMaxCols; ++cols) {
                            check_tile(tile, gemm_tile, type, w, rows, cols, k, rng,
                                       std::string(tile == rp::tile_scalar ? "portable " : "fast ") +
                                           ggml_type_name(type) + ", k " + std::to_string(k) +
                                           (random_bytes ? " random" : "") + ", " + std::to_string(rows) + " rows, " +
                                           std::to_string(cols) + " columns");
                        }
                    }
                }
            }
        }
    }
}

// Index of the first byte where a and b differ, -1 where none does.
ptrdiff_t first_difference(const std::vector<uint8_t> & a, const std::vector<uint8_t> & b) {
    const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    return ia == a.end() && ib == b.end() ? -1 : ia - a.begin();
}

TEST(RepackExpand, ExpandedPanelsAreTheGemmPackersBytes) {
    using ExpandFn = void (*)(ggml_type, const void *, int, int64_t, void *);
    const std::pair<const char *, ExpandFn> expanders[] = {{"portable", rp::expand_panel_portable},
                                                           {"this CPU's", rp::expand_panel}};
    std::mt19937 rng(56);
    for (ggml_type type : kTypes) {
        const q::GemmFormat f = q::gemm_format(type);
        for (int64_t k : ks(type)) {
            for (bool random_bytes : {false, true}) {
                const std::vector<uint8_t> w  = weights(type, 16, k, random_bytes, rng);
                const size_t               wr = ggml_row_size(type, k);
                for (int rows : {16, 1, 9, 15}) {
                    std::vector<uint8_t> panel(rp::panel_bytes(type, k));
                    rp::pack_panel(type, w.data(), wr, rows, k, panel.data());
                    std::vector<uint8_t> want(q::gemm_panel_bytes(f, k), 0x11);
                    q::gemm_pack_portable(type, w.data(), wr, rows, k, want.data());
                    for (const auto & [name, expand] : expanders) {
                        std::vector<uint8_t> got(want.size(), 0xAB);
                        expand(type, panel.data(), rows, k, got.data());
                        EXPECT_EQ(first_difference(got, want), -1)
                            << name << " expander, " << ggml_type_name(type) << ", k " << k << ", " << rows << " rows"
                            << (random_bytes ? ", random bytes" : "") << " (gemm_pack_portable's panel is "
                            << want.size() << " bytes)";
                    }
                }
            }
        }
    }
}

// mxfp4's E8M0 scales, every exponent (0 and 1 give subnormal floats): two panels of 16 rows x 8 blocks, block b of
// row r with exponent 128 * p + 8 * r + b, expanded by both expanders into the GEMM packer's bytes.
TEST(RepackExpand, Mxfp4ScalesOfEveryExponentGiveTheGemmPackersBytes) {
    const ggml_type     type = GGML_TYPE_MXFP4;
    const int64_t       k    = 256;
    const size_t        wr   = ggml_row_size(type, k), bs = ggml_type_size(type);
    const q::GemmFormat f    = q::gemm_format(type);
    std::mt19937        rng(59);
    for (int p = 0; p < 2; ++p) {
        std::vector<uint8_t> w = random_block_rows(type, 16, k, rng);
        for (size_t b = 0; b < w.size() / bs; ++b) {
            w[b * bs] = static_cast<uint8_t>(128 * p + static_cast<int>(b));
        }
        std::vector<uint8_t> panel(rp::panel_bytes(type, k)), want(q::gemm_panel_bytes(f, k), 0x11);
        rp::pack_panel(type, w.data(), wr, 16, k, panel.data());
        q::gemm_pack_portable(type, w.data(), wr, 16, k, want.data());
        for (auto expand : {rp::expand_panel_portable, rp::expand_panel}) {
            std::vector<uint8_t> got(want.size(), 0xAB);
            expand(type, panel.data(), 16, k, got.data());
            EXPECT_EQ(first_difference(got, want), -1) << "exponents from " << 128 * p;
        }
    }
}

// ---- the CPU_REPACK buffer type through the public API ---------------------------------------------------------

ggml_backend_buffer_type_t listed_repack_buft() {
    ggml_backend_reg_t reg  = ggml_backend_cpu_reg();
    auto               get  = reinterpret_cast<ggml_backend_buffer_type_t * (*)(ggml_backend_dev_t)>(
        ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts"));
    if (get == nullptr) {
        return nullptr;
    }
    for (ggml_backend_buffer_type_t * b = get(ggml_backend_reg_dev_get(reg, 0)); *b != nullptr; ++b) {
        if (std::string(ggml_backend_buft_name(*b)) == "CPU_REPACK") {
            return *b;
        }
    }
    return nullptr;
}

TEST(RepackBuffer, ListedAsTheCpuDevicesExtraBufferType) {
    ggml_backend_buffer_type_t buft = listed_repack_buft();
    if (rp::tile_fast() == nullptr) {
        EXPECT_EQ(buft, nullptr) << "offered without a tile faster than the portable one";
        GTEST_SKIP() << "no repacked tile on this CPU";
    }
    ASSERT_EQ(buft, rp::repack_buffer_type());
    ggml_backend_dev_t dev = ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0);
    EXPECT_EQ(ggml_backend_buft_get_device(buft), dev);
    EXPECT_FALSE(ggml_backend_buft_is_host(buft));
    EXPECT_TRUE(ggml_backend_dev_supports_buft(dev, buft));
}

// Weights w [k, m] in a buffer of `buft`, activations x [k, n] and the product in a CPU buffer.
struct Product {
    ggml_context *        wctx = nullptr;
    ggml_context *        ctx  = nullptr;
    ggml_backend_buffer_t wbuf = nullptr;
    ggml_backend_buffer_t buf  = nullptr;
    ggml_tensor *         w    = nullptr;
    ggml_tensor *         x    = nullptr;
    ggml_tensor *         out  = nullptr;
    ggml_cgraph *         gf   = nullptr;

    Product(ggml_backend_buffer_type_t buft, ggml_type type, int64_t k, int64_t m, int64_t n, int64_t ne2 = 1) {
        wctx = ggml_init({ggml_tensor_overhead() * 4, nullptr, true});
        ctx  = ggml_init({ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true});
        w    = ggml_new_tensor_3d(wctx, type, k, m, ne2);
        ggml_set_name(w, "w");
        wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, buft);
        x    = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, k, n, ne2);
        out  = ggml_mul_mat(ctx, w, x);
        gf   = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type());
    }
    ~Product() {
        ggml_backend_buffer_free(buf);
        ggml_backend_buffer_free(wbuf);
        ggml_free(ctx);
        ggml_free(wctx);
    }
    Product(const Product &)             = delete;
    Product & operator=(const Product &) = delete;

    std::vector<float> run(ggml_backend_t backend) {
        EXPECT_EQ(ggml_backend_graph_compute(backend, gf), GGML_STATUS_SUCCESS);
        std::vector<float> v(static_cast<size_t>(ggml_nelements(out)));
        ggml_backend_tensor_get(out, v.data(), 0, ggml_nbytes(out));
        return v;
    }
};

TEST(RepackBuffer, GetTensorReturnsTheBytesSetWholeOrInParts) {
    std::mt19937 rng(52);
    for (ggml_type type : buffer_types(256)) {
        const int64_t k = 256, m = 37;
        Product       pr(rp::repack_buffer_type(), type, k, m, 1);
        ASSERT_NE(pr.wbuf, nullptr);
        EXPECT_TRUE(rp::is_repacked(pr.w)) << ggml_type_name(type);
        EXPECT_GE(ggml_backend_buffer_get_size(pr.wbuf), rp::repacked_bytes(type, k, m));
        const std::vector<uint8_t> bytes = weights(type, m, k, true, rng);
        ggml_backend_tensor_set(pr.w, bytes.data(), 0, bytes.size());
        std::vector<uint8_t> back(bytes.size());
        ggml_backend_tensor_get(pr.w, back.data(), 0, back.size());
        EXPECT_EQ(back, bytes) << ggml_type_name(type);
        // a part: rows 3..10, then a range that does not start on a row
        const std::vector<uint8_t> other = weights(type, m, k, false, rng);
        const size_t               row   = ggml_row_size(type, k);
        std::vector<uint8_t>       want  = bytes;
        std::copy(other.begin() + 3 * row, other.begin() + 11 * row, want.begin() + 3 * row);
        ggml_backend_tensor_set(pr.w, other.data() + 3 * row, 3 * row, 8 * row);
        std::vector<uint8_t> part(row + 5);
        ggml_backend_tensor_get(pr.w, part.data(), 2 * row + 7, part.size());
        EXPECT_TRUE(std::equal(part.begin(), part.end(), want.begin() + 2 * row + 7)) << ggml_type_name(type);
        ggml_backend_tensor_get(pr.w, back.data(), 0, back.size());
        EXPECT_EQ(back, want) << ggml_type_name(type);
        // streamed in pieces that start and end anywhere (inside rows, across the 16-row panels), read back in
        // pieces of another size: each piece touches only the panels it falls in
        for (size_t at = 0; at < other.size(); at += 777) {
            ggml_backend_tensor_set(pr.w, other.data() + at, at, std::min<size_t>(777, other.size() - at));
        }
        std::vector<uint8_t> pieces(other.size());
        for (size_t at = 0; at < pieces.size(); at += 555) {
            ggml_backend_tensor_get(pr.w, pieces.data() + at, at, std::min<size_t>(555, pieces.size() - at));
        }
        EXPECT_EQ(pieces, other) << ggml_type_name(type);
        ggml_backend_tensor_set(pr.w, want.data(), 0, want.size());
        // memset refuses (logged): the weights stay
        ggml_backend_tensor_memset(pr.w, 0, 0, row);
        ggml_backend_tensor_get(pr.w, back.data(), 0, back.size());
        EXPECT_EQ(back, want) << ggml_type_name(type) << ": memset_tensor changed repacked weights";
    }
}

// MUL_MAT from repacked weights against the same weights in a CPU buffer and upstream's product.
TEST(RepackBuffer, MulMatEqualsThePlainKernelForEveryColumnCount) {
    std::mt19937   rng(53);
    ggml_backend_t backend = ggml_backend_cpu_init();
    for (ggml_type type : buffer_types(256)) {
        for (int64_t k : ks(type)) {
            const int64_t              m     = 37;
            const std::vector<uint8_t> bytes = weights(type, m, k, false, rng);
            for (int64_t n : {1, 2, 3, 7, 8, 9, 33, 100}) {
                Product repacked(rp::repack_buffer_type(), type, k, m, n);
                Product plain(ggml_backend_cpu_buffer_type(), type, k, m, n);
                ASSERT_TRUE(rp::is_repacked(repacked.w));
                ggml_backend_tensor_set(repacked.w, bytes.data(), 0, bytes.size());
                ggml_backend_tensor_set(plain.w, bytes.data(), 0, bytes.size());
                const std::vector<float> x = normal_floats(rng, k * n);
                ggml_backend_tensor_set(repacked.x, x.data(), 0, x.size() * sizeof(float));
                ggml_backend_tensor_set(plain.x, x.data(), 0, x.size() * sizeof(float));
                for (int nt : {1, 3}) {
                    ggml_backend_cpu_set_n_threads(backend, nt);
                    const std::vector<float> got = repacked.run(backend), base = plain.run(backend);
                    int                      failures = 0;
                    for (int64_t c = 0; c < n; ++c) {
                        for (int64_t r = 0; r < m; ++r) {
                            const uint8_t * row  = bytes.data() + r * ggml_row_size(type, k);
                            const float *   xc   = x.data() + c * k;
                            const double    want = upstream_product(type, row, xc, k);
                            const double    tol  = tolerance(type, row, xc, k);
                            const size_t    i    = static_cast<size_t>(r + c * m);
                            if ((std::fabs(got[i] - want) > tol || std::fabs(got[i] - base[i]) > tol) && failures++ < 3) {
                                ADD_FAILURE() << ggml_type_name(type) << " k " << k << ", " << n << " columns, " << nt
                                              << " threads, at (" << r << ", " << c << "): got " << got[i]
                                              << ", plain " << base[i] << ", want " << want;
                            }
                        }
                    }
                }
            }
        }
    }
    ggml_backend_free(backend);
}

// The integer GEMM's product of m weight rows and n columns x, panel by panel and chunk by chunk with its own
// packer and tile (the plain CPU kernel's arithmetic): out[r + c * m].
std::vector<float> gemm_product(ggml_type type, const std::vector<uint8_t> & w, int64_t m, int64_t k,
                                const std::vector<float> & x, int64_t n) {
    const q::GemmFormat  f    = q::gemm_format(type);
    const q::GemmTileFn  tile = q::gemm_tile_fast() != nullptr ? q::gemm_tile_fast() : q::gemm_tile_scalar;
    const size_t         wr   = ggml_row_size(type, k);
    std::vector<float>   out(static_cast<size_t>(m * n));
    std::vector<uint8_t> panel(q::gemm_panel_bytes(f, k)), chunk(q::gemm_chunk_bytes(f, k));
    std::vector<uint8_t> scratch(ggml_row_size(f.act_type, k));
    for (int64_t c0 = 0; c0 < n; c0 += q::kGemmMaxCols) {
        const int cols = static_cast<int>(std::min<int64_t>(q::kGemmMaxCols, n - c0));
        for (int c = 0; c < cols; ++c) {
            q::gemm_activation(f, x.data() + (c0 + c) * k, k, scratch.data(), chunk.data(), c);
        }
        for (int64_t r0 = 0; r0 < m; r0 += q::kGemmRows) {
            const int rows = static_cast<int>(std::min<int64_t>(q::kGemmRows, m - r0));
            q::gemm_pack(type, w.data() + r0 * wr, wr, rows, k, panel.data());
            tile(f, q::GemmTileArgs{panel.data(), k, chunk.data(), cols, rows, out.data() + r0 + c0 * m, m});
        }
    }
    return out;
}

// Below and above the column count where passes are expanded into the GEMM's panels: the GEMM's floats exactly
// (within the tolerance where the portable tiles run: their orders differ). Past the matrix-vector path's columns
// on AMX, where repacked weights are unpacked for the AMX tile (kernels/mul_mat/gemm.h), the same weights in a
// plain buffer give the same bits.
TEST(RepackBuffer, MulMatEqualsTheGemmAroundTheExpansionThreshold) {
    std::mt19937   rng(57);
    ggml_backend_t backend = ggml_backend_cpu_init();
    const bool     exact   = rp::tile_fast() != nullptr && q::gemm_tile_fast() != nullptr;
    const int64_t  t       = rp::kMulMatExpandAbove;
    for (ggml_type type : kTypes) {
        const int64_t              k = ggml_blck_size(type) == 256 ? 512 : 256, m = 70;
        const std::vector<uint8_t> bytes = weights(type, m, k, type == GGML_TYPE_IQ4_NL, rng);
        for (int64_t n : {t - 1, t, t + 1, t + 8, t + 9}) {
            Product repacked(rp::repack_buffer_type(), type, k, m, n);
            ASSERT_TRUE(rp::is_repacked(repacked.w));
            ggml_backend_tensor_set(repacked.w, bytes.data(), 0, bytes.size());
            const std::vector<float> x = normal_floats(rng, k * n);
            ggml_backend_tensor_set(repacked.x, x.data(), 0, x.size() * sizeof(float));
            const bool         amx  = q::gemm_int_amx() && n > switchyard::cpu::kernels::kMatVecMaxCols;
            std::vector<float> want = gemm_product(type, bytes, m, k, x, n);
            if (amx) {
                Product plain(ggml_backend_cpu_buffer_type(), type, k, m, n);
                ggml_backend_tensor_set(plain.w, bytes.data(), 0, bytes.size());
                ggml_backend_tensor_set(plain.x, x.data(), 0, x.size() * sizeof(float));
                want = plain.run(backend);
            }
            for (int nt : {1, 3}) {
                ggml_backend_cpu_set_n_threads(backend, nt);
                const std::vector<float> got      = repacked.run(backend);
                int                      failures = 0;
                for (int64_t c = 0; c < n; ++c) {
                    for (int64_t r = 0; r < m; ++r) {
                        const size_t    i   = static_cast<size_t>(r + c * m);
                        const uint8_t * row = bytes.data() + r * ggml_row_size(type, k);
                        const double    tol = exact || amx ? 0.0 : tolerance(type, row, x.data() + c * k, k);
                        if (!(std::fabs(got[i] - want[i]) <= tol) && failures++ < 3) {
                            ADD_FAILURE() << ggml_type_name(type) << ", " << n << " columns, " << nt << " threads, at ("
                                          << r << ", " << c << "): got " << got[i] << ", GEMM " << want[i];
                        }
                    }
                }
            }
        }
    }
    ggml_backend_free(backend);
}

// Batch invariance: each column of a 7-, 25-, 33- and 100-column product (below and past the expansion threshold and
// the matrix-vector limit) equals, bit for bit, the same column multiplied alone, on 1 and 3 threads: the tiles
// reduce each output in one order whatever columns share the call. Not yet on AMX, whose tile takes the products
// past kMatVecMaxCols columns and sums in another order: there only the batches up to that limit are checked.
TEST(RepackBuffer, ColumnsGiveTheSameBitsInEveryBatch) {
    if (rp::tile_fast() == nullptr) {
        GTEST_SKIP() << "no repacked tile on this CPU";
    }
    std::mt19937   rng(58);
    ggml_backend_t backend = ggml_backend_cpu_init();
    for (ggml_type type : buffer_types(256)) {
        const int64_t              k = ggml_blck_size(type) == 256 ? 512 : 256, m = 70, n_max = 100;
        const std::vector<uint8_t> bytes = weights(type, m, k, false, rng);
        const std::vector<float>   x     = normal_floats(rng, k * n_max);
        std::vector<float>         alone(static_cast<size_t>(m * n_max));
        {
            Product one(rp::repack_buffer_type(), type, k, m, 1);
            ggml_backend_tensor_set(one.w, bytes.data(), 0, bytes.size());
            for (int64_t c = 0; c < n_max; ++c) {
                ggml_backend_tensor_set(one.x, x.data() + c * k, 0, static_cast<size_t>(k) * sizeof(float));
                const std::vector<float> got = one.run(backend);
                std::copy(got.begin(), got.end(), alone.begin() + c * m);
            }
        }
        for (int64_t n : {int64_t{7}, int64_t{25}, int64_t{33}, n_max}) {
            if (q::gemm_int_amx() && n > switchyard::cpu::kernels::kMatVecMaxCols && ggml_is_quantized(type)) {
                continue;
            }
            Product batch(rp::repack_buffer_type(), type, k, m, n);
            ggml_backend_tensor_set(batch.w, bytes.data(), 0, bytes.size());
            ggml_backend_tensor_set(batch.x, x.data(), 0, static_cast<size_t>(k * n) * sizeof(float));
            for (int nt : {1, 3}) {
                ggml_backend_cpu_set_n_threads(backend, nt);
                const std::vector<float> got      = batch.run(backend);
                int                      failures = 0;
                for (size_t i = 0; i < got.size(); ++i) {
                    if (std::memcmp(&got[i], &alone[i], sizeof(float)) != 0 && failures++ < 3) {
                        ADD_FAILURE() << ggml_type_name(type) << ", " << n << " columns, " << nt << " threads, row "
                                      << i % m << " column " << i / m << ": " << got[i] << ", alone " << alone[i];
                    }
                }
            }
        }
    }
    ggml_backend_free(backend);
}

TEST(RepackBuffer, SupportsOpRefusesWhatTheKernelDoesNotHandle) {
    ggml_backend_dev_t dev = ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0);
    Product            pr(rp::repack_buffer_type(), GGML_TYPE_Q4_0, 64, 20, 4);
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, pr.out));
    ggml_context * ctx = ggml_init({ggml_tensor_overhead() * 16, nullptr, true});
    // src1 not F32: refused
    ggml_tensor * x16 = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 4);
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, pr.w, x16)));
    // GET_ROWS (it unpacks the rows it reads) yes; other ops reading the repacked bytes, and a view of them: refused
    ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_get_rows(ctx, pr.w, ids)));
    ggml_tensor * plain = ggml_dup_tensor(ctx, pr.w); // no buffer: as a plain weight
    ggml_tensor * to32  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 20);
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_cpy(ctx, plain, to32)));
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_cpy(ctx, pr.w, to32)));
    ggml_tensor * view = ggml_view_2d(ctx, pr.w, 64, 16, pr.w->nb[1], 0);
    view->buffer       = pr.w->buffer;
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, view, pr.x)));
    // repacked weights as src1: refused
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, pr.x, pr.w)));
    ggml_free(ctx);
}

// llama.cpp's placement probe: the weight in a 0-byte buffer of the type, never initialised (no init_tensor),
// the op built on it. The answer must be the one the computation gets once the weight is loaded: MUL_MAT yes,
// GET_ROWS (a token embedding, a tied output) yes, other ops no, by op, type, shape and buffer type.
TEST(RepackBuffer, SupportsOpAnswersAPlacementProbeByOpTypeAndBuffer) {
    ggml_backend_dev_t    dev   = ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0);
    ggml_backend_buffer_t empty = ggml_backend_buft_alloc_buffer(rp::repack_buffer_type(), 0);
    ASSERT_NE(empty, nullptr);
    ggml_context * ctx = ggml_init({ggml_tensor_overhead() * 320, nullptr, true}); // 10 tensors a type
    ASSERT_NE(ctx, nullptr);
    for (ggml_type type : buffer_types(256)) {
        SCOPED_TRACE(ggml_type_name(type));
        ggml_tensor * w = ggml_new_tensor_2d(ctx, type, 256, 32);
        w->buffer       = empty; // as llama.cpp's weight_buft_supported does; w->extra stays unset
        EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, w, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 3))));
        EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_get_rows(ctx, w, ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2))));
        EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, w, ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 256, 3))));
        EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_cpy(ctx, w, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 32))));
    }
    // a type stored plainly in CPU_REPACK (f32 norms): every op reads it, before and after initialisation alike
    ggml_tensor * norm = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 256);
    norm->buffer       = empty;
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_mul(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 3), norm)));
    ggml_free(ctx);
    ggml_backend_buffer_free(empty);
}

// GET_ROWS from a repacked tensor (a tied output is also the token embedding): every type, rows of whole and partial
// panels (37 rows: the last panel has 5), repeated and out of order, the experts of a 3-D weight, at 1 and 3 threads.
// Into the weight's own type the rows are the bytes set; into f32 they are those bytes dequantized (the type's
// to_float, which the unpacking does not use).
TEST(RepackBuffer, GetRowsReadsTheRowsSet) {
    std::mt19937   rng(56);
    ggml_backend_t backend = ggml_backend_cpu_init();
    for (ggml_type type : buffer_types(256)) {
        for (const int64_t ne2 : {1, 2}) {
            if (ne2 == 2 && rp::repack_form(type) == rp::RepackForm::kFloats) {
                continue; // the float form repacks 2-D matrices only
            }
            const int64_t k = ggml_blck_size(type) == 256 ? 256 : 96, m = ne2 == 1 ? 37 : 32;
            SCOPED_TRACE(std::string(ggml_type_name(type)) + ", " + std::to_string(ne2) + " experts");
            ggml_context * wctx = ggml_init({ggml_tensor_overhead() * 2, nullptr, true});
            ggml_tensor *  w    = ggml_new_tensor_3d(wctx, type, k, m, ne2);
            ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, rp::repack_buffer_type());
            ASSERT_NE(wbuf, nullptr);
            ASSERT_TRUE(rp::is_repacked(w));
            const std::vector<uint8_t> bytes = weights(type, m * ne2, k, true, rng);
            ggml_backend_tensor_set(w, bytes.data(), 0, bytes.size());

            const std::vector<int32_t> pick = {36 % static_cast<int32_t>(m), 0, 17, 17, 31, 3, 16, 15, 35 % static_cast<int32_t>(m)};
            const int64_t n = static_cast<int64_t>(pick.size());
            ggml_context * ctx  = ggml_init({ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true});
            ggml_tensor *  ids  = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, n, ne2);
            ggml_tensor *  same = ggml_get_rows(ctx, w, ids);
            ggml_tensor *  f32  = ggml_get_rows(ctx, w, ids);
            ASSERT_EQ(f32->type, GGML_TYPE_F32); // as ggml_get_rows builds it; `same` into the weight's type
            same->type          = type;
            same->nb[0]         = ggml_type_size(type);
            same->nb[1]         = ggml_row_size(type, k);
            same->nb[2]         = same->nb[1] * static_cast<size_t>(n);
            same->nb[3]         = same->nb[2] * static_cast<size_t>(ne2);
            ggml_cgraph * gf = ggml_new_graph(ctx);
            ggml_build_forward_expand(gf, same);
            ggml_build_forward_expand(gf, f32);
            ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type());
            ASSERT_NE(buf, nullptr);
            std::vector<int32_t> idv;
            for (int64_t e = 0; e < ne2; ++e) {
                idv.insert(idv.end(), pick.begin(), pick.end());
            }
            ggml_backend_tensor_set(ids, idv.data(), 0, idv.size() * sizeof(int32_t));
            ggml_backend_dev_t dev = ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0);
            EXPECT_TRUE(ggml_backend_dev_supports_op(dev, same));
            EXPECT_TRUE(ggml_backend_dev_supports_op(dev, f32));
            const size_t row = ggml_row_size(type, k);
            for (int nt : {1, 3}) {
                ggml_backend_cpu_set_n_threads(backend, nt);
                ASSERT_EQ(ggml_backend_graph_compute(backend, gf), GGML_STATUS_SUCCESS);
                std::vector<uint8_t> got(ggml_nbytes(same));
                ggml_backend_tensor_get(same, got.data(), 0, got.size());
                std::vector<float> gotf(static_cast<size_t>(ggml_nelements(f32)));
                ggml_backend_tensor_get(f32, gotf.data(), 0, ggml_nbytes(f32));
                std::vector<float> want(static_cast<size_t>(k));
                for (int64_t e = 0; e < ne2; ++e) {
                    for (int64_t i = 0; i < n; ++i) {
                        const uint8_t * src = bytes.data() + (e * m + pick[static_cast<size_t>(i)]) * row;
                        EXPECT_TRUE(std::equal(src, src + row, got.begin() + (e * n + i) * row))
                            << "row " << pick[static_cast<size_t>(i)] << " of expert " << e << ", " << nt << " threads";
                        switchyard::quant::to_float_fn(type)(src, want.data(), k);
                        EXPECT_EQ(0, std::memcmp(want.data(), gotf.data() + (e * n + i) * k, k * sizeof(float)))
                            << "row " << pick[static_cast<size_t>(i)] << " of expert " << e << " as f32, " << nt << " threads";
                    }
                }
            }
            ggml_backend_buffer_free(buf);
            ggml_free(ctx);
            ggml_backend_buffer_free(wbuf);
            ggml_free(wctx);
        }
    }
    ggml_backend_free(backend);
}

// A 3-D weight whose experts are not whole panels, a vector and a type without a repacked form are stored plainly,
// computed by the normal kernels.
TEST(RepackBuffer, TensorsThatAreNotRepackableAreStoredPlainly) {
    std::mt19937   rng(54);
    ggml_backend_t backend = ggml_backend_cpu_init();
    ggml_backend_dev_t dev = ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0);
    for (ggml_type type : {GGML_TYPE_Q4_0, GGML_TYPE_F32, GGML_TYPE_Q8_1}) {
        // q4_0 3-D of 5 rows each, f32 a vector (a norm or a bias, never a matrix's weights), q8_1 a type without
        // a form (every weight type the CPU multiplies has one)
        const int64_t k = std::max<int64_t>(64, ggml_blck_size(type)), m = type == GGML_TYPE_F32 ? 1 : 5, n = 3;
        const int64_t ne2 = type == GGML_TYPE_Q4_0 ? 2 : 1;
        Product       pr(rp::repack_buffer_type(), type, k, m, n, ne2);
        Product       plain(ggml_backend_cpu_buffer_type(), type, k, m, n, ne2);
        EXPECT_FALSE(rp::is_repacked(pr.w)) << ggml_type_name(type);
        EXPECT_EQ(ggml_backend_buft_get_alloc_size(rp::repack_buffer_type(), pr.w), ggml_nbytes(pr.w));
        const std::vector<uint8_t> bytes = quantized_rows(type, m * ne2, k, rng);
        const std::vector<float>   x     = normal_floats(rng, k * n * ne2);
        for (Product * p : {&pr, &plain}) {
            ggml_backend_tensor_set(p->w, bytes.data(), 0, bytes.size());
            ggml_backend_tensor_set(p->x, x.data(), 0, x.size() * sizeof(float));
        }
        EXPECT_TRUE(ggml_backend_dev_supports_op(dev, pr.out)) << ggml_type_name(type);
        EXPECT_EQ(pr.run(backend), plain.run(backend)) << ggml_type_name(type);
        ggml_backend_tensor_memset(pr.w, 0, 0, ggml_nbytes(pr.w)); // plain: memset works
        std::vector<uint8_t> back(bytes.size(), 1);
        ggml_backend_tensor_get(pr.w, back.data(), 0, back.size());
        EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](uint8_t b) { return b == 0; }));
    }
    ggml_backend_free(backend);
}

TEST(RepackBuffer, SchedulerRunsTheProductOnTheCpu) {
    std::mt19937   rng(55);
    ggml_backend_t backend = ggml_backend_cpu_init();
    const int64_t  k = 256, m = 40, n = 5;
    Product        pr(rp::repack_buffer_type(), GGML_TYPE_Q4_K, k, m, n);
    const std::vector<uint8_t> bytes = weights(GGML_TYPE_Q4_K, m, k, false, rng);
    ggml_backend_tensor_set(pr.w, bytes.data(), 0, bytes.size());
    // the graph again in a fresh context, its activations and output left to the scheduler
    ggml_context * ctx = ggml_init({ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true});
    ggml_tensor *  x   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, n);
    ggml_set_input(x);
    ggml_tensor * out = ggml_mul_mat(ctx, pr.w, x);
    ggml_cgraph * gf  = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    ggml_backend_sched_t sched = ggml_backend_sched_new(&backend, nullptr, 1, 64, false, true);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, out), backend);
    const std::vector<float> xv = normal_floats(rng, k * n);
    ggml_backend_tensor_set(x, xv.data(), 0, xv.size() * sizeof(float));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
    std::vector<float> got(static_cast<size_t>(m * n));
    ggml_backend_tensor_get(out, got.data(), 0, got.size() * sizeof(float));
    for (int64_t c = 0; c < n; ++c) {
        for (int64_t r = 0; r < m; ++r) {
            const uint8_t * row = bytes.data() + r * ggml_row_size(GGML_TYPE_Q4_K, k);
            EXPECT_NEAR(got[static_cast<size_t>(r + c * m)], upstream_product(GGML_TYPE_Q4_K, row, xv.data() + c * k, k),
                        tolerance(GGML_TYPE_Q4_K, row, xv.data() + c * k, k));
        }
    }
    ggml_backend_sched_free(sched);
    ggml_free(ctx);
    ggml_backend_free(backend);
}

} // namespace
