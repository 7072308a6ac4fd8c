// MUL_MAT, with broadcasting over dims 2 and 3, and MUL_MAT_ID (shaders/mul_mat_id.comp, the expert matrices
// picked by i32 ids, in one dispatch). MUL_MAT takes one workgroup per output (shaders/mul_mat.comp, the
// matrix-vector shape) below kTiledMinColumns activation columns and tiles of outputs (shaders/mul_mat_tiled.comp)
// from there. The activations are first rounded the way the CPU's dot products see them
// (shaders/mul_mat_act.comp into scratch slot 0): to f16 / bf16 for f16 / bf16 weights, through Q8_0 for Q4_0,
// Q5_0, Q8_0, IQ4_NL, MXFP4 weights, through Q8_1 (with its excess term) for Q4_1 and Q5_1, and through Q8_K for
// the K-quants (Q2_K..Q6_K; no excess term: upstream's K-quant products use the Q8_K sums only to apply the
// mins, which is the product of the dequantized values); f32 weights use them as they are.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <algorithm>
#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

using Act = ActFormat;

// The weight type's activation format (its row, types.h); f16 / bf16 activations of f16 / bf16 weights as they are.
Act activation_for(ggml_type w, ggml_type b) {
    const VkTypeRow row = vk_type_row(w);
    if ((row.act == Act::F16 || row.act == Act::BF16) && b == w) {
        return Act::AsIs;
    }
    return row.act;
}

struct ActParams {
    uint32_t ne[4], nb_b[4];
    uint32_t off_b, n, excess_base;
};

struct MulMatParams {
    uint32_t K, M, N, ne12, ne13, r2, r3;
    uint32_t nb01, nb02, nb03, off_w;
    uint32_t pad[1];
    uint32_t nb_b[4];
    uint32_t off_b;
    uint32_t nb_d1, nb_d2, nb_d3, off_d;
    uint32_t excess_base;
    uint32_t k_begin, k_end, accumulate; // mul_mat_tiled.comp only
};
static_assert(sizeof(MulMatParams) <= 128);

struct MulMatIdParams {
    uint32_t K, M, n_used, n_tokens, n_b, n_expert;
    uint32_t nb01, nb02, off_w;
    uint32_t pad[3]; // nb_b is a uvec4: 16-byte aligned
    uint32_t nb_b[4];
    uint32_t off_b;
    uint32_t nb_i0, nb_i1, off_i;
    uint32_t nb_d1, nb_d2, off_d;
    uint32_t excess_base;
    uint32_t expert_first, n_expert_total; // the weights' window of experts (split.h)
};
static_assert(sizeof(MulMatIdParams) == 104);

constexpr uint32_t kDotWorkgroup = 64;

// The tiled path: from kTiledMinColumns activation columns on (on lavapipe it is faster than the per-output path
// from 8 columns on), tiles of kTileM x kTileN outputs, stepping over K by kTileK (one Q4_1 / Q5_1 block, as
// mul_mat_tiled.comp needs for their excess term), 256 invocations a tile.
constexpr uint32_t kTiledMinColumns = 8;
constexpr uint32_t kTileM = 64, kTileN = 64, kTileK = 32, kTileWorkgroup = 256;
// K per dispatch of the tiled path: 512 steps of about 50 loop iterations each, well within the 65535 lavapipe
// allows an invocation (the product was wrong from K = 40960 on, right at 32768)
constexpr uint32_t kTiledKPerDispatch = 512 * kTileK;
constexpr uint32_t kMaxGroups = 65535; // per dimension, the least every device allows

// The weights, activations and result as both products need them.
bool supports_product(const ggml_tensor * w, const ggml_tensor * b, const ggml_tensor * node) {
    const Act act = activation_for(w->type, b->type);
    if (act == Act::None || !is_float_type(b->type) || node->type != GGML_TYPE_F32 ||
        w->nb[0] != ggml_type_size(w->type) || node->nb[0] != sizeof(float) || !fits_u32(b) || !fits_u32(node) ||
        ggml_nbytes(w) >= (size_t(1) << 32)) {
        return false;
    }
    switch (act) {
        case Act::Q8_0:
        case Act::Q8_1: return w->ne[0] % 32 == 0;
        case Act::Q8_K: return w->ne[0] % 256 == 0;
        default:        return true;
    }
}

