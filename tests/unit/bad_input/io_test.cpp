// Bad tensor I/O: out-of-range offsets and sizes (including ones whose sum overflows), strided requests that
// run past the tensor, views accessed beyond their own extent, NULL and unallocated tensors, NULL host
// pointers. Every request must be refused whole with a message naming the function: nothing written into the
// tensor, its neighbours or the host memory. Run on the CPU buffer type (host memory, synchronous backend) and
// on the GPU-like test device (device memory, asynchronous backend with its own async I/O).
#include "bad_input.h"

#include "test_device.h"

#include <cstdint>
#include <ostream>

namespace switchyard::bad_input {
namespace {

constexpr int64_t kN     = 16; // floats per tensor: 64 bytes
constexpr size_t  kBytes = kN * sizeof(float);

enum class Device { Cpu, Test };

void PrintTo(Device device, std::ostream * os) {
    *os << (device == Device::Cpu ? "CPU" : "test device");
}

class TensorIo : public ::testing::TestWithParam<Device> {
protected:
    void SetUp() override {
        if (GetParam() == Device::Test) {
            testing::TestDeviceConfig config;
            config.name = "BADIO";
            dev_        = testing::test_device_create(config);
            backend_.reset(ggml_backend_dev_init(dev_, nullptr));
        } else {
            backend_.reset(ggml_backend_cpu_init());
        }
        ASSERT_NE(backend_, nullptr);
        guarded_ = std::make_unique<GuardedTensor>(ggml_backend_get_default_buffer_type(backend_.get()), kN);
        ASSERT_TRUE(guarded_->ok());
    }

    void TearDown() override {
        guarded_.reset();
        backend_.reset();
        if (dev_ != nullptr) {
            testing::test_device_release(dev_);
        }
    }

    ggml_tensor *  t() const { return guarded_->t(); }
    ggml_backend_t backend() const { return backend_.get(); }

    ggml_backend_dev_t             dev_ = nullptr;
    BackendPtr                     backend_;
    std::unique_ptr<GuardedTensor> guarded_;
};

std::string device_name(const ::testing::TestParamInfo<Device> & info) {
    return info.param == Device::Cpu ? "Cpu" : "TestDevice";
}

// (offset, size) pairs that do not fit the 64-byte tensor
struct Range {
    size_t offset, size;
};
constexpr Range kBadRanges[] = {
    {60, 8},            // runs 4 bytes past the end
    {0, kBytes + 1},    // one byte too many
    {kBytes + 1, 1},    // starts past the end
    {SIZE_MAX - 2, 4},  // offset + size wraps around to 1
    {4, SIZE_MAX},      // size alone wraps
};

TEST_P(TensorIo, SetOutOfRangeWritesNothing) {
    const std::vector<uint8_t> src(1024, 0xEE);
    for (const Range & r : kBadRanges) {
        LogCapture log;
        ggml_backend_tensor_set(t(), src.data(), r.offset, r.size);
        EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set]", "out of range"}))
            << "offset " << r.offset << " size " << r.size << logged(log);
    }
    EXPECT_TRUE(guarded_->intact());
}

TEST_P(TensorIo, GetOutOfRangeReadsNothing) {
    for (const Range & r : kBadRanges) {
        std::vector<uint8_t> dst(1024, 0xC3);
        LogCapture           log;
        ggml_backend_tensor_get(t(), dst.data(), r.offset, r.size);
        EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get]", "out of range"}))
            << "offset " << r.offset << " size " << r.size << logged(log);
        EXPECT_EQ(dst, std::vector<uint8_t>(1024, 0xC3)) << "host memory written by a refused get";
    }
    EXPECT_TRUE(guarded_->intact());
}

