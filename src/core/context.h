// The context: one arena holding a linked list of objects (tensor metadata, optionally tensor data, graphs,
// scratch buffers). Nothing in a context is freed individually; ggml_reset/ggml_free release everything.
#pragma once

#include "ggml.h"

#include <cstddef>

struct ggml_object {
    size_t              offs; // byte offset of the object's payload from the arena start
    size_t              size; // payload bytes (aligned)
    struct ggml_object * next;
    enum ggml_object_type type;
    char                padding[4];
};

static constexpr size_t GGML_OBJECT_SIZE = sizeof(struct ggml_object);

struct ggml_context {
    size_t               mem_size;
    void *               mem_buffer;
    bool                 mem_buffer_owned;
    bool                 no_alloc;
    int                  n_objects;
    struct ggml_object * objects_begin;
    struct ggml_object * objects_end;
};

namespace switchyard {

// Appends an object with `size` payload bytes. Returns NULL and logs the sizes (naming `caller`) when the
// arena has no room; never writes past the arena.
ggml_object * context_new_object(ggml_context * ctx, ggml_object_type type, size_t size, const char * caller);

inline void * object_payload(const ggml_context * ctx, const ggml_object * obj) {
    return static_cast<char *>(ctx->mem_buffer) + obj->offs;
}

} // namespace switchyard
