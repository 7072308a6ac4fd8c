// Work memory of the matrix kernels (MUL_MAT, MUL_MAT_ID, OUT_PROD): what each plans, that they compute with
// exactly the planned bytes (guard bytes after them stay untouched) on any thread count, and that memory planned
// for n threads also serves fewer (the executor's fallback when the plan's pool is smaller). Results against the
// scalar reference of tools/conformance.
#include "kernel_test_util.h"

#include "cpu/kernels/mul_mat/gemm.h"
#include "cpu/kernels/mul_mat/vec.h"
#include "cpu/quants/matvec.h"
#include "cpu/simd/isa.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace switchyard::kernel_test;

constexpr size_t  kCacheLine = 64; // ggml_graph_plan adds one per thread when a graph needs work memory
constexpr uint8_t kGuard     = 0xA5;

struct Product {
    ggml_type type_a;
    int64_t   k, rows_a, rows_b, ne2_a, ne2_b;
};

std::string describe(const Product & p) {
    return std::string(ggml_type_name(p.type_a)) + " [" + std::to_string(p.k) + "," + std::to_string(p.rows_a) + "," +
           std::to_string(p.ne2_a) + "] * f32 [" + std::to_string(p.k) + "," + std::to_string(p.rows_b) + "," +
           std::to_string(p.ne2_b) + "]";
}

// Fills a (any type: through floats and ggml_quantize_chunk for block formats) with deterministic values.
void fill_any(ggml_tensor * t, std::mt19937 & rng) {
    if (!ggml_is_quantized(t->type)) {
        fill(t, rng);
        return;
    }
    const std::vector<float> v = random_floats(rng, ggml_nelements(t));
    ggml_quantize_chunk(t->type, v.data(), t->data, 0, ggml_nrows(t), t->ne[0], nullptr);
}

struct Graph {
    ggml_cgraph * gf  = nullptr;
    ggml_tensor * out = nullptr;
};

Graph build_product(ggml_context * ctx, const Product & p, std::mt19937 & rng) {
    ggml_tensor * a = ggml_new_tensor_3d(ctx, p.type_a, p.k, p.rows_a, p.ne2_a);
    ggml_tensor * b = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, p.k, p.rows_b, p.ne2_b);
    fill_any(a, rng);
    fill(b, rng);
    Graph g;
    g.out = ggml_mul_mat(ctx, a, b);
    g.gf  = ggml_new_graph(ctx);
    ggml_build_forward_expand(g.gf, g.out);
    return g;
}

// Plans gf for n_threads, computes it with exactly work_size bytes of work memory (followed by guard bytes) and
// checks out against want.
void compute_with_exact_work(const Graph & g, int n_threads, const std::vector<double> & want, Tol tol) {
    ggml_cplan           plan = ggml_graph_plan(g.gf, n_threads, nullptr);
    std::vector<uint8_t> work(plan.work_size + 256, kGuard);
    plan.work_data = plan.work_size > 0 ? work.data() : nullptr;
    ASSERT_EQ(ggml_graph_compute(g.gf, &plan), GGML_STATUS_SUCCESS);
    for (size_t i = plan.work_size; i < work.size(); ++i) {
        ASSERT_EQ(work[i], kGuard) << "byte " << i - plan.work_size << " past the planned work memory was written";
    }
    expect_all_near(g.out, from_values(g.out, want), tol);
}

const Product kProducts[] = {
    {GGML_TYPE_F32, 64, 16, 8, 1, 1},   {GGML_TYPE_F16, 64, 16, 8, 1, 1},  {GGML_TYPE_F16, 32, 7, 5, 2, 4},
    {GGML_TYPE_Q8_0, 32, 4, 3, 1, 1},   {GGML_TYPE_Q8_0, 96, 9, 6, 3, 3},  {GGML_TYPE_Q4_0, 64, 16, 8, 1, 1},
    {GGML_TYPE_Q4_0, 256, 33, 4, 1, 2}, {GGML_TYPE_Q4_K, 256, 5, 1, 1, 1}, {GGML_TYPE_BF16, 40, 8, 12, 1, 1},
    {GGML_TYPE_F16, 64, 16, 33, 1, 1},  {GGML_TYPE_Q4_0, 64, 20, 36, 1, 1}, {GGML_TYPE_Q8_1, 64, 6, 3, 1, 1},
};

