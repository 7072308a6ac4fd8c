// One-input element-wise kernels: UNARY (every ggml_unary_op), SQR, SQRT, LOG, SIN, COS, LEAKY_RELU, CLAMP and
// SCALE (the gated units GLU, on the same row functions: glu.cpp).
//
// Types: src and dst F32, F16 or BF16 (any pair; the math runs in float). Any strides; dst may be src (in place).
// F32 rows with unit stride are processed in place through the row functions of the ISA table; other rows go
// through kChunk-element float buffers.
//
// op_params: UNARY [0] ggml_unary_op (XIELU: [1..4] alpha_n, alpha_p, beta, eps as f32); LEAKY_RELU [0] slope;
// CLAMP [0] min, [1] max; SCALE [0] s, [1] b (dst = s*x + b).
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

#include "cpu/kernel_registry.h"

namespace switchyard::cpu::kernels {

const RowKernels & row_kernels_scalar() {
    static const RowKernels k = make_row_kernels<VecScalar>("scalar");
    return k;
}

const RowKernels & row_kernels() {
    static const RowKernels & k = select_kernel(&IsaColumn::row_kernels)();
    return k;
}

namespace {

struct MapSpec {
    MapOp     op = MapOp::kCount;
    MapParams prm;
};

MapSpec map_spec(const ggml_tensor * dst) {
    MapSpec s;
    switch (dst->op) {
        case GGML_OP_UNARY:
            s.op = static_cast<MapOp>(op_i32(dst, 0));
            if (s.op == MapOp::kXielu) {
                s.prm = MapParams{{op_f32(dst, 1), op_f32(dst, 2), op_f32(dst, 3), op_f32(dst, 4)}};
            }
            break;
        case GGML_OP_SQR:        s.op = MapOp::kSqr; break;
        case GGML_OP_SQRT:       s.op = MapOp::kSqrt; break;
        case GGML_OP_LOG:        s.op = MapOp::kLog; break;
        case GGML_OP_SIN:        s.op = MapOp::kSin; break;
        case GGML_OP_COS:        s.op = MapOp::kCos; break;
        case GGML_OP_LEAKY_RELU: s = MapSpec{MapOp::kLeakyRelu, MapParams{{op_f32(dst, 0), 0, 0, 0}}}; break;
        case GGML_OP_CLAMP:      s = MapSpec{MapOp::kClamp, MapParams{{op_f32(dst, 0), op_f32(dst, 1), 0, 0}}}; break;
        case GGML_OP_SCALE:      s = MapSpec{MapOp::kScale, MapParams{{op_f32(dst, 0), op_f32(dst, 1), 0, 0}}}; break;
        default:                 break;
    }
    return s;
}

// Applies fn to elements [i0, i1) of one row: in place for F32 unit-stride rows, else through a float buffer.
void map_span(MapRowFn fn, const MapParams & prm, const ggml_tensor * src, const char * s, ggml_tensor * dst, char * d,
              int64_t i0, int64_t i1) {
    if (is_f32_rows(src) && is_f32_rows(dst)) {
        fn(reinterpret_cast<const float *>(s) + i0, reinterpret_cast<float *>(d) + i0, i1 - i0, prm);
        return;
    }
    float buf[kChunk];
    for (int64_t c = i0; c < i1; c += kChunk) {
        const int64_t m = std::min(kChunk, i1 - c);
        load_row(src->type, s + c * static_cast<int64_t>(src->nb[0]), src->nb[0], buf, m);
        fn(buf, buf, m, prm);
        store_row(dst->type, buf, d + c * static_cast<int64_t>(dst->nb[0]), dst->nb[0], m);
    }
}

void map_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * src   = dst->src[0];
    const MapSpec       spec  = map_spec(dst);
    const MapRowFn      fn    = row_kernels().map[static_cast<size_t>(spec.op)];
    const int64_t       ne0   = src->ne[0];
    const RowSpans      spans = row_spans(p, ggml_nrows(src), ne0);
    for (int64_t it = spans.items.begin; it < spans.items.end; ++it) {
        const RowCoords c = row_coords(src, spans.row(it));
        map_span(fn, spec.prm, src, row_ptr(src, c), dst, row_ptr(dst, c), spans.begin(it), spans.end(it, ne0));
    }
}

bool map_supports(const ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    if (!src || !is_float_type(src->type) || !is_float_type(dst->type) || !ggml_are_same_shape(src, dst)) {
        return false;
    }
    const int op = static_cast<int>(map_spec(dst).op);
    return op >= 0 && op < kMapOpCount;
}

} // namespace

KernelInfo unary(ggml_op op) {
    switch (op) {
        case GGML_OP_UNARY:
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_LOG:
        case GGML_OP_SIN:
        case GGML_OP_COS:
        case GGML_OP_LEAKY_RELU:
        case GGML_OP_CLAMP:
        case GGML_OP_SCALE:      return KernelInfo{map_compute, nullptr, nullptr, map_supports};
        default:                 return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
