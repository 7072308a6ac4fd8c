// Bad input around buffers and computation on one backend: buffers no machine can hold, copies to NULL,
// graphs that are not allocated or hold an op the device cannot run, and index tensors whose data point
// outside the indexed dimension (GET_ROWS, SET_ROWS, ADD_ID, MUL_MAT_ID; fix 7). The computation must return a
// failure status with a message naming the node, and leave memory outside the node's output untouched.
#include "bad_input.h"

#include "ggml-backend-impl.h"

#include "test_device.h"

#include <cstdint>

namespace switchyard::bad_input {
namespace {

// ---- buffers ----

TEST(BufferBadInput, AllocatingTwoToTheSixtyTwoBytesReturnsNull) {
    BackendPtr cpu(ggml_backend_cpu_init());
    ASSERT_NE(cpu, nullptr);
    const size_t huge = size_t{1} << 62;
    LogCapture   log;
    EXPECT_EQ(ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), huge), nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_buft_alloc_buffer]")) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_backend_alloc_buffer(cpu.get(), huge), nullptr);
    EXPECT_TRUE(log.has_error("ggml_backend_buft_alloc_buffer")) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), SIZE_MAX), nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_buft_alloc_buffer]")) << logged(log);
    // the buffer type still works
    BufferPtr ok(ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 4096));
    ASSERT_NE(ok, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_size(ok.get()), 4096u);
}

TEST(BufferBadInput, AllocatingMoreThanADeviceHasReturnsNull) {
    testing::TestDeviceConfig config;
    config.name        = "SMALLDEV";
    config.memory_size = size_t{1} << 20;
    ggml_backend_dev_t dev = testing::test_device_create(config);
    {
        ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(dev);
        LogCapture                 log;
        EXPECT_EQ(ggml_backend_buft_alloc_buffer(buft, size_t{1} << 62), nullptr);
        EXPECT_TRUE(log.has_error("[ggml_backend_buft_alloc_buffer]")) << logged(log);
        EXPECT_EQ(testing::test_device_allocated(dev), 0u);
        BufferPtr ok(ggml_backend_buft_alloc_buffer(buft, 4096));
        EXPECT_NE(ok, nullptr);
    }
    testing::test_device_release(dev);
}

TEST(BufferBadInput, CopyTensorToNullIsRefused) {
    ContextPtr    ctx = meta_context(4);
    ggml_tensor * src = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
    ggml_tensor * dst = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
    BufferPtr     buffer(ggml_backend_alloc_ctx_tensors_from_buft(ctx.get(), ggml_backend_cpu_buffer_type()));
    ASSERT_NE(buffer, nullptr);
    write_bytes(src, pattern(64, 3));
    write_bytes(dst, pattern(64, 7));
    LogCapture log;
    EXPECT_FALSE(ggml_backend_buffer_copy_tensor(src, nullptr));
    EXPECT_TRUE(log.has_error("ggml_backend_buffer_copy_tensor")) << logged(log);
    log.clear();
    EXPECT_FALSE(ggml_backend_buffer_copy_tensor(nullptr, dst));
    EXPECT_TRUE(log.has_error("ggml_backend_buffer_copy_tensor")) << logged(log);
    EXPECT_EQ(read_bytes(dst), pattern(64, 7));
    // a real copy still works
    EXPECT_TRUE(ggml_backend_buffer_copy_tensor(src, dst));
    EXPECT_EQ(read_bytes(dst), pattern(64, 3));
}

// ---- computing graphs that cannot run ----

TEST(ComputeBadInput, UnallocatedGraphFails) {
    BackendPtr    cpu(ggml_backend_cpu_init());
    ContextPtr    ctx = meta_context();
    ggml_tensor * a   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
    ggml_tensor * b   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
    ggml_tensor * c   = ggml_add(ctx.get(), a, b);
    ggml_set_name(c, "sum_unallocated");
    ggml_cgraph * graph = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(graph, c);
    LogCapture log;
    EXPECT_EQ(ggml_backend_graph_compute(cpu.get(), graph), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error({"ggml_graph_compute", "sum_unallocated", "not allocated"})) << logged(log);
    log.clear();
    EXPECT_NE(ggml_backend_graph_compute(cpu.get(), nullptr), GGML_STATUS_SUCCESS);
    EXPECT_GT(log.errors(), 0u) << logged(log);
    log.clear();
    EXPECT_NE(ggml_backend_graph_compute(nullptr, graph), GGML_STATUS_SUCCESS);
    EXPECT_TRUE(log.has_error("backend is NULL")) << logged(log);
}

