// Reference custom ops (MAP_CUSTOM1/2/3, CUSTOM): the application's function run once, as the only task
// (ith = 0, nth = 1). A backend that splits the work between threads must produce the same result, so this
// checks its thread split and the (ith, nth) it passes, not the function itself.
#include "conformance/reference/util.h"

#include <cstring>

namespace switchyard::testing::reference {

namespace {

// upstream's layout of the custom ops' op_params (ggml_map_custom*_op_params, ggml_custom_op_params)
template <class Fn>
struct Params {
    Fn     fun;
    int    n_tasks;
    void * userdata;
};

template <class Fn>
Params<Fn> params_of(const ggml_tensor * node) {
    Params<Fn> p;
    std::memcpy(&p, node->op_params, sizeof(p));
    return p;
}

} // namespace

bool custom(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_MAP_CUSTOM1: {
            const auto p = params_of<ggml_custom1_op_t>(node);
            p.fun(node, node->src[0], 0, 1, p.userdata);
            return true;
        }
        case GGML_OP_MAP_CUSTOM2: {
            const auto p = params_of<ggml_custom2_op_t>(node);
            p.fun(node, node->src[0], node->src[1], 0, 1, p.userdata);
            return true;
        }
        case GGML_OP_MAP_CUSTOM3: {
            const auto p = params_of<ggml_custom3_op_t>(node);
            p.fun(node, node->src[0], node->src[1], node->src[2], 0, 1, p.userdata);
            return true;
        }
        case GGML_OP_CUSTOM: {
            const auto p = params_of<ggml_custom_op_t>(node);
            p.fun(node, 0, 1, p.userdata);
            return true;
        }
        default: return false;
    }
}

} // namespace switchyard::testing::reference
