// Tensor data access in CPU buffers: set/get/memset round trips (1-D and 2-D), copies, views, tensor
// placement, and the error model: out-of-range or unallocated requests are logged and change nothing, also when
// the tensor's own size allows them but its buffer does not (data set by hand, a view changed by hand).
#include "backend_test_util.h"

#include <cstdint>
#include <cstring>
#include <vector>

using namespace switchyard::testing;

namespace {

class TensorIo : public ::testing::Test {
protected:
    void SetUp() override {
        buffer_ = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 4096);
        ASSERT_NE(buffer_, nullptr);
        ggml_backend_buffer_clear(buffer_, 0);
    }
    void TearDown() override { ggml_backend_buffer_free(buffer_); }

    // A new F32 tensor placed at the next free (64-byte aligned) offset of the buffer.
    ggml_tensor * tensor(int64_t ne0, int64_t ne1 = 1) {
        ggml_tensor * t = ggml_new_tensor_2d(ctx_.get(), GGML_TYPE_F32, ne0, ne1);
        EXPECT_TRUE(place(buffer_, t, next_));
        next_ += (ggml_nbytes(t) + 63) / 64 * 64;
        return t;
    }

    MetaContext           ctx_;
    ggml_backend_buffer_t buffer_ = nullptr;
    size_t                next_   = 0;
};

TEST_F(TensorIo, SetGetRoundTripWholeAndPartial) {
    ggml_tensor * t = tensor(8);
    write_f32(t, {1, 2, 3, 4, 5, 6, 7, 8});
    EXPECT_EQ(read_f32(t), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));

    const float patch[2] = {-1.5f, -2.5f};
    ggml_backend_tensor_set(t, patch, 3 * sizeof(float), sizeof(patch));
    EXPECT_EQ(read_f32(t), (std::vector<float>{1, 2, 3, -1.5f, -2.5f, 6, 7, 8}));

    float tail[3] = {};
    ggml_backend_tensor_get(t, tail, 5 * sizeof(float), sizeof(tail));
    EXPECT_EQ(tail[0], 6.0f);
    EXPECT_EQ(tail[2], 8.0f);
}

TEST_F(TensorIo, MemsetWritesOnlyTheRequestedBytes) {
    ggml_tensor * t = tensor(4);
    ggml_backend_tensor_memset(t, 0x7F, 4, 8);
    uint8_t bytes[16];
    ggml_backend_tensor_get(t, bytes, 0, sizeof(bytes));
    for (int i = 0; i < 16; ++i) {
        EXPECT_EQ(bytes[i], (i >= 4 && i < 12) ? 0x7F : 0) << "byte " << i;
    }
}

TEST_F(TensorIo, TwoDimensionalSetAndGetUseBothStrides) {
    ggml_tensor * t = tensor(4, 3); // rows of 16 bytes
    // write the first two floats of each row from a packed source (stride 8 bytes)
    const float src[6] = {10, 11, 20, 21, 30, 31};
    ggml_backend_tensor_set_2d(t, src, 0, 2 * sizeof(float), 3, 4 * sizeof(float), 2 * sizeof(float));
    EXPECT_EQ(read_f32(t), (std::vector<float>{10, 11, 0, 0, 20, 21, 0, 0, 30, 31, 0, 0}));

    // read the last float of each row into every other slot of the destination (stride 8 bytes)
    write_f32(t, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    float dst[6] = {-1, -1, -1, -1, -1, -1};
    ggml_backend_tensor_get_2d(t, dst, 3 * sizeof(float), sizeof(float), 3, 4 * sizeof(float), 2 * sizeof(float));
    EXPECT_EQ(dst[0], 4.0f);
    EXPECT_EQ(dst[1], -1.0f);
    EXPECT_EQ(dst[2], 8.0f);
    EXPECT_EQ(dst[4], 12.0f);
    EXPECT_EQ(dst[5], -1.0f);
}

TEST_F(TensorIo, OutOfRangeRequestsAreLoggedAndChangeNothing) {
    ggml_tensor * t = tensor(4);
    write_f32(t, {1, 2, 3, 4});
    const float big[5] = {9, 9, 9, 9, 9};

    LogCapture log;
    ggml_backend_tensor_set(t, big, 0, sizeof(big));
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_set] out of range"));
    ggml_backend_tensor_set(t, big, 12, 8);
    ggml_backend_tensor_set(t, big, SIZE_MAX, 2); // offset + size overflows
    ggml_backend_tensor_memset(t, 0xFF, 8, 16);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_memset] out of range"));
    // 2-D: the first blocks would fit, the last does not: nothing at all is written
    ggml_backend_tensor_set_2d(t, big, 0, 4, 3, 8, 4);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_set_2d] out of range"));
    EXPECT_EQ(log.errors(), 5u);
    EXPECT_EQ(read_f32(t), (std::vector<float>{1, 2, 3, 4}));

    log.clear();
    float out[5] = {-7, -7, -7, -7, -7};
    ggml_backend_tensor_get(t, out, 4, 16);
    ggml_backend_tensor_get_2d(t, out, 0, 4, 2, SIZE_MAX / 2, 4);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_get] out of range"));
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_get_2d] out of range"));
    EXPECT_EQ(out[0], -7.0f);
    EXPECT_EQ(out[4], -7.0f);
}

