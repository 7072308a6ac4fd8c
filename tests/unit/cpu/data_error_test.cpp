// Data errors in CPU kernels: an index or id read from a tensor that falls outside the dimension it indexes
// (GET_ROWS, SET_ROWS with I64 and I32 indices, ADD_ID, MUL_MAT_ID; one past the end, far past it, negative).
// The computation returns GGML_STATUS_FAILED through ggml_backend_graph_compute (1 and 4 threads), graph plans,
// the scheduler and the test device; one line is logged naming the node, its op and the bad value; no byte of the
// buffer outside the tensor the failing node writes changes (guard bytes between all tensors; the node computed
// from the failing one does not run); the same graph with valid indices then computes the values written below.
#include "cpu_test_util.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include "cpu/kernel.h"
#include "test_device.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace switchyard::testing;

constexpr size_t  kGuard   = 64;   // bytes between tensors in the arena
constexpr uint8_t kPattern = 0xA5; // the arena's bytes before any write

size_t pad(size_t n) { return (n + kGuard - 1) / kGuard * kGuard; }

// Every tensor of a no_alloc context placed in one CPU buffer, kGuard bytes apart, the buffer first filled with
// kPattern: any write outside the tensors lands in a guard.
class Arena {
public:
    explicit Arena(ggml_context * ctx) {
        size_t size = kGuard;
        for (ggml_tensor * t = ggml_get_first_tensor(ctx); t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
            size += t->view_src == nullptr ? pad(ggml_nbytes(t)) + kGuard : 0;
        }
        buffer_ = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), size);
        ggml_backend_buffer_clear(buffer_, kPattern);
        base_ = static_cast<uint8_t *>(ggml_backend_buffer_get_base(buffer_));
        size_ = size;
        size_t offset = kGuard;
        for (ggml_tensor * t = ggml_get_first_tensor(ctx); t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
            if (t->view_src == nullptr) {
                EXPECT_EQ(ggml_backend_tensor_alloc(buffer_, t, base_ + offset), GGML_STATUS_SUCCESS);
                offset += pad(ggml_nbytes(t)) + kGuard;
            } else {
                EXPECT_EQ(ggml_backend_view_init(t), GGML_STATUS_SUCCESS);
            }
        }
    }
    ~Arena() { ggml_backend_buffer_free(buffer_); }
    Arena(const Arena &)             = delete;
    Arena & operator=(const Arena &) = delete;

    std::vector<uint8_t> bytes() const { return std::vector<uint8_t>(base_, base_ + size_); }

    // The first byte outside `written` that differs from `before` ("" if none).
    std::string first_change(const std::vector<uint8_t> & before, const ggml_tensor * written) const {
        const size_t w0 = static_cast<size_t>(static_cast<const uint8_t *>(written->data) - base_);
        const size_t w1 = w0 + ggml_nbytes(written);
        for (size_t i = 0; i < size_; ++i) {
            if ((i < w0 || i >= w1) && base_[i] != before[i]) {
                return "byte " + std::to_string(i) + " of the arena changed (the written tensor is [" +
                       std::to_string(w0) + ", " + std::to_string(w1) + "))";
            }
        }
        return "";
    }

private:
    ggml_backend_buffer_t buffer_ = nullptr;
    uint8_t *             base_   = nullptr;
    size_t                size_   = 0;
};

// Element (i0, i1, i2) of a F32 tensor / of a contiguous index tensor (I32 or I64) by flat position.
float & at(const ggml_tensor * t, int64_t i0, int64_t i1 = 0, int64_t i2 = 0) {
    return *reinterpret_cast<float *>(static_cast<char *>(t->data) + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2]);
}

void set_index(ggml_tensor * ids, int64_t pos, int64_t value) {
    char * p = static_cast<char *>(ids->data) + pos * static_cast<int64_t>(ggml_type_size(ids->type));
    if (ids->type == GGML_TYPE_I64) {
        std::memcpy(p, &value, sizeof(value));
    } else {
        const auto v = static_cast<int32_t>(value);
        std::memcpy(p, &v, sizeof(v));
    }
}

