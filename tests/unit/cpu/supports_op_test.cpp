// Does the CPU's supports_op tell the truth? A sweep over ops x source types: MUL_MAT over every src0 type with
// src1 F32/F16/BF16, GET_ROWS from every type, CPY between every pair of F32/F16/BF16/block formats and DUP of
// every type, unary ops over F32/F16/BF16, binary ops with src0 of every type and src1 F32/F16/BF16.
//
// Also layouts: a transposed src1 for MUL_MAT, a transposed source for CPY, and block-format tensors transposed so
// that ne[0] is no multiple of the block size (which every op must refuse).
//
// For each node: when ggml_backend_supports_op says yes, computing it on the CPU backend succeeds and agrees with
// the scalar reference (conformance/reference, evaluated into an F32 twin of the node; a block-format output may be as
// far from it as twice the reference encoder's own error); when it says no, the compute returns a failure status,
// logs why and leaves the output untouched.
#include "cpu_test_util.h"

#include "conformance/reference/reference.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace switchyard::testing;

constexpr int64_t kRow = 256; // a multiple of every block size

const std::vector<ggml_type> kFloatTypes = {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16};

// every type that has a name (removed enum values left out)
std::vector<ggml_type> all_types() {
    std::vector<ggml_type> types;
    for (int i = 0; i < GGML_TYPE_COUNT; ++i) {
        const auto t = static_cast<ggml_type>(i);
        if (ggml_type_size(t) > 0) {
            types.push_back(t);
        }
    }
    return types;
}

std::vector<ggml_type> block_types() {
    std::vector<ggml_type> types;
    for (ggml_type t : all_types()) {
        if (ggml_is_quantized(t)) {
            types.push_back(t);
        }
    }
    return types;
}

// F32, F16, BF16 and every block format: the CPY matrix
std::vector<ggml_type> copy_types() {
    std::vector<ggml_type> types = kFloatTypes;
    for (ggml_type t : block_types()) {
        types.push_back(t);
    }
    return types;
}

enum class Values { Uniform, Positive }; // [-1, 1] or [0.1, 2]

// A CPU backend shared by the sweep (2 threads, so kernels split their work).
ggml_backend_t cpu_backend() {
    static ggml_backend_t backend = [] {
        ggml_backend_t b = ggml_backend_cpu_init();
        ggml_backend_cpu_set_n_threads(b, 2);
        return b;
    }();
    return backend;
}

std::vector<float> read_floats(const ggml_tensor * t) {
    std::vector<float> out;
    out.reserve(static_cast<size_t>(ggml_nelements(t)));
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1)
                for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) out.push_back(reference::get(t, i0, i1, i2, i3));
    return out;
}

// normalised mean squared error; a NaN on one side only counts as infinitely wrong
double nmse(const std::vector<float> & got, const std::vector<float> & want) {
    double err = 0.0, norm = 0.0;
    for (size_t i = 0; i < want.size(); ++i) {
        if (std::isnan(got[i]) || std::isnan(want[i])) {
            if (std::isnan(got[i]) != std::isnan(want[i])) return INFINITY;
            continue;
        }
        err += (static_cast<double>(got[i]) - want[i]) * (static_cast<double>(got[i]) - want[i]);
        norm += static_cast<double>(want[i]) * want[i];
    }
    return err / std::max(norm, 1e-30);
}

// values stored in `type` (per contiguous row of ne0) and read back: the reference's own rounding error
std::vector<float> round_trip(const std::vector<float> & values, ggml_type type, int64_t ne0) {
    const ggml_type_traits * tt = ggml_get_type_traits(type);
    std::vector<float>       out(values.size());
    std::vector<char>        row(ggml_row_size(type, ne0));
    for (size_t r = 0; r < values.size(); r += static_cast<size_t>(ne0)) {
        tt->from_float_ref(values.data() + r, row.data(), ne0);
        tt->to_float(row.data(), out.data() + r, ne0);
    }
    return out;
}

// How far the CPU's output (of type `type`) may be from the exact float result `want`; < 0 when it cannot be
// bounded (a block format without a reference encoder).
double tolerance(ggml_type type, const std::vector<float> & want, int64_t ne0) {
    switch (type) {
        case GGML_TYPE_F32:  return 1e-6;
        case GGML_TYPE_F16:  return 1e-5;
        case GGML_TYPE_BF16: return 1e-4;
        default: break;
    }
    if (!ggml_is_quantized(type)) {
        return 1e-12; // integers: exact
    }
    const ggml_type_traits * tt = ggml_get_type_traits(type);
    if (tt->from_float_ref == nullptr || tt->to_float == nullptr) {
        return -1.0;
    }
    return 2.0 * nmse(round_trip(want, type, ne0), want) + 1e-6;
}

