// Experts (3-D weights) in CPU_REPACK: stored repacked when each expert's rows are whole panels and read back as
// written, whole or in pieces; MUL_MAT_ID gives every (slot, token) pair the bits MUL_MAT of its expert's rows alone
// gives its column (on 1 and 3 threads, below and past the count of pairs where an expert's passes are expanded, with
// one input per token or per slot), within tolerance of upstream's product; MUL_MAT of a 3-D repacked weight takes
// each slice's expert; supports_op answers a placement probe of the experts as the computation will; an expert id out
// of range fails the computation with a status; the scheduler runs repacked experts on the CPU.
#include "matvec_test_util.h"

#include "conformance/reference/activations.h"
#include "cpu/repack/buffer_type.h"
#include "cpu/repack/format.h"
#include "cpu/repack/mul_mat.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

using switchyard::testing::reference::upstream_product;
using namespace switchyard::matvec_test;
namespace rp = switchyard::cpu::repack;

const ggml_type kTypes[] = {GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,   GGML_TYPE_Q2_K,
                            GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K,   GGML_TYPE_IQ4_NL,
                            GGML_TYPE_MXFP4, GGML_TYPE_Q8_0, GGML_TYPE_IQ4_XS, GGML_TYPE_TQ2_0};

int64_t k_of(ggml_type type) { return ggml_blck_size(type) == 256 ? 512 : 256; }

// Weights w [k, m, n_expert] in a buffer of `buft`; the nodes built on them and their inputs in a CPU buffer.
struct Experts {
    ggml_context *        wctx = nullptr;
    ggml_context *        ctx  = nullptr;
    ggml_backend_buffer_t wbuf = nullptr;
    ggml_backend_buffer_t buf  = nullptr;
    ggml_tensor *         w    = nullptr;

    Experts(ggml_backend_buffer_type_t buft, ggml_type type, int64_t k, int64_t m, int64_t n_expert) {
        wctx = ggml_init({ggml_tensor_overhead() * 2, nullptr, true});
        ctx  = ggml_init({ggml_tensor_overhead() * 16 + ggml_graph_overhead(), nullptr, true});
        w    = ggml_new_tensor_3d(wctx, type, k, m, n_expert);
        wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, buft);
    }
    ~Experts() {
        ggml_backend_buffer_free(buf);
        ggml_backend_buffer_free(wbuf);
        ggml_free(ctx);
        ggml_free(wctx);
    }
    Experts(const Experts &)             = delete;
    Experts & operator=(const Experts &) = delete;

    // Sets the experts to weights quantized from normal floats; returns their bytes.
    std::vector<uint8_t> load(std::mt19937 & rng) const {
        const std::vector<uint8_t> bytes = quantized_rows(w->type, w->ne[1] * w->ne[2], w->ne[0], rng);
        ggml_backend_tensor_set(w, bytes.data(), 0, bytes.size());
        return bytes;
    }

    // Allocates ctx's tensors (call once, after building the node).
    void allocate() { buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type()); }

    // Computes out from bytes 0xff (NaN): a row the kernel leaves unwritten shows.
    static std::vector<float> run(ggml_backend_t backend, ggml_tensor * out, int n_threads) {
        ggml_backend_tensor_memset(out, 0xff, 0, ggml_nbytes(out));
        ggml_context * gctx = ggml_init({ggml_graph_overhead(), nullptr, true});
        ggml_cgraph *  gf   = ggml_new_graph(gctx);
        ggml_build_forward_expand(gf, out);
        ggml_backend_cpu_set_n_threads(backend, n_threads);
        EXPECT_EQ(ggml_backend_graph_compute(backend, gf), GGML_STATUS_SUCCESS);
        ggml_free(gctx);
        std::vector<float> v(static_cast<size_t>(ggml_nelements(out)));
        ggml_backend_tensor_get(out, v.data(), 0, ggml_nbytes(out));
        return v;
    }
};

