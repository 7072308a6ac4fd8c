// Views: results that alias their source's memory and compute nothing (RESHAPE, VIEW, PERMUTE, TRANSPOSE).
// Each result has view_src = a (or a's own source when a is a view), src[0] = a and a derived name
// ("<a> (reshaped)", "<a> (view)", "<a> (permuted)", "<a> (transposed)").
//
// RESHAPE:   a contiguous, same element count; contiguous strides for the new shape. No op parameters.
// VIEW:      extents and byte strides given by the caller; op_params = the byte offset (size_t, slots 0-1).
//            The viewed bytes must lie inside the root's memory: both the packed size (upstream's rule) and the
//            strided extent (the bytes the strides reach, as ggml_nbytes counts them) from the offset on.
// PERMUTE:   op_params = axis0..axis3 (i32); source dimension i becomes dimension axis_i.
// TRANSPOSE: PERMUTE(1, 0, 2, 3) without op parameters.
// Sizes are computed overflow-checked (packed_size): a size or derived stride that overflows is a user error, as
// in ggml_new_tensor (logged, NULL). A strided extent that overflows, or an offset that overflows when added to
// the viewed tensor's own offset, reaches past the viewed memory: a shape error.
#include "core/ops/op_common.h"

#include "base/log.h"
#include "quant/types.h"

#include <cstdio>
#include <optional>

namespace switchyard::ops {

namespace {

// The caller's n_dims extents as 4-d extents (the others 1).
void extents_4d(int n_dims, const int64_t * ne_in, int64_t * ne) {
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        ne[i] = i < n_dims ? ne_in[i] : 1;
    }
}

ggml_tensor * reshape_impl(ggml_context * ctx, ggml_tensor * a, int n_dims, const int64_t * ne_in, const char * name) {
    int64_t ne[GGML_MAX_DIMS];
    extents_4d(n_dims, ne_in, ne);
    const std::optional<PackedSize> size = checked_size(a->type, ne, name);
    if (!size) {
        return nullptr;
    }
    shape_check(ggml_is_contiguous(a), name, "a %s must be contiguous", shape(a));
    shape_check(ggml_nelements(a) == size->nelements, name, "a %s has %lld elements, the new shape %lld",
                shape(a), static_cast<long long>(ggml_nelements(a)), static_cast<long long>(size->nelements));
    ggml_tensor * t = new_tensor_impl(ctx, a->type, n_dims, ne, a, 0, name);
    if (t) {
        ggml_format_name(t, "%s (reshaped)", a->name);
    }
    return set_op(t, GGML_OP_RESHAPE, {a});
}

// The strides of a view: nb[0] the element (block) size, nb[1..n_dims) from the caller, and each further one
// spanning the dimension below it (nb[i] = nb[i-1] * ne[i-1]), as upstream sets them. false (logged) when such a
// product overflows, a size overflow as in checked_size.
bool view_strides(const TypeInfo & info, int n_dims, const int64_t * ne, const size_t * nb_in, size_t * nb,
                  const char * name) {
    nb[0] = info.type_size;
    for (int i = 1; i < GGML_MAX_DIMS; ++i) {
        if (i < n_dims) {
            nb[i] = nb_in[i];
            continue;
        }
        const size_t below = i == 1 ? info.type_size : nb[i - 1];
        const size_t count = static_cast<size_t>(i == 1 ? ne[0] / info.blck_size : ne[i - 1]);
        if (__builtin_mul_overflow(below, count, &nb[i])) {
            log_error("[%s] the stride nb[%d] = %zu * %zu overflows\n", name, i, below, count);
            return false;
        }
    }
    return true;
}

// The viewed bytes, packed and strided, must lie inside the root's memory. Stricter than upstream, which checks
// only the packed size: a strided view reaching past its source would read and write outside it. An empty view
// touches no byte and may sit anywhere, as upstream's (llama.cpp views an empty state tensor at an offset).
void check_view_range(const ggml_tensor * a, const ggml_tensor * root, size_t root_offs, const int64_t * ne,
                      const size_t * nb, size_t packed, const char * name) {
    if (packed == 0) {
        return;
    }
    const size_t root_bytes = ggml_nbytes(root);
    shape_check(root_offs <= root_bytes && packed <= root_bytes - root_offs, name,
                "%zu bytes at offset %zu exceed the %zu bytes of the viewed memory (a %s)", packed, root_offs,
                root_bytes, shape(a));
    check_strided_range(a->type, ne, nb, root_offs, root_bytes, "the viewed memory", a, name);
}

// A view of a with n_dims extents ne_in, the byte strides nb_in[1..n_dims) and `offset` bytes from a's data.
ggml_tensor * view_impl(ggml_context * ctx, ggml_tensor * a, int n_dims, const int64_t * ne_in, const size_t * nb_in,
                        size_t offset, const char * name) {
    int64_t ne[GGML_MAX_DIMS];
    extents_4d(n_dims, ne_in, ne);
    const std::optional<PackedSize> size = checked_size(a->type, ne, name);
    size_t                          nb[GGML_MAX_DIMS];
    if (!size || !view_strides(type_info(a->type), n_dims, ne, nb_in, nb, name)) {
        return nullptr;
    }

    const ggml_tensor * root      = a->view_src ? a->view_src : a;
    size_t              root_offs = offset;
    shape_check(!a->view_src || !__builtin_add_overflow(offset, a->view_offs, &root_offs), name,
                "offset %zu plus the offset %zu of the viewed tensor overflows", offset, a->view_offs);
    check_view_range(a, root, root_offs, ne, nb, size->nbytes, name);

    ggml_tensor * t = new_tensor_impl(ctx, a->type, n_dims, ne, a, offset, name);
    if (!t) {
        return nullptr;
    }
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        t->nb[i] = nb[i];
    }
    ggml_format_name(t, "%s (view)", a->name);
    set_op_params(t, &offset, sizeof(offset));
    return set_op(t, GGML_OP_VIEW, {a});
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_reshape(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    // only b's shape matters, so b may have any layout
    if (!inputs_ok("ggml_reshape", {a, b})) {
        return nullptr;
    }
    return reshape_impl(ctx, a, GGML_MAX_DIMS, b->ne, "ggml_reshape");
}

struct ggml_tensor * ggml_reshape_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0) {
    if (!inputs_ok("ggml_reshape_1d", {a})) {
        return nullptr;
    }
    return reshape_impl(ctx, a, 1, &ne0, "ggml_reshape_1d");
}