void fill_f32(ggml_tensor * t, const std::function<float(int64_t, int64_t, int64_t)> & f) {
    for (int64_t i2 = 0; i2 < t->ne[2]; ++i2) {
        for (int64_t i1 = 0; i1 < t->ne[1]; ++i1) {
            for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) {
                at(t, i0, i1, i2) = f(i0, i1, i2);
            }
        }
    }
}

// Small integers, so every expected value below is exact in float.
float small(int64_t i0, int64_t i1, int64_t i2) { return static_cast<float>((i0 * 7 + i1 * 3 + i2 * 5) % 9 - 4); }

enum class OpKind { GetRows, SetRowsI64, SetRowsI32, AddId, MulMatId, SsmScan };
enum class Bad { OnePastEnd, FarPastEnd, Negative };

const char * op_label(OpKind k) {
    switch (k) {
        case OpKind::GetRows:    return "GET_ROWS";
        case OpKind::SetRowsI64: return "SET_ROWS_I64";
        case OpKind::SetRowsI32: return "SET_ROWS_I32";
        case OpKind::AddId:      return "ADD_ID";
        case OpKind::MulMatId:   return "MUL_MAT_ID";
        case OpKind::SsmScan:    return "SSM_SCAN";
    }
    return "?";
}

// One graph: `node` reads indices from `ids` (indexing a dimension of size n) and writes `written`; `after` =
// node * 2 is computed from it. expected(i0, i1, i2) is the node's value with the valid indices.
struct OpGraph {
    ggml_context *       ctx     = nullptr;
    ggml_tensor *        node    = nullptr;
    ggml_tensor *        written = nullptr;
    ggml_tensor *        after   = nullptr;
    ggml_tensor *        ids     = nullptr;
    int64_t              n       = 0;
    std::vector<int64_t> valid;       // the valid indices, in ids' element order
    int64_t              bad_pos = 0; // the element made bad
    std::string          op;          // the op's name in the log
    ggml_cgraph *        graph = nullptr;
    std::function<void()>                               set_inputs;
    std::function<float(int64_t, int64_t, int64_t)> expected;

    explicit OpGraph(OpKind kind) {
        ggml_init_params params = {64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ctx                     = ggml_init(params);
        switch (kind) {
            case OpKind::GetRows:    build_get_rows(); break;
            case OpKind::SetRowsI64: build_set_rows(GGML_TYPE_I64); break;
            case OpKind::SetRowsI32: build_set_rows(GGML_TYPE_I32); break;
            case OpKind::AddId:      build_add_id(); break;
            case OpKind::MulMatId:   build_mul_mat_id(); break;
            case OpKind::SsmScan:    build_ssm_scan(); break;
        }
        ggml_set_name(node, "picked");
        after = ggml_scale(ctx, node, 2.0f);
        ggml_set_name(after, "picked_x2");
        graph = ggml_new_graph(ctx);
        ggml_build_forward_expand(graph, after);
    }
    ~OpGraph() { ggml_free(ctx); }
    OpGraph(const OpGraph &)             = delete;
    OpGraph & operator=(const OpGraph &) = delete;

    // Inputs, and the valid indices.
    void reset() {
        set_inputs();
        for (size_t i = 0; i < valid.size(); ++i) {
            set_index(ids, static_cast<int64_t>(i), valid[i]);
        }
    }

    int64_t bad_value(Bad bad) const {
        switch (bad) {
            case Bad::OnePastEnd: return n;
            case Bad::FarPastEnd: return ids->type == GGML_TYPE_I64 ? int64_t(1) << 40 : 1000000;
            case Bad::Negative:   return -1;
        }
        return 0;
    }

    // Every element of the node and of `after` as expected.
    void expect_correct() const {
        for (int64_t i2 = 0; i2 < node->ne[2]; ++i2) {
            for (int64_t i1 = 0; i1 < node->ne[1]; ++i1) {
                for (int64_t i0 = 0; i0 < node->ne[0]; ++i0) {
                    const float want = expected(i0, i1, i2);
                    ASSERT_EQ(at(node, i0, i1, i2), want) << "(" << i0 << ", " << i1 << ", " << i2 << ")";
                    ASSERT_EQ(at(after, i0, i1, i2), 2.0f * want) << "(" << i0 << ", " << i1 << ", " << i2 << ")";
                }
            }
        }
    }

private:
    void build_ssm_scan();

    // picked = table[:, ids]: table [4, 16], ids [3]
    void build_get_rows() {
        ggml_tensor * table = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 16);
        ids                 = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
        node = written = ggml_get_rows(ctx, table, ids);
        n              = 16;
        valid          = {5, 0, 15};
        bad_pos        = 1;
        op             = "GET_ROWS";
        set_inputs     = [=] { fill_f32(table, [](int64_t i0, int64_t i1, int64_t) { return 100.0f * i1 + i0; }); };
        expected       = [this](int64_t i0, int64_t i1, int64_t) { return 100.0f * valid[i1] + i0; };
    }