TEST(RepackExperts, StoredRepackedAndReadBackWholeOrInPieces) {
    std::mt19937 rng(61);
    for (ggml_type type : kTypes) {
        SCOPED_TRACE(ggml_type_name(type));
        const int64_t k = k_of(type), m = 32, n_expert = 3;
        Experts       ex(rp::repack_buffer_type(), type, k, m, n_expert);
        ASSERT_NE(ex.wbuf, nullptr);
        EXPECT_TRUE(rp::is_repacked(ex.w));
        EXPECT_GE(ggml_backend_buffer_get_size(ex.wbuf), rp::repacked_bytes(type, k, m * n_expert));
        const std::vector<uint8_t> bytes = random_block_rows(type, m * n_expert, k, rng);
        ggml_backend_tensor_set(ex.w, bytes.data(), 0, bytes.size());
        std::vector<uint8_t> back(bytes.size());
        ggml_backend_tensor_get(ex.w, back.data(), 0, back.size());
        EXPECT_EQ(back, bytes);
        // pieces that cross rows, panels and experts, read back in pieces of another size
        const std::vector<uint8_t> other = quantized_rows(type, m * n_expert, k, rng);
        for (size_t at = 0; at < other.size(); at += 1777) {
            ggml_backend_tensor_set(ex.w, other.data() + at, at, std::min<size_t>(1777, other.size() - at));
        }
        std::vector<uint8_t> pieces(other.size());
        for (size_t at = 0; at < pieces.size(); at += 1555) {
            ggml_backend_tensor_get(ex.w, pieces.data() + at, at, std::min<size_t>(1555, pieces.size() - at));
        }
        EXPECT_EQ(pieces, other);
    }
    // experts whose rows are not whole panels, and float experts: stored plainly
    for (auto [type, m] : {std::pair{GGML_TYPE_Q4_0, int64_t{20}}, std::pair{GGML_TYPE_F32, int64_t{32}}}) {
        Experts ex(rp::repack_buffer_type(), type, 256, m, 2);
        EXPECT_FALSE(rp::is_repacked(ex.w)) << ggml_type_name(type);
        EXPECT_EQ(ggml_backend_buft_get_alloc_size(rp::repack_buffer_type(), ex.w), ggml_nbytes(ex.w));
    }
}

// The column MUL_MAT of expert x's rows (a 2-D copy in CPU_REPACK) gives x alone.
std::vector<float> expert_alone(ggml_backend_t backend, ggml_type type, const std::vector<uint8_t> & bytes, int64_t k,
                                int64_t m, int64_t x, const float * column) {
    Experts one(rp::repack_buffer_type(), type, k, m, 1);
    const size_t expert = static_cast<size_t>(m) * ggml_row_size(type, k);
    ggml_backend_tensor_set(one.w, bytes.data() + static_cast<size_t>(x) * expert, 0, expert);
    ggml_tensor * col = ggml_new_tensor_1d(one.ctx, GGML_TYPE_F32, k);
    ggml_tensor * out = ggml_mul_mat(one.ctx, one.w, col);
    one.allocate();
    ggml_backend_tensor_set(col, column, 0, static_cast<size_t>(k) * sizeof(float));
    return Experts::run(backend, out, 1);
}

// 7 experts of 48 rows, 2 slots, 40 tokens: slot 0 takes expert 0 for the first 30 tokens (30 pairs: past the
// expansion threshold), then expert 5, slot 1 cycles over experts 1 .. 4 (10 pairs each), expert 6 takes none
// (expert costs that split the work among 3 threads inside an expert); one input per token (n_b = 1, as an up
// projection) and one per slot (n_b = 2, a down projection); and one token (decoding: experts 0 and 1, one pair each,
// their chunks narrow). The outputs start as NaN (Experts::run).
TEST(RepackExperts, MulMatIdGivesEachPairTheBitsOfItsExpertAlone) {
    std::mt19937   rng(62);
    ggml_backend_t backend = ggml_backend_cpu_init();
    const bool     exact   = rp::tile_fast() != nullptr; // the portable tile sums in another order than the GEMM's
    static_assert(30 > rp::kMulMatExpandAbove && 10 <= rp::kMulMatExpandAbove);
    for (ggml_type type : kTypes) {
        for (auto [n_b, n_tokens] : {std::pair<int64_t, int64_t>{1, 40}, {2, 40}, {1, 1}, {2, 1}}) {
            SCOPED_TRACE(std::string(ggml_type_name(type)) + ", n_b " + std::to_string(n_b) + ", " +
                         std::to_string(n_tokens) + " tokens");
            const int64_t k = k_of(type), m = 48, n_expert = 7, n_used = 2;
            Experts       ex(rp::repack_buffer_type(), type, k, m, n_expert);
            ASSERT_TRUE(rp::is_repacked(ex.w));
            const std::vector<uint8_t> bytes = ex.load(rng);
            ggml_tensor * b   = ggml_new_tensor_3d(ex.ctx, GGML_TYPE_F32, k, n_b, n_tokens);
            ggml_tensor * ids = ggml_new_tensor_2d(ex.ctx, GGML_TYPE_I32, n_used, n_tokens);
            ggml_tensor * out = ggml_mul_mat_id(ex.ctx, ex.w, b, ids);
            ex.allocate();
            const std::vector<float> x = normal_floats(rng, k * n_b * n_tokens);
            ggml_backend_tensor_set(b, x.data(), 0, x.size() * sizeof(float));
            std::vector<int32_t> route;
            for (int64_t t = 0; t < n_tokens; ++t) {
                route.push_back(t < 30 ? 0 : 5);
                route.push_back(static_cast<int32_t>(1 + t % 4));
            }
            ggml_backend_tensor_set(ids, route.data(), 0, route.size() * sizeof(int32_t));
            const std::vector<float> got = Experts::run(backend, out, 1);
            EXPECT_EQ(Experts::run(backend, out, 3), got) << "1 and 3 threads differ";
            int failures = 0;
            for (int64_t t = 0; t < n_tokens; ++t) {
                for (int64_t e = 0; e < n_used; ++e) {
                    const int64_t      expert = route[static_cast<size_t>(t * n_used + e)];
                    const float *      col    = x.data() + ((e % n_b) + t * n_b) * k;
                    const float *      pair   = got.data() + (e + t * n_used) * m;
                    std::vector<float> alone  = expert_alone(backend, type, bytes, k, m, expert, col);
                    for (int64_t r = 0; r < m; ++r) {
                        const size_t    at   = static_cast<size_t>(expert * m + r) * ggml_row_size(type, k);
                        const uint8_t * row  = bytes.data() + at;
                        const float     one  = alone[static_cast<size_t>(r)];
                        const double    tol  = tolerance(type, row, col, k);
                        const double    want = upstream_product(type, row, col, k);
                        const bool      same = exact ? std::memcmp(&pair[r], &one, sizeof(float)) == 0
                                                     : std::fabs(pair[r] - one) <= tol;
                        if ((!same || std::fabs(pair[r] - want) > tol) && failures++ < 3) {
                            ADD_FAILURE() << "token " << t << ", slot " << e << ", row " << r << ": " << pair[r]
                                          << ", its expert alone " << one << ", upstream " << want;
                        }
                    }
                }
            }
        }
    }
    ggml_backend_free(backend);
}

