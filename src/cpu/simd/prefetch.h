// Software prefetch for the streaming kernels (weights read once, at DRAM speed). The hardware prefetchers stop
// at page boundaries and run only so far ahead; a kernel that also computes between its loads keeps fewer misses
// in flight than a plain copy, so it prefetches every line it will read kPrefetchBytes ahead, into L2 (the loads
// then hit L2, and L1's few fill buffers are not held by lines still on their way from DRAM).
#pragma once

#include "cpu/simd/intrinsics.h"

#include <cstdint>

namespace switchyard::cpu::simd {

// A few times the bytes one core fetches from DRAM in a memory latency. Measured on a Sapphire Rapids class VM,
// 2 threads, decode of q4_0, q5_0 and q2_K .. q6_K against the DRAM read rate: without software prefetch
// 0.41-0.65, into L1 1 KiB ahead 0.62-0.76 (one run each); into L1 2 KiB ahead 0.70-0.94, into L2 4 KiB ahead
// 0.75-1.02 (medians of three alternating runs); 4 KiB into L1 and 8 KiB into L3 were no better.
constexpr int64_t kPrefetchBytes = 4096;

#if defined(__x86_64__)
// Prefetches every line of kBytes bytes from p into L2 (one per 64 bytes, and the last byte's).
template <int64_t kBytes>
inline void prefetch_lines(const void * p) {
    const char * c = static_cast<const char *>(p);
    for (int64_t o = 0; o < kBytes; o += 64) {
        _mm_prefetch(c + o, _MM_HINT_T1);
    }
    if constexpr (kBytes % 64 != 0) {
        _mm_prefetch(c + kBytes - 1, _MM_HINT_T1);
    }
}
#endif

} // namespace switchyard::cpu::simd
