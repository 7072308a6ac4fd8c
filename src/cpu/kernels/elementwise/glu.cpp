// The gated linear units: GLU (every ggml_glu_op: REGLU, GEGLU, SWIGLU, SWIGLU_OAI, GEGLU_ERF, GEGLU_QUICK,
// SWIGLU_CLAMP), on the row functions of the ISA table (row_kernels.h), as unary.cpp's ops.
//
// Types: src and dst F32, F16 or BF16 (any pair; the math runs in float). op_params: [0] ggml_glu_op, [1] swapped,
// SWIGLU_OAI / SWIGLU_CLAMP [2] alpha, [3] limit. With src[1] == NULL each row of src0 holds [x | gate] (gate
// first when swapped) and dst rows have half the length; with src[1] the gate is src1 (same shape as src0).
// dst = act(x) * gate.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

namespace {

struct GluRows {
    const char * x;
    const char * g;
    size_t       x_nb0, g_nb0;
};

GluRows glu_rows(const ggml_tensor * dst, const RowCoords & c, int64_t nc, bool swapped) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    if (b) {
        return {row_ptr(a, c), row_ptr(b, c), a->nb[0], b->nb[0]};
    }
    const char *  base = row_ptr(a, c);
    const int64_t half = nc * static_cast<int64_t>(a->nb[0]);
    return swapped ? GluRows{base + half, base, a->nb[0], a->nb[0]} : GluRows{base, base + half, a->nb[0], a->nb[0]};
}

bool glu_direct(const ggml_tensor * dst) {
    const ggml_tensor * b = dst->src[1];
    return is_f32_rows(dst->src[0]) && (!b || is_f32_rows(b)) && is_f32_rows(dst);
}

// dst elements [i0, i1) of one row from the x and gate rows g.
void glu_span(GluRowFn fn, const MapParams & prm, const ggml_tensor * dst, const GluRows & g, char * d, int64_t i0,
              int64_t i1) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1] ? dst->src[1] : a;
    if (glu_direct(dst)) {
        fn(reinterpret_cast<const float *>(g.x) + i0, reinterpret_cast<const float *>(g.g) + i0,
           reinterpret_cast<float *>(d) + i0, i1 - i0, prm);
        return;
    }
    float xb[kChunk], gb[kChunk];
    for (int64_t i = i0; i < i1; i += kChunk) {
        const int64_t m = std::min(kChunk, i1 - i);
        load_row(a->type, g.x + i * static_cast<int64_t>(g.x_nb0), g.x_nb0, xb, m);
        load_row(b->type, g.g + i * static_cast<int64_t>(g.g_nb0), g.g_nb0, gb, m);
        fn(xb, gb, xb, m, prm);
        store_row(dst->type, xb, d + i * static_cast<int64_t>(dst->nb[0]), dst->nb[0], m);
    }
}

void glu_compute(const ComputeParams & p, ggml_tensor * dst) {
    const GluRowFn  fn      = row_kernels().glu[static_cast<size_t>(op_i32(dst, 0))];
    const bool      swapped = op_i32(dst, 1) != 0;
    const MapParams prm{{op_f32(dst, 2), op_f32(dst, 3), 0, 0}};
    const int64_t   nc      = dst->ne[0];
    const RowSpans  spans   = row_spans(p, ggml_nrows(dst), nc);
    for (int64_t it = spans.items.begin; it < spans.items.end; ++it) {
        const RowCoords c = row_coords(dst, spans.row(it));
        glu_span(fn, prm, dst, glu_rows(dst, c, nc, swapped), row_ptr(dst, c), spans.begin(it), spans.end(it, nc));
    }
}

bool glu_supports(const ggml_tensor * dst) {
    const ggml_tensor * a  = dst->src[0];
    const ggml_tensor * b  = dst->src[1];
    const int32_t       op = op_i32(dst, 0);
    if (!a || op < 0 || op >= GGML_GLU_OP_COUNT || !is_float_type(a->type) || !is_float_type(dst->type)) {
        return false;
    }
    if (b && (!is_float_type(b->type) || !ggml_are_same_shape(a, b))) {
        return false;
    }
    const int64_t nc = b ? a->ne[0] : a->ne[0] / 2;
    return dst->ne[0] == nc && dst->ne[1] == a->ne[1] && dst->ne[2] == a->ne[2] && dst->ne[3] == a->ne[3];
}

} // namespace

KernelInfo glu(ggml_op op) {
    return op == GGML_OP_GLU ? KernelInfo{glu_compute, nullptr, nullptr, glu_supports} : KernelInfo{};
}

} // namespace switchyard::cpu::kernels