// MUL_MAT of a 3-D repacked weight: src1 slice i12 multiplies expert i12 / 2 (two slices per expert).
TEST(RepackExperts, MulMatOfA3DWeightTakesEachSlicesExpert) {
    std::mt19937   rng(63);
    ggml_backend_t backend = ggml_backend_cpu_init();
    for (ggml_type type : {GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_Q8_0}) {
        SCOPED_TRACE(ggml_type_name(type));
        const int64_t k = k_of(type), m = 32, n_expert = 2, n = 5, slices = 4;
        Experts       ex(rp::repack_buffer_type(), type, k, m, n_expert);
        ASSERT_TRUE(rp::is_repacked(ex.w));
        const std::vector<uint8_t> bytes = ex.load(rng);
        ggml_tensor * b   = ggml_new_tensor_3d(ex.ctx, GGML_TYPE_F32, k, n, slices);
        ggml_tensor * out = ggml_mul_mat(ex.ctx, ex.w, b);
        ex.allocate();
        const std::vector<float> x = normal_floats(rng, k * n * slices);
        ggml_backend_tensor_set(b, x.data(), 0, x.size() * sizeof(float));
        const std::vector<float> got = Experts::run(backend, out, 2);
        for (int64_t s = 0; s < slices; ++s) {
            for (int64_t c = 0; c < n; ++c) {
                const float * col = x.data() + (c + s * n) * k;
                for (int64_t r = 0; r < m; ++r) {
                    const uint8_t * row = bytes.data() + static_cast<size_t>((s / 2) * m + r) * ggml_row_size(type, k);
                    EXPECT_NEAR(got[static_cast<size_t>(r + (c + s * n) * m)], upstream_product(type, row, col, k),
                                tolerance(type, row, col, k))
                        << "slice " << s << ", column " << c << ", row " << r;
                }
            }
        }
    }
    ggml_backend_free(backend);
}

// llama.cpp's placement probe of experts (a 0-byte buffer of the type, never initialised): MUL_MAT_ID and GET_ROWS
// (which unpacks the rows it reads) yes, other ops and views no; experts stored plainly (rows not whole panels) serve
// every op.
TEST(RepackExperts, SupportsOpAnswersAPlacementProbeOfExperts) {
    ggml_backend_dev_t    dev   = ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0);
    ggml_backend_buffer_t empty = ggml_backend_buft_alloc_buffer(rp::repack_buffer_type(), 0);
    ASSERT_NE(empty, nullptr);
    ggml_context * ctx = ggml_init({ggml_tensor_overhead() * 32, nullptr, true});
    ggml_tensor *  b   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 256, 1, 4);
    ggml_tensor *  ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 4);
    ggml_tensor *  w   = ggml_new_tensor_3d(ctx, GGML_TYPE_Q4_K, 256, 32, 8);
    w->buffer          = empty;
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_mul_mat_id(ctx, w, b, ids)));
    ggml_tensor * rows = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 8);
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_get_rows(ctx, w, rows)));
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_cpy(ctx, w, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 256, 32, 8))));
    ggml_tensor * view = ggml_view_3d(ctx, w, 256, 16, 8, w->nb[1], w->nb[2], 0);
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, ggml_mul_mat_id(ctx, view, b, ids)));
    ggml_tensor * plain = ggml_new_tensor_3d(ctx, GGML_TYPE_Q4_K, 256, 20, 8);
    plain->buffer       = empty;
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_mul_mat_id(ctx, plain, b, ids)));
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_get_rows(ctx, plain, rows)));
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_cpy(ctx, plain, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 256, 20, 8))));
    ggml_free(ctx);
    ggml_backend_buffer_free(empty);
}