// Bytes of one f16 activation row of k elements as this machine's f16 kernel reads it: 2 per element, 4 where the
// kernel takes them as f32 (the AVX-512 levels).
size_t f16_act_row(int64_t k) {
    const bool wide = switchyard::cpu::quants::matvec_kernel(GGML_TYPE_F16).act_layout == GGML_TYPE_F32;
    EXPECT_EQ(wide, switchyard::cpu::simd::isa_supported(switchyard::cpu::simd::Isa::kAvx512));
    return static_cast<size_t>(k) * (wide ? 4 : 2);
}

TEST(MatMulWork, F32TimesF32PlansNone) {
    Ctx          ctx;
    std::mt19937 rng(1);
    const Graph  g = build_product(ctx, {GGML_TYPE_F32, 64, 16, 8, 2, 2}, rng);
    for (int n : {1, 2, 4, 16}) {
        EXPECT_EQ(ggml_graph_plan(g.gf, n, nullptr).work_size, 0u) << n;
    }
}

// With up to kMatVecMaxCols (32) src1 columns a product of a type with a matrix-vector kernel converts src1 once to the type's
// activation format, ggml_row_size(format, k) per column as upstream plans it, plus the plan's cache line per
// thread: q8_0 34 bytes per 32, q8_K 292 per 256; f16 2 bytes per element, or 4 on the AVX-512 levels (f32
// holding the f16 values, the layout their kernels read: MatVecKernel::act_layout).
TEST(MatMulWork, FewColumnsPlanTheirConvertedActivations) {
    Ctx          ctx;
    std::mt19937 rng(2);
    const Graph  q8 = build_product(ctx, {GGML_TYPE_Q8_0, 64, 4, 3, 1, 1}, rng);
    EXPECT_EQ(ggml_graph_plan(q8.gf, 1, nullptr).work_size, 3 * 68 + kCacheLine);
    EXPECT_EQ(ggml_graph_plan(q8.gf, 4, nullptr).work_size, 3 * 68 + 4 * kCacheLine);
    const Graph f16 = build_product(ctx, {GGML_TYPE_F16, 64, 16, 8, 1, 1}, rng);
    EXPECT_EQ(ggml_graph_plan(f16.gf, 2, nullptr).work_size, 8 * f16_act_row(64) + 2 * kCacheLine);
    const Graph q4k = build_product(ctx, {GGML_TYPE_Q4_K, 512, 5, 1, 1, 2}, rng);
    EXPECT_EQ(ggml_graph_plan(q4k.gf, 3, nullptr).work_size, 2 * 2 * 292 + 3 * kCacheLine);
}