// A block-format tensor transposed: its elements have no address the CPU kernels can decode.
ggml_tensor * unsupported_mul_mat(ggml_context * ctx) {
    ggml_tensor * q = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 32, 6);
    ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 6, 3);
    ggml_tensor * r = ggml_mul_mat(ctx, ggml_transpose(ctx, q), b);
    ggml_set_name(r, "mm_transposed_q4_0");
    return r;
}

TEST(ComputeBadInput, UnsupportedOpFailsWithAMessage) {
    BackendPtr    cpu(ggml_backend_cpu_init());
    ContextPtr    ctx  = meta_context();
    ggml_tensor * node = unsupported_mul_mat(ctx.get());
    ASSERT_FALSE(ggml_backend_supports_op(cpu.get(), node));
    ggml_cgraph * graph = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(graph, node);
    BufferPtr buffer(ggml_backend_alloc_ctx_tensors(ctx.get(), cpu.get()));
    ASSERT_NE(buffer, nullptr);
    LogCapture log;
    EXPECT_EQ(ggml_backend_graph_compute(cpu.get(), graph), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error({"mm_transposed_q4_0", "not supported"})) << logged(log);
}

// ---- index data out of range (fix 7) ----

// A CPU graph whose tensors (in context order) are allocated together, with a guard tensor after the output.
class IndexCompute : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_NE(cpu_, nullptr); }

    // adds the guard and allocates every tensor of the context
    void allocate(ggml_tensor * out) {
        guard_ = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, 64);
        ggml_set_name(guard_, "guard");
        graph_ = ggml_new_graph(ctx_.get());
        ggml_build_forward_expand(graph_, out);
        buffer_.reset(ggml_backend_alloc_ctx_tensors(ctx_.get(), cpu_.get()));
        ASSERT_NE(buffer_, nullptr);
        write_bytes(guard_, pattern(256, 0x77));
    }

    ggml_tensor * input_f32(int64_t ne0, int64_t ne1, int64_t ne2 = 1) {
        ggml_tensor * t = ggml_new_tensor_3d(ctx_.get(), GGML_TYPE_F32, ne0, ne1, ne2);
        inputs_.push_back(t);
        return t;
    }

    void fill_inputs() {
        float start = 1.0f;
        for (ggml_tensor * t : inputs_) {
            const std::vector<float> v = iota_f32(static_cast<size_t>(ggml_nelements(t)), start);
            ggml_backend_tensor_set(t, v.data(), 0, ggml_nbytes(t));
            start += 100.0f;
        }
    }

    ggml_status compute() { return ggml_backend_graph_compute(cpu_.get(), graph_); }
    bool        guard_intact() const { return read_bytes(guard_) == pattern(256, 0x77); }

    BackendPtr                 cpu_{ggml_backend_cpu_init()};
    ContextPtr                 ctx_ = meta_context();
    ggml_cgraph *              graph_ = nullptr;
    ggml_tensor *              guard_ = nullptr;
    BufferPtr                  buffer_;
    std::vector<ggml_tensor *> inputs_;
};

TEST_F(IndexCompute, GetRowsIndexOutOfRangeFails) {
    ggml_tensor * a   = input_f32(4, 3);
    ggml_tensor * idx = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_I32, 3);
    ggml_tensor * out = ggml_get_rows(ctx_.get(), a, idx);
    ggml_set_name(out, "rows_out");
    allocate(out);
    fill_inputs();
    const std::vector<uint8_t> a_before = read_bytes(a);
    const int32_t              ids[3]   = {1, 7, 0};
    ggml_backend_tensor_set(idx, ids, 0, sizeof(ids));
    LogCapture log;
    EXPECT_EQ(compute(), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("rows_out")) << "the message must name the node" << logged(log);
    EXPECT_EQ(read_bytes(a), a_before);
    EXPECT_TRUE(guard_intact());
    // with valid indices the same graph computes
    const int32_t good[3] = {2, 0, 1};
    ggml_backend_tensor_set(idx, good, 0, sizeof(good));
    EXPECT_EQ(compute(), GGML_STATUS_SUCCESS);
    float row[4];
    ggml_backend_tensor_get(out, row, 0, sizeof(row));
    EXPECT_EQ(row[0], 9.0f); // row 2 of a starts with 1 + 8
}

