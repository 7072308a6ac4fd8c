// Copies: CONT (contiguous copy, optionally reshaped), CPY (copy into an existing tensor, converting the type),
// ggml_cast (CPY into a fresh tensor), SET (b written into a strided view of a) and ACC (b added into one).
//
// CPY:  a and b have the same element count; the result is a view of b named "<b> (copy of <a>)" (or
//       "<a> (copy)" when b has no name); src = {a, b}. ggml_cast: src = {a, result} (backends expect src[1]).
// SET / ACC: op_params (i32) = {nb1, nb2, nb3, offset, inplace}: the byte strides and offset of the view of a
//       that receives b, which must lie inside a. The plain form returns a copy of a with the view updated,
//       `_inplace` a view of a.
#include "core/ops/op_common.h"

#include <cstdint>
#include <cstring>
#include <optional>

namespace switchyard::ops {

namespace {

ggml_tensor * cont_to(ggml_context * ctx, ggml_tensor * a, const Ne & ne, const char * name) {
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    const std::optional<PackedSize> size = checked_size(a->type, ne.data(), name);
    if (!size) {
        return nullptr;
    }
    shape_check(ggml_nelements(a) == size->nelements, name, "a %s has %lld elements, the new shape %lld",
                shape(a), static_cast<long long>(ggml_nelements(a)), static_cast<long long>(size->nelements));
    ggml_tensor * t = new_result(ctx, a->type, ne, name);
    if (t) {
        ggml_format_name(t, "%s (cont)", a->name);
    }
    return set_op(t, GGML_OP_CONT, {a});
}

// The strided-view parameters of SET and ACC are stored as int32 (upstream's layout): reject values that do not
// fit instead of truncating them.
void check_view_params(size_t nb1, size_t nb2, size_t nb3, size_t offset, const char * name) {
    const size_t max = static_cast<size_t>(INT32_MAX);
    shape_check(nb1 <= max && nb2 <= max && nb3 <= max && offset <= max, name,
                "strides (%zu, %zu, %zu) and offset %zu must fit in int32", nb1, nb2, nb3, offset);
}

// The view of a that receives b (b's extents, a's element size, strides nb1..nb3, `offset` bytes in) lies inside
// a. The CPU kernels check it again before they run.
void check_view_of_a(const ggml_tensor * a, const ggml_tensor * b, size_t nb1, size_t nb2, size_t nb3, size_t offset,
                     const char * name) {
    const size_t nb[GGML_MAX_DIMS] = {a->nb[0], nb1, nb2, nb3};
    check_strided_range(a->type, b->ne, nb, offset, ggml_nbytes(a), "a", nullptr, name);
}

ggml_tensor * with_view_params(ggml_tensor * t, size_t nb1, size_t nb2, size_t nb3, size_t offset, bool inplace) {
    return with_i32(t, {static_cast<int32_t>(nb1), static_cast<int32_t>(nb2), static_cast<int32_t>(nb3),
                        static_cast<int32_t>(offset), inplace ? 1 : 0});
}

ggml_tensor * set_impl(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b, size_t nb1, size_t nb2, size_t nb3,
                       size_t offset, bool inplace, const char * name) {
    shape_check(ggml_nelements(a) >= ggml_nelements(b), name, "b %s has more elements than a %s", shape(b),
                shape(a));
    shape_check(offset < (size_t{1} << 30), name, "offset %zu must be below 2^30", offset);
    check_view_params(nb1, nb2, nb3, offset, name);
    check_view_of_a(a, b, nb1, nb2, nb3, offset, name);
    ggml_tensor * t = set_op(like(ctx, a, inplace, name), GGML_OP_SET, {a, b});
    return with_view_params(t, nb1, nb2, nb3, offset, inplace);
}

ggml_tensor * acc_impl(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b, size_t nb1, size_t nb2, size_t nb3,
                       size_t offset, bool inplace, const char * name) {
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(ggml_nelements(b) <= ggml_nelements(a), name, "b %s has more elements than a %s", shape(b),
                shape(a));
    shape_check(ggml_is_contiguous(a), name, "a %s must be contiguous", shape(a));
    shape_check(a->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32, name, "a %s and b %s must be f32",
                shape(a), shape(b));
    check_view_params(nb1, nb2, nb3, offset, name);
    check_view_of_a(a, b, nb1, nb2, nb3, offset, name);
    ggml_tensor * t = set_op(like(ctx, a, inplace, name), GGML_OP_ACC, {a, b});
    return with_view_params(t, nb1, nb2, nb3, offset, inplace);
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_cont(struct ggml_context * ctx, struct ggml_tensor * a) {
    if (!inputs_ok("ggml_cont", {a})) {
        return nullptr;
    }
    return cont_to(ctx, a, ne_of(a), "ggml_cont");
}

struct ggml_tensor * ggml_cont_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0) {
    return cont_to(ctx, a, {ne0, 1, 1, 1}, "ggml_cont_1d");
}

struct ggml_tensor * ggml_cont_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    return cont_to(ctx, a, {ne0, ne1, 1, 1}, "ggml_cont_2d");
}

struct ggml_tensor * ggml_cont_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  int64_t ne2) {
    return cont_to(ctx, a, {ne0, ne1, ne2, 1}, "ggml_cont_3d");
}

