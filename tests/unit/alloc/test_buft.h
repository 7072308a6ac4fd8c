// A host-memory buffer type for the allocator tests, written only against ggml-backend-impl.h. Its alignment,
// max size and per-tensor padding (get_alloc_size) are configurable, it can refuse allocations, and it counts
// the buffers it hands out, so tests can see chunking, padding and buffer reuse.
#pragma once

#include "ggml-backend-impl.h"
#include "ggml-backend.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace switchyard::alloc_test {

struct TestBuftConfig {
    size_t       alignment = 32;
    size_t       max_size  = SIZE_MAX;
    size_t       alloc_pad = 0;     // get_alloc_size = ggml_nbytes + alloc_pad
    bool         fail      = false; // refuse every allocation
    const char * name      = "ALLOC_TEST";
};

struct TestBuft {
    ggml_backend_buffer_type buft{};
    TestBuftConfig           config;
    int                      live_buffers = 0;
    std::vector<size_t>      allocations; // sizes of every buffer allocated, in order
};

namespace detail {

struct TestBuffer {
    void *     memory = nullptr;
    TestBuft * owner  = nullptr;
};

inline TestBuft * owner_of(ggml_backend_buffer_type_t buft) {
    return static_cast<TestBuft *>(buft->context);
}

inline void free_buffer(ggml_backend_buffer_t buffer) {
    auto * ctx = static_cast<TestBuffer *>(buffer->context);
    ctx->owner->live_buffers--;
    std::free(ctx->memory);
    delete ctx;
}

inline void * get_base(ggml_backend_buffer_t buffer) {
    return static_cast<TestBuffer *>(buffer->context)->memory;
}

inline void memset_tensor(ggml_backend_buffer_t, ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    std::memset(static_cast<char *>(tensor->data) + offset, value, size);
}

inline void set_tensor(ggml_backend_buffer_t, ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    std::memcpy(static_cast<char *>(tensor->data) + offset, data, size);
}

inline void get_tensor(ggml_backend_buffer_t, const ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    std::memcpy(data, static_cast<const char *>(tensor->data) + offset, size);
}

inline void clear(ggml_backend_buffer_t buffer, uint8_t value) {
    std::memset(get_base(buffer), value, buffer->size);
}

inline const char * buft_name(ggml_backend_buffer_type_t buft) {
    return owner_of(buft)->config.name;
}

inline ggml_backend_buffer_t alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    TestBuft * owner = owner_of(buft);
    if (owner->config.fail) {
        return nullptr;
    }
    const size_t align  = owner->config.alignment;
    auto *       ctx    = new TestBuffer;
    ctx->owner          = owner;
    ctx->memory         = std::aligned_alloc(align, (size + align - 1) / align * align);
    ggml_backend_buffer_i iface{};
    iface.free_buffer   = free_buffer;
    iface.get_base      = get_base;
    iface.memset_tensor = memset_tensor;
    iface.set_tensor    = set_tensor;
    iface.get_tensor    = get_tensor;
    iface.clear         = clear;
    owner->live_buffers++;
    owner->allocations.push_back(size);
    return ggml_backend_buffer_init(buft, iface, ctx, size);
}

inline size_t get_alignment(ggml_backend_buffer_type_t buft) {
    return owner_of(buft)->config.alignment;
}

inline size_t get_max_size(ggml_backend_buffer_type_t buft) {
    return owner_of(buft)->config.max_size;
}

inline size_t get_alloc_size(ggml_backend_buffer_type_t buft, const ggml_tensor * tensor) {
    return ggml_nbytes(tensor) + owner_of(buft)->config.alloc_pad;
}

inline bool is_host(ggml_backend_buffer_type_t) {
    return true;
}

} // namespace detail

// Fills `t` (which must outlive every buffer it allocates) as a buffer type with the given configuration.
inline ggml_backend_buffer_type_t init_test_buft(TestBuft & t, const TestBuftConfig & config) {
    t.config                   = config;
    t.buft.iface.get_name      = detail::buft_name;
    t.buft.iface.alloc_buffer  = detail::alloc_buffer;
    t.buft.iface.get_alignment = detail::get_alignment;
    t.buft.iface.get_max_size  = detail::get_max_size;
    t.buft.iface.get_alloc_size = detail::get_alloc_size;
    t.buft.iface.is_host       = detail::is_host;
    t.buft.device              = nullptr;
    t.buft.context             = &t;
    return &t.buft;
}

} // namespace switchyard::alloc_test
