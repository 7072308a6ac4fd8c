// Allocating every tensor of a no_alloc context in buffers of one buffer type (weights, caches):
// ggml_backend_alloc_ctx_tensors_from_buft(_size) and ggml_backend_alloc_ctx_tensors.
//
// Tensors are taken in context order and packed into as few buffers as the buffer type's max size allows; with
// more than one buffer the result is a multi-buffer owning them all. Views get their memory from their source
// (ggml_backend_view_init); tensors with data are left alone. A tensor larger than the max size on its own
// cannot be allocated: the call logs it and returns NULL. A call that fails part-way takes back every placement
// it made (PlacementUndo) and frees its buffers: the context is as before, so a retry starts cleanly.
#include "alloc/placement_undo.h"
#include "base/guard.h"
#include "base/owners.h"
#include "base/log.h"
#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-backend.h"

#include <algorithm>
#include <vector>

using namespace switchyard;
using switchyard::alloc::PlacementUndo;

namespace {

struct Range {
    ggml_tensor * first = nullptr;
    ggml_tensor * last  = nullptr; // exclusive; nullptr = to the end of the context
    size_t        size  = 0;
};

bool needs_memory(const ggml_tensor * t) {
    return t->data == nullptr && t->view_src == nullptr;
}

bool needs_view_init(const ggml_tensor * t) {
    return t->view_src != nullptr && t->buffer == nullptr;
}

struct Layout {
    std::vector<Range> ranges;
    size_t             total        = 0;
    bool               any_memory   = false; // some tensor needs memory (maybe zero bytes)
    bool               any_view     = false; // some view needs initialising
    bool               oversized    = false; // some tensor is larger than the max size by itself
};

// Splits the context's tensors into ranges whose padded sizes fit the buffer type's max size.
Layout split_ranges(ggml_context * ctx, ggml_backend_buffer_type_t buft, const char * caller) {
    const size_t alignment = std::max<size_t>(1, ggml_backend_buft_get_alignment(buft));
    const size_t max_size  = ggml_backend_buft_get_max_size(buft);
    Layout       layout;
    Range        current;
    current.first = ggml_get_first_tensor(ctx);
    for (ggml_tensor * t = current.first; t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
        size_t size = 0;
        if (needs_memory(t)) {
            size              = GGML_PAD(ggml_backend_buft_get_alloc_size(buft, t), alignment);
            layout.any_memory = true;
        }
        layout.any_view = layout.any_view || needs_view_init(t);
        if (size > max_size) {
            log_error("[%s] tensor '%s' needs %zu bytes, more than the largest %s buffer (%zu bytes)\n", caller,
                      t->name, size, ggml_backend_buft_name(buft), max_size);
            layout.oversized = true;
        }
        if (current.size > 0 && size > max_size - current.size) {
            current.last = t;
            layout.ranges.push_back(current);
            current = Range{t, nullptr, 0};
        }
        current.size += size;
        layout.total += size;
    }
    if (current.first != nullptr) {
        layout.ranges.push_back(current);
    }
    return layout;
}

enum ggml_status init_tensor(ggml_tallocr * talloc, ggml_tensor * t) {
    if (needs_memory(t)) {
        return ggml_tallocr_alloc(talloc, t);
    }
    if (needs_view_init(t)) {
        if (t->view_src->buffer == nullptr) {
            log_error("[ggml_backend_alloc_ctx_tensors_from_buft] view '%s' of '%s', which has no buffer\n", t->name,
                      t->view_src->name);
            return GGML_STATUS_FAILED;
        }
        return ggml_backend_view_init(t);
    }
    return GGML_STATUS_SUCCESS;
}

BufferPtr alloc_range(ggml_context * ctx, const Range & range, ggml_backend_buffer_type_t buft, const char * caller) {
    BufferPtr buffer(ggml_backend_buft_alloc_buffer(buft, range.size));
    if (buffer == nullptr) {
        log_error("[%s] failed to allocate a %s buffer of %zu bytes\n", caller, ggml_backend_buft_name(buft),
                  range.size);
        return nullptr;
    }
    ggml_tallocr talloc = ggml_tallocr_new(buffer.get());
    for (ggml_tensor * t = range.first; t != range.last; t = ggml_get_next_tensor(ctx, t)) {
        if (init_tensor(&talloc, t) != GGML_STATUS_SUCCESS) {
            log_error("[%s] failed to initialise tensor '%s'\n", caller, t->name);
            return nullptr;
        }
    }
    return buffer;
}

// Views of tensors allocated elsewhere, when the context needs no buffer of its own.
void init_views_only(ggml_context * ctx, const char * caller) {
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
        if (!needs_view_init(t)) {
            continue;
        }
        if (t->view_src->buffer == nullptr) {
            log_error("[%s] view '%s' of '%s', which has no buffer: left without memory\n", caller, t->name,
                      t->view_src->name);
            continue;
        }
        ggml_backend_view_init(t);
    }
}

