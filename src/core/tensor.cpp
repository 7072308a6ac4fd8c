#include "core/tensor.h"

#include "base/log.h"
#include "core/context.h"
#include "quant/types.h"

#include <cstdarg>
#include <cstdio>

namespace switchyard {

std::optional<PackedSize> packed_size(ggml_type type, int n_dims, const int64_t * ne) {
    const TypeInfo & info      = type_info(type);
    int64_t          nelements = ne[0];
    size_t           nbytes    = 0;
    size_t row_scaled = 0; // ggml_nbytes computes ne[0] * type_size before dividing by the block size
    if (__builtin_mul_overflow(info.type_size, static_cast<size_t>(ne[0] / info.blck_size), &nbytes) ||
        __builtin_mul_overflow(static_cast<size_t>(ne[0]), info.type_size, &row_scaled)) {
        return std::nullopt;
    }
    for (int i = 1; i < n_dims; ++i) {
        if (__builtin_mul_overflow(nelements, ne[i], &nelements) ||
            __builtin_mul_overflow(nbytes, static_cast<size_t>(ne[i]), &nbytes)) {
            return std::nullopt;
        }
    }
    if (nbytes > kMaxTensorBytes) {
        return std::nullopt;
    }
    return PackedSize{nelements, nbytes};
}

std::optional<size_t> strided_extent(ggml_type type, const int64_t * ne, const size_t * nb) {
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (ne[i] == 0) {
            return size_t{0};
        }
    }
    // as ggml_nbytes: the bytes of the first row, then each further index along every dimension
    const TypeInfo & info   = type_info(type);
    size_t           extent = 0;
    const bool       row_overflow =
        info.blck_size == 1 ? __builtin_mul_overflow(static_cast<size_t>(ne[0] - 1), nb[0], &extent) ||
                                  __builtin_add_overflow(extent, info.type_size, &extent)
                            : __builtin_mul_overflow(static_cast<size_t>(ne[0] / info.blck_size), nb[0], &extent);
    if (row_overflow) {
        return std::nullopt;
    }
    for (int i = 1; i < GGML_MAX_DIMS; ++i) {
        size_t step = 0;
        if (__builtin_mul_overflow(static_cast<size_t>(ne[i] - 1), nb[i], &step) ||
            __builtin_add_overflow(extent, step, &extent)) {
            return std::nullopt;
        }
    }
    if (extent > kMaxTensorBytes) {
        return std::nullopt;
    }
    return extent;
}

void log_size_overflow(const char * caller, ggml_type type, const int64_t * ne) {
    log_error("[%s] the size of a %s tensor of [%lld, %lld, %lld, %lld] overflows (more than %lld elements or %zu "
              "bytes)\n",
              caller, type_info(type).name, static_cast<long long>(ne[0]), static_cast<long long>(ne[1]),
              static_cast<long long>(ne[2]), static_cast<long long>(ne[3]), static_cast<long long>(INT64_MAX),
              kMaxTensorBytes);
}

