// The CPU_REPACK buffer type (buffer_type.h): host memory; repackable weights stored as the panels of format.h.
#include "cpu/repack/buffer_type.h"

#include "cpu/backend.h"
#include "cpu/repack/format.h"

#include "base/host_memory.h"
#include "base/log.h"

#include "ggml-backend-impl.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace switchyard::cpu::repack {

namespace {

constexpr size_t kAlignment = 64; // tensors start on a cache line: so do their panels

// tensor->extra of the repacked tensors (its address is the mark).
const char kRepackedMark = 0;

// The tensor would be stored repacked if it were allocated in a CPU_REPACK buffer.
bool repackable(const ggml_tensor * t) {
    const bool floats = repack_form(t->type) == RepackForm::kFloats;
    // a float vector (a norm, a bias: ne[1] = 1) is no matrix's weights and stays plain for the ops that read it
    const int64_t min_rows = floats ? 2 : 1;
    // experts (3-D) only where each one's rows are whole panels, so that no panel mixes two
    const bool slices = t->ne[2] == 1 || (!floats && t->ne[1] % kPanelRows == 0);
    return t->view_src == nullptr && slices && t->ne[3] == 1 && t->ne[1] >= min_rows && repacks(t->type, t->ne[0]) &&
           ggml_is_contiguous(t);
}

// Panels of the rows stored: all experts' rows one after another (repacked_rows, buffer_type.h).
int64_t n_panels(const ggml_tensor * t) { return (repacked_rows(t) + kPanelRows - 1) / kPanelRows; }

// The whole tensor from its original bytes `w` (ggml_nbytes) into its panels.
void pack_all(ggml_tensor * t, const uint8_t * w) {
    const int64_t k = t->ne[0], m = repacked_rows(t);
    const size_t  row = t->nb[1], pb = panel_bytes(t->type, k);
    for (int64_t p = 0; p < n_panels(t); ++p) {
        const int64_t r0   = p * kPanelRows;
        const int     rows = static_cast<int>(std::min<int64_t>(kPanelRows, m - r0));
        pack_panel(t->type, w + r0 * row, row, rows, k, static_cast<uint8_t *>(t->data) + p * pb);
    }
}

// The original bytes of the whole tensor into `w` (ggml_nbytes).
void unpack_all(const ggml_tensor * t, uint8_t * w) {
    const int64_t k = t->ne[0], m = repacked_rows(t);
    const size_t  row = t->nb[1], pb = panel_bytes(t->type, k);
    for (int64_t p = 0; p < n_panels(t); ++p) {
        const int64_t r0   = p * kPanelRows;
        const int     rows = static_cast<int>(std::min<int64_t>(kPanelRows, m - r0));
        unpack_panel(t->type, static_cast<const uint8_t *>(t->data) + p * pb, rows, k, w + r0 * row, row);
    }
}

// The panels holding bytes [offset, offset + size) of the original layout (size > 0): a partial write or read
// touches only them, so its cost follows its own bytes (a loader streaming a weight in pieces stays linear).
struct PanelRange {
    int64_t first = 0, last = 0; // inclusive
};

PanelRange panels_of(const ggml_tensor * t, size_t offset, size_t size) {
    const size_t row = t->nb[1];
    return {static_cast<int64_t>(offset / row) / kPanelRows, static_cast<int64_t>((offset + size - 1) / row) / kPanelRows};
}

// Calls visit(original bytes of panel p, byte offset of its first row, bytes) for each panel of `range`, the
// panel unpacked into `scratch`; with `repack`, packs it back afterwards.
template <class Visit>
void each_panel(const ggml_tensor * t, PanelRange range, std::vector<uint8_t> & scratch, bool repack, Visit visit) {
    const int64_t k = t->ne[0], m = repacked_rows(t);
    const size_t  row = t->nb[1], pb = panel_bytes(t->type, k);
    auto *        panels = static_cast<uint8_t *>(t->data);
    scratch.resize(static_cast<size_t>(kPanelRows) * row);
    for (int64_t p = range.first; p <= range.last; ++p) {
        const int64_t r0   = p * kPanelRows;
        const int     rows = static_cast<int>(std::min<int64_t>(kPanelRows, m - r0));
        unpack_panel(t->type, panels + p * pb, rows, k, scratch.data(), row);
        visit(scratch.data(), static_cast<size_t>(r0) * row, static_cast<size_t>(rows) * row);
        if (repack) {
            pack_panel(t->type, scratch.data(), row, rows, k, panels + p * pb);
        }
    }
}

// The overlap of [offset, offset + size) with a panel's bytes [start, start + len): where it starts in each.
struct Overlap {
    size_t in_panel = 0, in_range = 0, bytes = 0;
};

Overlap overlap(size_t offset, size_t size, size_t start, size_t len) {
    const size_t lo = std::max(offset, start), hi = std::min(offset + size, start + len);
    return hi > lo ? Overlap{lo - start, lo - offset, hi - lo} : Overlap{};
}

// ---- buffer ------------------------------------------------------------------------------------------------------

void buffer_free(ggml_backend_buffer_t buffer) { std::free(buffer->context); }

void * buffer_get_base(ggml_backend_buffer_t buffer) { return buffer->context; }

ggml_status buffer_init_tensor(ggml_backend_buffer_t, ggml_tensor * tensor) {
    if (repackable(tensor)) {
        tensor->extra = const_cast<char *>(&kRepackedMark);
    }
    return GGML_STATUS_SUCCESS;
}

void buffer_memset_tensor(ggml_backend_buffer_t, ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    if (reads_repacked(tensor)) {
        log_error("[CPU_REPACK] memset_tensor: '%s' is stored repacked; its bytes can only be set with "
                  "ggml_backend_tensor_set\n", tensor->name);
        return;
    }
    std::memset(static_cast<char *>(tensor->data) + offset, value, size);
}

void buffer_set_tensor(ggml_backend_buffer_t, ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    if (!is_repacked(tensor)) {
        if (reads_repacked(tensor)) {
            log_error("[CPU_REPACK] set_tensor: '%s' is a view of a repacked tensor; set the tensor itself\n",
                      tensor->name);
            return;
        }
        std::memcpy(static_cast<char *>(tensor->data) + offset, data, size);
        return;
    }
    const size_t nbytes = ggml_nbytes(tensor);
    if (offset == 0 && size == nbytes) {
        pack_all(tensor, static_cast<const uint8_t *>(data));
        return;
    }
    if (size == 0) {
        return;
    }
    std::vector<uint8_t> scratch; // a part: only the panels it falls in, each unpacked, patched and packed again
    each_panel(tensor, panels_of(tensor, offset, size), scratch, true, [&](uint8_t * w, size_t start, size_t len) {
        const Overlap o = overlap(offset, size, start, len);
        std::memcpy(w + o.in_panel, static_cast<const uint8_t *>(data) + o.in_range, o.bytes);
    });
}

void buffer_get_tensor(ggml_backend_buffer_t, const ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    if (!is_repacked(tensor)) {
        if (reads_repacked(tensor)) {
            log_error("[CPU_REPACK] get_tensor: '%s' is a view of a repacked tensor; read the tensor itself\n",
                      tensor->name);
            std::memset(data, 0, size);
            return;
        }
        std::memcpy(data, static_cast<const char *>(tensor->data) + offset, size);
        return;
    }
    const size_t nbytes = ggml_nbytes(tensor);
    if (offset == 0 && size == nbytes) {
        unpack_all(tensor, static_cast<uint8_t *>(data));
        return;
    }
    if (size == 0) {
        return;
    }
    std::vector<uint8_t> scratch;
    each_panel(tensor, panels_of(tensor, offset, size), scratch, false, [&](uint8_t * w, size_t start, size_t len) {
        const Overlap o = overlap(offset, size, start, len);
        std::memcpy(static_cast<uint8_t *>(data) + o.in_range, w + o.in_panel, o.bytes);
    });
}

// Plain tensors copy as in a CPU buffer (the source in host memory, or stored plainly here); repacked ones refuse.
bool buffer_cpy_tensor(ggml_backend_buffer_t, const ggml_tensor * src, ggml_tensor * dst) {
    if (reads_repacked(src) || reads_repacked(dst)) {
        log_error("[CPU_REPACK] cpy_tensor: '%s' -> '%s': a repacked tensor is copied through "
                  "ggml_backend_tensor_set / ggml_backend_tensor_get only\n", src->name, dst->name);
        return false;
    }
    const ggml_backend_buffer_t src_buf = src->view_src != nullptr ? src->view_src->buffer : src->buffer;
    if (src_buf == nullptr || (!ggml_backend_buffer_is_host(src_buf) && !in_repack_buffer(src))) {
        return false;
    }
    std::memcpy(dst->data, src->data, ggml_nbytes(src));
    return true;
}

void buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) { std::memset(buffer->context, value, buffer->size); }