    // cache [4, 8] rows ids[i] = rows[:, i]: rows [4, 3], ids [3]; picked is the cache
    void build_set_rows(ggml_type index_type) {
        ggml_tensor * cache = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 8);
        ggml_tensor * rows  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
        ids                 = ggml_new_tensor_1d(ctx, index_type, 3);
        node                = ggml_set_rows(ctx, cache, rows, ids);
        written             = cache;
        n                   = 8;
        valid               = {6, 1, 3};
        bad_pos             = 2;
        op                  = "SET_ROWS";
        set_inputs          = [=] {
            fill_f32(cache, [](int64_t i0, int64_t i1, int64_t) { return -10.0f * i1 - i0; });
            fill_f32(rows, [](int64_t i0, int64_t i1, int64_t) { return 1000.0f + 100.0f * i1 + i0; });
        };
        expected = [](int64_t i0, int64_t i1, int64_t) {
            const int64_t from = i1 == 6 ? 0 : i1 == 1 ? 1 : i1 == 3 ? 2 : -1;
            return from < 0 ? -10.0f * i1 - i0 : 1000.0f + 100.0f * from + i0;
        };
    }

    // picked[:, i1, i2] = x[:, i1, i2] + bias[:, ids[i1, i2]]: x [4, 3, 2], bias [4, 5], ids [3, 2]
    void build_add_id() {
        ggml_tensor * x    = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 3, 2);
        ggml_tensor * bias = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 5);
        ids                = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 3, 2);
        node = written = ggml_add_id(ctx, x, bias, ids);
        n              = 5;
        valid          = {4, 0, 2, 1, 1, 3};
        bad_pos        = 4;
        op             = "ADD_ID";
        set_inputs     = [=] {
            fill_f32(x, small);
            fill_f32(bias, [](int64_t i0, int64_t i1, int64_t) { return 10.0f * i1 + i0; });
        };
        expected = [this](int64_t i0, int64_t i1, int64_t i2) {
            return small(i0, i1, i2) + 10.0f * valid[i2 * 3 + i1] + i0;
        };
    }

    // picked[:, e, t] = experts[ids[e, t]] * tokens[:, e % 1, t]: experts [8, 3, 4], tokens [8, 1, 2], ids [2, 2]
    void build_mul_mat_id() {
        ggml_tensor * experts = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 8, 3, 4);
        ggml_tensor * tokens  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 8, 1, 2);
        ids                   = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 2);
        node = written = ggml_mul_mat_id(ctx, experts, tokens, ids);
        n              = 4;
        valid          = {3, 0, 1, 3};
        bad_pos        = 3;
        op             = "MUL_MAT_ID";
        set_inputs     = [=] {
            fill_f32(experts, small);
            fill_f32(tokens, [](int64_t i0, int64_t, int64_t i2) { return static_cast<float>(i0 % 3 + i2 - 1); });
        };
        expected = [this](int64_t row, int64_t e, int64_t t) {
            float sum = 0.0f; // sum over k of experts[k, row, expert] * tokens[k, 0, t]
            for (int64_t k = 0; k < 8; ++k) {
                sum += small(k, row, valid[t * 2 + e]) * static_cast<float>(k % 3 + t - 1);
            }
            return sum;
        };
    }
};

