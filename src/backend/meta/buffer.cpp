// The meta buffer: a fake address range for the meta tensors plus one buffer per simple device for their
// slices. Placing a tensor (init_tensor) decides its split state and creates its slices; where the slices go
// depends on the buffer's Placement (meta.h). Views need nothing: they reach their data through the root.
// Data access (set/get/memset) scatters and gathers through transfer.cpp; clear and reset fan out.
#include "backend/meta/meta.h"
#include "backend/meta/rules.h"

#include "base/log.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <new>

namespace switchyard::meta {

namespace {

std::atomic<uintptr_t> g_next_base{uintptr_t(0x500000000000)};

MetaBuffer * ctx_of(ggml_backend_buffer_t buffer) { return static_cast<MetaBuffer *>(buffer->context); }

void buffer_free(ggml_backend_buffer_t buffer) {
    delete ctx_of(buffer); // with its parts
}

void * buffer_get_base(ggml_backend_buffer_t buffer) { return reinterpret_cast<void *>(ctx_of(buffer)->base); }

// Creates the record of t (own memory) with one slice per device.
Record * make_record(MetaBuffer & buf, ggml_tensor * t, const SplitState & state) {
    Record rec;
    rec.state   = state;
    rec.type    = t->type;
    std::memcpy(rec.ne, t->ne, sizeof(rec.ne));
    rec.voffset = static_cast<size_t>(reinterpret_cast<uintptr_t>(t->data) - buf.base);
    rec.vsize   = ggml_backend_buft_get_alloc_size(buf.handle->buft, t);
    for (int d = 0; d < buf.dev->n(); ++d) {
        int64_t ne[GGML_MAX_DIMS];
        device_shape(state, buf.dev->n(), d, t, ne);
        ggml_tensor * s = buf.pools[static_cast<size_t>(d)].make(t->type, ne);
        if (s == nullptr) {
            return nullptr;
        }
        if (!is_dim_split(state)) {
            // a whole copy per device keeps t's strides (the scheduler copies a permuted view of another
            // backend's tensor into a tensor laid out like it): its bytes mean the same on every device
            std::memcpy(s->nb, t->nb, sizeof(s->nb));
        }
        s->op    = t->op;
        s->flags = t->flags;
        std::memcpy(s->op_params, t->op_params, sizeof(s->op_params));
        ggml_set_name(s, t->name);
        ggml_backend_buffer_type_t buft = buf.dev->bufts[static_cast<size_t>(d)];
        const size_t               a    = ggml_backend_buft_get_alignment(buft);
        rec.simple[static_cast<size_t>(d)] = s;
        rec.size[static_cast<size_t>(d)]   = (ggml_backend_buft_get_alloc_size(buft, s) + a - 1) / a * a;
    }
    auto [it, inserted] = buf.records.insert_or_assign(t, rec);
    return &it->second;
}

// Gives a freshly made record its device places, as the buffer's placement says.
ggml_status place(MetaBuffer & buf, Record & rec, ggml_tensor * t) {
    const int n = buf.dev->n();
    if (buf.placement == Placement::Compact) {
        buf.needs_layout = true;
        return GGML_STATUS_SUCCESS;
    }
    for (int d = 0; d < n; ++d) {
        const size_t i = static_cast<size_t>(d);
        if (buf.placement == Placement::SameOffsets) {
            if (buf.parts[i] == nullptr) {
                buf.parts[i] = ggml_backend_buft_alloc_buffer(buf.dev->bufts[i], buf.handle->size);
                if (buf.parts[i] == nullptr) {
                    return GGML_STATUS_ALLOC_FAILED;
                }
                ggml_backend_buffer_set_usage(buf.parts[i], buf.handle->usage); // a part made after set_usage
            }
            rec.offset[i] = rec.voffset;
        } else {
            rec.offset[i] = buf.packed_end[i];
            buf.packed_end[i] += rec.size[i];
        }
        if (rec.offset[i] + rec.size[i] > part_size(buf, d)) {
            log_error("[ggml_backend_meta] tensor '%s' does not fit in its buffer on %s\n", t->name,
                      ggml_backend_dev_name(buf.dev->devs[i]));
            return GGML_STATUS_ALLOC_FAILED;
        }
        const ggml_status status = bind_slice(buf, rec, d);
        if (status != GGML_STATUS_SUCCESS) {
            return status;
        }
    }
    rec.placed = true;
    return GGML_STATUS_SUCCESS;
}

ggml_status buffer_init_tensor(ggml_backend_buffer_t buffer, ggml_tensor * t) {
    MetaBuffer & buf = *ctx_of(buffer);
    if (t->view_src != nullptr) {
        return GGML_STATUS_SUCCESS; // views reach their data through the root
    }
    if (buf.placement == Placement::Undecided) {
        buf.placement = buffer->usage == GGML_BACKEND_BUFFER_USAGE_COMPUTE ? Placement::Compact : Placement::SameOffsets;
    }
    buf.records.erase(t);
    Resolver         resolver(*buf.dev);
    const SplitState state = resolver.raw(t);
    if (state.axis == GGML_BACKEND_SPLIT_AXIS_NONE) {
        log_error("[ggml_backend_meta] tensor '%s' (%s) has no valid split state\n", t->name, ggml_op_desc(t));
        return GGML_STATUS_FAILED;
    }
    if (is_dim_split(state) && !ggml_is_contiguous(t)) {
        log_error("[ggml_backend_meta] tensor '%s' (%s) is split along dimension %d but not packed: a split tensor "
                  "of its own memory needs packed strides\n", t->name, ggml_op_desc(t), axis_of(state));
        return GGML_STATUS_FAILED;
    }
    Record * rec = make_record(buf, t, state);
    if (rec == nullptr) {
        return GGML_STATUS_ALLOC_FAILED;
    }
    return place(buf, *rec, t);
}

void buffer_memset_tensor(ggml_backend_buffer_t, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    transfer_memset(t, value, offset, size);
}

void buffer_set_tensor(ggml_backend_buffer_t, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    transfer_set(t, data, offset, size);
}

void buffer_get_tensor(ggml_backend_buffer_t, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    transfer_get(t, data, offset, size);
}

void buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    MetaBuffer & buf = *ctx_of(buffer);
    if (!ensure_layout(buf)) {
        return;
    }
    for (ggml_backend_buffer_t part : buf.parts) {
        ggml_backend_buffer_clear(part, value);
    }
}

void buffer_reset(ggml_backend_buffer_t buffer) {
    MetaBuffer & buf = *ctx_of(buffer);
    buf.records.clear();
    for (TensorPool & pool : buf.pools) {
        pool.reset();
    }
    std::fill(buf.packed_end.begin(), buf.packed_end.end(), size_t{0});
    buf.needs_layout = false;
}

constexpr ggml_backend_buffer_i kInterface = {
    /* .free_buffer   = */ buffer_free,
    /* .get_base      = */ buffer_get_base,
    /* .init_tensor   = */ buffer_init_tensor,
    /* .memset_tensor = */ buffer_memset_tensor,
    /* .set_tensor    = */ buffer_set_tensor,
    /* .get_tensor    = */ buffer_get_tensor,
    /* .set_tensor_2d = */ nullptr,
    /* .get_tensor_2d = */ nullptr,
    /* .cpy_tensor    = */ nullptr,
    /* .clear         = */ buffer_clear,
    /* .reset         = */ buffer_reset,
};

} // namespace

