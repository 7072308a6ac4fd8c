// The meta buffer type (one per meta device) and the allocation of a context's static tensors in it.
//
// Alignment is the largest of the simple buffer types', the maximum size the smallest; a tensor needs the most
// any simple buffer type asks for it at full size (the virtual layout of the graph allocator is in full-size
// bytes; devices get compacted layouts, see layout.cpp). Meta buffers are never host memory: meta tensors
// carry fake addresses, their data lives in the slices.
//
// ggml_backend_meta_alloc_ctx_tensors_from_buft asks the user's callback for the split of every tensor of the
// context, sizes each device's buffer to hold exactly its slices, and places them back to back. As for simple
// buffer types, a call that fails part-way leaves every tensor as it was (PlacementUndo).
#include "backend/meta/meta.h"
#include "backend/meta/rules.h"

#include "alloc/placement_undo.h"
#include "base/guard.h"
#include "base/owners.h"
#include "base/log.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace switchyard::meta {

namespace {

MetaDevice * ctx_of(ggml_backend_buffer_type_t buft) { return static_cast<MetaDevice *>(buft->context); }

const char * buft_get_name(ggml_backend_buffer_type_t buft) { return ctx_of(buft)->buft_name.c_str(); }

ggml_backend_buffer_t buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    return new_meta_buffer(*ctx_of(buft), size, Placement::Undecided, {});
}

size_t buft_get_alignment(ggml_backend_buffer_type_t buft) {
    size_t alignment = 1;
    for (ggml_backend_buffer_type_t simple : ctx_of(buft)->bufts) {
        alignment = std::max(alignment, ggml_backend_buft_get_alignment(simple));
    }
    return alignment;
}

size_t buft_get_max_size(ggml_backend_buffer_type_t buft) {
    size_t max_size = SIZE_MAX;
    for (ggml_backend_buffer_type_t simple : ctx_of(buft)->bufts) {
        max_size = std::min(max_size, ggml_backend_buft_get_max_size(simple));
    }
    return max_size;
}

size_t buft_get_alloc_size(ggml_backend_buffer_type_t buft, const ggml_tensor * tensor) {
    size_t size = ggml_nbytes(tensor);
    for (ggml_backend_buffer_type_t simple : ctx_of(buft)->bufts) {
        size = std::max(size, ggml_backend_buft_get_alloc_size(simple, tensor));
    }
    return size;
}

bool buft_is_host(ggml_backend_buffer_type_t) { return false; }

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Bytes device d needs for its slice of t under state s, padded to the device's alignment.
size_t slice_size(const MetaDevice & meta, int d, const ggml_tensor * t, const SplitState & s) {
    ggml_tensor slice = *t;
    device_shape(s, meta.n(), d, t, slice.ne);
    contiguous_strides(t->type, slice.ne, slice.nb);
    slice.buffer                    = nullptr;
    ggml_backend_buffer_type_t buft = meta.bufts[static_cast<size_t>(d)];
    return align_up(ggml_backend_buft_get_alloc_size(buft, &slice), ggml_backend_buft_get_alignment(buft));
}

struct Plan {
    std::vector<ggml_tensor *> tensors;
    std::vector<size_t>        offsets;
    std::vector<size_t>        part_sizes;
    size_t                     total = 0;
};

bool plan_static(const MetaDevice & meta, ggml_context * ctx, ggml_backend_buffer_type_t buft, Plan & plan) {
    constexpr const char * kCaller = "ggml_backend_alloc_ctx_tensors_from_buft";
    Resolver               resolver(meta);
    const size_t           alignment = ggml_backend_buft_get_alignment(buft);
    plan.part_sizes.assign(static_cast<size_t>(meta.n()), 0);
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
        if (t->data != nullptr || t->view_src != nullptr) {
            continue;
        }
        const SplitState s = resolver.user_state(t);
        if (s.axis == GGML_BACKEND_SPLIT_AXIS_NONE) {
            return false;
        }
        plan.tensors.push_back(t);
        plan.offsets.push_back(plan.total);
        plan.total += align_up(ggml_backend_buft_get_alloc_size(buft, t), alignment);
        for (int d = 0; d < meta.n(); ++d) {
            plan.part_sizes[static_cast<size_t>(d)] += slice_size(meta, d, t, s);
        }
    }
    for (int d = 0; d < meta.n(); ++d) {
        ggml_backend_buffer_type_t simple = meta.bufts[static_cast<size_t>(d)];
        size_t &                   size   = plan.part_sizes[static_cast<size_t>(d)];
        size = std::max(size, ggml_backend_buft_get_alignment(simple));
        if (size > ggml_backend_buft_get_max_size(simple)) {
            log_error("[%s] the slices for %s need %zu bytes, more than its largest buffer\n", kCaller,
                      ggml_backend_dev_name(meta.devs[static_cast<size_t>(d)]), size);
            return false;
        }
    }
    return true;
}