TEST_F(TensorIo, UnallocatedTensorsAndNullPointersAreLogged) {
    ggml_tensor * loose = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, 4);
    ggml_set_name(loose, "loose");
    float values[4] = {};

    LogCapture log;
    ggml_backend_tensor_set(loose, values, 0, 0); // size 0 does nothing, without complaint
    EXPECT_EQ(log.errors(), 0u);
    ggml_backend_tensor_set(loose, values, 0, sizeof(values));
    EXPECT_TRUE(log.contains("tensor 'loose' has no buffer"));
    ggml_backend_tensor_get(nullptr, values, 0, 4);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_get] tensor is NULL"));

    ggml_tensor * t = tensor(4);
    ggml_backend_tensor_set(t, nullptr, 0, 4);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_set] host data pointer is NULL"));
}

TEST_F(TensorIo, CopyBetweenHostTensorsAndLayoutMismatch) {
    ggml_tensor * a = tensor(6);
    ggml_tensor * b = tensor(6);
    ggml_tensor * c = tensor(3, 2);
    write_f32(a, {1, 2, 3, 4, 5, 6});
    ggml_backend_tensor_copy(a, b);
    EXPECT_EQ(read_f32(b), (std::vector<float>{1, 2, 3, 4, 5, 6}));

    LogCapture log;
    ggml_backend_tensor_copy(a, c);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_copy] cannot copy"));
    EXPECT_EQ(read_f32(c), (std::vector<float>(6, 0.0f)));

    log.clear();
    ggml_backend_tensor_copy(a, a); // copying onto itself is a no-op
    EXPECT_EQ(log.errors(), 0u);
}

TEST_F(TensorIo, ViewsShareTheirSourcesMemory) {
    ggml_tensor * t = tensor(8);
    write_f32(t, {0, 1, 2, 3, 4, 5, 6, 7});
    ggml_tensor * v = ggml_view_1d(ctx_.get(), t, 3, 2 * sizeof(float));
    ASSERT_EQ(ggml_backend_view_init(v), GGML_STATUS_SUCCESS);
    EXPECT_EQ(v->buffer, buffer_);
    EXPECT_EQ(v->data, static_cast<char *>(t->data) + 2 * sizeof(float));
    EXPECT_EQ(read_f32(v), (std::vector<float>{2, 3, 4}));

    write_f32(v, {-2, -3, -4});
    EXPECT_EQ(read_f32(t), (std::vector<float>{0, 1, -2, -3, -4, 5, 6, 7}));

    LogCapture log;
    EXPECT_EQ(ggml_backend_view_init(v), GGML_STATUS_SUCCESS); // initializing again changes nothing
    EXPECT_EQ(v->data, static_cast<char *>(t->data) + 2 * sizeof(float));
    EXPECT_EQ(log.errors(), 0u);
    EXPECT_EQ(ggml_backend_view_init(t), GGML_STATUS_FAILED); // not a view
    EXPECT_TRUE(log.contains("is not a view"));

    ggml_backend_buffer_t other = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64);
    v->buffer                   = other; // inconsistent with its source
    EXPECT_EQ(ggml_backend_view_init(v), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("its source"));
    ggml_backend_buffer_free(other);

    ggml_tensor * loose = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, 4);
    ggml_tensor * lv    = ggml_view_1d(ctx_.get(), loose, 2, 0);
    EXPECT_EQ(ggml_backend_view_init(lv), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("is not allocated"));
}