TEST_P(TensorIo, MemsetOutOfRangeWritesNothing) {
    for (const Range & r : kBadRanges) {
        LogCapture log;
        ggml_backend_tensor_memset(t(), 0xEE, r.offset, r.size);
        EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_memset]", "out of range"}))
            << "offset " << r.offset << " size " << r.size << logged(log);
    }
    EXPECT_TRUE(guarded_->intact());
}

// (offset, size, n_copies, stride) that run past the tensor
struct Range2d {
    size_t offset, size, n_copies, stride;
};
constexpr Range2d kBad2d[] = {
    {0, 16, 5, 16},               // 5 blocks of 16 bytes: 80 bytes
    {8, 16, 4, 16},               // the last block ends at byte 72
    {0, 4, 3, SIZE_MAX / 2},      // (n - 1) * stride overflows
    {SIZE_MAX - 8, 4, 2, 4},      // offset + stride wraps around
};

TEST_P(TensorIo, Set2dOutOfRangeWritesNothing) {
    const std::vector<uint8_t> src(4096, 0xEE);
    for (size_t i = 0; i < std::size(kBad2d); ++i) {
        const Range2d & r = kBad2d[i];
        LogCapture      log;
        ggml_backend_tensor_set_2d(t(), src.data(), r.offset, r.size, r.n_copies, r.stride, r.size);
        EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set_2d]", "out of range"})) << "case " << i << logged(log);
    }
    EXPECT_TRUE(guarded_->intact());
}

TEST_P(TensorIo, Get2dOutOfRangeReadsNothing) {
    for (size_t i = 0; i < std::size(kBad2d); ++i) {
        const Range2d &      r = kBad2d[i];
        std::vector<uint8_t> dst(4096, 0xC3);
        LogCapture           log;
        ggml_backend_tensor_get_2d(t(), dst.data(), r.offset, r.size, r.n_copies, r.stride, r.size);
        EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get_2d]", "out of range"})) << "case " << i << logged(log);
        EXPECT_EQ(dst, std::vector<uint8_t>(4096, 0xC3)) << "case " << i;
    }
    EXPECT_TRUE(guarded_->intact());
}

TEST_P(TensorIo, AsyncSetAndGetOutOfRangeDoNothing) {
    const std::vector<uint8_t> src(1024, 0xEE);
    for (const Range & r : kBadRanges) {
        std::vector<uint8_t> dst(1024, 0xC3);
        LogCapture           log;
        ggml_backend_tensor_set_async(backend(), t(), src.data(), r.offset, r.size);
        ggml_backend_tensor_get_async(backend(), t(), dst.data(), r.offset, r.size);
        ggml_backend_synchronize(backend());
        EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set_async]", "out of range"}))
            << "offset " << r.offset << " size " << r.size << logged(log);
        EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get_async]", "out of range"}))
            << "offset " << r.offset << " size " << r.size << logged(log);
        EXPECT_EQ(dst, std::vector<uint8_t>(1024, 0xC3));
    }
    EXPECT_TRUE(guarded_->intact());
}

TEST_P(TensorIo, Async2dOutOfRangeDoesNothing) {
    const std::vector<uint8_t> src(4096, 0xEE);
    for (size_t i = 0; i < std::size(kBad2d); ++i) {
        const Range2d &      r = kBad2d[i];
        std::vector<uint8_t> dst(4096, 0xC3);
        LogCapture           log;
        ggml_backend_tensor_set_2d_async(backend(), t(), src.data(), r.offset, r.size, r.n_copies, r.stride, r.size);
        ggml_backend_tensor_get_2d_async(backend(), t(), dst.data(), r.offset, r.size, r.n_copies, r.stride, r.size);
        ggml_backend_synchronize(backend());
        EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set_2d_async]", "out of range"})) << "case " << i << logged(log);
        EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get_2d_async]", "out of range"})) << "case " << i << logged(log);
        EXPECT_EQ(dst, std::vector<uint8_t>(4096, 0xC3)) << "case " << i;
    }
    EXPECT_TRUE(guarded_->intact());
}

