#include "base/host_memory.h"

#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace switchyard {

void * host_alloc(size_t size, size_t alignment) {
    constexpr size_t kHuge = size_t{2} << 20;
    const size_t     align = size >= 2 * kHuge ? kHuge : alignment;
    if (size > SIZE_MAX - align) {
        return nullptr;
    }
    const size_t padded = ((size == 0 ? 1 : size) + align - 1) / align * align;
    void *       data   = std::aligned_alloc(align, padded);
#if defined(__linux__)
    if (data != nullptr && align == kHuge) {
        madvise(data, padded, MADV_HUGEPAGE); // a hint: refused (old kernels, THP off) it changes nothing
    }
#endif
    return data;
}

} // namespace switchyard