constexpr ggml_backend_buffer_i kBufferInterface = {
    /* .free_buffer   = */ buffer_free,
    /* .get_base      = */ buffer_get_base,
    /* .init_tensor   = */ buffer_init_tensor,
    /* .memset_tensor = */ buffer_memset_tensor,
    /* .set_tensor    = */ buffer_set_tensor,
    /* .get_tensor    = */ buffer_get_tensor,
    /* .set_tensor_2d = */ nullptr,
    /* .get_tensor_2d = */ nullptr,
    /* .cpy_tensor    = */ buffer_cpy_tensor,
    /* .clear         = */ buffer_clear,
    /* .reset         = */ nullptr,
};

// ---- buffer type -------------------------------------------------------------------------------------------------

const char * type_get_name(ggml_backend_buffer_type_t) { return "CPU_REPACK"; }

ggml_backend_buffer_t type_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    if (size > SIZE_MAX - kAlignment) {
        log_error("[CPU_REPACK] cannot allocate %zu bytes\n", size);
        return nullptr;
    }
    void * data = host_alloc(size, kAlignment); // large buffers on transparent huge pages (host_memory.h)
    if (data == nullptr) {
        log_error("[CPU_REPACK] cannot allocate %zu bytes of host memory\n", size);
        return nullptr;
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, kBufferInterface, data, size);
    if (buffer == nullptr) {
        std::free(data);
    }
    return buffer;
}