struct ggml_tensor * ggml_cont_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  int64_t ne2, int64_t ne3) {
    return cont_to(ctx, a, {ne0, ne1, ne2, ne3}, "ggml_cont_4d");
}

struct ggml_tensor * ggml_cpy(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    const char * name = "ggml_cpy";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(ggml_nelements(a) == ggml_nelements(b), name, "a %s and b %s differ in element count",
                shape(a), shape(b));
    ggml_tensor * t = view_of(ctx, b, name);
    if (!t) {
        return nullptr;
    }
    if (std::strlen(b->name) > 0) {
        ggml_format_name(t, "%s (copy of %s)", b->name, a->name);
    } else {
        ggml_format_name(t, "%s (copy)", a->name);
    }
    return set_op(t, GGML_OP_CPY, {a, b});
}

struct ggml_tensor * ggml_cast(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_type type) {
    const char * name = "ggml_cast";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    ggml_tensor * t = new_result(ctx, type, ne_of(a), name);
    if (!t) {
        return nullptr;
    }
    ggml_format_name(t, "%s (copy)", a->name);
    return set_op(t, GGML_OP_CPY, {a, t});
}

struct ggml_tensor * ggml_set(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t nb1,
                              size_t nb2, size_t nb3, size_t offset) {
    if (!inputs_ok("ggml_set", {a, b})) {
        return nullptr;
    }
    return set_impl(ctx, a, b, nb1, nb2, nb3, offset, false, "ggml_set");
}

struct ggml_tensor * ggml_set_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    if (!inputs_ok("ggml_set_inplace", {a, b})) {
        return nullptr;
    }
    return set_impl(ctx, a, b, nb1, nb2, nb3, offset, true, "ggml_set_inplace");
}

struct ggml_tensor * ggml_set_1d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                 size_t offset) {
    if (!inputs_ok("ggml_set_1d", {a, b})) {
        return nullptr;
    }
    return set_impl(ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset, false, "ggml_set_1d");
}

struct ggml_tensor * ggml_set_1d_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                         size_t offset) {
    if (!inputs_ok("ggml_set_1d_inplace", {a, b})) {
        return nullptr;
    }
    return set_impl(ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset, true, "ggml_set_1d_inplace");
}

struct ggml_tensor * ggml_set_2d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t nb1,
                                 size_t offset) {
    if (!inputs_ok("ggml_set_2d", {a, b})) {
        return nullptr;
    }
    return set_impl(ctx, a, b, nb1, a->nb[2], a->nb[3], offset, false, "ggml_set_2d");
}

struct ggml_tensor * ggml_set_2d_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                         size_t nb1, size_t offset) {
    if (!inputs_ok("ggml_set_2d_inplace", {a, b})) {
        return nullptr;
    }
    return set_impl(ctx, a, b, nb1, a->nb[2], a->nb[3], offset, true, "ggml_set_2d_inplace");
}

struct ggml_tensor * ggml_acc(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t nb1,
                              size_t nb2, size_t nb3, size_t offset) {
    return acc_impl(ctx, a, b, nb1, nb2, nb3, offset, false, "ggml_acc");
}

struct ggml_tensor * ggml_acc_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    return acc_impl(ctx, a, b, nb1, nb2, nb3, offset, true, "ggml_acc_inplace");
}

} // extern "C"
