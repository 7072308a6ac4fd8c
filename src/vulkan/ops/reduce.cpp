// Reductions (shaders/reduce.comp): SUM_ROWS and MEAN (float types, one result per row in a float type), SUM
// (every element into a one-element float tensor, any strides) and ARGMAX (of the rows of a float matrix, i32
// indices).
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct ReduceParams {
    uint32_t ne[4], nb_s[4], nb_d[4];
    uint32_t off_s, off_d, n_rows;
};
static_assert(sizeof(ReduceParams) <= 128);

constexpr uint32_t kReduceWorkgroup = 128;

} // namespace

bool supports_reduce(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    if (!is_float_type(src->type) || !fits_u32(src) || !fits_u32(node)) {
        return false;
    }
    if (node->op == GGML_OP_SUM_ROWS || node->op == GGML_OP_MEAN) {
        return is_float_type(node->type) && node->ne[0] == 1 && node->ne[1] == src->ne[1] &&
               node->ne[2] == src->ne[2] && node->ne[3] == src->ne[3];
    }
    if (node->op == GGML_OP_SUM) {
        return is_float_type(node->type) && ggml_nelements(node) == 1;
    }
    return node->type == GGML_TYPE_I32 && src->ne[2] == 1 && src->ne[3] == 1 && node->ne[0] == src->ne[1] &&
           node->ne[1] == 1 && node->ne[2] == 1 && node->ne[3] == 1;
}

// rows are independent: SUM_ROWS and MEAN keep them where they are, ARGMAX makes row i1 element i1 of its result;
// SUM is recorded in one piece
bool map_reduce(const ggml_tensor * node, SplitMap & map) {
    if (node->op == GGML_OP_SUM) {
        return false;
    }
    if (node->op == GGML_OP_ARGMAX) {
        map.splits[0] = true;
        map.src[0][1] = {Follow::Same, 0};
        return true;
    }
    follow_rows(node, Follow::Same, map);
    return true;
}

bool record_reduce(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * src    = node->src[0];
    const bool          argmax = node->op == GGML_OP_ARGMAX;
    const Operand       os = rec.in(src), od = rec.out(node);
    const Shape         ss = shape_of(src), sd = shape_of(node);
    ReduceParams        p{};
    std::memcpy(p.ne, ss.ne, sizeof p.ne);
    std::memcpy(p.nb_s, ss.nb, sizeof p.nb_s);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    if (argmax) { // row i1 goes to element i1 of the result
        p.nb_d[1] = sd.nb[0];
        p.nb_d[2] = p.nb_d[3] = 0;
    }
    p.off_s  = elements(os.residual, ggml_type_size(src->type));
    p.off_d  = elements(od.residual, ggml_type_size(node->type));
    p.n_rows = node->op == GGML_OP_SUM ? 1u : static_cast<uint32_t>(ggml_nrows(src));
    uint32_t gx, gy;
    rec.groups_for(p.n_rows, 1, gx, gy);
    const uint32_t td = argmax ? 0u : float_type_code(node->type);
    const uint32_t op = node->op == GGML_OP_SUM_ROWS ? 0u : argmax ? 1u : node->op == GGML_OP_MEAN ? 2u : 3u;
    return rec.dispatch("reduce", {kReduceWorkgroup, op, float_type_code(src->type), td}, {os, od}, &p, sizeof p, gx,
                        gy);
}

} // namespace switchyard::vulkan::ops
