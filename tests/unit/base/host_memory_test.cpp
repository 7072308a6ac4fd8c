// host_alloc (base/host_memory.h): blocks aligned as asked, large ones on 2 MiB boundaries and wholly writable up
// to the 2 MiB padding, zero bytes still a block, and sizes that cannot be had a nullptr rather than an abort.
#include "base/host_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

using switchyard::host_alloc;

constexpr size_t kMiB = size_t{1} << 20;

bool aligned(const void * p, size_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }

TEST(HostAlloc, SmallBlocksTakeTheAskedAlignment) {
    for (size_t alignment : {size_t{16}, size_t{64}, size_t{4096}}) {
        for (size_t size : {size_t{0}, size_t{1}, size_t{100}, 3 * kMiB}) {
            void * p = host_alloc(size, alignment);
            ASSERT_NE(p, nullptr) << size;
            EXPECT_TRUE(aligned(p, alignment)) << size << " bytes at " << alignment;
            std::memset(p, 0x5a, size);
            std::free(p);
        }
    }
}

TEST(HostAlloc, LargeBlocksStartOn2MiBAndCanBeWrittenToTheirPadding) {
    for (size_t size : {4 * kMiB, 4 * kMiB + 1, 9 * kMiB + 12345}) {
        auto * p = static_cast<unsigned char *>(host_alloc(size, 64));
        ASSERT_NE(p, nullptr) << size;
        EXPECT_TRUE(aligned(p, 2 * kMiB)) << size;
        const size_t padded = (size + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB);
        std::memset(p, 0xa5, padded); // the padding is the block's own (ASan checks it)
        EXPECT_EQ(p[padded - 1], 0xa5);
        std::free(p);
    }
}

TEST(HostAlloc, SizesThatCannotBeHadGiveNull) {
    EXPECT_EQ(host_alloc(SIZE_MAX, 64), nullptr);
    EXPECT_EQ(host_alloc(SIZE_MAX - kMiB, 64), nullptr);
}

} // namespace