TEST_F(IndexCompute, GetRowsNegativeIndexFails) {
    ggml_tensor * a   = input_f32(4, 3);
    ggml_tensor * idx = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_I32, 2);
    ggml_tensor * out = ggml_get_rows(ctx_.get(), a, idx);
    ggml_set_name(out, "rows_negative");
    allocate(out);
    fill_inputs();
    const int32_t ids[2] = {-1, 0};
    ggml_backend_tensor_set(idx, ids, 0, sizeof(ids));
    LogCapture log;
    EXPECT_EQ(compute(), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("rows_negative")) << logged(log);
    EXPECT_TRUE(guard_intact());
}

TEST_F(IndexCompute, SetRowsIndexOutOfRangeFails) {
    ggml_tensor * dst = ggml_new_tensor_2d(ctx_.get(), GGML_TYPE_F32, 4, 3);
    ggml_tensor * src = input_f32(4, 2);
    ggml_tensor * idx = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_I64, 2);
    ggml_tensor * out = ggml_set_rows(ctx_.get(), dst, src, idx);
    ggml_set_name(out, "set_rows_out");
    allocate(out);
    fill_inputs();
    write_bytes(dst, pattern(48, 0x21));
    const int64_t ids[2] = {3, -2};
    ggml_backend_tensor_set(idx, ids, 0, sizeof(ids));
    LogCapture log;
    EXPECT_EQ(compute(), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("set_rows_out")) << logged(log);
    EXPECT_EQ(read_bytes(dst), pattern(48, 0x21)) << "no row of dst was addressed by a valid index";
    EXPECT_TRUE(guard_intact());
}

TEST_F(IndexCompute, AddIdIdOutOfRangeFails) {
    ggml_tensor * a   = input_f32(4, 2, 1);
    ggml_tensor * b   = input_f32(4, 2);
    ggml_tensor * ids = ggml_new_tensor_2d(ctx_.get(), GGML_TYPE_I32, 2, 1);
    ggml_tensor * out = ggml_add_id(ctx_.get(), a, b, ids);
    ggml_set_name(out, "add_id_out");
    allocate(out);
    fill_inputs();
    const int32_t id_values[2] = {0, 5};
    ggml_backend_tensor_set(ids, id_values, 0, sizeof(id_values));
    LogCapture log;
    EXPECT_EQ(compute(), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("add_id_out")) << logged(log);
    EXPECT_TRUE(guard_intact());
}

TEST_F(IndexCompute, MulMatIdExpertOutOfRangeFails) {
    ggml_tensor * as  = input_f32(4, 3, 2);  // 2 experts of 3 x 4
    ggml_tensor * b   = input_f32(4, 2, 1);  // 1 token, one row per used expert
    ggml_tensor * ids = ggml_new_tensor_2d(ctx_.get(), GGML_TYPE_I32, 2, 1);
    ggml_tensor * out = ggml_mul_mat_id(ctx_.get(), as, b, ids);
    ggml_set_name(out, "mul_mat_id_out");
    allocate(out);
    fill_inputs();
    const int32_t id_values[2] = {1, 7};
    ggml_backend_tensor_set(ids, id_values, 0, sizeof(id_values));
    LogCapture log;
    EXPECT_EQ(compute(), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("mul_mat_id_out")) << logged(log);
    EXPECT_TRUE(guard_intact());
    // valid ids compute
    const int32_t good[2] = {1, 0};
    ggml_backend_tensor_set(ids, good, 0, sizeof(good));
    EXPECT_EQ(compute(), GGML_STATUS_SUCCESS);
}

TEST_F(IndexCompute, OutOfRangeIndexFailsWithSeveralThreads) {
    ggml_backend_cpu_set_n_threads(cpu_.get(), 4);
    ggml_tensor * a   = input_f32(8, 5);
    ggml_tensor * idx = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_I32, 64);
    ggml_tensor * out = ggml_get_rows(ctx_.get(), a, idx);
    ggml_set_name(out, "rows_threads");
    allocate(out);
    fill_inputs();
    std::vector<int32_t> ids(64);
    for (size_t i = 0; i < ids.size(); ++i) {
        ids[i] = static_cast<int32_t>(i % 5);
    }
    ids[40] = 5;
    ggml_backend_tensor_set(idx, ids.data(), 0, ids.size() * sizeof(int32_t));
    LogCapture log;
    EXPECT_EQ(compute(), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.has_error("rows_threads")) << logged(log);
    EXPECT_TRUE(guard_intact());
}

} // namespace
} // namespace switchyard::bad_input
