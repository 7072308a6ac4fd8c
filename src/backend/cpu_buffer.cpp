// Host memory buffers: the CPU buffer type, and buffers over memory the caller owns (ggml_backend_cpu_buffer_
// from_ptr, e.g. memory-mapped weights). They live in ggml-base so that every backend can use host memory
// without depending on the CPU backend; for the same reason their buffer types have no device (NULL), as
// upstream. Tensor data is plain host memory with the standard layout (is_host).
#include "ggml-backend-impl.h"

#include "base/host_memory.h"
#include "base/log.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifdef __linux__
#include <sys/sysinfo.h>
#endif

using namespace switchyard;

namespace {

// Tensor alignment in CPU buffers; 32 bytes is what GGUF files guarantee, so mapped weights qualify.
constexpr size_t kTensorAlignment = 32;
// Alignment of the memory the CPU buffer type allocates itself (a cache line).
constexpr size_t kAllocAlignment = 64;

void * cpu_get_base(ggml_backend_buffer_t buffer) {
    return buffer->context;
}

void cpu_free(ggml_backend_buffer_t buffer) {
    std::free(buffer->context);
}

void cpu_memset_tensor(ggml_backend_buffer_t, ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    std::memset(static_cast<char *>(tensor->data) + offset, value, size);
}

void cpu_set_tensor(ggml_backend_buffer_t, ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    std::memcpy(static_cast<char *>(tensor->data) + offset, data, size);
}

void cpu_get_tensor(ggml_backend_buffer_t, const ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    std::memcpy(data, static_cast<const char *>(tensor->data) + offset, size);
}

bool cpu_cpy_tensor(ggml_backend_buffer_t, const ggml_tensor * src, ggml_tensor * dst) {
    ggml_backend_buffer_t src_buf = src->view_src != nullptr ? src->view_src->buffer : src->buffer;
    if (!ggml_backend_buffer_is_host(src_buf)) {
        return false;
    }
    std::memcpy(dst->data, src->data, ggml_nbytes(src));
    return true;
}

void cpu_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    std::memset(buffer->context, value, buffer->size);
}

constexpr ggml_backend_buffer_i make_interface(void (*free_buffer)(ggml_backend_buffer_t)) {
    return {
        /* .free_buffer   = */ free_buffer,
        /* .get_base      = */ cpu_get_base,
        /* .init_tensor   = */ nullptr,
        /* .memset_tensor = */ cpu_memset_tensor,
        /* .set_tensor    = */ cpu_set_tensor,
        /* .get_tensor    = */ cpu_get_tensor,
        /* .set_tensor_2d = */ nullptr,
        /* .get_tensor_2d = */ nullptr,
        /* .cpy_tensor    = */ cpu_cpy_tensor,
        /* .clear         = */ cpu_clear,
        /* .reset         = */ nullptr,
    };
}

// Owned memory is freed with the buffer; memory from ggml_backend_cpu_buffer_from_ptr stays the caller's.
constexpr ggml_backend_buffer_i kOwnedInterface    = make_interface(cpu_free);
constexpr ggml_backend_buffer_i kBorrowedInterface = make_interface(nullptr);

// Physical memory plus swap; SIZE_MAX if unknown. A larger request cannot be met: refusing it here keeps an
// overcommitting kernel from granting it and killing the process later.
size_t system_memory() {
#ifdef __linux__
    struct sysinfo info {};
    if (sysinfo(&info) == 0) {
        const unsigned long long total =
            (static_cast<unsigned long long>(info.totalram) + info.totalswap) * info.mem_unit;
        return total < SIZE_MAX ? static_cast<size_t>(total) : SIZE_MAX;
    }
#endif
    return SIZE_MAX;
}

ggml_backend_buffer_t cpu_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    if (size > SIZE_MAX - kAllocAlignment || size > system_memory()) {
        log_error("[ggml_backend_cpu_buffer_type] cannot allocate %zu bytes: more than the system's memory\n", size);
        return nullptr;
    }
    void * data = host_alloc(size, kAllocAlignment); // large buffers on transparent huge pages (host_memory.h)
    if (data == nullptr) {
        log_error("[ggml_backend_cpu_buffer_type] cannot allocate %zu bytes of host memory\n", size);
        return nullptr;
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, kOwnedInterface, data, size);
    if (buffer == nullptr) {
        std::free(data);
    }
    return buffer;
}

size_t cpu_get_alignment(ggml_backend_buffer_type_t) {
    return kTensorAlignment;
}

bool cpu_is_host(ggml_backend_buffer_type_t) {
    return true;
}

const char * cpu_name(ggml_backend_buffer_type_t) {
    return "CPU";
}

const char * cpu_mapped_name(ggml_backend_buffer_type_t) {
    return "CPU_Mapped";
}

constexpr ggml_backend_buffer_type_i make_type_interface(const char * (*get_name)(ggml_backend_buffer_type_t)) {
    return {
        /* .get_name       = */ get_name,
        /* .alloc_buffer   = */ cpu_alloc_buffer,
        /* .get_alignment  = */ cpu_get_alignment,
        /* .get_max_size   = */ nullptr, // SIZE_MAX
        /* .get_alloc_size = */ nullptr, // ggml_nbytes
        /* .is_host        = */ cpu_is_host,
    };
}

// The type of buffers over caller-owned memory: a distinct object (the scheduler compares buffer types by
// address) that behaves like the CPU buffer type.
ggml_backend_buffer_type_t cpu_mapped_buffer_type() {
    static ggml_backend_buffer_type type = {make_type_interface(cpu_mapped_name), nullptr, nullptr};
    return &type;
}

} // namespace

extern "C" {

ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void) {
    static ggml_backend_buffer_type type = {make_type_interface(cpu_name), nullptr, nullptr};
    return &type;
}

ggml_backend_buffer_t ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size) {
    if (ptr == nullptr && size != 0) {
        log_error("[ggml_backend_cpu_buffer_from_ptr] ptr is NULL\n");
        return nullptr;
    }
    if (reinterpret_cast<uintptr_t>(ptr) % kTensorAlignment != 0) {
        log_error("[ggml_backend_cpu_buffer_from_ptr] ptr %p is not aligned to %zu bytes\n", ptr, kTensorAlignment);
        return nullptr;
    }
    return ggml_backend_buffer_init(cpu_mapped_buffer_type(), kBorrowedInterface, ptr, size);
}

} // extern "C"
