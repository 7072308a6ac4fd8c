// Custom ops: the application supplies the function that computes the result (run by the CPU backend; other
// devices refuse these ops). op_params hold {fun, n_tasks, userdata} (core/ops/custom.h).
//
// MAP_CUSTOM1/2/3: the result has a's shape and type (`_inplace`: a view of a); src = {a[, b[, c]]}; the function
//                  receives dst, the sources, (ith, nth) and userdata.
// CUSTOM:          ggml_custom_4d makes a fresh tensor of any type and shape with src = args[0..n_args),
//                  n_args < GGML_MAX_SRC; ggml_custom_inplace a view of a with src = {a, args...}, n_args <
//                  GGML_MAX_SRC - 1. The function receives dst, (ith, nth) and userdata and finds its inputs in
//                  dst->src.
// n_tasks must be positive or GGML_N_TASKS_MAX (as many threads as the backend has); fun must not be NULL.
#include "core/ops/custom.h"

#include "core/ops/op_common.h"

#include <cstring>
#include <initializer_list>

namespace switchyard::ops {

namespace {

template <class Fn>
void check_custom_params(Fn fun, int n_tasks, const char * name) {
    shape_check(fun != nullptr, name, "fun must not be NULL");
    shape_check(n_tasks == GGML_N_TASKS_MAX || n_tasks > 0, name, "n_tasks %d must be positive or GGML_N_TASKS_MAX",
                n_tasks);
}

template <class Fn>
ggml_tensor * with_custom_params(ggml_tensor * t, Fn fun, int n_tasks, void * userdata) {
    if (t != nullptr) {
        const CustomOpParams<Fn> params{fun, n_tasks, userdata};
        std::memcpy(t->op_params, &params, sizeof(params));
    }
    return t;
}

template <class Fn>
ggml_tensor * map_custom_impl(ggml_context * ctx, ggml_op op, std::initializer_list<ggml_tensor *> srcs, Fn fun,
                              int n_tasks, void * userdata, bool inplace, const char * name) {
    for (const ggml_tensor * src : srcs) {
        if (!inputs_ok(name, {src})) {
            return nullptr;
        }
    }
    check_custom_params(fun, n_tasks, name);
    ggml_tensor * a = *srcs.begin();
    return with_custom_params(set_op(like(ctx, a, inplace, name), op, srcs), fun, n_tasks, userdata);
}

// args[0..n_args): at most max_args of them, none NULL (a NULL one is logged: an earlier constructor failed).
bool custom_args_ok(ggml_tensor ** args, int n_args, int max_args, const char * name) {
    shape_check(n_args >= 0 && n_args <= max_args, name, "n_args %d must be in [0, %d]", n_args, max_args);
    shape_check(n_args == 0 || args != nullptr, name, "args must not be NULL when n_args is %d", n_args);
    for (int i = 0; i < n_args; ++i) {
        if (!inputs_ok(name, {args[i]})) {
            return false;
        }
    }
    return true;
}

ggml_tensor * with_args(ggml_tensor * t, int first, ggml_tensor ** args, int n_args) {
    if (t != nullptr) {
        for (int i = 0; i < n_args; ++i) {
            t->src[first + i] = args[i];
        }
    }
    return t;
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_map_custom1(struct ggml_context * ctx, struct ggml_tensor * a, ggml_custom1_op_t fun,
                                      int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM1, {a}, fun, n_tasks, userdata, false, "ggml_map_custom1");
}

struct ggml_tensor * ggml_map_custom1_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
                                              ggml_custom1_op_t fun, int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM1, {a}, fun, n_tasks, userdata, true, "ggml_map_custom1_inplace");
}

struct ggml_tensor * ggml_map_custom2(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      ggml_custom2_op_t fun, int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM2, {a, b}, fun, n_tasks, userdata, false, "ggml_map_custom2");
}

struct ggml_tensor * ggml_map_custom2_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
                                              struct ggml_tensor * b, ggml_custom2_op_t fun, int n_tasks,
                                              void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM2, {a, b}, fun, n_tasks, userdata, true, "ggml_map_custom2_inplace");
}

struct ggml_tensor * ggml_map_custom3(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      struct ggml_tensor * c, ggml_custom3_op_t fun, int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM3, {a, b, c}, fun, n_tasks, userdata, false, "ggml_map_custom3");
}

struct ggml_tensor * ggml_map_custom3_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
                                              struct ggml_tensor * b, struct ggml_tensor * c, ggml_custom3_op_t fun,
                                              int n_tasks, void * userdata) {
    return map_custom_impl(ctx, GGML_OP_MAP_CUSTOM3, {a, b, c}, fun, n_tasks, userdata, true,
                           "ggml_map_custom3_inplace");
}

struct ggml_tensor * ggml_custom_4d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1,
                                    int64_t ne2, int64_t ne3, struct ggml_tensor ** args, int n_args,
                                    ggml_custom_op_t fun, int n_tasks, void * userdata) {
    const char * name = "ggml_custom_4d";
    if (!custom_args_ok(args, n_args, GGML_MAX_SRC - 1, name)) {
        return nullptr;
    }
    check_custom_params(fun, n_tasks, name);
    ggml_tensor * t = set_op(new_result(ctx, type, {ne0, ne1, ne2, ne3}, name), GGML_OP_CUSTOM, {});
    return with_custom_params(with_args(t, 0, args, n_args), fun, n_tasks, userdata);
}

struct ggml_tensor * ggml_custom_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor ** args,
                                         int n_args, ggml_custom_op_t fun, int n_tasks, void * userdata) {
    const char * name = "ggml_custom_inplace";
    if (!inputs_ok(name, {a}) || !custom_args_ok(args, n_args, GGML_MAX_SRC - 2, name)) {
        return nullptr;
    }
    check_custom_params(fun, n_tasks, name);
    ggml_tensor * t = set_op(like(ctx, a, true, name), GGML_OP_CUSTOM, {a});
    return with_custom_params(with_args(t, 1, args, n_args), fun, n_tasks, userdata);
}

} // extern "C"