ggml_tensor * new_tensor_impl(ggml_context * ctx, ggml_type type, int n_dims, const int64_t * ne,
                              ggml_tensor * view_src, size_t view_offs, const char * caller) {
    if (!ctx) {
        log_error("[%s] context is NULL\n", caller);
        return nullptr;
    }
    if (!is_valid_type(type)) {
        log_error("[%s] invalid tensor type %d\n", caller, static_cast<int>(type));
        return nullptr;
    }
    if (n_dims < 1 || n_dims > GGML_MAX_DIMS) {
        log_error("[%s] invalid number of dimensions %d (1..%d)\n", caller, n_dims, GGML_MAX_DIMS);
        return nullptr;
    }
    const TypeInfo & info = type_info(type);
    int64_t          dims[GGML_MAX_DIMS] = {1, 1, 1, 1};
    for (int i = 0; i < n_dims; ++i) {
        if (ne[i] < 0) {
            log_error("[%s] negative extent ne[%d] = %lld\n", caller, i, static_cast<long long>(ne[i]));
            return nullptr;
        }
        dims[i] = ne[i];
    }
    if (dims[0] % info.blck_size != 0) {
        log_error("[%s] ne[0] = %lld is not a multiple of the %s block size %lld\n", caller,
                  static_cast<long long>(dims[0]), info.name, static_cast<long long>(info.blck_size));
        return nullptr;
    }
    const std::optional<PackedSize> size = packed_size(type, GGML_MAX_DIMS, dims);
    if (!size) {
        log_size_overflow(caller, type, dims);
        return nullptr;
    }
    const size_t data_size = size->nbytes;

    if (view_src && view_src->view_src) {
        size_t root_offs = 0;
        if (__builtin_add_overflow(view_offs, view_src->view_offs, &root_offs)) {
            log_error("[%s] view offset %zu plus the offset %zu of its source '%s' overflows\n", caller, view_offs,
                      view_src->view_offs, view_src->name);
            return nullptr;
        }
        view_offs = root_offs;
        view_src  = view_src->view_src;
    }
    // an empty view touches no byte and may sit anywhere, as upstream's
    if (view_src && data_size > 0 && (view_offs > ggml_nbytes(view_src) || data_size > ggml_nbytes(view_src) - view_offs)) {
        log_error("[%s] view of %zu bytes at offset %zu exceeds its source '%s' of %zu bytes\n", caller, data_size,
                  view_offs, view_src->name, ggml_nbytes(view_src));
        return nullptr;
    }

    void * data = view_src ? view_src->data : nullptr;
    if (data) { // in integers: an empty view's offset may lie past its source
        data = reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(data) + view_offs);
    }
    size_t obj_alloc_size = 0;
    if (!view_src && !ctx->no_alloc) {
        obj_alloc_size = data_size;
    }
    ggml_object * obj = context_new_object(ctx, GGML_OBJECT_TYPE_TENSOR, GGML_TENSOR_SIZE + obj_alloc_size, caller);
    if (!obj) {
        return nullptr;
    }
    auto * t = static_cast<ggml_tensor *>(object_payload(ctx, obj));
    std::memset(t, 0, sizeof(*t));
    t->type      = type;
    t->buffer    = view_src ? view_src->buffer : nullptr;
    t->op        = GGML_OP_NONE;
    t->view_src  = view_src;
    t->view_offs = view_offs;
    t->data      = (obj_alloc_size > 0) ? static_cast<void *>(t + 1) : data;
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        t->ne[i] = dims[i];
    }
    // packed_size bounds every partial product, so these cannot overflow
    t->nb[0] = info.type_size;
    t->nb[1] = t->nb[0] * static_cast<size_t>(t->ne[0] / info.blck_size);
    for (int i = 2; i < GGML_MAX_DIMS; ++i) {
        t->nb[i] = t->nb[i - 1] * static_cast<size_t>(t->ne[i - 1]);
    }
    return t;
}

ggml_tensor * view_of(ggml_context * ctx, ggml_tensor * a, const char * caller) {
    if (!a) {
        log_error("[%s] source tensor is NULL\n", caller);
        return nullptr;
    }
    if (a->view_src && is_valid_type(a->type)) {
        // a's strides were checked when it was made; this catches fields changed by hand since
        const std::optional<size_t> extent = strided_extent(a->type, a->ne, a->nb);
        const size_t                root   = ggml_nbytes(a->view_src);
        if (!extent || a->view_offs > root || *extent > root - a->view_offs) {
            log_error("[%s] view '%s' at offset %zu reaches past the %zu bytes of its source '%s'\n", caller, a->name,
                      a->view_offs, root, a->view_src->name);
            return nullptr;
        }
    }
    ggml_tensor * t = new_tensor_impl(ctx, a->type, GGML_MAX_DIMS, a->ne, a, 0, caller);
    if (!t) {
        return nullptr;
    }
    ggml_format_name(t, "%s (view)", a->name);
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        t->nb[i] = a->nb[i];
    }
    return t;
}

} // namespace switchyard

using namespace switchyard;

extern "C" {

struct ggml_tensor * ggml_new_tensor(struct ggml_context * ctx, enum ggml_type type, int n_dims, const int64_t * ne) {
    return new_tensor_impl(ctx, type, n_dims, ne, nullptr, 0, "ggml_new_tensor");
}

struct ggml_tensor * ggml_new_tensor_1d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0) {
    return new_tensor_impl(ctx, type, 1, &ne0, nullptr, 0, "ggml_new_tensor_1d");
}

struct ggml_tensor * ggml_new_tensor_2d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = {ne0, ne1};
    return new_tensor_impl(ctx, type, 2, ne, nullptr, 0, "ggml_new_tensor_2d");
}

struct ggml_tensor * ggml_new_tensor_3d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1,
                                        int64_t ne2) {
    const int64_t ne[3] = {ne0, ne1, ne2};
    return new_tensor_impl(ctx, type, 3, ne, nullptr, 0, "ggml_new_tensor_3d");
}