// Mamba's scan over one token of 3 sequences, each starting from state ids[s] of 4: s [1, 1, 2, 4], x [1, 2, 1, 3];
// with A = 0, dt = 32 (softplus(32) = 32), B = 1/32 and C = 1 every new state (and output) is exactly
// state[ids[s]] + x. picked is 1-d: 6 outputs, then the 6 final states, both ordered (head, sequence).
struct SsmScanGraph {
    static void build(OpGraph & g, ggml_context * ctx) {
        ggml_tensor * st = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 1, 1, 2, 4);
        ggml_tensor * x  = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 1, 2, 1, 3);
        ggml_tensor * dt = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 2, 1, 3);
        ggml_tensor * A  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1, 2);
        ggml_tensor * B  = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 1, 1, 1, 3);
        ggml_tensor * C  = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 1, 1, 1, 3);
        g.ids            = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
        g.node = g.written = ggml_ssm_scan(ctx, st, x, dt, A, B, C, g.ids, 1);
        g.n                = 4;
        g.valid            = {3, 0, 2};
        g.bad_pos          = 1;
        g.op               = "SSM_SCAN";
        g.set_inputs       = [=] {
            auto fill = [](ggml_tensor * t, const std::function<float(int64_t)> & f) {
                for (int64_t k = 0; k < ggml_nelements(t); ++k) static_cast<float *>(t->data)[k] = f(k);
            };
            fill(st, [](int64_t k) { return 10.0f * static_cast<float>(k / 2) + static_cast<float>(k % 2); });
            fill(x, [](int64_t k) { return static_cast<float>(k % 2) + 0.25f * static_cast<float>(k / 2); });
            fill(dt, [](int64_t) { return 32.0f; });
            fill(A, [](int64_t) { return 0.0f; });
            fill(B, [](int64_t) { return 1.0f / 32.0f; });
            fill(C, [](int64_t) { return 1.0f; });
        };
        g.expected = [&g](int64_t i0, int64_t, int64_t) {
            const int64_t k = i0 % 6, seq = k / 2, h = k % 2;
            return 10.0f * static_cast<float>(g.valid[static_cast<size_t>(seq)]) + 2.0f * static_cast<float>(h) +
                   0.25f * static_cast<float>(seq);
        };
    }
};

// How many times `needle` occurs in `text`.
int count(const std::string & text, const std::string & needle) {
    int c = 0;
    for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
        ++c;
    }
    return c;
}

void OpGraph::build_ssm_scan() {
    SsmScanGraph::build(*this, ctx);
}

class DataErrorTest : public ::testing::TestWithParam<std::tuple<OpKind, Bad, int>> {
protected:
    void SetUp() override {
        backend_ = ggml_backend_cpu_init();
        ASSERT_NE(backend_, nullptr);
    }
    void TearDown() override { ggml_backend_free(backend_); }

    ggml_backend_t backend_ = nullptr;
};

