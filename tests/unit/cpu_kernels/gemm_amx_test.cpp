// The integer GEMM's AMX tile (src/cpu/quants/gemm_amx.cpp, gemm_superblocks_amx.cpp) called directly: its panels
// (gemm_pack_amx: signed levels, or the super-block form for q4_K, q5_K and q6_K) times its 32-column chunks, on every
// weight type with a GEMM form, quantized and random-byte weights, one and two panels with partial rows, and column
// counts around the two A tiles. Every result must be upstream's product to float rounding; rows past a panel's
// and columns past the call's stay unwritten.
#include "kernel_test_util.h"
#include "matvec_test_util.h"

#include "cpu/quants/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using switchyard::testing::reference::upstream_product;
using namespace switchyard::kernel_test;
using namespace switchyard::matvec_test;
namespace q = switchyard::cpu::quants;

struct Case {
    ggml_type type;
    int64_t   k;
    int       rows, rows2; // rows2 0: one panel
    int       cols;
};

void check_amx_tile(const Case & t, const std::vector<uint8_t> & w, std::mt19937 & rng, const std::string & what) {
    const q::GemmFormat f  = q::gemm_format(t.type);
    const size_t        wr = ggml_row_size(t.type, t.k);
    const size_t        pb = q::gemm_amx_panel_bytes(f, t.k);
    std::vector<uint8_t> panels(2 * pb + 64, 0xAB); // garbage: packing must write every byte the tile reads
    uint8_t *            p0 = panels.data() + (64 - reinterpret_cast<uintptr_t>(panels.data()) % 64) % 64;
    q::gemm_pack_amx(t.type, w.data(), wr, t.rows, t.k, p0);
    if (t.rows2 > 0) {
        q::gemm_pack_amx(t.type, w.data() + q::kGemmRows * wr, wr, t.rows2, t.k, p0 + pb);
    }
    std::vector<uint8_t>            chunk(q::gemm_amx_chunk_bytes(f, t.k), 0xCD); // columns >= cols stay garbage
    std::vector<uint8_t>            scratch(ggml_row_size(f.act_type, t.k));
    std::vector<std::vector<float>> x;
    for (int c = 0; c < t.cols; ++c) {
        x.push_back(normal_floats(rng, t.k, c % 2 ? 3.0f : 0.2f));
        q::gemm_activation_amx(f, x.back().data(), t.k, scratch.data(), chunk.data(), c);
    }
    const int64_t      out_col = 37; // rows of the output per column, more than the tile writes
    std::vector<float> out(static_cast<size_t>(out_col * (t.cols + 1)), -7.0f);
    q::GemmTileArgs    a{p0, t.k, chunk.data(), t.cols, t.rows, out.data(), out_col};
    if (t.rows2 > 0) {
        a.panel2 = p0 + pb;
        a.rows2  = t.rows2;
    }
    q::gemm_tile_amx()(f, a);
    int failures = 0;
    for (int c = 0; c <= t.cols; ++c) {
        for (int r = 0; r < out_col; ++r) {
            const float got     = out[static_cast<size_t>(r + c * out_col)];
            const bool  written = c < t.cols && (r < t.rows || (r >= q::kGemmRows && r < q::kGemmRows + t.rows2));
            if (!written) {
                EXPECT_EQ(got, -7.0f) << what << ": wrote row " << r << " of column " << c;
                continue;
            }
            const uint8_t * row  = w.data() + static_cast<size_t>(r) * wr;
            const double    want = upstream_product(t.type, row, x[c].data(), t.k);
            if (std::fabs(got - want) > tolerance(t.type, row, x[c].data(), t.k) && failures++ < 3) {
                ADD_FAILURE() << what << " row " << r << " column " << c << ": got " << got << ", want " << want;
            }
        }
    }
}

TEST(GemmAmxTile, PanelsAndColumnEdgesGiveUpstreamsProduct) {
    if (q::gemm_tile_amx() == nullptr) {
        GTEST_SKIP() << "this CPU has no AMX (or SWITCHYARD_CPU_ISA caps it)";
    }
    std::mt19937 rng(50);
    for (ggml_type type : weight_types()) {
        if (q::gemm_format(type).act_type == GGML_TYPE_COUNT) {
            continue;
        }
        const int64_t k = ggml_blck_size(type) == 256 ? 768 : 160;
        for (bool random_bytes : {false, true}) {
            const std::vector<uint8_t> w =
                random_bytes ? random_block_rows(type, 32, k, rng) : quantized_rows(type, 32, k, rng);
            for (const Case & t : {Case{type, k, 16, 16, 32}, Case{type, k, 16, 0, 1}, Case{type, k, 7, 0, 16},
                                   Case{type, k, 16, 9, 17}, Case{type, k, 1, 16, 31}, Case{type, k, 16, 16, 5}}) {
                check_amx_tile(t, w, rng,
                               std::string(ggml_type_name(type)) + (random_bytes ? " random" : "") + ", rows " +
                                   std::to_string(t.rows) + " + " + std::to_string(t.rows2) + ", " +
                                   std::to_string(t.cols) + " columns");
            }
        }
    }
}

// The super-block form covers q4_K, q5_K and q6_K (integer group scales whose products with the levels fit in 13
// bits).
TEST(GemmAmxTile, SuperBlockFormIsQ4KQ5KAndQ6K) {
    for (ggml_type type : weight_types()) {
        const q::GemmFormat f = q::gemm_format(type);
        if (f.act_type == GGML_TYPE_COUNT) {
            continue;
        }
        EXPECT_EQ(f.superblocks, type == GGML_TYPE_Q4_K || type == GGML_TYPE_Q5_K || type == GGML_TYPE_Q6_K)
            << ggml_type_name(type);
    }
}

} // namespace