// The scheduler places MUL_MAT_ID of repacked experts on the CPU (its supports_op, asked with the loaded experts) and
// computes it: upstream's product for every pair.
TEST(RepackExperts, SchedulerRunsTheExpertsOnTheCpu) {
    std::mt19937   rng(64);
    ggml_backend_t backend = ggml_backend_cpu_init();
    const ggml_type type = GGML_TYPE_Q4_K;
    const int64_t  k = 256, m = 32, n_expert = 4, n_used = 2, n_tokens = 3;
    Experts        ex(rp::repack_buffer_type(), type, k, m, n_expert);
    ASSERT_TRUE(rp::is_repacked(ex.w));
    const std::vector<uint8_t> bytes = ex.load(rng);
    ggml_tensor * b   = ggml_new_tensor_3d(ex.ctx, GGML_TYPE_F32, k, 1, n_tokens);
    ggml_tensor * ids = ggml_new_tensor_2d(ex.ctx, GGML_TYPE_I32, n_used, n_tokens);
    ggml_set_input(b);
    ggml_set_input(ids);
    ggml_tensor * out = ggml_mul_mat_id(ex.ctx, ex.w, b, ids);
    ggml_context * gctx = ggml_init({ggml_graph_overhead(), nullptr, true});
    ggml_cgraph *  gf   = ggml_new_graph(gctx);
    ggml_build_forward_expand(gf, out);
    ggml_backend_sched_t sched = ggml_backend_sched_new(&backend, nullptr, 1, 64, false, true);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, out), backend);
    const std::vector<float> x     = normal_floats(rng, k * n_tokens);
    const int32_t            route[] = {3, 0, 1, 3, 2, 1};
    ggml_backend_tensor_set(b, x.data(), 0, x.size() * sizeof(float));
    ggml_backend_tensor_set(ids, route, 0, sizeof(route));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
    std::vector<float> got(static_cast<size_t>(ggml_nelements(out)));
    ggml_backend_tensor_get(out, got.data(), 0, ggml_nbytes(out));
    for (int64_t t = 0; t < n_tokens; ++t) {
        for (int64_t e = 0; e < n_used; ++e) {
            const int64_t expert = route[t * n_used + e];
            for (int64_t r = 0; r < m; ++r) {
                const uint8_t * row = bytes.data() + static_cast<size_t>(expert * m + r) * ggml_row_size(type, k);
                const float *   col = x.data() + t * k;
                EXPECT_NEAR(got[static_cast<size_t>(r + (e + t * n_used) * m)], upstream_product(type, row, col, k),
                            tolerance(type, row, col, k))
                    << "token " << t << ", slot " << e << ", row " << r;
            }
        }
    }
    ggml_backend_sched_free(sched);
    ggml_free(gctx);
    ggml_backend_free(backend);
}

TEST(RepackExperts, ExpertIdOutOfRangeFailsTheComputation) {
    ggml_backend_t backend = ggml_backend_cpu_init();
    Experts        ex(rp::repack_buffer_type(), GGML_TYPE_Q4_0, 256, 16, 4);
    ASSERT_TRUE(rp::is_repacked(ex.w));
    ggml_tensor * b   = ggml_new_tensor_3d(ex.ctx, GGML_TYPE_F32, 256, 1, 3);
    ggml_tensor * ids = ggml_new_tensor_2d(ex.ctx, GGML_TYPE_I32, 2, 3);
    ggml_tensor * out = ggml_mul_mat_id(ex.ctx, ex.w, b, ids);
    ex.allocate();
    ggml_backend_tensor_memset(b, 0, 0, ggml_nbytes(b));
    const int32_t route[] = {0, 1, 2, 4, 3, 0}; // 4: one past the last expert
    ggml_backend_tensor_set(ids, route, 0, sizeof(route));
    ggml_context * gctx = ggml_init({ggml_graph_overhead(), nullptr, true});
    ggml_cgraph *  gf   = ggml_new_graph(gctx);
    ggml_build_forward_expand(gf, out);
    for (int nt : {1, 3}) {
        ggml_backend_cpu_set_n_threads(backend, nt);
        EXPECT_EQ(ggml_backend_graph_compute(backend, gf), GGML_STATUS_FAILED) << nt << " threads";
    }
    ggml_free(gctx);
    ggml_backend_free(backend);
}

} // namespace
