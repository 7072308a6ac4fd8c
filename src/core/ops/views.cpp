// Views: results that alias their source's memory and compute nothing (RESHAPE, VIEW, PERMUTE, TRANSPOSE).
// Each result has view_src = a (or a's own source when a is a view), src[0] = a and a derived name
// ("<a> (reshaped)", "<a> (view)", "<a> (permuted)", "<a> (transposed)").
//
// RESHAPE:   a contiguous, same element count; contiguous strides for the new shape. No op parameters.
// VIEW:      extents and byte strides given by the caller; op_params = the byte offset (size_t, slots 0-1).
//            The viewed bytes must lie inside the source's memory.
// PERMUTE:   op_params = axis0..axis3 (i32); source dimension i becomes dimension axis_i.
// TRANSPOSE: PERMUTE(1, 0, 2, 3) without op parameters.
#include "core/ops/op_common.h"

#include "core/type_traits.h"

namespace switchyard::ops {

namespace {

ggml_tensor * reshape_impl(ggml_context * ctx, ggml_tensor * a, int n_dims, const int64_t * ne, const char * name) {
    int64_t n = 1;
    for (int i = 0; i < n_dims; ++i) {
        n *= ne[i];
    }
    shape_check(ggml_is_contiguous(a), name, "a %s must be contiguous", shape(a).text);
    shape_check(ggml_nelements(a) == n, name, "a %s has %lld elements, the new shape %lld", shape(a).text,
                static_cast<long long>(ggml_nelements(a)), static_cast<long long>(n));
    ggml_tensor * t = new_tensor_impl(ctx, a->type, n_dims, ne, a, 0, name);
    if (t) {
        ggml_format_name(t, "%s (reshaped)", a->name);
    }
    return set_op(t, GGML_OP_RESHAPE, {a});
}

// Bytes of a contiguous tensor of `type` with these extents (the size new_tensor_impl checks against).
size_t packed_size(ggml_type type, int n_dims, const int64_t * ne) {
    size_t size = ggml_row_size(type, ne[0]);
    for (int i = 1; i < n_dims; ++i) {
        size *= static_cast<size_t>(ne[i]);
    }
    return size;
}

ggml_tensor * view_impl(ggml_context * ctx, ggml_tensor * a, int n_dims, const int64_t * ne, size_t offset,
                        const char * name) {
    const ggml_tensor * root      = a->view_src ? a->view_src : a;
    const size_t        root_offs = offset + (a->view_src ? a->view_offs : 0);
    for (int i = 0; i < n_dims; ++i) {
        shape_check(ne[i] >= 0, name, "negative extent ne[%d] = %lld", i, static_cast<long long>(ne[i]));
    }
    shape_check(ne[0] % type_info(a->type).blck_size == 0, name, "ne[0] = %lld is not a whole number of %s blocks",
                static_cast<long long>(ne[0]), type_info(a->type).name);
    const size_t size = packed_size(a->type, n_dims, ne);
    shape_check(size == 0 || root_offs + size <= ggml_nbytes(root), name,
                "%zu bytes at offset %zu exceed the %zu bytes of the viewed memory (a %s)", size, root_offs,
                ggml_nbytes(root), shape(a).text);
    ggml_tensor * t = new_tensor_impl(ctx, a->type, n_dims, ne, a, offset, name);
    if (!t) {
        return nullptr;
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
    return view_impl(ctx, a, 1, &ne0, offset, "ggml_view_1d");
}

struct ggml_tensor * ggml_view_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  size_t nb1, size_t offset) {
    if (!inputs_ok("ggml_view_2d", {a})) {
        return nullptr;
    }
    const int64_t ne[2] = {ne0, ne1};
    ggml_tensor * t     = view_impl(ctx, a, 2, ne, offset, "ggml_view_2d");
    if (t) {
        t->nb[1] = nb1;
        t->nb[2] = nb1 * static_cast<size_t>(ne1);
        t->nb[3] = t->nb[2];
    }
    return t;
}

struct ggml_tensor * ggml_view_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  int64_t ne2, size_t nb1, size_t nb2, size_t offset) {
    if (!inputs_ok("ggml_view_3d", {a})) {
        return nullptr;
    }
    const int64_t ne[3] = {ne0, ne1, ne2};
    ggml_tensor * t     = view_impl(ctx, a, 3, ne, offset, "ggml_view_3d");
    if (t) {
        t->nb[1] = nb1;
        t->nb[2] = nb2;
        t->nb[3] = nb2 * static_cast<size_t>(ne2);
    }
    return t;
}

struct ggml_tensor * ggml_view_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  int64_t ne2, int64_t ne3, size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    if (!inputs_ok("ggml_view_4d", {a})) {
        return nullptr;
    }
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    ggml_tensor * t     = view_impl(ctx, a, 4, ne, offset, "ggml_view_4d");
    if (t) {
        t->nb[1] = nb1;
        t->nb[2] = nb2;
        t->nb[3] = nb3;
    }
    return t;
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