// One node under test: its context holds the filled sources and the node.
class NodeCheck {
public:
    explicit NodeCheck(std::string label) : ctx_(4 * 1024 * 1024), label_(std::move(label)) {}

    ggml_context * ctx() const { return ctx_.get(); }

    // A source of `type` filled with values stored through the type's reference encoder (zeros without one).
    ggml_tensor * input(ggml_type type, int64_t ne0, int64_t ne1 = 1, Values v = Values::Uniform) {
        const bool                            positive = v == Values::Positive;
        ggml_tensor *                         t        = ggml_new_tensor_2d(ctx(), type, ne0, ne1);
        std::uniform_real_distribution<float> dist(positive ? 0.1f : -1.0f, positive ? 2.0f : 1.0f);
        std::vector<float>                    values(static_cast<size_t>(ggml_nelements(t)));
        for (float & x : values) x = dist(rng_);
        const ggml_type_traits * tt = ggml_get_type_traits(type);
        if (tt->from_float_ref != nullptr) {
            tt->from_float_ref(values.data(), t->data, ggml_nelements(t));
        } else {
            std::memset(t->data, 0, ggml_nbytes(t));
        }
        return t;
    }

    ggml_tensor * indices(int64_t n, int64_t limit) {
        ggml_tensor * t = ggml_new_tensor_1d(ctx(), GGML_TYPE_I32, n);
        for (int64_t i = 0; i < n; ++i) {
            static_cast<int32_t *>(t->data)[i] = static_cast<int32_t>((3 * i + 1) % limit);
        }
        return t;
    }

    // Runs the checks on `node` (built in ctx()); returns whether the CPU claimed support.
    bool run(ggml_tensor * node) {
        EXPECT_NE(node, nullptr) << label_ << ": the constructor refused";
        if (node == nullptr) return false;
        const bool    claimed = ggml_backend_supports_op(cpu_backend(), node);
        ggml_tensor * exact   = claimed && reference_can_read(node) ? reference_twin(node) : nullptr;

        ggml_cgraph * graph = ggml_new_graph(ctx());
        ggml_build_forward_expand(graph, node);
        const char *            out = static_cast<const char *>(node->data);
        const std::vector<char> before(out, out + ggml_nbytes(node));
        CpuLogCapture           log;
        const ggml_status       status = ggml_backend_graph_compute(cpu_backend(), graph);
        if (!claimed) {
            EXPECT_NE(status, GGML_STATUS_SUCCESS) << label_ << ": supports_op says no, yet the compute succeeded";
            EXPECT_TRUE(log.contains("is not supported by the CPU backend")) << label_ << ": " << log.text();
            EXPECT_EQ(std::memcmp(before.data(), out, before.size()), 0) << label_ << ": refused, yet output changed";
            return false;
        }
        EXPECT_EQ(status, GGML_STATUS_SUCCESS) << label_ << ": supports_op says yes, the compute failed: "
                                               << log.text();
        if (status == GGML_STATUS_SUCCESS && exact != nullptr) {
            const std::vector<float> want = read_floats(exact);
            const double             tol  = tolerance(node->type, want, node->ne[0]);
            if (tol >= 0.0) {
                EXPECT_LE(nmse(read_floats(node), want), tol) << label_ << ": differs from the reference";
            }
        }
        return true;
    }

private:
    // The reference has this op and can decode the sources it reads (a CPY's destination is not read).
    static bool reference_can_read(const ggml_tensor * node) {
        const int n_read = node->op == GGML_OP_CPY ? 1 : GGML_MAX_SRC;
        for (int i = 0; i < n_read; ++i) {
            if (node->src[i] != nullptr && ggml_get_type_traits(node->src[i]->type)->to_float == nullptr) {
                return false;
            }
        }
        return reference::has_reference(node);
    }

