// SOFT_MAX with scale, an f32 or f16 mask (broadcast over dims 2 and 3), ALiBi and sinks (shaders/softmax.comp).
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cmath>
#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct SoftmaxParams {
    uint32_t ne[4], nb_a[4], ne_m[4], nb_m[4], nb_d[4];
    uint32_t off_a, off_m, off_sinks, off_d;
    float    scale, m0, m1;
    uint32_t n_log2;
    uint32_t has_mask, has_sinks;
};
static_assert(sizeof(SoftmaxParams) <= 128);

constexpr uint32_t kSoftmaxWorkgroup = 128;

} // namespace

bool supports_softmax(const Device &, const ggml_tensor * node) {
    const ggml_tensor * a     = node->src[0];
    const ggml_tensor * mask  = node->src[1];
    const ggml_tensor * sinks = node->src[2];
    if (a->type != GGML_TYPE_F32 || node->type != GGML_TYPE_F32 || !ggml_are_same_shape(a, node) || !fits_u32(a)) {
        return false;
    }
    if (mask != nullptr && ((mask->type != GGML_TYPE_F32 && mask->type != GGML_TYPE_F16) || mask->ne[0] != a->ne[0] ||
                            mask->ne[1] < a->ne[1] || a->ne[2] % mask->ne[2] != 0 || a->ne[3] % mask->ne[3] != 0 ||
                            !fits_u32(mask))) {
        return false;
    }
    return sinks == nullptr || (sinks->type == GGML_TYPE_F32 && ggml_is_contiguous(sinks) && sinks->ne[0] >= a->ne[2]);
}

// rows are independent, but the ALiBi slope and the sink of a row follow its head (dimension 2): dimensions 1
// and 3 split; the mask's rows are read by index, its dimension 3 repeats
bool map_softmax(const ggml_tensor * node, SplitMap & map) {
    map.splits[1] = map.splits[3] = true;
    map.src[0][1] = {Follow::Same, 1};
    map.src[0][3] = {Follow::Same, 3};
    if (node->src[1] != nullptr) {
        map.src[1][1] = {Follow::Same, 1};
        map.src[1][3] = {Follow::Repeat, 3};
    }
    return true;
}

bool record_softmax(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * a     = node->src[0];
    const ggml_tensor * mask  = node->src[1];
    const ggml_tensor * sinks = node->src[2];
    const Operand       oa = rec.in(a), od = rec.out(node);
    const Operand       om = mask ? rec.in(mask) : oa, os = sinks ? rec.in(sinks) : oa;
    SoftmaxParams       p{};
    const Shape         sa = shape_of(a), sd = shape_of(node);
    std::memcpy(p.ne, sa.ne, sizeof p.ne);
    std::memcpy(p.nb_a, sa.nb, sizeof p.nb_a);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    if (mask != nullptr) {
        const Shape sm = shape_of(mask);
        std::memcpy(p.ne_m, sm.ne, sizeof p.ne_m);
        std::memcpy(p.nb_m, sm.nb, sizeof p.nb_m);
        p.off_m    = elements(om.residual, ggml_type_size(mask->type));
        p.has_mask = 1;
    } else {
        p.ne_m[0] = p.ne_m[1] = p.ne_m[2] = p.ne_m[3] = 1;
    }
    p.off_a     = oa.residual / 4;
    p.off_d     = od.residual / 4;
    p.off_sinks = sinks ? os.residual / 4 : 0;
    p.has_sinks = sinks != nullptr;
    float max_bias;
    std::memcpy(&p.scale, node->op_params, sizeof p.scale);
    std::memcpy(&max_bias, reinterpret_cast<const char *>(node->op_params) + 4, sizeof max_bias);
    if (max_bias > 0.0f) {
        const uint32_t n_head = static_cast<uint32_t>(a->ne[2]);
        uint32_t       n_log2 = 1;
        while (n_log2 * 2 <= n_head) {
            n_log2 *= 2;
        }
        p.n_log2 = n_log2;
        p.m0     = static_cast<float>(std::pow(2.0, -max_bias / static_cast<double>(n_log2)));
        p.m1     = static_cast<float>(std::pow(2.0, -max_bias / 2.0 / static_cast<double>(n_log2)));
    }
    uint32_t gx, gy;
    rec.groups_for(static_cast<uint64_t>(ggml_nrows(a)), 1, gx, gy);
    return rec.dispatch("softmax", {kSoftmaxWorkgroup, mask ? float_type_code(mask->type) : 0u}, {oa, om, os, od}, &p,
                        sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