size_t type_get_alignment(ggml_backend_buffer_type_t) { return kAlignment; }

size_t type_get_alloc_size(ggml_backend_buffer_type_t, const ggml_tensor * tensor) {
    const size_t nbytes = ggml_nbytes(tensor);
    return repackable(tensor) ? std::max(nbytes, repacked_bytes(tensor->type, tensor->ne[0], repacked_rows(tensor)))
                              : nbytes;
}

bool type_is_host(ggml_backend_buffer_type_t) { return false; }

} // namespace

ggml_backend_buffer_type_t repack_buffer_type() {
    static ggml_backend_buffer_type type = {
        {
            /* .get_name       = */ type_get_name,
            /* .alloc_buffer   = */ type_alloc_buffer,
            /* .get_alignment  = */ type_get_alignment,
            /* .get_max_size   = */ nullptr,
            /* .get_alloc_size = */ type_get_alloc_size,
            /* .is_host        = */ type_is_host,
        },
        cpu_device(),
        nullptr,
    };
    return &type;
}

bool in_repack_buffer(const ggml_tensor * t) {
    const ggml_tensor * base = t->view_src != nullptr ? t->view_src : t;
    return base->buffer != nullptr && base->buffer->buft == repack_buffer_type();
}

bool is_repacked(const ggml_tensor * t) {
    return t->view_src == nullptr && t->extra == &kRepackedMark && in_repack_buffer(t);
}

bool reads_repacked(const ggml_tensor * t) { return is_repacked(t) || (t->view_src != nullptr && is_repacked(t->view_src)); }

int64_t repacked_rows(const ggml_tensor * t) { return t->ne[1] * t->ne[2]; }

bool placed_repacked(const ggml_tensor * t) {
    const ggml_tensor * base = t->view_src != nullptr ? t->view_src : t;
    return in_repack_buffer(base) && repackable(base);
}

} // namespace switchyard::cpu::repack
