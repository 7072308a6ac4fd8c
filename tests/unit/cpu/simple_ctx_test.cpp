// Work memory as tight as upstream's: programs that size their context the way upstream's examples/simple/
// simple-ctx.cpp does (the inputs' data, a tensor overhead per input, the graph overhead and 1024 bytes for the
// rest) compute with ggml_graph_compute_with_ctx. Ops that need no work memory upstream plan 0 bytes and take
// nothing from the context; products that convert an operand plan their work memory, and a context sized with
// the formula plus exactly that (and its object header) computes them. Results are checked against hand-computed
// values (the example) or the scalar reference (tools/conformance/reference), never against our kernels.
#include "conformance/reference/reference.h"

#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

namespace reference = switchyard::testing::reference;

// The header the context puts before every object (tensor, graph, work buffer).
size_t object_overhead() {
    return ggml_tensor_overhead() - GGML_TENSOR_SIZE;
}

class Context {
public:
    explicit Context(size_t mem_size) : ctx_(ggml_init({mem_size, nullptr, false})) {}
    ~Context() { ggml_free(ctx_); }
    Context(const Context &)             = delete;
    Context & operator=(const Context &) = delete;

    ggml_context * get() const { return ctx_; }

private:
    ggml_context * ctx_;
};

// ---- upstream's example, as it is written there ---------------------------------------------------------------

TEST(SimpleCtx, UpstreamExampleComputesOnOneTwoAndFourThreads) {
    const int   rows_A = 4, cols_A = 2;
    const float matrix_A[rows_A * cols_A] = {2, 8, 5, 1, 4, 2, 8, 6};
    const int   rows_B = 3, cols_B = 2;
    const float matrix_B[rows_B * cols_B] = {10, 5, 9, 9, 5, 4};
    // result ne = {4, 3}: row j holds B row j times every A row (the example prints it "transposed")
    const float expected[4 * 3] = {60, 55, 50, 110, 90, 54, 54, 126, 42, 29, 28, 64};

    for (int n_threads : {1, 2, 4}) {
        size_t ctx_size = 0;
        ctx_size += rows_A * cols_A * ggml_type_size(GGML_TYPE_F32); // tensor a
        ctx_size += rows_B * cols_B * ggml_type_size(GGML_TYPE_F32); // tensor b
        ctx_size += 2 * ggml_tensor_overhead();                      // tensors
        ctx_size += ggml_graph_overhead();                           // compute graph
        ctx_size += 1024;                                            // some overhead
        Context ctx(ctx_size);
        ASSERT_NE(ctx.get(), nullptr);

        ggml_tensor * a = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, cols_A, rows_A);
        ggml_tensor * b = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, cols_B, rows_B);
        ASSERT_NE(a, nullptr);
        ASSERT_NE(b, nullptr);
        std::memcpy(a->data, matrix_A, ggml_nbytes(a));
        std::memcpy(b->data, matrix_B, ggml_nbytes(b));
        ggml_cgraph * gf     = ggml_new_graph(ctx.get());
        ggml_tensor * result = ggml_mul_mat(ctx.get(), a, b);
        ASSERT_NE(gf, nullptr);
        ASSERT_NE(result, nullptr);
        ggml_build_forward_expand(gf, result);

        EXPECT_EQ(ggml_graph_plan(gf, n_threads, nullptr).work_size, 0u) << n_threads << " threads";
        const size_t used = ggml_used_mem(ctx.get());
        ASSERT_EQ(ggml_graph_compute_with_ctx(ctx.get(), gf, n_threads), GGML_STATUS_SUCCESS) << n_threads;
        EXPECT_EQ(ggml_used_mem(ctx.get()), used) << "no work buffer is taken from the context when none is needed";

        ASSERT_EQ(result->ne[0], 4);
        ASSERT_EQ(result->ne[1], 3);
        const auto * out = static_cast<const float *>(result->data);
        for (int i = 0; i < 4 * 3; ++i) {
            EXPECT_EQ(out[i], expected[i]) << "element " << i << ", " << n_threads << " threads";
        }
    }
}