TEST_P(DataErrorTest, FailsNamingTheNodeTouchesNothingElseThenRecovers) {
    const auto [kind, bad, n_threads] = GetParam();
    ggml_backend_cpu_set_n_threads(backend_, n_threads);
    OpGraph g(kind);
    Arena   arena(g.ctx);

    g.reset();
    ASSERT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS);
    g.expect_correct();

    const int64_t value = g.bad_value(bad);
    set_index(g.ids, g.bad_pos, value);
    std::memset(g.after->data, kPattern, ggml_nbytes(g.after)); // must stay so: the graph stops after the node
    const std::vector<uint8_t> before = arena.bytes();
    {
        CpuLogCapture log;
        EXPECT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_FAILED);
        const std::string text = log.text();
        EXPECT_EQ(count(text, "[ggml_graph_compute]"), 1) << text;
        EXPECT_NE(text.find("'picked' (" + g.op), std::string::npos) << text;
        const std::string what = std::to_string(value) + " out of range [0, " + std::to_string(g.n) + ")";
        EXPECT_NE(text.find(what), std::string::npos) << text;
        EXPECT_EQ(text.find("picked_x2"), std::string::npos) << text;
    }
    EXPECT_EQ(arena.first_change(before, g.written), "");

    g.reset();
    ASSERT_EQ(ggml_backend_graph_compute(backend_, g.graph), GGML_STATUS_SUCCESS);
    g.expect_correct();
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<OpKind, Bad, int>> & info) {
    const auto [kind, bad, n_threads] = info.param;
    const char * b = bad == Bad::OnePastEnd ? "OnePastEnd" : bad == Bad::FarPastEnd ? "FarPastEnd" : "Negative";
    return std::string(op_label(kind)) + "_" + b + "_" + std::to_string(n_threads) + "threads";
}

INSTANTIATE_TEST_SUITE_P(AllIndexReadingOps, DataErrorTest,
                         ::testing::Combine(::testing::Values(OpKind::GetRows, OpKind::SetRowsI64, OpKind::SetRowsI32,
                                                              OpKind::AddId, OpKind::MulMatId, OpKind::SsmScan),
                                            ::testing::Values(Bad::OnePastEnd, Bad::FarPastEnd, Bad::Negative),
                                            ::testing::Values(1, 4)),
                         param_name);

TEST(DataError, InRangeIndicesAtBothEndsSucceed) {
    ggml_backend_t backend = ggml_backend_cpu_init();
    for (OpKind kind : {OpKind::GetRows, OpKind::SetRowsI64, OpKind::AddId, OpKind::MulMatId}) {
        SCOPED_TRACE(op_label(kind));
        OpGraph g(kind);
        Arena   arena(g.ctx);
        g.valid[0] = 0; // both ends of the indexed dimension
        g.valid[1] = g.n - 1;
        if (kind == OpKind::SetRowsI64) {
            g.valid = {7, 0, 3};
            g.expected = [](int64_t i0, int64_t i1, int64_t) {
                const int64_t from = i1 == 7 ? 0 : i1 == 0 ? 1 : i1 == 3 ? 2 : -1;
                return from < 0 ? -10.0f * i1 - i0 : 1000.0f + 100.0f * from + i0;
            };
        }
        g.reset();
        CpuLogCapture log;
        EXPECT_EQ(ggml_backend_graph_compute(backend, g.graph), GGML_STATUS_SUCCESS);
        g.expect_correct();
        EXPECT_FALSE(log.contains("out of range")) << log.text();
    }
    ggml_backend_free(backend);
}

// Every index bad, many rows, 4 threads: every thread reports, one message is kept and logged, every time.
TEST(DataError, ManyThreadsReportingAtOnceLogOneLine) {
    ggml_init_params params = {8 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx    = ggml_init(params);
    ggml_tensor *    table  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4);
    ggml_tensor *    ids    = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 4096);
    ggml_tensor *    rows   = ggml_get_rows(ctx, table, ids);
    ggml_set_name(rows, "all_bad");
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, rows);
    Arena arena(ctx);
    for (int64_t i = 0; i < ids->ne[0]; ++i) {
        set_index(ids, i, 4 + i);
    }
    ggml_backend_t backend = ggml_backend_cpu_init();
    ggml_backend_cpu_set_n_threads(backend, 4);
    for (int rep = 0; rep < 20; ++rep) {
        CpuLogCapture log;
        ASSERT_EQ(ggml_backend_graph_compute(backend, graph), GGML_STATUS_FAILED);
        EXPECT_EQ(count(log.text(), "[ggml_graph_compute]"), 1) << log.text();
        EXPECT_EQ(count(log.text(), "out of range"), 1) << log.text();
        EXPECT_EQ(count(log.text(), "'all_bad' (GET_ROWS"), 1) << log.text();
    }
    ggml_backend_free(backend);
    ggml_free(ctx);
}