    // The node's op on the same sources, computed by the scalar reference into F32 (exact, whatever node->type).
    ggml_tensor * reference_twin(const ggml_tensor * node) {
        ggml_tensor * twin = ggml_new_tensor(ctx(), GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
        twin->op           = node->op;
        std::memcpy(twin->op_params, node->op_params, sizeof(node->op_params));
        std::memcpy(twin->src, node->src, sizeof(node->src));
        const bool computed = reference::compute_node(twin);
        EXPECT_TRUE(computed) << label_ << ": the reference cannot compute it";
        return computed ? twin : nullptr;
    }

    HostContext  ctx_;
    std::string  label_;
    std::mt19937 rng_{42};
};

std::string type_param_name(const ::testing::TestParamInfo<ggml_type> & info) {
    return ggml_type_name(info.param);
}

// ---- MUL_MAT ----

class MulMatSweep : public ::testing::TestWithParam<ggml_type> {};

TEST_P(MulMatSweep, SupportsOpTellsTheTruth) {
    const ggml_type a = GetParam();
    for (ggml_type b : kFloatTypes) {
        NodeCheck check(std::string("MUL_MAT(") + ggml_type_name(a) + " x " + ggml_type_name(b) + ")");
        const bool claimed = check.run(ggml_mul_mat(check.ctx(), check.input(a, kRow, 4), check.input(b, kRow, 3)));
        if (a == GGML_TYPE_F32 || a == GGML_TYPE_F16 || a == GGML_TYPE_Q8_0) {
            EXPECT_TRUE(claimed) << ggml_type_name(a) << " x " << ggml_type_name(b) << " must be supported";
        }
        NodeCheck     strided(std::string("MUL_MAT(") + ggml_type_name(a) + " x transposed " + ggml_type_name(b) + ")");
        ggml_tensor * bt = ggml_transpose(strided.ctx(), strided.input(b, 3, kRow));
        strided.run(ggml_mul_mat(strided.ctx(), strided.input(a, kRow, 4), bt));
    }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, MulMatSweep, ::testing::ValuesIn(all_types()), type_param_name);

// ---- GET_ROWS ----

class GetRowsSweep : public ::testing::TestWithParam<ggml_type> {};

TEST_P(GetRowsSweep, SupportsOpTellsTheTruth) {
    const ggml_type t = GetParam();
    NodeCheck       check(std::string("GET_ROWS(") + ggml_type_name(t) + ")");
    const bool      claimed = check.run(ggml_get_rows(check.ctx(), check.input(t, kRow, 6), check.indices(4, 6)));
    if (ggml_get_type_traits(t)->to_float != nullptr && ggml_is_quantized(t)) {
        EXPECT_TRUE(claimed) << "GET_ROWS from " << ggml_type_name(t) << " (decodable) must be supported";
    }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, GetRowsSweep, ::testing::ValuesIn(all_types()), type_param_name);

// ---- CPY / DUP ----

class CopySweep : public ::testing::TestWithParam<ggml_type> {};

TEST_P(CopySweep, SupportsOpTellsTheTruth) {
    const ggml_type from = GetParam();
    for (ggml_type to : copy_types()) {
        NodeCheck check(std::string("CPY(") + ggml_type_name(from) + " -> " + ggml_type_name(to) + ")");
        check.run(ggml_cpy(check.ctx(), check.input(from, kRow, 3), check.input(to, kRow, 3)));
    }
    // a transposed source of several blocks per row: float types are read at any stride, block formats need
    // adjacent blocks (refused)
    NodeCheck     strided(std::string("CPY(transposed ") + ggml_type_name(from) + " -> f32)");
    ggml_tensor * at      = ggml_transpose(strided.ctx(), strided.input(from, 2 * kRow, 4));
    const bool    claimed = strided.run(ggml_cpy(strided.ctx(), at, strided.input(GGML_TYPE_F32, 4, 2 * kRow)));
    EXPECT_EQ(claimed, !ggml_is_quantized(from)) << "CPY from a transposed " << ggml_type_name(from);
    NodeCheck dup(std::string("DUP(") + ggml_type_name(from) + ")");
    EXPECT_TRUE(dup.run(ggml_dup(dup.ctx(), dup.input(from, kRow, 3)))) << ggml_type_name(from) << ": a byte copy";
}

INSTANTIATE_TEST_SUITE_P(FloatAndBlockTypes, CopySweep, ::testing::ValuesIn(copy_types()), type_param_name);

// ---- block formats in a layout no kernel can read ----

// A block-format tensor of one-block rows, transposed: ne[0] is no longer a multiple of the block size, yet nb[0]
// equals the block's byte size, so a check for adjacent blocks alone is fooled. Its elements have no address in
// ggml's layout, so every op reading it must be refused (and the compute fail).
class TransposedBlockSweep : public ::testing::TestWithParam<ggml_type> {};

TEST_P(TransposedBlockSweep, IsRefused) {
    const ggml_type   t    = GetParam();
    const int64_t     bs   = ggml_blck_size(t);
    const std::string name = ggml_type_name(t);
    const std::pair<std::string, std::function<ggml_tensor *(NodeCheck &, ggml_tensor *)>> ops[] = {
        {"CPY(transposed " + name + " -> f32)",
         [bs](NodeCheck & c, ggml_tensor * a) { return ggml_cpy(c.ctx(), a, c.input(GGML_TYPE_F32, 6, bs)); }},
        {"GET_ROWS(transposed " + name + ")",
         [bs](NodeCheck & c, ggml_tensor * a) { return ggml_get_rows(c.ctx(), a, c.indices(4, bs)); }},
        {"MUL_MAT(transposed " + name + " x f32)",
         [](NodeCheck & c, ggml_tensor * a) { return ggml_mul_mat(c.ctx(), a, c.input(GGML_TYPE_F32, 6, 3)); }},
    };
    for (const auto & [label, make] : ops) {
        NodeCheck     check(label);
        ggml_tensor * node = make(check, ggml_transpose(check.ctx(), check.input(t, bs, 6)));
        ASSERT_NE(node, nullptr) << label;
        // rows of 6 elements end inside a block: the CPU cannot decode them and must say so
        ASSERT_FALSE(ggml_backend_supports_op(cpu_backend(), node)) << label;
        EXPECT_FALSE(check.run(node)) << label;
    }
}

INSTANTIATE_TEST_SUITE_P(BlockTypes, TransposedBlockSweep, ::testing::ValuesIn(block_types()), type_param_name);

// ---- unary ops ----

struct MapOp {
    const char * name;
    Values       values;
    std::function<ggml_tensor *(ggml_context *, ggml_tensor *)> make;
};

std::vector<MapOp> map_ops() {
    std::vector<MapOp> ops = {
        {"SQR", Values::Uniform, ggml_sqr},
        {"SQRT", Values::Positive, ggml_sqrt},
        {"LOG", Values::Positive, ggml_log},
        {"SIN", Values::Uniform, ggml_sin},
        {"COS", Values::Uniform, ggml_cos},
        {"SCALE", Values::Uniform, [](ggml_context * c, ggml_tensor * a) { return ggml_scale_bias(c, a, 0.5f, 0.2f); }},
        {"CLAMP", Values::Uniform, [](ggml_context * c, ggml_tensor * a) { return ggml_clamp(c, a, -0.5f, 0.5f); }},
        {"LEAKY_RELU", Values::Uniform,
         [](ggml_context * c, ggml_tensor * a) { return ggml_leaky_relu(c, a, 0.1f, false); }},
    };
    for (int u = 0; u < GGML_UNARY_OP_COUNT; ++u) {
        const auto op = static_cast<ggml_unary_op>(u);
        if (op != GGML_UNARY_OP_XIELU) { // needs parameters ggml_unary does not set
            ops.push_back({ggml_unary_op_name(op), Values::Uniform,
                           [op](ggml_context * c, ggml_tensor * a) { return ggml_unary(c, a, op); }});
        }
    }
    return ops;
}

class UnarySweep : public ::testing::TestWithParam<ggml_type> {};

TEST_P(UnarySweep, SupportsOpTellsTheTruth) {
    const ggml_type t = GetParam();
    for (const MapOp & op : map_ops()) {
        NodeCheck check(std::string(op.name) + "(" + ggml_type_name(t) + ")");
        check.run(op.make(check.ctx(), check.input(t, kRow, 3, op.values)));
    }
}

INSTANTIATE_TEST_SUITE_P(FloatTypes, UnarySweep, ::testing::ValuesIn(kFloatTypes), type_param_name);

// ---- binary ops ----

class BinarySweep : public ::testing::TestWithParam<ggml_type> {};

TEST_P(BinarySweep, SupportsOpTellsTheTruth) {
    const ggml_type a = GetParam();
    for (ggml_type b : kFloatTypes) {
        for (ggml_op op : {GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV, GGML_OP_ADD1}) {
            const std::string label = std::string(ggml_op_name(op)) + "(" + ggml_type_name(a) + ", " +
                                      ggml_type_name(b) + ")";
            const Values      v     = op == GGML_OP_DIV ? Values::Positive : Values::Uniform;
            NodeCheck         check(label);
            ggml_context *    c = check.ctx();
            ggml_tensor *     x = check.input(a, kRow, 3);
            ggml_tensor *     y = op == GGML_OP_ADD1 ? check.input(b, 1) : check.input(b, kRow, 1, v);
            switch (op) {
                case GGML_OP_ADD: check.run(ggml_add(c, x, y)); break;
                case GGML_OP_SUB: check.run(ggml_sub(c, x, y)); break;
                case GGML_OP_MUL: check.run(ggml_mul(c, x, y)); break;
                case GGML_OP_DIV: check.run(ggml_div(c, x, y)); break;
                default:          check.run(ggml_add1(c, x, y)); break;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, BinarySweep, ::testing::ValuesIn(all_types()), type_param_name);

} // namespace