// ---- the same sizing for other graphs ---------------------------------------------------------------------------

// An input of an op graph and how its data is made.
struct Input {
    ggml_type type;
    int64_t   ne[4];
    int32_t   index_limit = 0; // I32: values i % index_limit (row indices, positions)
};

// A graph: inputs are created first (the sizing formula counts their data and overheads), then the graph, then
// the op's nodes from the inputs.
struct GraphCase {
    std::string                                                                        name;
    std::vector<Input>                                                                 inputs;
    std::function<ggml_tensor *(ggml_context *, const std::vector<ggml_tensor *> &)> build;
};

size_t input_bytes(const Input & in) {
    return ggml_row_size(in.type, in.ne[0]) * static_cast<size_t>(in.ne[1] * in.ne[2] * in.ne[3]);
}

// simple-ctx's formula: the inputs' data, a tensor overhead per input, the graph overhead, 1024 bytes.
size_t simple_ctx_size(const GraphCase & c) {
    size_t size = ggml_graph_overhead() + 1024;
    for (const Input & in : c.inputs) {
        size += input_bytes(in) + ggml_tensor_overhead();
    }
    return size;
}

// Deterministic values in [-1, 1) with no pattern a kernel could get right by accident.
float value_at(size_t i, size_t salt) {
    const uint32_t h = static_cast<uint32_t>((i + 1) * 2654435761u) ^ static_cast<uint32_t>(salt * 40503u);
    return static_cast<float>(h % 2000u) / 1000.0f - 1.0f;
}

void fill_input(ggml_tensor * t, const Input & in, size_t salt) {
    const auto n = static_cast<size_t>(ggml_nelements(t));
    if (in.type == GGML_TYPE_I32) {
        auto * d = static_cast<int32_t *>(t->data);
        for (size_t i = 0; i < n; ++i) {
            d[i] = static_cast<int32_t>((i * 7 + salt) % static_cast<size_t>(in.index_limit));
        }
        return;
    }
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = value_at(i, salt);
    }
    if (in.type == GGML_TYPE_F32) {
        std::memcpy(t->data, v.data(), n * sizeof(float));
    } else if (in.type == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(v.data(), static_cast<ggml_fp16_t *>(t->data), static_cast<int64_t>(n));
    } else {
        ggml_quantize_chunk(in.type, v.data(), t->data, 0, ggml_nrows(t), t->ne[0], nullptr);
    }
}

struct Built {
    std::vector<ggml_tensor *> inputs;
    ggml_cgraph *              graph = nullptr;
    ggml_tensor *              out   = nullptr;
};

Built build(ggml_context * ctx, const GraphCase & c) {
    Built b;
    for (const Input & in : c.inputs) {
        b.inputs.push_back(ggml_new_tensor(ctx, in.type, 4, in.ne));
        EXPECT_NE(b.inputs.back(), nullptr) << c.name;
        if (b.inputs.back() == nullptr) {
            return b;
        }
    }
    b.graph = ggml_new_graph(ctx);
    b.out   = c.build(ctx, b.inputs);
    if (b.graph != nullptr && b.out != nullptr) {
        ggml_build_forward_expand(b.graph, b.out);
    }
    return b;
}

// The plan's work size for the case's graph on n_threads (shapes only: built without data).
size_t planned_work(const GraphCase & c, int n_threads) {
    ggml_context * ctx = ggml_init({ggml_graph_overhead() + (64u << 10), nullptr, true});
    const Built    b   = build(ctx, c);
    const size_t   work = b.graph != nullptr ? ggml_graph_plan(b.graph, n_threads, nullptr).work_size : SIZE_MAX;
    ggml_free(ctx);
    return work;
}

