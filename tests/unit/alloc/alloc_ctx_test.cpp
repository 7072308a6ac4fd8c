// ggml_tallocr and ggml_backend_alloc_ctx_tensors*: bump allocation in one buffer, out of space as a status,
// splitting a context over several buffers (a multi-buffer) under a small max size.
#include "test_buft.h"

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-backend.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace switchyard::alloc_test {
namespace {

ggml_context * no_alloc_ctx(int n_tensors = 64) {
    return ggml_init({ggml_tensor_overhead() * static_cast<size_t>(n_tensors), nullptr, true});
}

TEST(Tallocr, PlacesTensorsAlignedOneAfterAnother) {
    TestBuft              test;
    ggml_backend_buffer_t buffer = ggml_backend_buft_alloc_buffer(init_test_buft(test, {64, SIZE_MAX, 8}), 1024);
    ggml_context *        ctx    = no_alloc_ctx();
    ggml_tallocr          talloc = ggml_tallocr_new(buffer);
    ggml_tensor *         a      = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10); // 40 + 8 -> 64
    ggml_tensor *         b      = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 30); // 120 + 8 -> 128
    ASSERT_EQ(ggml_tallocr_alloc(&talloc, a), GGML_STATUS_SUCCESS);
    ASSERT_EQ(ggml_tallocr_alloc(&talloc, b), GGML_STATUS_SUCCESS);
    char * base = static_cast<char *>(ggml_backend_buffer_get_base(buffer));
    EXPECT_EQ(a->data, base);
    EXPECT_EQ(b->data, base + 64);
    EXPECT_EQ(a->buffer, buffer);
    EXPECT_EQ(talloc.offset, 192u);
    ggml_free(ctx);
    ggml_backend_buffer_free(buffer);
}

TEST(Tallocr, OutOfSpaceIsAStatusNotAnAbort) {
    TestBuft              test;
    ggml_backend_buffer_t buffer = ggml_backend_buft_alloc_buffer(init_test_buft(test, {32, SIZE_MAX, 0}), 256);
    ggml_context *        ctx    = no_alloc_ctx();
    ggml_tallocr          talloc = ggml_tallocr_new(buffer);
    ggml_tensor *         a      = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 48); // 192 bytes
    ggml_tensor *         b      = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 32); // 128 bytes: does not fit
    ASSERT_EQ(ggml_tallocr_alloc(&talloc, a), GGML_STATUS_SUCCESS);
    EXPECT_EQ(ggml_tallocr_alloc(&talloc, b), GGML_STATUS_ALLOC_FAILED);
    EXPECT_EQ(b->data, nullptr);
    EXPECT_EQ(b->buffer, nullptr);
    EXPECT_EQ(talloc.offset, 192u); // unchanged by the failure
    ggml_tensor * c = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16); // 64 bytes still fit
    EXPECT_EQ(ggml_tallocr_alloc(&talloc, c), GGML_STATUS_SUCCESS);
    ggml_free(ctx);
    ggml_backend_buffer_free(buffer);
}

TEST(AllocCtx, OneBufferWhenEverythingFits) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft = init_test_buft(test, {32, SIZE_MAX, 0});
    ggml_context *             ctx  = no_alloc_ctx();
    ggml_tensor *              a    = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 10, 3); // 120 -> 128
    ggml_tensor *              v    = ggml_view_tensor(ctx, a);
    ggml_tensor *              b    = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 7); // 14 -> 32
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft_size(ctx, buft), 160u);
    ggml_backend_buffer_t buffer = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
    ASSERT_NE(buffer, nullptr);
    EXPECT_FALSE(ggml_backend_buffer_is_multi_buffer(buffer));
    EXPECT_EQ(ggml_backend_buffer_get_size(buffer), 160u);
    EXPECT_EQ(v->data, a->data);
    EXPECT_EQ(v->buffer, buffer);
    EXPECT_EQ(static_cast<char *>(b->data) - static_cast<char *>(a->data), 128);
    ggml_backend_buffer_free(buffer);
    EXPECT_EQ(test.live_buffers, 0);
    ggml_free(ctx);
}

TEST(AllocCtx, SplitsIntoAMultiBufferUnderTheMaxSize) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft = init_test_buft(test, {32, 1000, 0});
    ggml_context *             ctx  = no_alloc_ctx();
    std::vector<ggml_tensor *> ts;
    for (int i = 0; i < 7; ++i) {
        ts.push_back(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 96)); // 384 bytes each: two per buffer
    }
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft_size(ctx, buft), 7u * 384u);
    ggml_backend_buffer_t buffer = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
    ASSERT_NE(buffer, nullptr);
    EXPECT_TRUE(ggml_backend_buffer_is_multi_buffer(buffer));
    EXPECT_EQ(test.allocations, (std::vector<size_t>{768, 768, 768, 384}));
    EXPECT_EQ(ggml_backend_buffer_get_size(buffer), 7u * 384u);
    std::set<ggml_backend_buffer_t> parts;
    for (size_t i = 0; i < ts.size(); ++i) {
        ASSERT_NE(ts[i]->buffer, nullptr);
        parts.insert(ts[i]->buffer);
        if (i % 2 == 1) {
            EXPECT_EQ(ts[i]->buffer, ts[i - 1]->buffer);
            EXPECT_EQ(static_cast<char *>(ts[i]->data) - static_cast<char *>(ts[i - 1]->data), 384);
        }
    }
    EXPECT_EQ(parts.size(), 4u);
    ggml_backend_buffer_free(buffer); // frees the parts too
    EXPECT_EQ(test.live_buffers, 0);
    ggml_free(ctx);
}

TEST(AllocCtx, ATensorLargerThanTheMaxSizeFails) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft = init_test_buft(test, {32, 1000, 0});
    ggml_context *             ctx  = no_alloc_ctx();
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10);
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 300); // 1200 bytes
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft), nullptr);
    EXPECT_EQ(test.live_buffers, 0);
    ggml_free(ctx);
}

TEST(AllocCtx, NothingToAllocateGivesNull) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft = init_test_buft(test, {});
    ggml_context *             ctx  = no_alloc_ctx();
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft), nullptr); // empty context
    ggml_tensor *         a      = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ggml_backend_buffer_t buffer = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
    ASSERT_NE(buffer, nullptr);
    ggml_tensor * v = ggml_view_tensor(ctx, a); // gets its memory from a at creation
    EXPECT_EQ(v->data, a->data);
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft), nullptr); // all have memory now
    EXPECT_EQ(test.live_buffers, 1);
    ggml_backend_buffer_free(buffer);
    ggml_free(ctx);
}

TEST(AllocCtx, ZeroSizeTensorsGetAZeroSizeBuffer) {
    TestBuft                   test;
    ggml_backend_buffer_type_t buft = init_test_buft(test, {});
    ggml_context *             ctx  = no_alloc_ctx();
    ggml_tensor *              z    = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 0, 5);
    ggml_backend_buffer_t      buffer = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_size(buffer), 0u);
    EXPECT_EQ(z->buffer, buffer);
    ggml_backend_buffer_free(buffer);
    ggml_free(ctx);
}

TEST(AllocCtx, RequiresANoAllocContext) {
    TestBuft       test;
    ggml_context * ctx = ggml_init({1024 * 1024, nullptr, false});
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx, init_test_buft(test, {})), nullptr);
    ggml_free(ctx);
}

} // namespace
} // namespace switchyard::alloc_test