TEST_P(TensorIo, InRangeRequestsStillWork) {
    // after all the refusals above, the valid edges work: the last byte, the whole tensor, blocks that end at it
    std::vector<uint8_t> bytes = pattern(kBytes, 0x42);
    ggml_backend_tensor_set(t(), bytes.data(), 0, kBytes);
    std::vector<uint8_t> back(kBytes);
    ggml_backend_tensor_get(t(), back.data(), 0, kBytes);
    EXPECT_EQ(back, bytes);
    uint8_t last = 0;
    ggml_backend_tensor_get(t(), &last, kBytes - 1, 1);
    EXPECT_EQ(last, bytes.back());
    std::vector<uint8_t> blocks(16);
    ggml_backend_tensor_get_2d(t(), blocks.data(), 12, 4, 4, 16, 4); // bytes 12..15, 28..31, 44..47, 60..63
    for (size_t i = 0; i < 4; ++i) {
        for (size_t j = 0; j < 4; ++j) {
            EXPECT_EQ(blocks[i * 4 + j], bytes[12 + i * 16 + j]);
        }
    }
}

TEST_P(TensorIo, ViewIsCheckedAgainstItsOwnExtent) {
    // 4 floats at byte 16 of the target: in range of the source, but not of the view
    ContextPtr    ctx  = meta_context(4);
    ggml_tensor * view = ggml_view_1d(ctx.get(), t(), 4, 16);
    ASSERT_NE(view, nullptr);
    ASSERT_EQ(ggml_backend_view_init(view), GGML_STATUS_SUCCESS);
    const std::vector<uint8_t> src(32, 0xEE);
    std::vector<uint8_t>       dst(32, 0xC3);
    LogCapture                 log;
    ggml_backend_tensor_set(view, src.data(), 0, 20);
    ggml_backend_tensor_get(view, dst.data(), 8, 16);
    ggml_backend_tensor_memset(view, 0, 12, 8);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set]", "out of range"})) << logged(log);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get]", "out of range"})) << logged(log);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_memset]", "out of range"})) << logged(log);
    EXPECT_EQ(dst, std::vector<uint8_t>(32, 0xC3));
    EXPECT_TRUE(guarded_->intact());
}

TEST_P(TensorIo, NullAndUnallocatedTensorsAndNullHostPointers) {
    ContextPtr    ctx         = meta_context(4);
    ggml_tensor * unallocated = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, kN);
    ggml_set_name(unallocated, "unallocated");
    std::vector<uint8_t> host(kBytes, 0xC3);
    LogCapture           log;

    ggml_backend_tensor_set(nullptr, host.data(), 0, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set]", "NULL"})) << logged(log);
    ggml_backend_tensor_get(nullptr, host.data(), 0, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get]", "NULL"})) << logged(log);
    ggml_backend_tensor_memset(nullptr, 0, 0, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_memset]", "NULL"})) << logged(log);
    ggml_backend_tensor_set_2d(nullptr, host.data(), 0, 4, 2, 4, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set_2d]", "NULL"})) << logged(log);
    log.clear();

    ggml_backend_tensor_set(unallocated, host.data(), 0, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set]", "unallocated"})) << logged(log);
    ggml_backend_tensor_get(unallocated, host.data(), 0, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get]", "unallocated"})) << logged(log);
    ggml_backend_tensor_set_async(backend(), unallocated, host.data(), 0, 4);
    ggml_backend_synchronize(backend());
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set_async]", "unallocated"})) << logged(log);
    log.clear();

    ggml_backend_tensor_set(t(), nullptr, 0, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set]", "NULL"})) << logged(log);
    ggml_backend_tensor_get(t(), nullptr, 0, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get]", "NULL"})) << logged(log);
    ggml_backend_tensor_get_2d(t(), nullptr, 0, 4, 2, 8, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get_2d]", "NULL"})) << logged(log);
    log.clear();

    ggml_backend_tensor_set_async(nullptr, t(), host.data(), 0, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_set_async]", "backend"})) << logged(log);
    ggml_backend_tensor_get_2d_async(nullptr, t(), host.data(), 0, 4, 2, 8, 4);
    EXPECT_TRUE(log.has_error({"[ggml_backend_tensor_get_2d_async]", "backend"})) << logged(log);

    EXPECT_EQ(host, std::vector<uint8_t>(kBytes, 0xC3));
    EXPECT_TRUE(guarded_->intact());
}

