// ggml_get_type_traits_cpu: for each type, the type src1 is converted to for dot products (vec_dot_type, as
// upstream pairs them), the converter (from_float) and the dot product itself (vec_dot). Types with a
// matrix-vector kernel (cpu/quants/matvec.h) get that kernel and its activation converter, the ones the matrix
// kernels use; the others a generic dot product (both operands converted to floats, a chunk at a time on the
// stack: nothing is allocated) and the reference quantizer of their vec_dot_type.
#include "ggml-cpu.h"

#include "cpu/kernels/mul_mat/dot.h"
#include "cpu/quants/act_quant.h"
#include "cpu/quants/matvec.h"

#include "base/fp16.h"

#include <algorithm>
#include <array>
#include <utility>

namespace {

using switchyard::cpu::kernels::dot_kernels;

void to_floats(ggml_type type, const void * x, float * y, int n) {
    if (type == GGML_TYPE_F32) {
        const auto * f = static_cast<const float *>(x);
        for (int i = 0; i < n; ++i) y[i] = f[i];
        return;
    }
    if (type == GGML_TYPE_F16) {
        for (int i = 0; i < n; ++i) y[i] = switchyard::fp16_to_fp32(static_cast<const uint16_t *>(x)[i]);
        return;
    }
    if (type == GGML_TYPE_BF16) {
        for (int i = 0; i < n; ++i) y[i] = switchyard::bf16_to_fp32(static_cast<const uint16_t *>(x)[i]);
        return;
    }
    ggml_get_type_traits(type)->to_float(x, y, n);
}

ggml_type vec_dot_type_of(ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32:
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:   return type;
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q5_1:   return GGML_TYPE_Q8_1;
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_IQ4_NL:
        case GGML_TYPE_MXFP4:
        case GGML_TYPE_NVFP4:
        case GGML_TYPE_Q1_0:
        case GGML_TYPE_Q2_0:   return GGML_TYPE_Q8_0;
        default:               return GGML_TYPE_Q8_K;
    }
}

// Elements converted at a time: a whole number of blocks of every format.
constexpr int kDotChunk = 256;

template <ggml_type X>
void vec_dot_generic(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc) {
    const ggml_type yt = vec_dot_type_of(X);
    float           xf[kDotChunk];
    float           yf[kDotChunk];
    for (int r = 0; r < nrc; ++r) {
        const char * xr  = static_cast<const char *>(x) + static_cast<size_t>(r) * bx;
        const char * yr  = static_cast<const char *>(y) + static_cast<size_t>(r) * by;
        float        sum = 0.0f;
        for (int i0 = 0; i0 < n; i0 += kDotChunk) {
            const int m = std::min(kDotChunk, n - i0);
            to_floats(X, xr + ggml_row_size(X, i0), xf, m);
            to_floats(yt, yr + ggml_row_size(yt, i0), yf, m);
            sum += dot_kernels().dot(xf, yf, m);
        }
        s[static_cast<size_t>(r) * bs / sizeof(float)] = sum;
    }
}

// Through the type's matrix-vector kernel, one row and one column at a time.
template <ggml_type X>
void vec_dot_kernel(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc) {
    const switchyard::cpu::quants::MatVecKernel & k = switchyard::cpu::quants::matvec_kernel(X);
    for (int r = 0; r < nrc; ++r) {
        switchyard::cpu::quants::MatVecArgs a{};
        a.k    = n;
        a.w    = static_cast<const char *>(x) + static_cast<size_t>(r) * bx;
        a.rows = 1;
        a.act  = static_cast<const char *>(y) + static_cast<size_t>(r) * by;
        a.cols = 1;
        a.out  = s + static_cast<size_t>(r) * bs / sizeof(float);
        k.fn(a);
    }
}

template <size_t... I>
constexpr std::array<ggml_vec_dot_t, GGML_TYPE_COUNT> make_dots(std::index_sequence<I...>) {
    return {vec_dot_generic<static_cast<ggml_type>(I)>...};
}

template <size_t... I>
constexpr std::array<ggml_vec_dot_t, GGML_TYPE_COUNT> make_kernel_dots(std::index_sequence<I...>) {
    return {vec_dot_kernel<static_cast<ggml_type>(I)>...};
}

} // namespace

extern "C" const struct ggml_type_traits_cpu * ggml_get_type_traits_cpu(enum ggml_type type) {
    static const auto table = [] {
        constexpr auto dots        = make_dots(std::make_index_sequence<GGML_TYPE_COUNT>{});
        constexpr auto kernel_dots = make_kernel_dots(std::make_index_sequence<GGML_TYPE_COUNT>{});
        std::array<ggml_type_traits_cpu, GGML_TYPE_COUNT> t{};
        for (int i = 0; i < GGML_TYPE_COUNT; ++i) {
            const auto               type_i = static_cast<ggml_type>(i);
            const auto &             kernel = switchyard::cpu::quants::matvec_kernel(type_i);
            if (kernel.fn != nullptr) {
                t[i] = ggml_type_traits_cpu{kernel.convert, kernel_dots[i], kernel.act_type, 1};
                continue;
            }
            const ggml_type_traits * tt     = ggml_get_type_traits(type_i);
            if (!tt || (!tt->to_float && type_i != GGML_TYPE_F32)) {
                continue; // no float conversion: no dot product
            }
            const ggml_type          vdt = vec_dot_type_of(type_i);
            const ggml_type_traits * vt  = ggml_get_type_traits(vdt);
            ggml_from_float_t        ff  = switchyard::cpu::quants::act_converter(vdt);
            if (ff == nullptr) {
                ff = vt ? vt->from_float_ref : nullptr;
            }
            t[i] = ggml_type_traits_cpu{ff, dots[i], vdt, 1};
        }
        return t;
    }();
    if (type < 0 || type >= GGML_TYPE_COUNT) {
        return nullptr;
    }
    return &table[type];
}
