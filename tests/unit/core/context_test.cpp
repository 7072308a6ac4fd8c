// Contexts: arena sizes and accounting, caller-owned memory, no_alloc, running out of room (NULL + a logged
// message, nothing written past the end), iteration and lookup by name.
#include "ggml.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Collects everything logged while alive; restores the default sink afterwards.
class LogCapture {
  public:
    LogCapture() { ggml_log_set(&LogCapture::callback, this); }
    ~LogCapture() { ggml_log_set(nullptr, nullptr); }
    LogCapture(const LogCapture &)             = delete;
    LogCapture & operator=(const LogCapture &) = delete;

    const std::string & text() const { return text_; }

  private:
    static void callback(ggml_log_level, const char * text, void * user_data) {
        static_cast<LogCapture *>(user_data)->text_ += text;
    }
    std::string text_;
};

ggml_context * make_context(size_t mem_size, bool no_alloc = false, void * buffer = nullptr) {
    return ggml_init(ggml_init_params{mem_size, buffer, no_alloc});
}

constexpr size_t pad(size_t n) {
    return (n + GGML_MEM_ALIGN - 1) / GGML_MEM_ALIGN * GGML_MEM_ALIGN;
}

TEST(Context, SizesOfTheBuildingBlocks) {
    // upstream's values on 64-bit targets: object header 32 bytes, tensor 336 bytes
    static_assert(sizeof(void *) != 8 || sizeof(ggml_tensor) == 336);
    static_assert(sizeof(ggml_tensor) % GGML_MEM_ALIGN == 0);
    if (sizeof(void *) == 8) {
        EXPECT_EQ(ggml_tensor_overhead(), 368u);
    }
}

TEST(Context, InitReportsSizesAndStartsEmpty) {
    ggml_context * ctx = make_context(1000);
    ASSERT_NE(ctx, nullptr);
    EXPECT_EQ(ggml_get_mem_size(ctx), 1008u); // rounded up to GGML_MEM_ALIGN
    EXPECT_NE(ggml_get_mem_buffer(ctx), nullptr);
    EXPECT_EQ(ggml_used_mem(ctx), 0u);
    EXPECT_FALSE(ggml_get_no_alloc(ctx));
    EXPECT_EQ(ggml_get_first_tensor(ctx), nullptr);
    EXPECT_EQ(ggml_get_max_tensor_size(ctx), 0u);
    ggml_free(ctx);
}

TEST(Context, UsedMemoryCountsMetadataAndPaddedData) {
    ggml_context * ctx = make_context(1 << 16);
    ASSERT_NE(ctx, nullptr);
    ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10); // 40 bytes of data
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(ggml_used_mem(ctx), ggml_tensor_overhead() + pad(40));
    ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 3, 3); // 18 bytes
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(ggml_used_mem(ctx), 2 * ggml_tensor_overhead() + pad(40) + pad(18));
    // the data follows the metadata inside the arena
    const auto * base = static_cast<const char *>(ggml_get_mem_buffer(ctx));
    EXPECT_GE(static_cast<const char *>(a->data), base);
    EXPECT_LE(static_cast<const char *>(b->data) + ggml_nbytes(b), base + ggml_used_mem(ctx));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data) % GGML_MEM_ALIGN, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data) % GGML_MEM_ALIGN, 0u);
    ggml_free(ctx);
}

TEST(Context, ResetForgetsEverything) {
    ggml_context * ctx = make_context(1 << 16);
    ASSERT_NE(ctx, nullptr);
    ggml_tensor * first = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 100);
    ggml_set_name(first, "first");
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 100);
    ASSERT_GT(ggml_used_mem(ctx), 0u);
    ggml_reset(ctx);
    EXPECT_EQ(ggml_used_mem(ctx), 0u);
    EXPECT_EQ(ggml_get_first_tensor(ctx), nullptr);
    EXPECT_EQ(ggml_get_tensor(ctx, "first"), nullptr);
    // the arena is reused from its start
    ggml_tensor * again = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 100);
    EXPECT_EQ(again, first);
    ggml_free(ctx);
}

TEST(Context, CallerOwnedBufferIsUsedInPlace) {
    alignas(64) static unsigned char buffer[4096];
    ggml_context * ctx = make_context(sizeof(buffer), false, buffer);
    ASSERT_NE(ctx, nullptr);
    EXPECT_EQ(ggml_get_mem_buffer(ctx), static_cast<void *>(buffer));
    EXPECT_EQ(ggml_get_mem_size(ctx), sizeof(buffer));
    ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 16);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(reinterpret_cast<unsigned char *>(t), buffer + 32); // after the first object header
    EXPECT_GE(static_cast<unsigned char *>(t->data), buffer);
    EXPECT_LE(static_cast<unsigned char *>(t->data) + 64, buffer + sizeof(buffer));
    ggml_free(ctx); // must not free the caller's buffer (ASan would report it)
    buffer[0] = 1;
}

TEST(Context, NoAllocCreatesMetadataOnly) {
    ggml_context * ctx = make_context(3 * ggml_tensor_overhead(), true);
    ASSERT_NE(ctx, nullptr);
    EXPECT_TRUE(ggml_get_no_alloc(ctx));
    for (int i = 0; i < 3; ++i) {
        ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1024, 1024); // 4 MiB each, not allocated
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(t->data, nullptr);
        EXPECT_EQ(ggml_nbytes(t), 4u << 20);
    }
    EXPECT_EQ(ggml_used_mem(ctx), 3 * ggml_tensor_overhead());
    ggml_set_no_alloc(ctx, false);
    EXPECT_FALSE(ggml_get_no_alloc(ctx));
    ggml_free(ctx);
}

