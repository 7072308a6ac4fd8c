// ADD_ID (shaders/add_id.comp): per-expert biases added by i32 ids, float types in any combination.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct AddIdParams {
    uint32_t ne[4], nb_a[4], nb_d[4], nb_i[4];
    uint32_t nb_b1, off_a, off_b, off_i, off_d, n;
};
static_assert(sizeof(AddIdParams) <= 128);

} // namespace

bool supports_add_id(const Device &, const ggml_tensor * node) {
    const ggml_tensor * a   = node->src[0];
    const ggml_tensor * b   = node->src[1];
    const ggml_tensor * ids = node->src[2];
    return is_float_type(a->type) && is_float_type(b->type) && is_float_type(node->type) &&
           ids->type == GGML_TYPE_I32 && ggml_are_same_shape(a, node) && b->ne[0] == a->ne[0] && a->ne[3] == 1 &&
           ids->ne[0] >= a->ne[1] && ids->ne[1] >= a->ne[2] && fits_u32(a) && fits_u32(b) && fits_u32(ids) &&
           fits_u32(node);
}

// a's rows are independent, the ids follow them; the bias rows the ids pick are read whole
bool map_add_id(const ggml_tensor *, SplitMap & map) {
    map.splits[1] = map.splits[2] = true;
    map.src[0][1] = {Follow::Same, 1};
    map.src[0][2] = {Follow::Same, 2};
    map.src[2][0] = {Follow::Same, 1};
    map.src[2][1] = {Follow::Same, 2};
    return true;
}

bool record_add_id(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * a   = node->src[0];
    const ggml_tensor * b   = node->src[1];
    const ggml_tensor * ids = node->src[2];
    const Operand       oa = rec.in(a), ob = rec.in(b), oi = rec.in(ids), od = rec.out(node);
    const Shape         sa = shape_of(a), sb = shape_of(b), si = shape_of(ids), sd = shape_of(node);
    AddIdParams         p{};
    std::memcpy(p.ne, sa.ne, sizeof p.ne);
    std::memcpy(p.nb_a, sa.nb, sizeof p.nb_a);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    p.nb_i[0] = si.nb[0];
    p.nb_i[1] = si.nb[1];
    p.nb_i[2] = sb.ne[1];
    p.nb_i[3] = sb.nb[0];
    p.nb_b1   = sb.nb[1];
    p.off_a   = elements(oa.residual, ggml_type_size(a->type));
    p.off_b   = elements(ob.residual, ggml_type_size(b->type));
    p.off_i   = oi.residual / 4;
    p.off_d   = elements(od.residual, ggml_type_size(node->type));
    p.n       = static_cast<uint32_t>(ggml_nelements(node));
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    return rec.dispatch("add_id", {kWorkgroup, float_type_code(a->type), float_type_code(b->type),
                                   float_type_code(node->type)},
                        {oa, ob, oi, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