// With more columns, on the float path (CPUs without the GEMM tiles), a converted src0 takes per thread a block of
// at most its rows (scratch_floats(k) = k floats rounded up to 64 bytes each), after src1 as floats rounded through
// the activation format (shared). On the GEMM path (cpu/kernels/mul_mat/gemm.h): the columns in chunks of twelve (f16 weights:
// 12 floats per element, gemm_float.h; on AMX sixteen, as bf16 hi and lo), then per thread a float row and the
// packed panels (16 rows, floats or bf16 hi and lo).
TEST(MatMulWork, ConvertedSrc0TakesItsRowsPerThread) {
    Ctx          ctx;
    std::mt19937 rng(2);
    // 16 rows of 64 F16 (256 bytes each as floats): all 16 on one thread; on 4 threads 4 each, planned as
    // min(4 * 16, 16 + 4 - 1) = 19 rows (see converted_rows_total); src1: 33 columns of 64 floats
    static_assert(switchyard::cpu::kernels::kMatVecMaxCols < 33);
    const Graph block = build_product(ctx, {GGML_TYPE_F16, 64, 16, 33, 1, 1}, rng);
    if (switchyard::cpu::kernels::mul_mat_gemm_applies(block.out) &&
        switchyard::cpu::simd::isa_supported(switchyard::cpu::simd::Isa::kAmx)) {
        // AMX: 3 chunks of 16 columns x 64 elements x (hi, lo) bf16; per thread 64 floats of a row and one panel
        // of 64 x 16 x (hi, lo) bf16
        EXPECT_EQ(ggml_graph_plan(block.gf, 1, nullptr).work_size, 3 * 4096 + (256 + 4096) + kCacheLine);
        EXPECT_EQ(ggml_graph_plan(block.gf, 4, nullptr).work_size, 3 * 4096 + 4 * (256 + 4096) + 4 * kCacheLine);
        return;
    }
    if (switchyard::cpu::kernels::mul_mat_gemm_applies(block.out)) {
        // 3 chunks of 64 x 12 floats; per thread 64 floats of a row and one panel of 64 x 16 floats
        EXPECT_EQ(ggml_graph_plan(block.gf, 1, nullptr).work_size, 3 * 3072 + (256 + 4096) + kCacheLine);
        EXPECT_EQ(ggml_graph_plan(block.gf, 4, nullptr).work_size, 3 * 3072 + 4 * (256 + 4096) + 4 * kCacheLine);
        return;
    }
    EXPECT_EQ(ggml_graph_plan(block.gf, 1, nullptr).work_size, 33 * 256 + 16 * 256 + kCacheLine);
    EXPECT_EQ(ggml_graph_plan(block.gf, 4, nullptr).work_size, 33 * 256 + 19 * 256 + 4 * kCacheLine);
}

// src1 that is not F32 is converted once into shared scratch: for F32 weights, to F32 (4 bytes per element).
TEST(MatMulWork, ConvertedSrc1IsShared) {
    Ctx           ctx;
    ggml_tensor * a   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 16);
    ggml_tensor * b   = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 3);
    ggml_cgraph * gf  = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, ggml_mul_mat(ctx, a, b));
    EXPECT_EQ(ggml_graph_plan(gf, 1, nullptr).work_size, 64 * 3 * 4 + kCacheLine);
    EXPECT_EQ(ggml_graph_plan(gf, 4, nullptr).work_size, 64 * 3 * 4 + 4 * kCacheLine);
}

// What a kernel needs (the plan less its cache lines) never shrinks as threads are added: memory planned for n
// threads serves any fewer.
TEST(MatMulWork, NeedNeverShrinksWithMoreThreads) {
    for (const Product & p : kProducts) {
        Ctx          ctx;
        std::mt19937 rng(3);
        const Graph  g    = build_product(ctx, p, rng);
        size_t       prev = 0;
        for (int n = 1; n <= 24; ++n) {
            const size_t work = ggml_graph_plan(g.gf, n, nullptr).work_size;
            const size_t need = work > 0 ? work - kCacheLine * static_cast<size_t>(n) : 0;
            EXPECT_GE(need, prev) << describe(p) << ", " << n << " threads";
            prev = need;
        }
    }
}

TEST(MatMulWork, ComputesWithExactlyThePlannedWorkOnAnyThreadCount) {
    for (const Product & p : kProducts) {
        SCOPED_TRACE(describe(p));
        Ctx                       ctx;
        std::mt19937              rng(4);
        const Graph               g    = build_product(ctx, p, rng);
        const std::vector<double> want = reference_values(g.gf, g.out);
        for (int n : {1, 2, 3, 4, 5, 8}) {
            SCOPED_TRACE(std::to_string(n) + " threads");
            compute_with_exact_work(g, n, want, {2e-4, 1e-4});
        }
    }
}