// Builds the case in a context of simple_ctx_size + extra bytes, computes it with ggml_graph_compute_with_ctx and
// compares the output with the scalar reference.
void compute_in_simple_ctx(const GraphCase & c, int n_threads, size_t extra) {
    SCOPED_TRACE(c.name + ", " + std::to_string(n_threads) + " threads");
    Context ctx(simple_ctx_size(c) + extra);
    ASSERT_NE(ctx.get(), nullptr);
    const Built b = build(ctx.get(), c);
    ASSERT_NE(b.graph, nullptr);
    ASSERT_NE(b.out, nullptr);
    for (size_t i = 0; i < b.inputs.size(); ++i) {
        fill_input(b.inputs[i], c.inputs[i], i + 1);
    }
    ASSERT_EQ(ggml_graph_compute_with_ctx(ctx.get(), b.graph, n_threads), GGML_STATUS_SUCCESS);

    std::vector<float> got;
    for (int64_t i = 0; i < ggml_nelements(b.out); ++i) {
        const int64_t i0 = i % b.out->ne[0], i1 = (i / b.out->ne[0]) % b.out->ne[1], i2 = i / (b.out->ne[0] * b.out->ne[1]);
        got.push_back(reference::get(b.out, i0, i1, i2, 0));
    }
    ASSERT_TRUE(reference::compute_graph(b.graph)); // overwrites the nodes with the reference's values
    for (int64_t i = 0; i < ggml_nelements(b.out); ++i) {
        const int64_t i0 = i % b.out->ne[0], i1 = (i / b.out->ne[0]) % b.out->ne[1], i2 = i / (b.out->ne[0] * b.out->ne[1]);
        const float   want = reference::get(b.out, i0, i1, i2, 0);
        ASSERT_NEAR(got[static_cast<size_t>(i)], want, 1e-4f * (1.0f + std::fabs(want))) << "element " << i;
    }
}

GraphCase product(ggml_type type_a, int64_t k, int64_t rows_a, int64_t rows_b) {
    return {std::string("mul_mat ") + ggml_type_name(type_a) + " " + std::to_string(k) + "x" + std::to_string(rows_a) +
                " * f32 " + std::to_string(k) + "x" + std::to_string(rows_b),
            {{type_a, {k, rows_a, 1, 1}}, {GGML_TYPE_F32, {k, rows_b, 1, 1}}},
            [](ggml_context * ctx, const std::vector<ggml_tensor *> & in) { return ggml_mul_mat(ctx, in[0], in[1]); }};
}

using Inputs = std::vector<ggml_tensor *>;

