// The op_params of the custom ops (MAP_CUSTOM1, MAP_CUSTOM2, MAP_CUSTOM3, CUSTOM), shared by their constructors
// (core/ops/custom.cpp) and the CPU kernel that calls the function (cpu/kernels/custom.cpp).
//
// Layout: upstream's ggml_map_custom{1,2,3}_op_params and ggml_custom_op_params, the same three fields for all
// four ops, stored from op_params[0] on: {fun, n_tasks, userdata}. Backends built against upstream read the
// struct back with memcpy, so the field order and the natural alignment (pointer, int, pointer) are fixed.
#pragma once

#include "ggml.h"

#include <cstring>

namespace switchyard::ops {

template <class Fn>
struct CustomOpParams {
    Fn     fun;
    int    n_tasks; // > 0, or GGML_N_TASKS_MAX
    void * userdata;
};

static_assert(sizeof(CustomOpParams<ggml_custom_op_t>) <= GGML_MAX_OP_PARAMS, "custom op params fit op_params");

// true for MAP_CUSTOM1/2/3 and CUSTOM, the ops that call a function of the application.
constexpr bool is_custom_op(ggml_op op) {
    return op == GGML_OP_MAP_CUSTOM1 || op == GGML_OP_MAP_CUSTOM2 || op == GGML_OP_MAP_CUSTOM3 ||
           op == GGML_OP_CUSTOM;
}

// The parameters stored in t's op_params (t->op: is_custom_op; Fn: the function type of that op).
template <class Fn>
CustomOpParams<Fn> custom_op_params(const ggml_tensor * t) {
    CustomOpParams<Fn> p;
    std::memcpy(&p, t->op_params, sizeof(p));
    return p;
}

// The n_tasks field alone (the same offset for every custom op).
inline int custom_op_n_tasks(const ggml_tensor * t) {
    return custom_op_params<ggml_custom_op_t>(t).n_tasks;
}

// The threads a custom op runs on out of n_threads: all of them for GGML_N_TASKS_MAX, else min(n_tasks,
// n_threads).
inline int custom_op_threads(int n_tasks, int n_threads) {
    return n_tasks == GGML_N_TASKS_MAX || n_tasks > n_threads ? n_threads : n_tasks;
}

} // namespace switchyard::ops