TEST(Context, MaxTensorSize) {
    ggml_context * ctx = make_context(1 << 16, true);
    ASSERT_NE(ctx, nullptr);
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 7);             // 28 bytes
    ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 10, 20, 3);     // 1200 bytes
    ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 10);       // 360 bytes
    EXPECT_EQ(ggml_get_max_tensor_size(ctx), 1200u);
    ggml_free(ctx);
}

TEST(Context, ExactlyNTensorsFitAndTheNextOneIsRefused) {
    constexpr int    kN       = 5;
    constexpr size_t kData    = 64 * sizeof(float);
    const size_t     mem_size = kN * (ggml_tensor_overhead() + kData);
    // a guard zone after the arena shows that nothing is written past its end
    std::vector<unsigned char> storage(mem_size + 256 + 64, 0xA5);
    auto * arena = reinterpret_cast<unsigned char *>(
        (reinterpret_cast<uintptr_t>(storage.data()) + 63) / 64 * 64);
    const size_t guard_at = static_cast<size_t>(arena - storage.data()) + mem_size;

    ggml_context * ctx = make_context(mem_size, false, arena);
    ASSERT_NE(ctx, nullptr);
    for (int i = 0; i < kN; ++i) {
        ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
        ASSERT_NE(t, nullptr) << "tensor " << i;
        std::memset(t->data, 0x11, kData);
    }
    EXPECT_EQ(ggml_used_mem(ctx), mem_size);
    {
        LogCapture log;
        EXPECT_EQ(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64), nullptr);
        EXPECT_NE(log.text().find("ggml_new_tensor_1d"), std::string::npos) << log.text();
        // the message gives the sizes involved
        EXPECT_NE(log.text().find(std::to_string(mem_size)), std::string::npos) << log.text();
        EXPECT_NE(log.text().find(std::to_string(mem_size + ggml_tensor_overhead() + kData)), std::string::npos)
            << log.text();
    }
    EXPECT_EQ(ggml_used_mem(ctx), mem_size); // a refused tensor takes nothing
    for (size_t i = guard_at; i < storage.size(); ++i) {
        ASSERT_EQ(storage[i], 0xA5) << "byte " << i - guard_at << " past the arena was written";
    }
    ggml_free(ctx);
}

TEST(Context, RefusedTensorLeavesRoomForASmallerOne) {
    ggml_context * ctx = make_context(ggml_tensor_overhead() + 64);
    ASSERT_NE(ctx, nullptr);
    {
        LogCapture log;
        EXPECT_EQ(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 17), nullptr); // 68 bytes: too big
        EXPECT_FALSE(log.text().empty());
    }
    EXPECT_NE(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16), nullptr); // 64 bytes: fits exactly
    ggml_free(ctx);
}

TEST(Context, IterationFollowsCreationOrderAndSkipsOtherObjects) {
    ggml_context * ctx = make_context(1 << 16);
    ASSERT_NE(ctx, nullptr);
    ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    void *        w = ggml_new_buffer(ctx, 100);
    ASSERT_NE(w, nullptr);
    ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ASSERT_NE(ggml_new_graph_custom(ctx, 8, false), nullptr);
    ggml_tensor * c = ggml_view_tensor(ctx, a);

    std::vector<ggml_tensor *> seen;
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        seen.push_back(t);
    }
    EXPECT_EQ(seen, (std::vector<ggml_tensor *>{a, b, c}));
    ggml_free(ctx);
}

TEST(Context, LookupByName) {
    ggml_context * ctx = make_context(1 << 16, true);
    ASSERT_NE(ctx, nullptr);
    ggml_tensor * a = ggml_set_name(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4), "weights");
    ggml_tensor * b = ggml_set_name(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4), "bias");
    ggml_tensor * c = ggml_set_name(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4), "weights"); // duplicate name
    EXPECT_EQ(ggml_get_tensor(ctx, "weights"), a); // the first one wins
    EXPECT_EQ(ggml_get_tensor(ctx, "bias"), b);
    EXPECT_EQ(ggml_get_tensor(ctx, "missing"), nullptr);
    EXPECT_EQ(ggml_get_tensor(ctx, "weight"), nullptr); // no prefix match
    (void) c;
    ggml_free(ctx);
}

TEST(Context, InvalidArgumentsReturnNullAndLog) {
    ggml_context * ctx = make_context(1 << 16);
    ASSERT_NE(ctx, nullptr);
    const size_t used = ggml_used_mem(ctx);
    {
        LogCapture log;
        EXPECT_EQ(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, -1), nullptr);
        EXPECT_NE(log.text().find("ggml_new_tensor_1d"), std::string::npos) << log.text();
    }
    {
        LogCapture log;
        EXPECT_EQ(ggml_new_tensor_1d(ctx, static_cast<ggml_type>(4), 8), nullptr); // a removed type value
        EXPECT_FALSE(log.text().empty());
    }
    {
        LogCapture log;
        EXPECT_EQ(ggml_new_tensor_1d(ctx, GGML_TYPE_Q4_0, 33), nullptr); // not a whole number of blocks
        EXPECT_FALSE(log.text().empty());
    }
    {
        LogCapture       log;
        const int64_t    ne[5] = {1, 1, 1, 1, 1};
        EXPECT_EQ(ggml_new_tensor(ctx, GGML_TYPE_F32, 5, ne), nullptr);
        EXPECT_FALSE(log.text().empty());
    }
    EXPECT_EQ(ggml_used_mem(ctx), used);
    ggml_free(ctx);
}

TEST(Context, FreeAndResetAcceptNull) {
    ggml_free(nullptr);
    ggml_reset(nullptr);
    SUCCEED();
}

} // namespace
