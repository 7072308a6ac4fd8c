// Device memory of compute buffers, and the pool of slice metadata.
//
// The graph allocator lays out a meta compute buffer in "virtual" bytes: every tensor at full size, tensors
// that are live at the same time in disjoint ranges, tensors that are not sharing memory. On a device a split
// tensor's slice is smaller than the tensor, so the device buffer can be smaller too. Each device gets its own
// layout from the virtual one: walking the tensors by virtual offset, a slice is placed right after the end of
// every slice whose tensor ends (virtually) before this one starts. Tensors disjoint in the virtual layout stay
// disjoint on every device (so everything the allocator keeps apart stays apart), tensors sharing memory may
// share it on the devices, and no device needs more than the virtual size. With every tensor MIRRORED this
// reproduces the virtual layout; with tensors split in n equal parts the device buffers shrink towards 1/n.
#include "backend/meta/meta.h"

#include "base/log.h"

#include <algorithm>
#include <numeric>

namespace switchyard::meta {

//
// TensorPool
//

namespace {

constexpr int kTensorsPerContext = 256;

} // namespace

TensorPool::~TensorPool() {
    for (ggml_context * ctx : contexts_) {
        ggml_free(ctx);
    }
}

TensorPool::TensorPool(TensorPool && other) noexcept
    : contexts_(std::move(other.contexts_)), current_(other.current_), used_(other.used_) {
    other.contexts_.clear();
}

TensorPool & TensorPool::operator=(TensorPool && other) noexcept {
    std::swap(contexts_, other.contexts_);
    std::swap(current_, other.current_);
    std::swap(used_, other.used_);
    return *this;
}

ggml_tensor * TensorPool::make(ggml_type type, const int64_t ne[GGML_MAX_DIMS]) {
    if (contexts_.empty() || used_ == kTensorsPerContext) {
        if (!contexts_.empty()) {
            ++current_;
            used_ = 0;
        }
        if (current_ == contexts_.size()) {
            contexts_.reserve(contexts_.size() + 1); // so that push_back below cannot throw and leak ctx
            ggml_init_params params{kTensorsPerContext * ggml_tensor_overhead(), nullptr, true};
            ggml_context *   ctx = ggml_init(params);
            if (ctx == nullptr) {
                log_error("[ggml_backend_meta] out of host memory for tensor metadata\n");
                current_ = contexts_.empty() ? 0 : contexts_.size() - 1;
                used_    = kTensorsPerContext;
                return nullptr;
            }
            contexts_.push_back(ctx);
        }
    }
    ++used_;
    return ggml_new_tensor(contexts_[current_], type, GGML_MAX_DIMS, ne);
}

void TensorPool::reset() {
    for (ggml_context * ctx : contexts_) {
        ggml_reset(ctx);
    }
    current_ = 0;
    used_    = 0;
}

//
// Layout of compute buffers
//

namespace {

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Device offsets for slices of sizes `size` whose tensors occupy [voff, voff + vsize) virtually.
size_t place_on_device(const std::vector<Record *> & recs, int d, size_t alignment) {
    std::vector<size_t> by_start(recs.size()), by_end(recs.size());
    std::iota(by_start.begin(), by_start.end(), size_t{0});
    std::iota(by_end.begin(), by_end.end(), size_t{0});
    auto vend = [&](size_t i) { return recs[i]->voffset + std::max<size_t>(recs[i]->vsize, 1); };
    std::sort(by_start.begin(), by_start.end(), [&](size_t a, size_t b) { return recs[a]->voffset < recs[b]->voffset; });
    std::sort(by_end.begin(), by_end.end(), [&](size_t a, size_t b) { return vend(a) < vend(b); });
    size_t floor = 0; // the end of every slice whose tensor ended before the current start
    size_t total = alignment;
    size_t k     = 0;
    for (size_t i : by_start) {
        Record & rec = *recs[i];
        for (; k < by_end.size() && vend(by_end[k]) <= rec.voffset; ++k) {
            const Record & done = *recs[by_end[k]];
            floor               = std::max(floor, done.offset[d] + done.size[d]);
        }
        rec.offset[d] = align_up(floor, alignment);
        total         = std::max(total, rec.offset[d] + rec.size[d]);
    }
    return align_up(total, alignment);
}

bool grow_part(MetaBuffer & buf, int d, size_t size) {
    ggml_backend_buffer_t & part = buf.parts[static_cast<size_t>(d)];
    if (part != nullptr && ggml_backend_buffer_get_size(part) >= size) {
        return true;
    }
    ggml_backend_buffer_free(part);
    part = ggml_backend_buft_alloc_buffer(buf.dev->bufts[static_cast<size_t>(d)], size);
    if (part == nullptr) {
        log_error("[ggml_backend_meta] cannot allocate %zu bytes of compute memory on %s\n", size,
                  ggml_backend_dev_name(buf.dev->devs[static_cast<size_t>(d)]));
        return false;
    }
    ggml_backend_buffer_set_usage(part, GGML_BACKEND_BUFFER_USAGE_COMPUTE);
    return true;
}

} // namespace

bool ensure_layout(MetaBuffer & buf) {
    if (buf.placement != Placement::Compact || !buf.needs_layout) {
        return true;
    }
    std::vector<Record *> recs;
    bool                  replaced = false;
    for (auto & [tensor, rec] : buf.records) {
        replaced = replaced || rec.placed;
        recs.push_back(&rec);
    }
    if (replaced) {
        log_warn("[ggml_backend_meta] tensors were added to compute buffer %p after it was used; its data is laid out "
                 "anew\n", static_cast<void *>(buf.handle));
    }
    for (int d = 0; d < buf.dev->n(); ++d) {
        const size_t alignment = ggml_backend_buft_get_alignment(buf.dev->bufts[static_cast<size_t>(d)]);
        if (!grow_part(buf, d, place_on_device(recs, d, alignment))) {
            return false;
        }
        for (Record * rec : recs) {
            if (bind_slice(buf, *rec, d) != GGML_STATUS_SUCCESS) {
                return false;
            }
        }
    }
    for (Record * rec : recs) {
        rec->placed = true;
    }
    buf.needs_layout = false;
    return true;
}

size_t part_size(const MetaBuffer & buf, int d) {
    const ggml_backend_buffer_t part = buf.parts[static_cast<size_t>(d)];
    return part != nullptr ? ggml_backend_buffer_get_size(part) : 0;
}

} // namespace switchyard::meta
