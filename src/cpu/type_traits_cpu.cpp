// ggml_get_type_traits_cpu: for each type, the conversion of floats into that type (from_float), the type src1 is
// converted to for dot products (vec_dot_type, as upstream pairs them: a program converts its activations with the
// vec_dot_type's own entry) and the dot product itself (vec_dot). The activation formats convert with the kernels'
// converters (upstream's bytes), the other types with their reference quantizer. Types with a matrix-vector
// kernel (cpu/quants/matvec.h) get that kernel as vec_dot; the others a generic dot product (both operands
// converted to floats, a chunk at a time on the stack: nothing is allocated). As upstream's table: I8, I16, I64 and
// F64 get nothing, I32 only a from_float (truncating), q8_1 and q8_K (activation formats) no dot product.
#include "ggml-cpu.h"

#include "cpu/kernels/common.h"
#include "cpu/kernels/mul_mat/dot.h"
#include "cpu/quants/act_quant.h"
#include "cpu/quants/matvec.h"

#include "base/fp16.h"
#include "quant/formats.h"

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
    switchyard::quant::to_float_fn(type)(x, y, n);
}

// I32's from_float, as upstream's: each float truncated toward zero, as a C cast and as CPY to I32 does.
void fp32_to_i32(const float * x, void * y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        switchyard::cpu::kernels::store_value(GGML_TYPE_I32, static_cast<char *>(y) + i * 4, x[i]);
    }
}

// Elements converted at a time: a whole number of blocks of every format.
constexpr int kDotChunk = 256;

template <ggml_type X>
void vec_dot_generic(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc) {
    const ggml_type yt = switchyard::cpu::quants::vec_dot_type(X);
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

// Elements of y widened at a time for kernels that read f32 activations (MatVecKernel::act_layout), on the stack.
constexpr int kWidenChunk = 4096;

// Through the type's matrix-vector kernel, one row and one column at a time. y is in vec_dot_type's bytes, as
// the caller converted it; where the kernel reads another layout, y goes over to it kWidenChunk elements at a
// time (the values stay the same) and the chunks' sums are added.
template <ggml_type X>
void vec_dot_kernel(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc) {
    const switchyard::cpu::quants::MatVecKernel & k = switchyard::cpu::quants::matvec_kernel(X);
    const bool                                    widen = k.act_layout != k.act_type;
    for (int r = 0; r < nrc; ++r) {
        const char * w   = static_cast<const char *>(x) + static_cast<size_t>(r) * bx;
        const char * yr  = static_cast<const char *>(y) + static_cast<size_t>(r) * by;
        float *      out = s + static_cast<size_t>(r) * bs / sizeof(float);
        switchyard::cpu::quants::MatVecArgs a{};
        a.rows = 1;
        a.cols = 1;
        if (!widen) {
            a.k   = n;
            a.w   = w;
            a.act = yr;
            a.out = out;
            k.fn(a);
            continue;
        }
        float widened[kWidenChunk];
        float part = 0.0f, sum = 0.0f; // the first chunk's sum is taken as it is (a -0 stays -0)
        for (int i0 = 0; i0 < n; i0 += kWidenChunk) {
            const int m = std::min(kWidenChunk, n - i0);
            to_floats(k.act_type, yr + ggml_row_size(k.act_type, i0), widened, m);
            a.k   = m;
            a.w   = w + ggml_row_size(X, i0);
            a.act = widened;
            a.out = &part;
            k.fn(a);
            sum = i0 == 0 ? part : sum + part;
        }
        *out = sum;
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
            const auto type_i = static_cast<ggml_type>(i);
            switch (type_i) {
                case GGML_TYPE_I32: t[i].from_float = fp32_to_i32; continue; // upstream's only I32 entry
                case GGML_TYPE_Q8_1: // activation formats: their converter, no dot product of their own
                case GGML_TYPE_Q8_K:
                    t[i] = ggml_type_traits_cpu{switchyard::cpu::quants::act_converter(type_i), nullptr,
                                                type_i == GGML_TYPE_Q8_1 ? type_i : GGML_TYPE_F32,
                                                type_i == GGML_TYPE_Q8_1 ? 1 : 0};
                    continue;
                default: break;
            }
            if (!ggml_is_quantized(type_i) && type_i != GGML_TYPE_F32 && type_i != GGML_TYPE_F16 &&
                type_i != GGML_TYPE_BF16) {
                continue; // I8, I16, I64, F64 and the removed values: nothing, as upstream
            }
            // from_float converts floats into this type itself, as upstream's does (its mul_mat converts
            // activations with the entry of the weight's vec_dot_type): the activation formats with the kernels'
            // own converter (upstream's bytes), the others with their reference quantizer
            ggml_from_float_t from_float = switchyard::cpu::quants::act_converter(type_i);
            if (from_float == nullptr) {
                from_float = switchyard::quant::from_float_ref_fn(type_i);
            }
            const auto & kernel = switchyard::cpu::quants::matvec_kernel(type_i);
            if (kernel.fn != nullptr) {
                t[i] = ggml_type_traits_cpu{from_float, kernel_dots[i], kernel.act_type, 1};
                continue;
            }
            if (switchyard::quant::to_float_fn(type_i) == nullptr) {
                t[i].from_float = from_float;
                continue; // no float conversion: no dot product
            }
            t[i] = ggml_type_traits_cpu{from_float, dots[i], switchyard::cpu::quants::vec_dot_type(type_i), 1};
        }
        return t;
    }();
    if (type < 0 || type >= GGML_TYPE_COUNT) {
        return nullptr;
    }
    return &table[type];
}
