#include "core/context.h"

#include "base/log.h"

#include <cstdlib>
#include <cstring>

namespace switchyard {

namespace {

size_t align_up(size_t n, size_t a) {
    return (n + a - 1) / a * a;
}

} // namespace

ggml_object * context_new_object(ggml_context * ctx, ggml_object_type type, size_t size, const char * caller) {
    const ggml_object * last     = ctx->objects_end;
    const size_t        cur_end  = last ? last->offs + last->size : 0;
    const size_t        size_pad = align_up(size, GGML_MEM_ALIGN);
    const size_t        needed   = cur_end + GGML_OBJECT_SIZE + size_pad;
    if (size_pad < size || needed < cur_end || needed > ctx->mem_size) {
        log_error("[%s] not enough space in the context's memory pool: needed %zu bytes, available %zu bytes\n",
                  caller, needed, ctx->mem_size);
        return nullptr;
    }
    auto * obj = reinterpret_cast<ggml_object *>(static_cast<char *>(ctx->mem_buffer) + cur_end);
    *obj       = ggml_object{cur_end + GGML_OBJECT_SIZE, size_pad, nullptr, type, {}};
    if (ctx->objects_end) {
        ctx->objects_end->next = obj;
    } else {
        ctx->objects_begin = obj;
    }
    ctx->objects_end = obj;
    ++ctx->n_objects;
    return obj;
}

} // namespace switchyard

using namespace switchyard;

extern "C" {

struct ggml_context * ggml_init(struct ggml_init_params params) {
    const size_t mem_size = align_up(params.mem_size, GGML_MEM_ALIGN);
    void *       buffer   = params.mem_buffer;
    const bool   owned    = buffer == nullptr;
    if (owned && mem_size > 0) {
        buffer = std::aligned_alloc(64, align_up(mem_size, 64));
        if (!buffer) {
            log_error("[ggml_init] failed to allocate %zu bytes for the context's memory pool\n", mem_size);
            return nullptr;
        }
    }
    auto * ctx = static_cast<ggml_context *>(std::malloc(sizeof(ggml_context)));
    if (!ctx) {
        if (owned) {
            std::free(buffer);
        }
        log_error("[ggml_init] failed to allocate the context\n");
        return nullptr;
    }
    *ctx = ggml_context{owned ? mem_size : params.mem_size, buffer, owned, params.no_alloc, 0, nullptr, nullptr};
    return ctx;
}

void ggml_reset(struct ggml_context * ctx) {
    if (!ctx) {
        return;
    }
    ctx->n_objects     = 0;
    ctx->objects_begin = nullptr;
    ctx->objects_end   = nullptr;
}

void ggml_free(struct ggml_context * ctx) {
    if (!ctx) {
        return;
    }
    if (ctx->mem_buffer_owned) {
        std::free(ctx->mem_buffer);
    }
    std::free(ctx);
}

size_t ggml_used_mem(const struct ggml_context * ctx) {
    return ctx->objects_end ? ctx->objects_end->offs + ctx->objects_end->size : 0;
}

bool ggml_get_no_alloc(struct ggml_context * ctx) { return ctx->no_alloc; }
void ggml_set_no_alloc(struct ggml_context * ctx, bool no_alloc) { ctx->no_alloc = no_alloc; }
void * ggml_get_mem_buffer(const struct ggml_context * ctx) { return ctx->mem_buffer; }
size_t ggml_get_mem_size(const struct ggml_context * ctx) { return ctx->mem_size; }

size_t ggml_get_max_tensor_size(const struct ggml_context * ctx) {
    size_t max_size = 0;
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        const size_t bytes = ggml_nbytes(t);
        max_size           = bytes > max_size ? bytes : max_size;
    }
    return max_size;
}

void * ggml_new_buffer(struct ggml_context * ctx, size_t nbytes) {
    ggml_object * obj = context_new_object(ctx, GGML_OBJECT_TYPE_WORK_BUFFER, nbytes, "ggml_new_buffer");
    return obj ? object_payload(ctx, obj) : nullptr;
}

struct ggml_tensor * ggml_get_first_tensor(const struct ggml_context * ctx) {
    for (ggml_object * obj = ctx->objects_begin; obj; obj = obj->next) {
        if (obj->type == GGML_OBJECT_TYPE_TENSOR) {
            return static_cast<ggml_tensor *>(object_payload(ctx, obj));
        }
    }
    return nullptr;
}

struct ggml_tensor * ggml_get_next_tensor(const struct ggml_context * ctx, struct ggml_tensor * tensor) {
    auto * obj = reinterpret_cast<ggml_object *>(reinterpret_cast<char *>(tensor) - GGML_OBJECT_SIZE);
    for (obj = obj->next; obj; obj = obj->next) {
        if (obj->type == GGML_OBJECT_TYPE_TENSOR) {
            return static_cast<ggml_tensor *>(object_payload(ctx, obj));
        }
    }
    return nullptr;
}

struct ggml_tensor * ggml_get_tensor(struct ggml_context * ctx, const char * name) {
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (std::strcmp(t->name, name) == 0) {
            return t;
        }
    }
    return nullptr;
}

void ggml_print_object(const struct ggml_object * obj) {
    log_info("object: type = %d, offset = %zu, size = %zu, next = %p\n", static_cast<int>(obj->type), obj->offs,
             obj->size, static_cast<const void *>(obj->next));
}

void ggml_print_objects(const struct ggml_context * ctx) {
    log_info("objects in context %p:\n", static_cast<const void *>(ctx));
    for (const ggml_object * obj = ctx->objects_begin; obj; obj = obj->next) {
        ggml_print_object(obj);
    }
}

} // extern "C"