TEST_F(TensorIo, TensorAllocRejectsPlacementsOutsideTheBuffer) {
    char *        base = static_cast<char *>(ggml_backend_buffer_get_base(buffer_));
    ggml_tensor * t    = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, 4); // 16 bytes

    LogCapture log;
    EXPECT_EQ(ggml_backend_tensor_alloc(buffer_, t, base + 4096 - 8), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_alloc]"));
    EXPECT_TRUE(log.contains("does not fit"));
    EXPECT_EQ(ggml_backend_tensor_alloc(buffer_, t, base - 64), GGML_STATUS_FAILED);
    EXPECT_EQ(t->buffer, nullptr);
    EXPECT_EQ(t->data, nullptr);

    EXPECT_EQ(ggml_backend_tensor_alloc(buffer_, t, base + 4096 - 16), GGML_STATUS_SUCCESS); // exactly at the end
    EXPECT_EQ(t->buffer, buffer_);
    log.clear();
    EXPECT_EQ(ggml_backend_tensor_alloc(buffer_, t, base), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("already allocated"));

    ggml_tensor * src  = tensor(4);
    ggml_tensor * view = ggml_view_1d(ctx_.get(), src, 2, 0);
    EXPECT_EQ(ggml_backend_tensor_alloc(buffer_, view, base), GGML_STATUS_FAILED);
    EXPECT_TRUE(log.contains("is a view"));
}

// A tensor placed at the end of the buffer, then moved 8 bytes further by hand: its 16 bytes now end 8 bytes
// past the buffer. Every request that reaches past the buffer is logged and dropped; the part inside still works.
TEST_F(TensorIo, RequestsPastTheBufferAreLoggedAndChangeNothing) {
    char *        base = static_cast<char *>(ggml_backend_buffer_get_base(buffer_));
    ggml_tensor * t    = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, 4);
    ggml_set_name(t, "t");
    ASSERT_EQ(ggml_backend_tensor_alloc(buffer_, t, base + 4096 - 16), GGML_STATUS_SUCCESS);
    t->data = base + 4096 - 8;
    std::memset(base + 4096 - 16, 0x11, 16);
    const float values[4] = {1, 2, 3, 4};
    float       out[4]    = {-7, -7, -7, -7};

    LogCapture log;
    ggml_backend_tensor_set(t, values, 0, sizeof(values));
    EXPECT_EQ(log.text(), "[ggml_backend_tensor_set] out of range: bytes 0 to 16 of tensor 't' (data at offset 4088 of "
                          "its buffer) leave buffer CPU of 4096 bytes\n");
    ggml_backend_tensor_set(t, values, 4, 8);
    ggml_backend_tensor_memset(t, 0xFF, 8, 8);
    ggml_backend_tensor_get(t, out, 0, sizeof(out));
    ggml_backend_tensor_set_2d(t, values, 0, 4, 3, 4, 4);
    ggml_backend_tensor_get_2d(t, out, 0, 4, 4, 4, 4);
    ggml_backend_tensor_set_async(nullptr, t, values, 0, 16); // NULL backend: logged before the range
    EXPECT_EQ(log.errors(), 7u);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_memset] out of range: bytes 8 to 16 of tensor 't'"));
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_get] out of range: bytes 0 to 16 of tensor 't'"));
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_set_2d] out of range: bytes 0 to 12 of tensor 't'"));
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_get_2d] out of range: bytes 0 to 16 of tensor 't'"));

    // copies check both sides
    ggml_tensor * inside = tensor(4);
    write_f32(inside, {5, 6, 7, 8});
    log.clear();
    ggml_backend_tensor_copy(inside, t);
    ggml_backend_tensor_copy(t, inside);
    EXPECT_EQ(log.errors(), 2u);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_copy] out of range: bytes 0 to 16 of tensor 't'"));
    EXPECT_EQ(read_f32(inside), (std::vector<float>{5, 6, 7, 8}));

    // nothing was read or written: the bytes before the tensor's data kept their value, `out` too
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(static_cast<uint8_t>(base[4096 - 16 + i]), 0x11) << i;
    }
    EXPECT_EQ(out[0], -7.0f);
    EXPECT_EQ(out[3], -7.0f);

    // the 8 bytes that are inside the buffer may still be used
    log.clear();
    ggml_backend_tensor_set(t, values, 0, 8);
    ggml_backend_tensor_get(t, out, 0, 8);
    EXPECT_EQ(log.errors(), 0u);
    EXPECT_EQ(out[0], 1.0f);
    EXPECT_EQ(out[1], 2.0f);
}

