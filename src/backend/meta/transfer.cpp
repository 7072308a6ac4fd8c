// Blocking data access to tensors in meta buffers: the logical bytes of a tensor are scattered to (set) or
// gathered from (get) the devices' slices.
//
// Views are accessed through their root: bytes [offset, offset + size) of a view are bytes
// [view_offs + offset, ...) of the root, whatever the view's shape, as for any buffer. For a root split along
// axis a, byte r + u*(j + E*q) (u = nb[a], E = ne[a], quantization blocks counted for axis 0) is byte
// r + u*(local(j) + E_d*q) of the slice on the device owning j; consecutive bytes on one device in one portion
// form one chunk. MIRRORED data is written to every device and read from the first; PARTIAL data is written to
// the first device (zeros elsewhere) and read as the sum over the devices.
#include "backend/meta/meta.h"
#include "backend/meta/rules.h"

#include "base/fp16.h"
#include "base/log.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace switchyard::meta {

namespace {

struct Chunk {
    int    device;
    size_t local;  // byte offset in the device's slice
    size_t global; // byte offset in the root
    size_t len;
};

struct AxisBytes {
    size_t               u;
    int64_t              period; // axis steps per period
    int64_t              local_period[kMaxDevices];
    std::vector<Portion> portions;
};

AxisBytes axis_bytes(const ggml_tensor * root, const SplitState & s, int n) {
    const int     a    = axis_of(s);
    const int64_t blck = a == 0 ? ggml_blck_size(root->type) : 1;
    AxisBytes     ab;
    ab.u      = root->nb[a];
    ab.period = root->ne[a] / blck;
    SplitState steps = s;
    scale_shares(steps, n, 1, blck); // shares are whole blocks (checked when the state was made)
    ab.portions = portions_of(steps, n);
    for (int d = 0; d < n; ++d) {
        ab.local_period[d] = device_extent(steps, n, d);
    }
    return ab;
}

template <typename Fn>
void for_each_chunk(const ggml_tensor * root, const SplitState & s, int n, size_t offset, size_t size, Fn && fn) {
    const AxisBytes ab  = axis_bytes(root, s, n);
    const size_t    end = offset + size;
    for (size_t p = offset; p < end;) {
        const size_t  step   = p / ab.u;
        const size_t  within = p % ab.u;
        const int64_t j      = static_cast<int64_t>(step % static_cast<size_t>(ab.period));
        const int64_t q      = static_cast<int64_t>(step / static_cast<size_t>(ab.period));
        auto it = std::upper_bound(ab.portions.begin(), ab.portions.end(), j,
                                   [](int64_t v, const Portion & por) { return v < por.start; });
        const Portion & por   = *(it - 1);
        const size_t    avail = static_cast<size_t>(por.end - j) * ab.u - within;
        const size_t    len   = std::min(end - p, avail);
        const size_t    local = within + ab.u * static_cast<size_t>(por.local + (j - por.start) + ab.local_period[por.device] * q);
        fn(Chunk{por.device, local, p, len});
        p += len;
    }
}

// The root of t, its record and the byte offset of t in it; false (logged) if t is not placed.
bool locate(const ggml_tensor * t, const char * caller, const ggml_tensor *& root, Record *& rec, size_t & base) {
    root             = t->view_src != nullptr ? t->view_src : t;
    base             = t->view_src != nullptr ? t->view_offs : 0;
    MetaBuffer * buf = meta_buffer_of(t);
    if (buf == nullptr || !ensure_layout(*buf)) {
        return false;
    }
    rec = find_record(root);
    if (rec == nullptr) {
        log_error("[%s] tensor '%s' is not placed in its meta buffer\n", caller, root->name);
        return false;
    }
    return true;
}

SplitState readable_state(const ggml_tensor * root, const Record & rec) {
    if (rec.state.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL && reduced_in_place(root)) {
        return mirrored_state(); // all-reduced when it was computed
    }
    return rec.state;
}

int n_devices(const Record & rec) {
    int n = 0;
    while (n < kMaxDevices && rec.simple[static_cast<size_t>(n)] != nullptr) {
        ++n;
    }
    return n;
}

void zero_fill(ggml_tensor * t, size_t offset, size_t size) {
    const std::vector<uint8_t> zeros(size, 0);
    ggml_backend_tensor_set(t, zeros.data(), offset, size);
}

bool sum_partials(const Record & rec, int n, void * data, size_t offset, size_t size) {
    const ggml_type type = rec.simple[0]->type;
    const size_t    es   = ggml_type_size(type);
    if ((type != GGML_TYPE_F32 && type != GGML_TYPE_F16 && type != GGML_TYPE_BF16) || offset % es != 0 || size % es != 0) {
        log_error("[ggml_backend_tensor_get] cannot read partial sums of type %s (F32, F16, BF16 only, whole elements)\n",
                  ggml_type_name(type));
        std::memset(data, 0, size);
        return false;
    }
    const size_t         count = size / es;
    std::vector<float>   acc(count, 0.0f);
    std::vector<uint8_t> part(size);
    for (int d = 0; d < n; ++d) {
        ggml_backend_tensor_get(rec.simple[static_cast<size_t>(d)], part.data(), offset, size);
        for (size_t i = 0; i < count; ++i) {
            uint16_t h = 0;
            float    f = 0.0f;
            if (type == GGML_TYPE_F32) {
                std::memcpy(&f, part.data() + 4 * i, 4);
            } else {
                std::memcpy(&h, part.data() + 2 * i, 2);
                f = type == GGML_TYPE_F16 ? fp16_to_fp32(h) : bf16_to_fp32(h);
            }
            acc[i] += f;
        }
    }
    for (size_t i = 0; i < count; ++i) {
        if (type == GGML_TYPE_F32) {
            std::memcpy(static_cast<char *>(data) + 4 * i, &acc[i], 4);
        } else {
            const uint16_t h = type == GGML_TYPE_F16 ? fp32_to_fp16(acc[i]) : fp32_to_bf16(acc[i]);
            std::memcpy(static_cast<char *>(data) + 2 * i, &h, 2);
        }
    }
    return true;
}

} // namespace