struct ggml_tensor * ggml_new_tensor_4d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1,
                                        int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    return new_tensor_impl(ctx, type, 4, ne, nullptr, 0, "ggml_new_tensor_4d");
}

struct ggml_tensor * ggml_dup_tensor(struct ggml_context * ctx, const struct ggml_tensor * src) {
    if (!src) {
        log_error("[ggml_dup_tensor] source tensor is NULL\n");
        return nullptr;
    }
    return new_tensor_impl(ctx, src->type, GGML_MAX_DIMS, src->ne, nullptr, 0, "ggml_dup_tensor");
}

struct ggml_tensor * ggml_view_tensor(struct ggml_context * ctx, struct ggml_tensor * src) {
    return view_of(ctx, src, "ggml_view_tensor");
}

size_t ggml_tensor_overhead(void) { return GGML_OBJECT_SIZE + GGML_TENSOR_SIZE; }

int64_t ggml_nelements(const struct ggml_tensor * t) { return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3]; }
int64_t ggml_nrows(const struct ggml_tensor * t) { return t->ne[1] * t->ne[2] * t->ne[3]; }

size_t ggml_nbytes(const struct ggml_tensor * t) {
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (t->ne[i] <= 0) {
            return 0;
        }
    }
    const int64_t blck = ggml_blck_size(t->type);
    size_t        nbytes;
    if (blck == 1) {
        nbytes = ggml_type_size(t->type);
        for (int i = 0; i < GGML_MAX_DIMS; ++i) {
            nbytes += static_cast<size_t>(t->ne[i] - 1) * t->nb[i];
        }
    } else {
        nbytes = static_cast<size_t>(t->ne[0]) * t->nb[0] / static_cast<size_t>(blck);
        for (int i = 1; i < GGML_MAX_DIMS; ++i) {
            nbytes += static_cast<size_t>(t->ne[i] - 1) * t->nb[i];
        }
    }
    return nbytes;
}

size_t ggml_nbytes_pad(const struct ggml_tensor * t) {
    return GGML_PAD(ggml_nbytes(t), GGML_MEM_ALIGN);
}

size_t ggml_element_size(const struct ggml_tensor * t) { return ggml_type_size(t->type); }

void * ggml_get_data(const struct ggml_tensor * t) { return t->data; }

float * ggml_get_data_f32(const struct ggml_tensor * t) {
    if (t->type != GGML_TYPE_F32) {
        log_error("[ggml_get_data_f32] tensor '%s' has type %s, not f32\n", t->name, ggml_type_name(t->type));
        return nullptr;
    }
    return static_cast<float *>(t->data);
}

const char * ggml_get_name(const struct ggml_tensor * t) { return t->name; }

struct ggml_tensor * ggml_set_name(struct ggml_tensor * t, const char * name) {
    size_t i = 0;
    for (; i < sizeof(t->name) - 1 && name[i] != '\0'; ++i) {
        t->name[i] = name[i];
    }
    t->name[i] = '\0';
    return t;
}

struct ggml_tensor * ggml_format_name(struct ggml_tensor * t, const char * fmt, ...) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(t->name, sizeof(t->name), fmt, args);
    va_end(args);
    return t;
}

void ggml_set_input(struct ggml_tensor * t) { t->flags |= GGML_TENSOR_FLAG_INPUT; }
void ggml_set_output(struct ggml_tensor * t) { t->flags |= GGML_TENSOR_FLAG_OUTPUT; }
void ggml_set_param(struct ggml_tensor * t) { t->flags |= GGML_TENSOR_FLAG_PARAM; }
void ggml_set_loss(struct ggml_tensor * t) { t->flags |= GGML_TENSOR_FLAG_LOSS; }

void ggml_unravel_index(const struct ggml_tensor * t, int64_t i, int64_t * i0, int64_t * i1, int64_t * i2,
                        int64_t * i3) {
    const int64_t ne2 = t->ne[2], ne1 = t->ne[1], ne0 = t->ne[0];
    const int64_t j3  = i / (ne2 * ne1 * ne0);
    const int64_t j2  = (i - j3 * ne2 * ne1 * ne0) / (ne1 * ne0);
    const int64_t j1  = (i - j3 * ne2 * ne1 * ne0 - j2 * ne1 * ne0) / ne0;
    const int64_t j0  = i - j3 * ne2 * ne1 * ne0 - j2 * ne1 * ne0 - j1 * ne0;
    if (i0) *i0 = j0;
    if (i1) *i1 = j1;
    if (i2) *i2 = j2;
    if (i3) *i3 = j3;
}

