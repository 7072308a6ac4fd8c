// ARGSORT and TOP_K (shaders/argsort.comp): rows of f32 or f16 of at most kMaxRow elements, sorted in shared
// memory; TOP_K is the first k of a descending sort (largest first, as the CPU returns them). Longer rows stay on
// the CPU.
#include "vulkan/ops.h"
#include "vulkan/ops/types.h"

#include <cstring>

namespace switchyard::vulkan::ops {

namespace {

struct SortParams {
    uint32_t ne[4], nb_s[4], nb_d[4];
    uint32_t off_s, off_d, n_rows;
    uint32_t n_pad, ne_d0, descending;
};
static_assert(sizeof(SortParams) <= 128);

constexpr int64_t  kMaxRow         = 1024; // shaders/argsort.comp's kMaxRow
constexpr uint32_t kSortWorkgroup  = 256;

} // namespace

bool supports_sort(const Device &, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    if ((src->type != GGML_TYPE_F32 && src->type != GGML_TYPE_F16) || node->type != GGML_TYPE_I32 ||
        src->ne[0] > kMaxRow || !fits_u32(src) || !fits_u32(node) || node->ne[1] != src->ne[1] ||
        node->ne[2] != src->ne[2] || node->ne[3] != src->ne[3]) {
        return false;
    }
    if (node->op == GGML_OP_ARGSORT) {
        const int32_t order = op_i32(node, 0);
        return node->ne[0] == src->ne[0] && (order == GGML_SORT_ORDER_ASC || order == GGML_SORT_ORDER_DESC);
    }
    return node->ne[0] <= src->ne[0];
}

// rows are independent
bool map_sort(const ggml_tensor * node, SplitMap & map) {
    follow_rows(node, Follow::Same, map);
    return true;
}

bool record_sort(Recorder & rec, const ggml_tensor * node) {
    const ggml_tensor * src = node->src[0];
    const Operand       os = rec.in(src), od = rec.out(node);
    const Shape         ss = shape_of(src), sd = shape_of(node);
    SortParams          p{};
    std::memcpy(p.ne, ss.ne, sizeof p.ne);
    std::memcpy(p.nb_s, ss.nb, sizeof p.nb_s);
    std::memcpy(p.nb_d, sd.nb, sizeof p.nb_d);
    p.off_s  = elements(os.residual, ggml_type_size(src->type));
    p.off_d  = od.residual / 4;
    p.n_rows = static_cast<uint32_t>(ggml_nrows(src));
    p.n_pad  = 1;
    while (p.n_pad < p.ne[0]) {
        p.n_pad <<= 1;
    }
    p.ne_d0      = static_cast<uint32_t>(node->ne[0]);
    p.descending = node->op == GGML_OP_TOP_K || op_i32(node, 0) == GGML_SORT_ORDER_DESC;
    uint32_t gx, gy;
    rec.groups_for(p.n_rows, 1, gx, gy);
    return rec.dispatch("argsort", {kSortWorkgroup, float_type_code(src->type)}, {os, od}, &p, sizeof p, gx, gy);
}

} // namespace switchyard::vulkan::ops