bool transfer_set(const ggml_tensor * t, const void * data, size_t offset, size_t size) {
    const ggml_tensor * root = nullptr;
    Record *            rec  = nullptr;
    size_t              base = 0;
    if (!locate(t, "ggml_backend_tensor_set", root, rec, base)) {
        return false;
    }
    const int        n     = n_devices(*rec);
    const SplitState state = readable_state(root, *rec);
    offset += base;
    if (!is_dim_split(state)) {
        for (int d = 0; d < n; ++d) {
            ggml_tensor * s = rec->simple[static_cast<size_t>(d)];
            if (d == 0 || state.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED) {
                ggml_backend_tensor_set(s, data, offset, size);
            } else {
                zero_fill(s, offset, size);
            }
        }
        return true;
    }
    for_each_chunk(root, state, n, offset, size, [&](const Chunk & c) {
        ggml_backend_tensor_set(rec->simple[static_cast<size_t>(c.device)], static_cast<const char *>(data) + (c.global - offset),
                                c.local, c.len);
    });
    return true;
}

bool transfer_get(const ggml_tensor * t, void * data, size_t offset, size_t size) {
    const ggml_tensor * root = nullptr;
    Record *            rec  = nullptr;
    size_t              base = 0;
    if (!locate(t, "ggml_backend_tensor_get", root, rec, base)) {
        return false;
    }
    const int        n     = n_devices(*rec);
    const SplitState state = readable_state(root, *rec);
    offset += base;
    if (state.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED) {
        ggml_backend_tensor_get(rec->simple[0], data, offset, size);
        return true;
    }
    if (state.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL) {
        return sum_partials(*rec, n, data, offset, size);
    }
    for_each_chunk(root, state, n, offset, size, [&](const Chunk & c) {
        ggml_backend_tensor_get(rec->simple[static_cast<size_t>(c.device)], static_cast<char *>(data) + (c.global - offset),
                                c.local, c.len);
    });
    return true;
}

bool transfer_memset(const ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    const ggml_tensor * root = nullptr;
    Record *            rec  = nullptr;
    size_t              base = 0;
    if (!locate(t, "ggml_backend_tensor_memset", root, rec, base)) {
        return false;
    }
    const int        n     = n_devices(*rec);
    const SplitState state = readable_state(root, *rec);
    offset += base;
    if (!is_dim_split(state)) {
        for (int d = 0; d < n; ++d) {
            const bool first = d == 0 || state.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED;
            ggml_backend_tensor_memset(rec->simple[static_cast<size_t>(d)], first ? value : 0, offset, size);
        }
        return true;
    }
    for_each_chunk(root, state, n, offset, size, [&](const Chunk & c) {
        ggml_backend_tensor_memset(rec->simple[static_cast<size_t>(c.device)], value, c.local, c.len);
    });
    return true;
}

} // namespace switchyard::meta