// Gives every view of the context its source's memory; false (logged) when a source has none.
bool init_views(ggml_context * ctx, const char * caller) {
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
        if (t->view_src == nullptr || t->buffer != nullptr) {
            continue;
        }
        if (t->view_src->buffer == nullptr) {
            log_error("[%s] view '%s' of '%s', which has no buffer\n", caller, t->name, t->view_src->name);
            return false;
        }
        if (ggml_backend_view_init(t) != GGML_STATUS_SUCCESS) {
            return false;
        }
    }
    return true;
}

ggml_backend_buffer_t alloc_ctx_tensors(MetaDevice & meta, ggml_context * ctx, ggml_backend_buffer_type_t buft,
                                        const char * caller) {
    Plan plan;
    if (!plan_static(meta, ctx, buft, plan)) {
        return nullptr;
    }
    alloc::PlacementUndo undo(ctx);
    if (plan.tensors.empty()) {
        // nothing needs memory (as for simple buffer types, the result is NULL); views still get theirs
        if (init_views(ctx, caller)) {
            undo.commit();
        }
        return nullptr;
    }
    BufferPtr buffer(new_meta_buffer(meta, plan.total, Placement::Packed, plan.part_sizes));
    if (buffer == nullptr) {
        return nullptr;
    }
    char * base = static_cast<char *>(ggml_backend_buffer_get_base(buffer.get()));
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
        if (ggml_backend_tensor_alloc(buffer.get(), plan.tensors[i], base + plan.offsets[i]) != GGML_STATUS_SUCCESS) {
            log_error("[%s] cannot place tensor '%s'\n", caller, plan.tensors[i]->name);
            return nullptr;
        }
    }
    if (!init_views(ctx, caller)) {
        return nullptr;
    }
    undo.commit();
    return buffer.release();
}

constexpr ggml_backend_buffer_type_i kInterface = {
    /* .get_name       = */ buft_get_name,
    /* .alloc_buffer   = */ buft_alloc_buffer,
    /* .get_alignment  = */ buft_get_alignment,
    /* .get_max_size   = */ buft_get_max_size,
    /* .get_alloc_size = */ buft_get_alloc_size,
    /* .is_host        = */ buft_is_host,
};

} // namespace

ggml_backend_buffer_type_i buffer_type_interface() { return kInterface; }

MetaDevice * meta_device_of_buft(ggml_backend_buffer_type_t buft) {
    return buft != nullptr && buft->iface.get_name == buft_get_name ? ctx_of(buft) : nullptr;
}

} // namespace switchyard::meta

using namespace switchyard;
using namespace switchyard::meta;

extern "C" {

bool ggml_backend_buft_is_meta(ggml_backend_buffer_type_t buft) { return meta_device_of_buft(buft) != nullptr; }

struct ggml_backend_buffer * ggml_backend_meta_alloc_ctx_tensors_from_buft(struct ggml_context * ctx,
                                                                          ggml_backend_buffer_type_t buft) {
    constexpr const char * kCaller = "ggml_backend_alloc_ctx_tensors_from_buft";
    MetaDevice *           meta    = meta_device_of_buft(buft);
    if (ctx == nullptr || meta == nullptr) {
        log_error("[%s] %s\n", kCaller, ctx == nullptr ? "context is NULL" : "not a meta buffer type");
        return nullptr;
    }
    return guard(kCaller, nullptr, [&] { return alloc_ctx_tensors(*meta, ctx, buft, kCaller); });
}

} // extern "C"