// Two bad nodes in a row: the first one is named and the second never runs.
TEST(DataError, TheFirstFailingNodeStopsTheGraph) {
    ggml_init_params params = {8 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx    = ggml_init(params);
    ggml_tensor *    table  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 6);
    ggml_tensor *    ids    = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
    ggml_tensor *    first  = ggml_get_rows(ctx, table, ids);
    ggml_tensor *    second = ggml_get_rows(ctx, table, ids);
    ggml_set_name(first, "first");
    ggml_set_name(second, "second");
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, first);
    ggml_build_forward_expand(graph, second);
    Arena arena(ctx);
    set_index(ids, 0, 1);
    set_index(ids, 1, 6);
    const std::vector<uint8_t> before = arena.bytes();
    ggml_backend_t             backend = ggml_backend_cpu_init();
    for (int n_threads : {1, 4}) {
        ggml_backend_cpu_set_n_threads(backend, n_threads);
        CpuLogCapture log;
        EXPECT_EQ(ggml_backend_graph_compute(backend, graph), GGML_STATUS_FAILED);
        EXPECT_NE(log.text().find("node 0 'first' (GET_ROWS"), std::string::npos) << log.text();
        EXPECT_EQ(log.text().find("second"), std::string::npos) << log.text();
        EXPECT_EQ(arena.first_change(before, first), "");
    }
    ggml_backend_free(backend);
    ggml_free(ctx);
}

// The other ways to compute a graph on the CPU return the same status.
class DataErrorPathsTest : public ::testing::Test {
protected:
    void SetUp() override {
        backend_ = ggml_backend_cpu_init();
        ASSERT_NE(backend_, nullptr);
        ggml_backend_cpu_set_n_threads(backend_, 2);
    }
    void TearDown() override { ggml_backend_free(backend_); }

    ggml_backend_t backend_ = nullptr;
};

TEST_F(DataErrorPathsTest, GraphPlan) {
    OpGraph g(OpKind::MulMatId);
    Arena   arena(g.ctx);
    g.reset();
    ggml_backend_graph_plan_t plan = ggml_backend_graph_plan_create(backend_, g.graph);
    ASSERT_NE(plan, nullptr);
    set_index(g.ids, g.bad_pos, -7);
    {
        CpuLogCapture log;
        EXPECT_EQ(ggml_backend_graph_plan_compute(backend_, plan), GGML_STATUS_FAILED);
        EXPECT_TRUE(log.contains("'picked' (MUL_MAT_ID")) << log.text();
        EXPECT_TRUE(log.contains("expert id -7 out of range [0, 4)")) << log.text();
    }
    g.reset();
    EXPECT_EQ(ggml_backend_graph_plan_compute(backend_, plan), GGML_STATUS_SUCCESS);
    g.expect_correct();
    ggml_backend_graph_plan_free(backend_, plan);
}

TEST_F(DataErrorPathsTest, GraphComputeWithCtx) {
    HostContext   host;
    ggml_tensor * x    = ggml_new_tensor_2d(host.get(), GGML_TYPE_F32, 4, 3);
    ggml_tensor * bias = ggml_new_tensor_2d(host.get(), GGML_TYPE_F32, 4, 2);
    ggml_tensor * ids  = ggml_new_tensor_1d(host.get(), GGML_TYPE_I32, 3);
    ggml_tensor * out  = ggml_add_id(host.get(), x, bias, ids);
    ggml_set_name(out, "biased");
    fill_f32(x, small);
    fill_f32(bias, [](int64_t i0, int64_t i1, int64_t) { return 10.0f * i1 + i0; });
    ggml_cgraph * graph = ggml_new_graph(host.get());
    ggml_build_forward_expand(graph, out);
    for (int n_threads : {1, 4}) {
        const int32_t bad[] = {1, 0, 2};
        std::memcpy(ids->data, bad, sizeof(bad));
        CpuLogCapture log;
        EXPECT_EQ(ggml_graph_compute_with_ctx(host.get(), graph, n_threads), GGML_STATUS_FAILED);
        EXPECT_TRUE(log.contains("'biased' (ADD_ID")) << log.text();
        EXPECT_TRUE(log.contains("id 2 out of range [0, 2) at (2, 0)")) << log.text();
    }
    const int32_t good[] = {1, 0, 1};
    std::memcpy(ids->data, good, sizeof(good));
    ASSERT_EQ(ggml_graph_compute_with_ctx(host.get(), graph, 4), GGML_STATUS_SUCCESS);
    for (int64_t i1 = 0; i1 < 3; ++i1) {
        for (int64_t i0 = 0; i0 < 4; ++i0) {
            EXPECT_EQ(at(out, i0, i1), small(i0, i1, 0) + 10.0f * good[i1] + i0);
        }
    }
}