// Planned for 8 threads, run on a pool of 3: the executor recounts tasks and scratch for 3, within the plan's
// memory. 8 src0 rows of k = 32 with 40 src1 columns (the float path): 8 threads convert one row each, 3 threads
// three each; with 2 columns (the matrix-vector path) the activations are shared.
TEST(MatMulWork, PlannedForMoreThreadsThanThePoolHasStillComputes) {
    for (int64_t cols : {40, 2}) {
        SCOPED_TRACE(std::to_string(cols) + " columns");
        Ctx                       ctx;
        std::mt19937              rng(5);
        const Graph               g    = build_product(ctx, {GGML_TYPE_Q8_0, 32, 8, cols, 1, 1}, rng);
        const std::vector<double> want = reference_values(g.gf, g.out);
        ggml_threadpool_params    tp   = ggml_threadpool_params_default(3);
        ggml_threadpool *         pool = ggml_threadpool_new(&tp);
        ASSERT_NE(pool, nullptr);
        ggml_cplan plan = ggml_graph_plan(g.gf, 8, pool);
        ASSERT_EQ(plan.n_threads, 8);
        std::vector<uint8_t> work(plan.work_size, 0);
        plan.work_data = work.data();
        EXPECT_EQ(ggml_graph_compute(g.gf, &plan), GGML_STATUS_SUCCESS);
        ggml_threadpool_free(pool);
        expect_all_near(g.out, from_values(g.out, want), {2e-4, 1e-4});
    }
}

// MUL_MAT_ID: with F32 experts src1 is read in place; others convert src1 once to their activation format (10 rows
// of 64: f16 128 bytes each, or 256 as f32 holding f16 values on AVX-512; q8_0 68). Then per thread (vec.h): the
// 10 pairs grouped by expert (4 + 2 offsets and 10 pairs, int32: one line), the 10 pairs' activation rows gathered
// (f32 256 bytes each), and an output block of 12 rows x 10 columns (480 bytes: 8 lines).
TEST(MatMulWork, MulMatIdConvertsOnlyNonF32Experts) {
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q8_0}) {
        SCOPED_TRACE(ggml_type_name(type));
        Ctx           ctx;
        std::mt19937  rng(6);
        ggml_tensor * as  = ggml_new_tensor_3d(ctx, type, 64, 12, 4);
        ggml_tensor * b   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 64, 2, 5);
        ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 5);
        fill_any(as, rng);
        fill(b, rng);
        for (int64_t t = 0; t < 5; ++t) {
            set(ids, static_cast<double>(t % 4), 0, t);
            set(ids, static_cast<double>((t + 3) % 4), 1, t);
        }
        Graph g;
        g.out = ggml_mul_mat_id(ctx, as, b, ids);
        g.gf  = ggml_new_graph(ctx);
        ggml_build_forward_expand(g.gf, g.out);
        const size_t row     = type == GGML_TYPE_F32 ? 0 : (type == GGML_TYPE_F16 ? f16_act_row(64) : 68);
        const auto   lines   = [](size_t bytes) { return (bytes + kCacheLine - 1) / kCacheLine * kCacheLine; };
        const size_t gathered = type == GGML_TYPE_F32 ? 256 : row;
        const size_t slot     = kCacheLine + lines(10 * gathered) + 8 * kCacheLine;
        EXPECT_EQ(ggml_graph_plan(g.gf, 3, nullptr).work_size, lines(10 * row) + 3 * slot + 3 * kCacheLine);
        const std::vector<double> want = reference_values(g.gf, g.out);
        for (int n : {1, 3}) {
            compute_with_exact_work(g, n, want, {2e-4, 1e-4});
        }
    }
}

// OUT_PROD needs no work memory for any type: columns are summed a chunk (256 elements) at a time on the stack.
// M = 288 and 300 take two chunks.
TEST(MatMulWork, OutProdNeedsNoneForAnyType) {
    for (ggml_type type : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q8_0}) {
        SCOPED_TRACE(ggml_type_name(type));
        Ctx           ctx;
        std::mt19937  rng(7);
        const int64_t m = type == GGML_TYPE_Q8_0 ? 288 : 300;
        ggml_tensor * a = ggml_new_tensor_3d(ctx, type, m, 6, 2);
        ggml_tensor * b = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 5, 6, 2);
        fill_any(a, rng);
        fill(b, rng);
        Graph g;
        g.out = ggml_out_prod(ctx, a, b);
        g.gf  = ggml_new_graph(ctx);
        ggml_build_forward_expand(g.gf, g.out);
        EXPECT_EQ(ggml_graph_plan(g.gf, 4, nullptr).work_size, 0u);
        const std::vector<double> want = reference_values(g.gf, g.out);
        for (int n : {1, 3}) {
            compute_with_exact_work(g, n, want, {2e-4, 1e-4});
        }
    }
}

} // namespace