struct ggml_tensor * ggml_reshape_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    if (!inputs_ok("ggml_reshape_2d", {a})) {
        return nullptr;
    }
    const int64_t ne[2] = {ne0, ne1};
    return reshape_impl(ctx, a, 2, ne, "ggml_reshape_2d");
}

struct ggml_tensor * ggml_reshape_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                     int64_t ne2) {
    if (!inputs_ok("ggml_reshape_3d", {a})) {
        return nullptr;
    }
    const int64_t ne[3] = {ne0, ne1, ne2};
    return reshape_impl(ctx, a, 3, ne, "ggml_reshape_3d");
}

struct ggml_tensor * ggml_reshape_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                     int64_t ne2, int64_t ne3) {
    if (!inputs_ok("ggml_reshape_4d", {a})) {
        return nullptr;
    }
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    return reshape_impl(ctx, a, 4, ne, "ggml_reshape_4d");
}

struct ggml_tensor * ggml_view_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, size_t offset) {
    if (!inputs_ok("ggml_view_1d", {a})) {
        return nullptr;
    }
    return view_impl(ctx, a, 1, &ne0, nullptr, offset, "ggml_view_1d");
}

struct ggml_tensor * ggml_view_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  size_t nb1, size_t offset) {
    if (!inputs_ok("ggml_view_2d", {a})) {
        return nullptr;
    }
    const int64_t ne[2] = {ne0, ne1};
    const size_t  nb[2] = {0, nb1};
    return view_impl(ctx, a, 2, ne, nb, offset, "ggml_view_2d");
}

struct ggml_tensor * ggml_view_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  int64_t ne2, size_t nb1, size_t nb2, size_t offset) {
    if (!inputs_ok("ggml_view_3d", {a})) {
        return nullptr;
    }
    const int64_t ne[3] = {ne0, ne1, ne2};
    const size_t  nb[3] = {0, nb1, nb2};
    return view_impl(ctx, a, 3, ne, nb, offset, "ggml_view_3d");
}

struct ggml_tensor * ggml_view_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  int64_t ne2, int64_t ne3, size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    if (!inputs_ok("ggml_view_4d", {a})) {
        return nullptr;
    }
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    const size_t  nb[4] = {0, nb1, nb2, nb3};
    return view_impl(ctx, a, 4, ne, nb, offset, "ggml_view_4d");
}

struct ggml_tensor * ggml_permute(struct ggml_context * ctx, struct ggml_tensor * a, int axis0, int axis1, int axis2,
                                  int axis3) {
    const char * name = "ggml_permute";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    const int axes[GGML_MAX_DIMS] = {axis0, axis1, axis2, axis3};
    bool      seen[GGML_MAX_DIMS] = {false, false, false, false};
    for (int axis : axes) {
        shape_check(axis >= 0 && axis < GGML_MAX_DIMS && !seen[axis], name,
                    "axes (%d, %d, %d, %d) are not a permutation of (0, 1, 2, 3)", axis0, axis1, axis2, axis3);
        seen[axis] = true;
    }
    ggml_tensor * t = view_of(ctx, a, name);
    if (!t) {
        return nullptr;
    }
    ggml_format_name(t, "%s (permuted)", a->name);
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        t->ne[axes[i]] = a->ne[i];
        t->nb[axes[i]] = a->nb[i];
    }
    return with_i32(set_op(t, GGML_OP_PERMUTE, {a}), {axis0, axis1, axis2, axis3});
}

struct ggml_tensor * ggml_transpose(struct ggml_context * ctx, struct ggml_tensor * a) {
    const char * name = "ggml_transpose";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    ggml_tensor * t = view_of(ctx, a, name);
    if (!t) {
        return nullptr;
    }
    ggml_format_name(t, "%s (transposed)", a->name);
    t->ne[0] = a->ne[1];
    t->ne[1] = a->ne[0];
    t->nb[0] = a->nb[1];
    t->nb[1] = a->nb[0];
    return set_op(t, GGML_OP_TRANSPOSE, {a});
}

} // extern "C"