TEST_F(DataErrorPathsTest, Scheduler) {
    ggml_init_params params = {16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx    = ggml_init(params);
    ggml_tensor *    table  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 16);
    ggml_tensor *    ids    = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
    ggml_set_input(table);
    ggml_set_input(ids);
    ggml_tensor * rows = ggml_get_rows(ctx, table, ids);
    ggml_set_name(rows, "embd");
    ggml_tensor * out = ggml_scale(ctx, rows, 2.0f);
    ggml_set_output(out);
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, out);

    ggml_backend_sched_t sched = ggml_backend_sched_new(&backend_, nullptr, 1, 64, false, false);
    ASSERT_NE(sched, nullptr);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, graph));
    std::vector<float> tv(64);
    for (size_t i = 0; i < tv.size(); ++i) {
        tv[i] = static_cast<float>(i);
    }
    ggml_backend_tensor_set(table, tv.data(), 0, sizeof(float) * tv.size());
    const int32_t bad[] = {3, 1000000, 0};
    ggml_backend_tensor_set(ids, bad, 0, sizeof(bad));
    {
        CpuLogCapture log;
        EXPECT_EQ(ggml_backend_sched_graph_compute(sched, graph), GGML_STATUS_FAILED);
        EXPECT_TRUE(log.contains("'embd' (GET_ROWS")) << log.text();
        EXPECT_TRUE(log.contains("index 1000000 out of range [0, 16)")) << log.text();
    }
    const int32_t good[] = {3, 15, 0};
    ggml_backend_tensor_set(ids, good, 0, sizeof(good));
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, graph), GGML_STATUS_SUCCESS);
    std::vector<float> got(12);
    ggml_backend_tensor_get(out, got.data(), 0, sizeof(float) * got.size());
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i], 2.0f * static_cast<float>(4 * good[i / 4] + static_cast<int32_t>(i % 4))) << i;
    }
    ggml_backend_sched_free(sched);
    ggml_free(ctx);
}