ggml_backend_buffer_t new_meta_buffer(MetaDevice & dev, size_t size, Placement placement,
                                      const std::vector<size_t> & part_sizes) {
    auto         buf = std::make_unique<MetaBuffer>(); // frees the parts made so far on every early exit
    const size_t n   = static_cast<size_t>(dev.n());
    buf->dev         = &dev;
    buf->placement   = placement;
    buf->parts.assign(n, nullptr);
    buf->packed_end.assign(n, 0);
    buf->pools.resize(n);
    const size_t align = ggml_backend_buft_get_alignment(&dev.buft);
    buf->base          = g_next_base.fetch_add((size + (size_t(1) << 20)) / align * align + align);
    for (size_t d = 0; d < part_sizes.size() && d < n; ++d) {
        buf->parts[d] = ggml_backend_buft_alloc_buffer(dev.bufts[d], part_sizes[d]);
        if (buf->parts[d] == nullptr) {
            log_error("[ggml_backend_meta] cannot allocate a meta buffer of %zu bytes: %zu bytes on %s failed\n",
                      size, part_sizes[d], ggml_backend_dev_name(dev.devs[d]));
            return nullptr;
        }
    }
    buf->handle = ggml_backend_buffer_init(&dev.buft, kInterface, buf.get(), size);
    if (buf->handle == nullptr) {
        log_error("[ggml_backend_meta] cannot allocate a meta buffer of %zu bytes\n", size);
        return nullptr;
    }
    return buf.release()->handle;
}

ggml_status bind_slice(MetaBuffer & buf, Record & rec, int d) {
    const size_t          i    = static_cast<size_t>(d);
    ggml_backend_buffer_t part = buf.parts[i];
    ggml_tensor *         s    = rec.simple[i];
    s->buffer                  = part;
    s->data                    = static_cast<char *>(ggml_backend_buffer_get_base(part)) + rec.offset[i];
    return ggml_backend_buffer_init_tensor(part, s);
}

MetaBuffer * meta_buffer(ggml_backend_buffer_t buffer) {
    if (buffer == nullptr || buffer->iface.get_base != buffer_get_base) {
        return nullptr;
    }
    return ctx_of(buffer);
}

MetaBuffer * meta_buffer_of(const ggml_tensor * t) {
    const ggml_tensor * root = t->view_src != nullptr ? t->view_src : t;
    return meta_buffer(root->buffer);
}

Record * find_record(const ggml_tensor * t) {
    MetaBuffer * buf = t->view_src == nullptr ? meta_buffer(t->buffer) : nullptr;
    if (buf == nullptr) {
        return nullptr;
    }
    auto it = buf->records.find(t);
    if (it == buf->records.end() || it->second.type != t->type ||
        std::memcmp(it->second.ne, t->ne, sizeof(t->ne)) != 0) {
        return nullptr;
    }
    return &it->second;
}

bool is_static(const ggml_tensor * t) {
    const MetaBuffer * buf = meta_buffer_of(t);
    return buf != nullptr && (buf->placement == Placement::Packed || buf->placement == Placement::SameOffsets);
}

} // namespace switchyard::meta

extern "C" bool ggml_backend_buffer_is_meta(ggml_backend_buffer_t buf) {
    return switchyard::meta::meta_buffer(buf) != nullptr;
}

// The usage of every part that exists (parts made later take the meta buffer's usage when they are made).
extern "C" void ggml_backend_meta_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    switchyard::meta::MetaBuffer * buf = switchyard::meta::meta_buffer(buffer);
    if (buf == nullptr) {
        switchyard::log_error("[ggml_backend_meta_buffer_set_usage] buffer %s is not a meta buffer\n",
                              buffer != nullptr ? ggml_backend_buffer_name(buffer) : "(null)");
        return;
    }
    buffer->usage = usage;
    for (ggml_backend_buffer_t part : buf->parts) {
        if (part != nullptr) {
            ggml_backend_buffer_set_usage(part, usage);
        }
    }
}
