// FLASH_ATTN_EXT (shaders/flash_attn.comp): q f32 / f16 / bf16; K and V f32, f16, bf16, Q4_0, Q4_1, Q5_0, Q5_1,
// Q8_0 or IQ4_NL (each its own type), head sizes D and Dv apart; GQA broadcast of K / V over the heads; an f16 or
// f32 mask broadcast over dims 2 and 3, ALiBi, logit soft-capping and sinks. The arithmetic is f32 throughout
// (the precision parameter asks for nothing less), with q as it is, as the CPU kernel computes it.
//
// The plan (rows per workgroup, output dimensions per invocation, keys per chunk) follows from the shapes and the
// device's shared memory alone; supports and record both take it from plan_for.
//
// Keys in chunks: lavapipe (llvmpipe) ends the loops of an invocation after 65535 iterations of all its loops
// together, a guard against endless shaders, and a tile of 128 keys costs an invocation about D + 2 x 128 of
// them (the q.k loop over D, the maximum and the V loop over the tile's keys; the loops over rows and output
// dimensions are unrolled). Past about 16384 keys at D = 256 the loops were cut short and the output was
// wrong. So the keys go in chunks of at most kIterationBudget iterations, one workgroup per chunk, and a second
// pass (shaders/flash_attn_combine.comp) merges the chunks' results from scratch memory; with one chunk the
// first pass writes the output itself.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <algorithm>

