// Host memory for buffers and scratch: one allocator, so that every large host allocation of the library is
// placed the same way.
#pragma once

#include <cstddef>

namespace switchyard {

// size bytes (at least 1) aligned to `alignment` (a power of two, at most 2 MiB), or nullptr when the memory cannot
// be had; release with std::free. From 4 MiB on the block starts on a 2 MiB boundary, is padded to whole 2 MiB and
// is offered to the kernel as transparent huge pages (Linux: madvise MADV_HUGEPAGE; systems whose THP setting is
// "madvise" use them only when asked): a stream over a large weight matrix then misses the TLB far less (matrix-
// vector decode of 1 GiB of q4_0 weights measured 1.01-1.07 -> 1.12-1.15 x the DRAM read bandwidth).
void * host_alloc(size_t size, size_t alignment);

} // namespace switchyard