INSTANTIATE_TEST_SUITE_P(Devices, TensorIo, ::testing::Values(Device::Cpu, Device::Test), device_name);

// ---- a tensor placed by hand past its buffer's end (fix 1: I/O checked against the buffer's bounds) ----

// A CPU buffer over the middle of a larger array, so the bytes around the buffer are ours to watch.
class HandPlaced : public ::testing::Test {
protected:
    static constexpr size_t kBefore = 64, kSize = 256, kArena = 512;

    void SetUp() override {
        arena_ = static_cast<uint8_t *>(std::aligned_alloc(64, kArena));
        std::memset(arena_, 0xAB, kArena);
        buffer_.reset(ggml_backend_cpu_buffer_from_ptr(arena_ + kBefore, kSize));
        ASSERT_NE(buffer_, nullptr);
        // 16 floats placed 32 bytes before the buffer's end: half of the tensor lies outside the buffer
        tensor_         = ggml_new_tensor_1d(ctx_.get(), GGML_TYPE_F32, 16);
        tensor_->buffer = buffer_.get();
        tensor_->data   = arena_ + kBefore + kSize - 32;
        ggml_set_name(tensor_, "past_the_end");
    }

    void TearDown() override {
        buffer_.reset();
        std::free(arena_);
    }

    // the bytes after the buffer still hold the fill
    bool tail_intact() const {
        for (size_t i = kBefore + kSize; i < kArena; ++i) {
            if (arena_[i] != 0xAB) {
                return false;
            }
        }
        return true;
    }

    ContextPtr    ctx_ = meta_context(4);
    uint8_t *     arena_ = nullptr;
    BufferPtr     buffer_;
    ggml_tensor * tensor_ = nullptr;
};

TEST_F(HandPlaced, SetPastTheBufferIsRefused) {
    const std::vector<uint8_t> src(64, 0xEE);
    LogCapture                 log;
    ggml_backend_tensor_set(tensor_, src.data(), 0, 64);
    EXPECT_TRUE(log.has_error("[ggml_backend_tensor_set]")) << logged(log);
    EXPECT_TRUE(tail_intact()) << "bytes after the buffer were overwritten";
}

TEST_F(HandPlaced, MemsetAnd2dPastTheBufferAreRefused) {
    const std::vector<uint8_t> src(64, 0xEE);
    LogCapture                 log;
    ggml_backend_tensor_memset(tensor_, 0, 16, 32);
    ggml_backend_tensor_set_2d(tensor_, src.data(), 0, 8, 4, 16, 8);
    EXPECT_TRUE(log.has_error("[ggml_backend_tensor_memset]")) << logged(log);
    EXPECT_TRUE(log.has_error("[ggml_backend_tensor_set_2d]")) << logged(log);
    EXPECT_TRUE(tail_intact()) << "bytes after the buffer were overwritten";
}

TEST_F(HandPlaced, GetPastTheBufferIsRefused) {
    std::vector<uint8_t> dst(64, 0xC3);
    LogCapture           log;
    ggml_backend_tensor_get(tensor_, dst.data(), 0, 64);
    EXPECT_TRUE(log.has_error("[ggml_backend_tensor_get]")) << logged(log);
    EXPECT_EQ(dst, std::vector<uint8_t>(64, 0xC3)) << "bytes from outside the buffer were read";
}

} // namespace
} // namespace switchyard::bad_input