TEST_F(TensorIo, DataBeforeTheBufferOrInAnEmptyBufferIsRejected) {
    char *        base = static_cast<char *>(ggml_backend_buffer_get_base(buffer_));
    ggml_tensor * t    = tensor(4);
    ggml_set_name(t, "t");
    t->data = base - 8; // by hand
    float out[4] = {-7, -7, -7, -7};

    LogCapture log;
    ggml_backend_tensor_get(t, out, 0, 4);
    EXPECT_EQ(log.text(), "[ggml_backend_tensor_get] out of range: bytes 0 to 4 of tensor 't' (data at offset -8 of "
                          "its buffer) leave buffer CPU of 4096 bytes\n");
    EXPECT_EQ(out[0], -7.0f);

    ggml_backend_buffer_t empty = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 0);
    ASSERT_NE(empty, nullptr);
    ASSERT_EQ(ggml_backend_buffer_get_size(empty), 0u);
    t->buffer = empty;
    t->data   = out; // a host address, but no byte of the empty buffer
    log.clear();
    ggml_backend_tensor_set(t, out, 0, 4);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_set] out of range: bytes 0 to 4 of tensor 't'")) << log.text();
    EXPECT_TRUE(log.contains("leave buffer CPU of 0 bytes")) << log.text();
    t->buffer = buffer_;
    ggml_backend_buffer_free(empty);
}

// The strided view (4 rows of 4 floats, 64 bytes apart, of a 16-float source) cannot be made through
// ggml_view_2d any more; made by hand at the end of the buffer, its 208 bytes are stopped by the buffer check.
TEST_F(TensorIo, AViewChangedByHandCannotReachPastTheBuffer) {
    char *        base = static_cast<char *>(ggml_backend_buffer_get_base(buffer_));
    ggml_tensor * src  = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, 16);
    ASSERT_EQ(ggml_backend_tensor_alloc(buffer_, src, base + 4096 - 64), GGML_STATUS_SUCCESS);
    ggml_tensor * v = ggml_view_2d(ctx_.get(), src, 4, 4, 16, 0);
    ASSERT_EQ(ggml_backend_view_init(v), GGML_STATUS_SUCCESS);
    ggml_set_name(v, "v");
    v->nb[1] = 64;
    v->nb[2] = v->nb[3] = 256;
    ASSERT_EQ(ggml_nbytes(v), 208u);

    std::vector<uint8_t> bytes(208, 0xAB);
    LogCapture           log;
    ggml_backend_tensor_set(v, bytes.data(), 0, bytes.size());
    ggml_backend_tensor_get(v, bytes.data(), 0, bytes.size());
    ggml_backend_tensor_set(v, bytes.data(), 64, 16); // bytes 64..80: past the buffer's last byte
    EXPECT_EQ(log.errors(), 3u);
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_set] out of range: bytes 0 to 208 of tensor 'v' (data at offset "
                             "4032 of its buffer) leave buffer CPU of 4096 bytes"))
        << log.text();
    EXPECT_TRUE(log.contains("[ggml_backend_tensor_set] out of range: bytes 64 to 80 of tensor 'v'")) << log.text();
    EXPECT_EQ(bytes[0], 0xAB);
    EXPECT_EQ(read_f32(src), std::vector<float>(16, 0.0f));

    // its first 64 bytes are the source's: allowed
    log.clear();
    ggml_backend_tensor_set(v, bytes.data(), 0, 64);
    EXPECT_EQ(log.errors(), 0u);
    EXPECT_EQ(static_cast<uint8_t>(base[4096 - 1]), 0xAB);
}

} // namespace
