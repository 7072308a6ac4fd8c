// Custom ops: MAP_CUSTOM1/2/3 and CUSTOM call the application's function (op_params {fun, n_tasks, userdata},
// core/ops/custom.h) once on each of the node's threads with that thread's (ith, nth).
//
// Threads: n_tasks of the node (GGML_N_TASKS_MAX: every thread of the backend, else min(n_tasks, threads)); the
// executor runs the function on threads 0..nth-1 only, so each (ith, nth) pair is seen exactly once per node.
// Types and layouts: whatever the function handles; the CPU accepts any (it cannot know), and the function sees
// the tensors in host memory. `_inplace` results are views of a, so dst->data == a->data there.
#include "cpu/kernels/families.h"

#include "core/ops/custom.h"

namespace switchyard::cpu::kernels {

namespace {

using ops::custom_op_params;

void map_custom1_compute(const ComputeParams & p, ggml_tensor * dst) {
    const auto prm = custom_op_params<ggml_custom1_op_t>(dst);
    prm.fun(dst, dst->src[0], p.ith, p.nth, prm.userdata);
}

void map_custom2_compute(const ComputeParams & p, ggml_tensor * dst) {
    const auto prm = custom_op_params<ggml_custom2_op_t>(dst);
    prm.fun(dst, dst->src[0], dst->src[1], p.ith, p.nth, prm.userdata);
}

void map_custom3_compute(const ComputeParams & p, ggml_tensor * dst) {
    const auto prm = custom_op_params<ggml_custom3_op_t>(dst);
    prm.fun(dst, dst->src[0], dst->src[1], dst->src[2], p.ith, p.nth, prm.userdata);
}

void custom_compute(const ComputeParams & p, ggml_tensor * dst) {
    const auto prm = custom_op_params<ggml_custom_op_t>(dst);
    prm.fun(dst, p.ith, p.nth, prm.userdata);
}

int custom_tasks(const ggml_tensor * dst, int n_threads) {
    return ops::custom_op_threads(ops::custom_op_n_tasks(dst), n_threads);
}

// The sources the op's function receives as arguments must be there (CUSTOM reads its own from dst->src).
bool custom_supports(const ggml_tensor * dst) {
    const auto prm = custom_op_params<ggml_custom_op_t>(dst);
    if (prm.fun == nullptr || (prm.n_tasks != GGML_N_TASKS_MAX && prm.n_tasks <= 0)) {
        return false;
    }
    const int n_src = dst->op == GGML_OP_MAP_CUSTOM1 ? 1 : dst->op == GGML_OP_MAP_CUSTOM2 ? 2
                    : dst->op == GGML_OP_MAP_CUSTOM3 ? 3 : 0;
    for (int i = 0; i < n_src; ++i) {
        if (dst->src[i] == nullptr) {
            return false;
        }
    }
    return true;
}

} // namespace

KernelInfo custom(ggml_op op) {
    switch (op) {
        case GGML_OP_MAP_CUSTOM1: return KernelInfo{map_custom1_compute, custom_tasks, nullptr, custom_supports};
        case GGML_OP_MAP_CUSTOM2: return KernelInfo{map_custom2_compute, custom_tasks, nullptr, custom_supports};
        case GGML_OP_MAP_CUSTOM3: return KernelInfo{map_custom3_compute, custom_tasks, nullptr, custom_supports};
        case GGML_OP_CUSTOM:      return KernelInfo{custom_compute, custom_tasks, nullptr, custom_supports};
        default:                  return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