bool ggml_is_empty(const struct ggml_tensor * t) {
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (t->ne[i] == 0) {
            return true;
        }
    }
    return false;
}

bool ggml_is_scalar(const struct ggml_tensor * t) { return t->ne[0] == 1 && t->ne[1] == 1 && t->ne[2] == 1 && t->ne[3] == 1; }
bool ggml_is_vector(const struct ggml_tensor * t) { return t->ne[1] == 1 && t->ne[2] == 1 && t->ne[3] == 1; }
bool ggml_is_matrix(const struct ggml_tensor * t) { return t->ne[2] == 1 && t->ne[3] == 1; }
bool ggml_is_3d(const struct ggml_tensor * t) { return t->ne[3] == 1; }

int ggml_n_dims(const struct ggml_tensor * t) {
    for (int i = GGML_MAX_DIMS - 1; i >= 1; --i) {
        if (t->ne[i] > 1) {
            return i + 1;
        }
    }
    return 1;
}

bool ggml_is_transposed(const struct ggml_tensor * t) { return t->nb[0] > t->nb[1]; }

bool ggml_is_permuted(const struct ggml_tensor * t) {
    return t->nb[0] > t->nb[1] || t->nb[1] > t->nb[2] || t->nb[2] > t->nb[3];
}

} // extern "C"

namespace {

// Contiguous in dimensions >= n: the strides of those dimensions follow from the extents, ignoring
// dimensions of extent 1 (their stride is irrelevant).
bool is_contiguous_n(const ggml_tensor * t, int n) {
    size_t next_nb = ggml_type_size(t->type);
    if (t->ne[0] != ggml_blck_size(t->type) && t->nb[0] != next_nb) {
        return false;
    }
    next_nb *= static_cast<size_t>(t->ne[0] / ggml_blck_size(t->type));
    for (int i = 1; i < GGML_MAX_DIMS; ++i) {
        if (i > n) {
            if (t->ne[i] != 1 && t->nb[i] != next_nb) {
                return false;
            }
            next_nb *= static_cast<size_t>(t->ne[i]);
        } else {
            // dimensions <= n may have gaps after them; the next one starts after this one's stride even when
            // its extent is 1 (as upstream since its fix of this function)
            next_nb = static_cast<size_t>(t->ne[i]) * t->nb[i];
        }
    }
    return true;
}

} // namespace

extern "C" {

bool ggml_is_contiguous(const struct ggml_tensor * t) { return is_contiguous_n(t, 0); }
bool ggml_is_contiguous_0(const struct ggml_tensor * t) { return is_contiguous_n(t, 0); }
bool ggml_is_contiguous_1(const struct ggml_tensor * t) { return is_contiguous_n(t, 1); }
bool ggml_is_contiguous_2(const struct ggml_tensor * t) { return is_contiguous_n(t, 2); }

bool ggml_is_contiguously_allocated(const struct ggml_tensor * t) {
    return ggml_nbytes(t) == static_cast<size_t>(ggml_nelements(t)) * ggml_type_size(t->type) /
                                 static_cast<size_t>(ggml_blck_size(t->type));
}

bool ggml_is_contiguous_channels(const struct ggml_tensor * t) {
    return t->nb[0] > t->nb[2] && t->nb[1] > t->nb[0] && t->nb[2] == ggml_type_size(t->type);
}

bool ggml_is_contiguous_rows(const struct ggml_tensor * t) {
    return t->ne[0] == ggml_blck_size(t->type) || t->nb[0] == ggml_type_size(t->type);
}

bool ggml_are_same_shape(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    return t0->ne[0] == t1->ne[0] && t0->ne[1] == t1->ne[1] && t0->ne[2] == t1->ne[2] && t0->ne[3] == t1->ne[3];
}

bool ggml_are_same_stride(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    return t0->nb[0] == t1->nb[0] && t0->nb[1] == t1->nb[1] && t0->nb[2] == t1->nb[2] && t0->nb[3] == t1->nb[3];
}

bool ggml_can_repeat(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    if (ggml_is_empty(t0)) {
        return ggml_is_empty(t1);
    }
    // (equal and unit extents, the common cases, skip the divisions)
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (t1->ne[i] != t0->ne[i] && t0->ne[i] != 1 && t1->ne[i] % t0->ne[i] != 0) {
            return false;
        }
    }
    return true;
}

} // extern "C"