ggml_backend_buffer_t alloc_ctx_tensors(ggml_context * ctx, ggml_backend_buffer_type_t buft, const char * caller) {
    Layout layout = split_ranges(ctx, buft, caller);
    if (layout.oversized) {
        return nullptr;
    }
    if (!layout.any_memory) {
        init_views_only(ctx, caller);
        log_debug("[%s] all tensors of the context already have memory\n", caller);
        return nullptr;
    }
    PlacementUndo          undo(ctx);
    std::vector<BufferPtr> buffers;
    for (const Range & range : layout.ranges) {
        BufferPtr buffer = alloc_range(ctx, range, buft, caller);
        if (buffer == nullptr) {
            return nullptr;
        }
        buffers.push_back(std::move(buffer));
    }
    ggml_backend_buffer_t result = buffers[0].get();
    if (buffers.size() > 1) {
        std::vector<ggml_backend_buffer_t> parts;
        for (const BufferPtr & b : buffers) {
            parts.push_back(b.get());
        }
        result = ggml_backend_multi_buffer_alloc_buffer(parts.data(), parts.size());
        if (result == nullptr) {
            log_error("[%s] failed to create the multi-buffer owning %zu buffers\n", caller, parts.size());
            return nullptr;
        }
    }
    for (BufferPtr & b : buffers) {
        b.release(); // owned by result now (itself, or the multi-buffer)
    }
    undo.commit();
    return result;
}

} // namespace

size_t ggml_backend_alloc_ctx_tensors_from_buft_size(struct ggml_context * ctx, ggml_backend_buffer_type_t buft) {
    if (ctx == nullptr || buft == nullptr) {
        log_error("[ggml_backend_alloc_ctx_tensors_from_buft_size] NULL context or buffer type\n");
        return 0;
    }
    constexpr const char * kCaller = "ggml_backend_alloc_ctx_tensors_from_buft_size";
    return guard(kCaller, size_t{0}, [&] { return split_ranges(ctx, buft, kCaller).total; });
}

struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx,
                                                                     ggml_backend_buffer_type_t buft) {
    const char * caller = "ggml_backend_alloc_ctx_tensors_from_buft";
    if (ctx == nullptr || buft == nullptr) {
        log_error("[%s] NULL context or buffer type\n", caller);
        return nullptr;
    }
    if (!ggml_get_no_alloc(ctx)) {
        log_error("[%s] the context must be created with no_alloc = true\n", caller);
        return nullptr;
    }
    // a meta buffer type places each tensor by its split rules: the meta device's public entry point (declared in
    // ggml-backend-impl.h, as upstream's allocator calls it), not an include of the layer above
    if (ggml_backend_buft_is_meta(buft)) {
        return ggml_backend_meta_alloc_ctx_tensors_from_buft(ctx, buft);
    }
    return guard(caller, nullptr, [&] { return alloc_ctx_tensors(ctx, buft, caller); });
}

struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors(struct ggml_context * ctx, ggml_backend_t backend) {
    if (backend == nullptr) {
        log_error("[ggml_backend_alloc_ctx_tensors] NULL backend\n");
        return nullptr;
    }
    return ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_get_default_buffer_type(backend));
}