// Records the activation rounding of b into scratch slot 0; returns the operand to read them from.
Operand convert_activations(Recorder & rec, const ggml_tensor * b, Act act, bool & ok) {
    const uint64_t n        = static_cast<uint64_t>(ggml_nelements(b));
    const bool     q8       = act == Act::Q8_0 || act == Act::Q8_1;
    const uint32_t per_item = q8 ? 32 : act == Act::Q8_K ? 256 : 1; // elements an invocation rounds
    const size_t   bytes    = (n + (act == Act::Q8_1 ? n / 32 : 0)) * sizeof(float);
    const Operand  in       = rec.in(b);
    const Operand  scratch  = rec.scratch(0, bytes, true);
    ActParams      p{};
    const Shape    sb = shape_of(b);
    std::memcpy(p.ne, sb.ne, sizeof p.ne);
    std::memcpy(p.nb_b, sb.nb, sizeof p.nb_b);
    p.off_b       = elements(in.residual, ggml_type_size(b->type));
    p.n           = static_cast<uint32_t>(n / per_item);
    p.excess_base = static_cast<uint32_t>(n);
    uint32_t gx, gy;
    rec.groups_for(p.n, kWorkgroup, gx, gy);
    ok = rec.dispatch("mul_mat_act", {kWorkgroup, float_type_code(b->type), static_cast<uint32_t>(act)}, {in, scratch},
                      &p, sizeof p, gx, gy);
    return rec.scratch(0, bytes, false);
}

// scratch bytes per activation element: the f32 rounded copy, and Q8_1's excess term per block of 32, rounded up
uint32_t scratch_bytes(const ggml_tensor * w, const ggml_tensor * b) {
    const Act act = activation_for(w->type, b->type);
    return act == Act::AsIs ? 0 : act == Act::Q8_1 ? 5 : 4;
}

} // namespace

bool supports_mul_mat(const Device &, const ggml_tensor * node) {
    const ggml_tensor * w = node->src[0];
    const ggml_tensor * b = node->src[1];
    return supports_product(w, b, node) && b->ne[2] % w->ne[2] == 0 && b->ne[3] % w->ne[3] == 0;
}

// the outputs' rows follow the weights' rows, the columns the activations', the batch dimensions both (the
// weights' by ratio)
bool map_mul_mat(const ggml_tensor * node, SplitMap & map) {
    map.splits[0] = map.splits[1] = map.splits[2] = map.splits[3] = true;
    map.src[0][1] = {Follow::Same, 0};
    map.src[0][2] = {Follow::Ratio, 2};
    map.src[0][3] = {Follow::Ratio, 3};
    map.src[1][1] = {Follow::Same, 1};
    map.src[1][2] = {Follow::Same, 2};
    map.src[1][3] = {Follow::Same, 3};
    map.scratch_bytes[1] = scratch_bytes(node->src[0], node->src[1]);
    return true;
}

bool record_mul_mat(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * w   = node->src[0];
    const ggml_tensor * b   = node->src[1];
    const Act           act = activation_for(w->type, b->type);
    const Operand       ow = rec.in(w), od = rec.out(node);
    Operand             ob = rec.in(b);
    MulMatParams        p{};
    const Shape         sb = shape_of(b);
    std::memcpy(p.nb_b, sb.nb, sizeof p.nb_b);
    p.off_b     = elements(ob.residual, ggml_type_size(b->type));
    uint32_t tb = float_type_code(b->type);
    if (act != Act::AsIs) {
        bool ok = false;
        ob      = convert_activations(rec, b, act, ok);
        if (!ok) {
            return false;
        }
        tb          = 0; // f32 scratch, contiguous
        p.nb_b[0]   = 1;
        p.nb_b[1]   = static_cast<uint32_t>(b->ne[0]);
        p.nb_b[2]   = static_cast<uint32_t>(b->ne[0] * b->ne[1]);
        p.nb_b[3]   = static_cast<uint32_t>(b->ne[0] * b->ne[1] * b->ne[2]);
        p.off_b     = 0;
        p.excess_base = static_cast<uint32_t>(ggml_nelements(b));
    }
    p.K     = static_cast<uint32_t>(w->ne[0]);
    p.M     = static_cast<uint32_t>(w->ne[1]);
    p.N     = static_cast<uint32_t>(b->ne[1]);
    p.ne12  = static_cast<uint32_t>(b->ne[2]);
    p.ne13  = static_cast<uint32_t>(b->ne[3]);
    p.r2    = static_cast<uint32_t>(b->ne[2] / w->ne[2]);
    p.r3    = static_cast<uint32_t>(b->ne[3] / w->ne[3]);
    p.nb01  = static_cast<uint32_t>(w->nb[1]);
    p.nb02  = static_cast<uint32_t>(w->nb[2]);
    p.nb03  = static_cast<uint32_t>(w->nb[3]);
    p.off_w = ow.residual;
    p.nb_d1 = static_cast<uint32_t>(node->nb[1] / 4);
    p.nb_d2 = static_cast<uint32_t>(node->nb[2] / 4);
    p.nb_d3 = static_cast<uint32_t>(node->nb[3] / 4);
    p.off_d = od.residual / 4;
    const bool     has_excess = act == Act::Q8_1;
    const uint32_t tiles_m    = (p.M + kTileM - 1) / kTileM, tiles_n = (p.N + kTileN - 1) / kTileN;
    if (p.N >= kTiledMinColumns && tiles_m <= kMaxGroups && tiles_n <= kMaxGroups && p.ne12 * p.ne13 <= kMaxGroups) {
        for (p.k_begin = 0; p.k_begin < p.K; p.k_begin += kTiledKPerDispatch) {
            p.k_end      = std::min(p.K, p.k_begin + kTiledKPerDispatch);
            p.accumulate = p.k_begin > 0;
            if (!rec.dispatch("mul_mat_tiled",
                              {kTileWorkgroup, weight_type_code(w->type), tb, has_excess ? 1u : 0u, kTileM, kTileN, kTileK},
                              {ow, ob, has_excess ? ob : od, od}, &p, sizeof p, tiles_m, tiles_n, p.ne12 * p.ne13)) {
                return false;
            }
        }
        return true;
    }
    uint32_t gx, gy;
    rec.groups_for(static_cast<uint64_t>(ggml_nelements(node)), 1, gx, gy);
    return rec.dispatch("mul_mat", {kDotWorkgroup, weight_type_code(w->type), tb, has_excess ? 1u : 0u},
                        {ow, ob, has_excess ? ob : od, od}, &p, sizeof p, gx, gy);
}