// The test device computes asynchronously through a CPU backend: the failure comes back from that graph_compute
// or, like any asynchronous error, from the next call on the stream.
TEST(DataErrorTestDevice, FailureComesBackFromThisOrTheNextCompute) {
    ggml_backend_dev_t dev     = test_device_create(TestDeviceConfig{});
    ggml_backend_t     backend = ggml_backend_dev_init(dev, nullptr);
    ASSERT_NE(backend, nullptr);
    ggml_init_params params = {8 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx    = ggml_init(params);
    ggml_tensor *    table  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 5);
    ggml_tensor *    ids    = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
    ggml_tensor *    rows   = ggml_get_rows(ctx, table, ids);
    ggml_set_name(rows, "on_device");
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, rows);
    ggml_backend_buffer_t buffer = ggml_backend_alloc_ctx_tensors(ctx, backend);
    ASSERT_NE(buffer, nullptr);
    std::vector<float> tv(20);
    for (size_t i = 0; i < tv.size(); ++i) {
        tv[i] = static_cast<float>(i);
    }
    ggml_backend_tensor_set(table, tv.data(), 0, sizeof(float) * tv.size());
    const int32_t bad[]  = {-2, 1};
    const int32_t good[] = {4, 1};
    ggml_backend_tensor_set(ids, bad, 0, sizeof(bad));
    ggml_status first, second;
    {
        CpuLogCapture log;
        first = ggml_backend_graph_compute(backend, graph);
        ggml_backend_tensor_set(ids, good, 0, sizeof(good));
        second = ggml_backend_graph_compute(backend, graph);
        EXPECT_TRUE(log.contains("'on_device' (GET_ROWS")) << log.text();
        EXPECT_TRUE(log.contains("index -2 out of range [0, 5)")) << log.text();
    }
    EXPECT_TRUE(first == GGML_STATUS_FAILED || second == GGML_STATUS_FAILED) << first << " " << second;
    ASSERT_EQ(ggml_backend_graph_compute(backend, graph), GGML_STATUS_SUCCESS);
    std::vector<float> got(8);
    ggml_backend_tensor_get(rows, got.data(), 0, sizeof(float) * got.size());
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i], static_cast<float>(4 * good[i / 4] + static_cast<int32_t>(i % 4))) << i;
    }
    ggml_backend_buffer_free(buffer);
    ggml_free(ctx);
    ggml_backend_free(backend);
    test_device_release(dev);
}

// RWKV_WKV6 with a time_first of another size than S*H: supported (llama.cpp chooses the weight's buffer type by
// asking with its real time_first beside made-up tokens, and upstream's CPU says yes), and computing it fails with a
// status instead of reading past time_first.
TEST(DataError, Wkv6TimeFirstOfAnotherSizeFailsWhenComputed) {
    ggml_backend_t backend = ggml_backend_cpu_init();
    for (const int64_t tf_values : {int64_t{4} * 3, int64_t{4} * 2}) {
        SCOPED_TRACE(tf_values);
        ggml_init_params params{16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ggml_context *   ctx = ggml_init(params);
        const int64_t    S = 4, H = 3, T = 2;
        ggml_tensor *    k = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, S, H, T);
        ggml_tensor *    v = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, S, H, T);
        ggml_tensor *    r = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, S, H, T);
        ggml_tensor *    td = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, S, H, T);
        ggml_tensor *    tf = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, tf_values);
        ggml_tensor *    state = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, S * S * H, 1);
        ggml_tensor *    out   = ggml_rwkv_wkv6(ctx, k, v, r, tf, td, state);
        ggml_cgraph *    gf    = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        EXPECT_TRUE(ggml_backend_supports_op(backend, out));
        Arena arena(ctx);
        for (ggml_tensor * t : {k, v, r, td, tf, state}) {
            fill_all(t, 0.5f);
        }
        CpuLogCapture log;
        const bool    right = tf_values == S * H;
        EXPECT_EQ(ggml_backend_graph_compute(backend, gf), right ? GGML_STATUS_SUCCESS : GGML_STATUS_FAILED);
        EXPECT_EQ(log.contains("time_first"), !right) << log.text();
        ggml_free(ctx);
    }
    ggml_backend_free(backend);
}

// A kernel run outside a graph computation (no error slot) still checks and logs.
TEST(DataError, KernelOutsideAComputationLogs) {
    HostContext   host;
    ggml_tensor * table = ggml_new_tensor_2d(host.get(), GGML_TYPE_F32, 4, 3);
    ggml_tensor * ids   = ggml_new_tensor_1d(host.get(), GGML_TYPE_I32, 1);
    ggml_tensor * rows  = ggml_get_rows(host.get(), table, ids);
    set_index(ids, 0, 3);
    fill_all(rows, 7.0f);
    const switchyard::cpu::ComputeParams params{0, 1, nullptr, 0, nullptr};
    CpuLogCapture                        log;
    switchyard::cpu::kernel_for(GGML_OP_GET_ROWS).compute(params, rows);
    EXPECT_TRUE(log.contains("data error: index 3 out of range [0, 3)")) << log.text();
    EXPECT_EQ(values(rows), std::vector<float>(4, 7.0f));
}

} // namespace
