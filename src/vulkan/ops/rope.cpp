// ROPE, normal and neox modes, YaRN and frequency factors, the window offset of ggml_rope_set_offset (op_params
// slot 15), f32 and f16 (shaders/rope.comp).
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct RopeParams {
    uint32_t ne[4], nb_a[4], nb_d[4];
    uint32_t off_a, off_pos, off_ff, off_d;
    uint32_t n_dims, neox, has_ff, n_pairs;
    float    log2_base, freq_scale, ext_factor, mscale;
    float    corr_low, corr_high;
    uint32_t n_offs;
};
static_assert(sizeof(RopeParams) <= 128);

int32_t param_i32(const ggml_tensor * t, int i) { return t->op_params[i]; }

float param_f32(const ggml_tensor * t, int i) {
    float v;
    std::memcpy(&v, &t->op_params[i], sizeof v);
    return v;
}

double corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base) {
    return n_dims * std::log(n_ctx_orig / (n_rot * 2 * M_PI)) / (2 * std::log(base));
}

} // namespace

bool supports_rope(const Device &, const ggml_tensor * node) {
    const ggml_tensor * a      = node->src[0];
    const ggml_tensor * pos    = node->src[1];
    const ggml_tensor * ff     = node->src[2];
    const int           mode   = param_i32(node, 2);
    const int           n_dims = param_i32(node, 1);
    const int           n_offs = param_i32(node, 15);
    return (mode == GGML_ROPE_TYPE_NORMAL || mode == GGML_ROPE_TYPE_NEOX) &&
           (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16) && node->type == a->type &&
           ggml_are_same_shape(a, node) && a->ne[0] % 2 == 0 && n_dims >= 0 && n_dims % 2 == 0 && n_offs >= 0 &&
           n_offs % 2 == 0 && static_cast<int64_t>(n_offs) + n_dims <= a->ne[0] &&
           pos->type == GGML_TYPE_I32 && ggml_is_contiguous(pos) && pos->ne[0] >= a->ne[2] &&
           (ff == nullptr || (ff->type == GGML_TYPE_F32 && ggml_is_contiguous(ff) && ff->ne[0] >= n_dims / 2)) &&
           fits_u32(a) && fits_u32(node);
}

// rows are independent; the position of a row is pos[i2], the frequency factors are read whole
bool map_rope(const ggml_tensor * node, SplitMap & map) {
    follow_rows(node, Follow::Same, map);
    for (int d = 1; d < 4; ++d) {
        map.src[1][d] = map.src[2][d] = {};
    }
    map.src[1][0] = {Follow::Same, 2};
    return true;
}

bool record_rope(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * a   = node->src[0];
    const ggml_tensor * pos = node->src[1];
    const ggml_tensor * ff  = node->src[2];
    const Operand       oa = rec.in(a), op = rec.in(pos), od = rec.out(node);
    const Operand       of = ff ? rec.in(ff) : op;
    RopeParams          p{};
    const Shape         sa = shape_of(a), sd = shape_of(node);
    std::memcpy(p.ne, sa.ne, sizeof p.ne);
    std::memcpy(p.nb_a, sa.nb, sizeof p.nb_a);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    const size_t es = ggml_type_size(a->type);
    p.off_a   = elements(oa.residual, es);
    p.off_d   = elements(od.residual, es);
    p.off_pos = op.residual / 4;
    p.off_ff  = ff ? of.residual / 4 : 0;
    p.has_ff  = ff != nullptr;
    p.n_dims  = static_cast<uint32_t>(param_i32(node, 1));
    p.n_offs  = static_cast<uint32_t>(param_i32(node, 15));
    p.neox    = (param_i32(node, 2) & GGML_ROPE_TYPE_NEOX) != 0;
    p.n_pairs = static_cast<uint32_t>(ggml_nelements(a) / 2);
    const int   n_ctx_orig = param_i32(node, 4);
    const float base = param_f32(node, 5), attn_factor = param_f32(node, 8);
    const float beta_fast = param_f32(node, 9), beta_slow = param_f32(node, 10);
    p.freq_scale = param_f32(node, 6);
    p.ext_factor = param_f32(node, 7);
    p.log2_base  = static_cast<float>(std::log2(static_cast<double>(base)));
    p.mscale     = attn_factor;
    if (p.ext_factor != 0.0f) {
        p.mscale = static_cast<float>(attn_factor * (1.0 + 0.1 * std::log(1.0 / p.freq_scale)));
    }
    const int n_dims = static_cast<int>(p.n_dims);
    p.corr_low  = static_cast<float>(std::max(0.0, std::floor(corr_dim(n_dims, n_ctx_orig, beta_fast, base))));
    p.corr_high = static_cast<float>(std::min(static_cast<double>(n_dims - 1), std::ceil(corr_dim(n_dims, n_ctx_orig, beta_slow, base))));
    uint32_t gx, gy;
    rec.groups_for(p.n_pairs, kWorkgroup, gx, gy);
    return rec.dispatch("rope", {kWorkgroup, float_type_code(a->type)}, {oa, op, of, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