bool supports_mul_mat_id(const Device &, const ggml_tensor * node) {
    const ggml_tensor * w   = node->src[0];
    const ggml_tensor * b   = node->src[1];
    const ggml_tensor * ids = node->src[2];
    return supports_product(w, b, node) && ids->type == GGML_TYPE_I32 && fits_u32(ids) && w->ne[3] == 1 &&
           b->ne[3] == 1 && ids->ne[1] == b->ne[2] && ids->ne[0] % b->ne[1] == 0 && node->ne[0] == w->ne[1] &&
           node->ne[1] == ids->ne[0] && node->ne[2] == b->ne[2] && node->ne[3] == 1;
}

// the outputs' rows follow the weights' rows, slots and tokens the activations' and the ids'; the experts are
// gathered
bool map_mul_mat_id(const ggml_tensor * node, SplitMap & map) {
    map.splits[0] = map.splits[1] = map.splits[2] = true;
    map.src[0][1] = {Follow::Same, 0};
    map.src[0][2] = {Follow::Gather, 0};
    map.src[1][1] = {Follow::Repeat, 1};
    map.src[1][2] = {Follow::Same, 2};
    map.src[2][0] = {Follow::Same, 1};
    map.src[2][1] = {Follow::Same, 2};
    map.scratch_bytes[1] = scratch_bytes(node->src[0], node->src[1]);
    return true;
}

bool record_mul_mat_id(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * w   = node->src[0];
    const ggml_tensor * b   = node->src[1];
    const ggml_tensor * ids = node->src[2];
    const Act           act = activation_for(w->type, b->type);
    const Operand       ow = rec.in(w), oi = rec.in(ids), od = rec.out(node);
    Operand             ob = rec.in(b);
    MulMatIdParams      p{};
    const Shape         sb = shape_of(b), si = shape_of(ids), sd = shape_of(node);
    std::memcpy(p.nb_b, sb.nb, sizeof p.nb_b);
    p.off_b     = elements(ob.residual, ggml_type_size(b->type));
    uint32_t tb = float_type_code(b->type);
    if (act != Act::AsIs) {
        bool ok = false;
        ob      = convert_activations(rec, b, act, ok);
        if (!ok) {
            return false;
        }
        tb            = 0; // f32 scratch, contiguous
        p.nb_b[0]     = 1;
        p.nb_b[1]     = static_cast<uint32_t>(b->ne[0]);
        p.nb_b[2]     = static_cast<uint32_t>(b->ne[0] * b->ne[1]);
        p.off_b       = 0;
        p.excess_base = static_cast<uint32_t>(ggml_nelements(b));
    }
    p.K        = static_cast<uint32_t>(w->ne[0]);
    p.M        = static_cast<uint32_t>(w->ne[1]);
    const GatherWindow experts = rec.gather(w->ne[2]);
    p.n_expert       = static_cast<uint32_t>(experts.count);
    p.expert_first   = static_cast<uint32_t>(experts.first);
    p.n_expert_total = static_cast<uint32_t>(experts.total);
    p.n_used   = static_cast<uint32_t>(ids->ne[0]);
    p.n_tokens = static_cast<uint32_t>(b->ne[2]);
    p.n_b      = static_cast<uint32_t>(b->ne[1]);
    p.nb01     = static_cast<uint32_t>(w->nb[1]);
    p.nb02     = static_cast<uint32_t>(w->nb[2]);
    p.off_w    = ow.residual;
    p.nb_i0    = si.nb[0];
    p.nb_i1    = si.nb[1];
    p.off_i    = oi.residual / 4;
    p.nb_d1    = sd.nb[1];
    p.nb_d2    = sd.nb[2];
    p.off_d    = od.residual / 4;
    const bool has_excess = act == Act::Q8_1;
    uint32_t   gx, gy;
    rec.groups_for(static_cast<uint64_t>(ggml_nelements(node)), 1, gx, gy);
    return rec.dispatch("mul_mat_id", {kDotWorkgroup, weight_type_code(w->type), tb, has_excess ? 1u : 0u},
                        {ow, ob, has_excess ? ob : od, oi, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