namespace switchyard::vulkan::ops {

namespace {

struct FlashAttnParams {
    uint32_t n_q, n_kv, n_head, group, nq;
    uint32_t nb_q1, nb_q2, nb_q3, off_q;
    uint32_t nb_k1, nb_k2, nb_k3, off_k;
    uint32_t nb_v1, nb_v2, nb_v3, off_v;
    uint32_t nb_m1, nb_m2, nb_m3, ne_m2, ne_m3, off_m;
    uint32_t nb_d1, nb_d2, nb_d3, off_d;
    uint32_t off_s;
    float    scale, softcap, max_bias;
};
static_assert(sizeof(FlashAttnParams) <= 128);

constexpr uint32_t kWorkgroupSize = 128;   // also the keys per tile
constexpr uint32_t kMaxRows       = 8;     // rows per workgroup (flash_attn.comp)
constexpr uint32_t kMaxOut        = 16;    // rows x output dimensions per invocation (flash_attn.comp)
constexpr uint64_t kSharedBudget  = 32768; // bytes of shared memory used at most
constexpr uint64_t kIterationBudget = 32768; // loop iterations of an invocation per chunk, half of lavapipe's limit

struct CombineParams {
    uint32_t n_chunks, n_head, n_q, rows;
    uint32_t nb_d1, nb_d2, nb_d3, off_d;
    uint32_t off_s;
};

// Rows per workgroup (nh heads x nq queries), the workgroups over queries and over the heads of a group, and the
// output dimensions per invocation and row; rows == 0 when the head sizes do not fit.
struct Plan {
    uint32_t nh = 0, nq = 0, rows = 0, ndv = 0;
    uint32_t q_blocks = 0, h_blocks = 0;
    uint32_t kv_chunk = 0, n_chunks = 0; // keys per chunk (a multiple of kWorkgroupSize), chunks
    uint64_t partial_bytes = 0;          // scratch for the chunks' results (0 with one chunk)
};

Plan plan_for(const Device & device, const ggml_tensor * node) {
    const ggml_tensor * q = node->src[0], *k = node->src[1], *v = node->src[2];
    const uint64_t      D = static_cast<uint64_t>(q->ne[0]), n_q = static_cast<uint64_t>(q->ne[1]);
    const uint64_t      group  = static_cast<uint64_t>(q->ne[2] / k->ne[2]);
    const uint64_t      ndv    = (static_cast<uint64_t>(v->ne[0]) + kWorkgroupSize - 1) / kWorkgroupSize;
    const uint64_t      budget =
        std::min<uint64_t>(kSharedBudget, device.physical().props.limits.maxComputeSharedMemorySize);
    const auto          shared = [&](uint64_t rows) { return 4 * rows * (D + kWorkgroupSize + 4); };
    uint64_t            max_rows = ndv <= kMaxOut ? std::min<uint64_t>(kMaxRows, kMaxOut / ndv) : 0;
    while (max_rows > 0 && shared(max_rows) > budget) {
        --max_rows;
    }
    Plan pl;
    if (max_rows == 0) {
        return pl;
    }
    pl.ndv      = static_cast<uint32_t>(ndv);
    pl.nh       = static_cast<uint32_t>(std::min(group, max_rows));
    pl.nq       = static_cast<uint32_t>(std::min(n_q, std::max<uint64_t>(1, max_rows / pl.nh)));
    pl.rows     = pl.nh * pl.nq;
    pl.q_blocks = static_cast<uint32_t>((n_q + pl.nq - 1) / pl.nq);
    pl.h_blocks = static_cast<uint32_t>((group + pl.nh - 1) / pl.nh);
    const uint64_t tiles = std::max<uint64_t>(1, kIterationBudget / (D + 2 * kWorkgroupSize + 16));
    const uint64_t n_kv  = static_cast<uint64_t>(k->ne[1]);
    pl.kv_chunk          = static_cast<uint32_t>(tiles * kWorkgroupSize);
    pl.n_chunks          = static_cast<uint32_t>(std::max<uint64_t>(1, (n_kv + pl.kv_chunk - 1) / pl.kv_chunk));
    if (pl.n_chunks > 1) {
        const uint64_t rows = n_q * static_cast<uint64_t>(q->ne[2]) * static_cast<uint64_t>(q->ne[3]);
        pl.partial_bytes    = pl.n_chunks * rows * (static_cast<uint64_t>(v->ne[0]) + 2) * sizeof(float);
    }
    return pl;
}

// K or V: a type the shader reads, rows of whole blocks, offsets that fit its 32-bit byte arithmetic
bool kv_ok(const ggml_tensor * t) {
    if (!vk_type_row(t->type).kv) {
        return false;
    }
    return t->nb[0] == ggml_type_size(t->type) && t->ne[0] % ggml_blck_size(t->type) == 0 &&
           element_strides(t) && fits_u32(t) && ggml_nbytes(t) < (size_t(1) << 32);
}

bool mask_ok(const ggml_tensor * mask, const ggml_tensor * q, const ggml_tensor * k) {
    return (mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32) && mask->nb[0] == ggml_type_size(mask->type) &&
           element_strides(mask) && fits_u32(mask) && mask->ne[0] >= k->ne[1] && mask->ne[1] >= q->ne[1] &&
           q->ne[2] % mask->ne[2] == 0 && q->ne[3] % mask->ne[3] == 0;
}

} // namespace

bool supports_flash_attn(const Device & device, const ggml_tensor * node) {
    const ggml_tensor * q = node->src[0], *k = node->src[1], *v = node->src[2];
    const ggml_tensor * mask = node->src[3], *sinks = node->src[4];
    if (q == nullptr || k == nullptr || v == nullptr || node->type != GGML_TYPE_F32 || !is_float_type(q->type) ||
        q->nb[0] != ggml_type_size(q->type) || !fits_u32(q) || !kv_ok(k) || !kv_ok(v) || !fits_u32(node) ||
        node->nb[0] != sizeof(float) || !element_strides(node)) {
        return false;
    }
    if (k->ne[0] != q->ne[0] || v->ne[1] != k->ne[1] || v->ne[2] != k->ne[2] || q->ne[2] % k->ne[2] != 0 ||
        k->ne[3] != q->ne[3] || v->ne[3] != q->ne[3] || node->ne[0] != v->ne[0] || node->ne[1] != q->ne[2] ||
        node->ne[2] != q->ne[1] || node->ne[3] != q->ne[3]) {
        return false;
    }
    if (mask != nullptr && !mask_ok(mask, q, k)) {
        return false;
    }
    if (sinks != nullptr && (sinks->type != GGML_TYPE_F32 || sinks->nb[0] != sizeof(float) || sinks->ne[0] < q->ne[2])) {
        return false;
    }
    const Plan       pl    = plan_for(device, node);
    const uint32_t * count = device.physical().props.limits.maxComputeWorkGroupCount;
    return pl.rows != 0 && pl.q_blocks <= count[0] && uint64_t(pl.h_blocks) * uint64_t(k->ne[2]) <= count[1] &&
           uint64_t(q->ne[3]) * pl.n_chunks <= std::min<uint32_t>(count[2], 65535) &&
           pl.partial_bytes <= device.max_window();
}

namespace {

// The second pass over the chunks' results in `part`.
bool record_combine(Recorder & rec, const ggml_tensor * node, const Plan & pl, const Operand & part, const Operand & os,
                    const Operand & od) {
    const ggml_tensor * q = node->src[0], *v = node->src[2];
    const Shape         sd = shape_of(node);
    CombineParams       p{};
    p.n_chunks = pl.n_chunks;
    p.n_head   = static_cast<uint32_t>(q->ne[2]);
    p.n_q      = static_cast<uint32_t>(q->ne[1]);
    p.rows     = static_cast<uint32_t>(q->ne[1] * q->ne[2] * q->ne[3]);
    p.nb_d1    = sd.nb[1];
    p.nb_d2    = sd.nb[2];
    p.nb_d3    = sd.nb[3];
    p.off_d    = od.residual / 4;
    p.off_s    = node->src[4] != nullptr ? os.residual / 4 : 0;
    uint32_t gx, gy;
    rec.groups_for(static_cast<uint64_t>(p.rows) * static_cast<uint64_t>(v->ne[0]), kWorkgroupSize, gx, gy);
    return rec.dispatch("flash_attn_combine",
                        {kWorkgroupSize, static_cast<uint32_t>(v->ne[0]), node->src[4] != nullptr ? 1u : 0u},
                        {part, os, od}, &p, sizeof p, gx, gy);
}

} // namespace

bool record_flash_attn(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * q = node->src[0], *k = node->src[1], *v = node->src[2];
    const ggml_tensor * mask = node->src[3], *sinks = node->src[4];
    const Plan          pl = plan_for(rec.device(), node);
    const Operand       oq = rec.in(q), ok = rec.in(k), ov = rec.in(v), od = rec.out(node);
    const Operand       om = mask ? rec.in(mask) : oq, os = sinks ? rec.in(sinks) : oq;
    const Shape         sq = shape_of(q), sd = shape_of(node);
    FlashAttnParams     p{};
    p.n_q    = static_cast<uint32_t>(q->ne[1]);
    p.n_kv   = static_cast<uint32_t>(k->ne[1]);
    p.n_head = static_cast<uint32_t>(q->ne[2]);
    p.group  = static_cast<uint32_t>(q->ne[2] / k->ne[2]);
    p.nq     = pl.nq;
    p.nb_q1  = sq.nb[1];
    p.nb_q2  = sq.nb[2];
    p.nb_q3  = sq.nb[3];
    p.off_q  = elements(oq.residual, ggml_type_size(q->type));
    p.nb_k1  = static_cast<uint32_t>(k->nb[1]);
    p.nb_k2  = static_cast<uint32_t>(k->nb[2]);
    p.nb_k3  = static_cast<uint32_t>(k->nb[3]);
    p.off_k  = ok.residual;
    p.nb_v1  = static_cast<uint32_t>(v->nb[1]);
    p.nb_v2  = static_cast<uint32_t>(v->nb[2]);
    p.nb_v3  = static_cast<uint32_t>(v->nb[3]);
    p.off_v  = ov.residual;
    p.ne_m2 = p.ne_m3 = 1;
    if (mask != nullptr) {
        const Shape sm = shape_of(mask);
        p.nb_m1 = sm.nb[1];
        p.nb_m2 = sm.nb[2];
        p.nb_m3 = sm.nb[3];
        p.ne_m2 = sm.ne[2];
        p.ne_m3 = sm.ne[3];
        p.off_m = elements(om.residual, ggml_type_size(mask->type));
    }
    p.nb_d1    = sd.nb[1];
    p.nb_d2    = sd.nb[2];
    p.nb_d3    = sd.nb[3];
    p.off_d    = od.residual / 4;
    p.off_s    = sinks ? os.residual / 4 : 0;
    p.scale    = op_f32(node, 0);
    p.max_bias = op_f32(node, 1);
    p.softcap  = op_f32(node, 2);
    const uint32_t gy      = pl.h_blocks * static_cast<uint32_t>(k->ne[2]);
    const bool     chunked = pl.n_chunks > 1;
    const Operand  part    = chunked ? rec.scratch(0, pl.partial_bytes, true) : od;
    if (!rec.dispatch("flash_attn",
                      {kWorkgroupSize, static_cast<uint32_t>(q->ne[0]), static_cast<uint32_t>(v->ne[0]), pl.rows,
                       pl.ndv, float_type_code(q->type), weight_type_code(k->type), weight_type_code(v->type),
                       mask ? float_type_code(mask->type) : 0u, mask ? 1u : 0u, sinks ? 1u : 0u, pl.kv_chunk},
                      {oq, ok, ov, om, os, od, part}, &p, sizeof p, pl.q_blocks, gy,
                      static_cast<uint32_t>(q->ne[3]) * pl.n_chunks)) {
        return false;
    }
    return !chunked || record_combine(rec, node, pl, rec.scratch(0, pl.partial_bytes, false), os, od);
}

} // namespace switchyard::vulkan::ops