// Ops that need no work memory upstream; small enough that their nodes fit in the formula's 1024 bytes.
std::vector<GraphCase> usual_ops() {
    const Input f32_8x4{GGML_TYPE_F32, {8, 4, 1, 1}};
    const Input f32_16x4{GGML_TYPE_F32, {16, 4, 1, 1}};
    return {
        {"add", {f32_8x4, f32_8x4}, [](ggml_context * c, const Inputs & in) { return ggml_add(c, in[0], in[1]); }},
        {"mul (broadcast row)", {f32_8x4, {GGML_TYPE_F32, {8, 1, 1, 1}}},
         [](ggml_context * c, const Inputs & in) { return ggml_mul(c, in[0], in[1]); }},
        {"rms_norm", {f32_16x4}, [](ggml_context * c, const Inputs & in) { return ggml_rms_norm(c, in[0], 1e-6f); }},
        {"soft_max", {f32_16x4}, [](ggml_context * c, const Inputs & in) { return ggml_soft_max(c, in[0]); }},
        {"silu", {f32_16x4}, [](ggml_context * c, const Inputs & in) { return ggml_silu(c, in[0]); }},
        {"rope (normal)", {{GGML_TYPE_F32, {8, 2, 3, 1}}, {GGML_TYPE_I32, {3, 1, 1, 1}, 11}},
         [](ggml_context * c, const Inputs & in) { return ggml_rope(c, in[0], in[1], 8, GGML_ROPE_TYPE_NORMAL); }},
        {"rope (neox)", {{GGML_TYPE_F32, {8, 2, 3, 1}}, {GGML_TYPE_I32, {3, 1, 1, 1}, 11}},
         [](ggml_context * c, const Inputs & in) { return ggml_rope(c, in[0], in[1], 8, GGML_ROPE_TYPE_NEOX); }},
        {"get_rows", {{GGML_TYPE_F32, {8, 5, 1, 1}}, {GGML_TYPE_I32, {3, 1, 1, 1}, 5}},
         [](ggml_context * c, const Inputs & in) { return ggml_get_rows(c, in[0], in[1]); }},
        {"cpy f32 -> f16", {f32_16x4, {GGML_TYPE_F16, {16, 4, 1, 1}}},
         [](ggml_context * c, const Inputs & in) { return ggml_cpy(c, in[0], in[1]); }},
        {"scale", {f32_16x4}, [](ggml_context * c, const Inputs & in) { return ggml_scale(c, in[0], 0.5f); }},
        {"cont of a transpose", {{GGML_TYPE_F32, {6, 4, 1, 1}}},
         [](ggml_context * c, const Inputs & in) { return ggml_cont(c, ggml_transpose(c, in[0])); }},
        {"argsort", {f32_16x4}, [](ggml_context * c, const Inputs & in) { return ggml_argsort(c, in[0], GGML_SORT_ORDER_DESC); }},
    };
}

TEST(SimpleCtx, F32ProductsPlanNoWorkMemoryAndFitTheFormula) {
    for (const GraphCase & c : {product(GGML_TYPE_F32, 2, 4, 3), product(GGML_TYPE_F32, 32, 4, 3),
                                product(GGML_TYPE_F32, 64, 16, 8)}) {
        for (int n : {1, 4}) {
            EXPECT_EQ(planned_work(c, n), 0u) << c.name << ", " << n << " threads";
        }
        for (int n : {1, 2, 4}) {
            compute_in_simple_ctx(c, n, 0);
        }
    }
}

TEST(SimpleCtx, UsualOpsPlanNoWorkMemoryAndFitTheFormula) {
    for (const GraphCase & c : usual_ops()) {
        for (int n : {1, 4}) {
            EXPECT_EQ(planned_work(c, n), 0u) << c.name << ", " << n << " threads";
        }
        for (int n : {1, 2, 4}) {
            compute_in_simple_ctx(c, n, 0);
        }
    }
}

// src0 converted to floats (F16, block formats): work memory is planned, and exactly that much more (with the
// work buffer's object header) is enough.
TEST(SimpleCtx, ConvertingProductsFitTheFormulaPlusTheirPlannedWork) {
    for (ggml_type type : {GGML_TYPE_F16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0}) {
        for (const GraphCase & c : {product(type, 32, 4, 3), product(type, 64, 16, 8)}) {
            for (int n : {1, 2, 4}) {
                const size_t work = planned_work(c, n);
                EXPECT_GT(work, 0u) << c.name;
                compute_in_simple_ctx(c, n, work + object_overhead());
            }
        }
    }
}

// The work memory of a quantized product with few src1 columns is upstream's: src1 converted to the weight type's
// activation format (q8_0: 34 bytes per 32 elements, per column) plus the plan's cache line per thread: for a
// 32x4 q8_0 src0 and 3 src1 columns, 102 bytes.
TEST(SimpleCtx, QuantizedProductWorkSizeIsUpstreams) {
    const GraphCase c = product(GGML_TYPE_Q8_0, 32, 4, 3);
    EXPECT_EQ(planned_work(c, 1), 3 * 34u + 64u);
    EXPECT_EQ(planned_work(c, 4), 3 * 34u + 4 * 64u);
}

} // namespace
