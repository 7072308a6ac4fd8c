// Float lanes, portable: VecScalar, one float. The tail of every vector loop and the whole of the scalar level.
//
// The Vec concept (shared by VecScalar, VecAvx2, VecAvx512): V::kLanes, V::load(const float *), V::splat(float),
// v.store(float *), V::load_partial(p, n) / v.store_partial(p, n) for the masked tail (the first n < kLanes lanes;
// the rest read as 0 and are not written), the arithmetic operators, vmin/vmax/vabs/vsqrt, select_gt / select_lt
// (lane-wise a > b ? x : y), vfma (a * b + c), hsum (the one horizontal sum), hsum4 (four sums at once, each in
// the order hsum4 fixes per level), sum_in_double(V{}, x, n) (n floats summed in double lanes), and the math
// functions of the element-wise functors (vexp, vexpm1, vtanh, verf, vlog, vlog1p, vsin, vcos, vfloor, vceil,
// vround, vtrunc). The x86 levels add the storage formats the
// matrix kernels read (V::load_f16 / load_bf16 and their _partial forms, V::from_bytes<signed>(16 bytes, part,
// offset)): the kernels written once over the lanes (quants/matvec_float.h, kernels/mul_mat/dot_lanes.h,
// dequant_lanes.h) use them.
//
// Every Vec sits in an unnamed namespace so that each translation unit keeps its own copies: an inline function
// compiled with AVX2 must never be the one the linker picks for the scalar path.
#pragma once

#include <cmath>
#include <cstdint>

namespace switchyard::cpu::simd {
namespace {

struct VecScalar {
    static constexpr int kLanes = 1;
    float v;
    static VecScalar load(const float * p) { return {*p}; }
    static VecScalar splat(float x) { return {x}; }
    void store(float * p) const { *p = v; }
    static VecScalar load_partial(const float * p, int64_t n) { return {n > 0 ? *p : 0.0f}; }
    void store_partial(float * p, int64_t n) const {
        if (n > 0) {
            *p = v;
        }
    }
};

inline VecScalar operator+(VecScalar a, VecScalar b) { return {a.v + b.v}; }
inline VecScalar operator-(VecScalar a, VecScalar b) { return {a.v - b.v}; }
inline VecScalar operator*(VecScalar a, VecScalar b) { return {a.v * b.v}; }
inline VecScalar operator/(VecScalar a, VecScalar b) { return {a.v / b.v}; }
inline VecScalar operator-(VecScalar a) { return {-a.v}; }
inline VecScalar vmin(VecScalar a, VecScalar b) { return {a.v < b.v ? a.v : b.v}; }
inline VecScalar vmax(VecScalar a, VecScalar b) { return {a.v > b.v ? a.v : b.v}; }
inline VecScalar vabs(VecScalar a) { return {std::fabs(a.v)}; }
inline VecScalar vsqrt(VecScalar a) { return {std::sqrt(a.v)}; }
inline VecScalar select_gt(VecScalar a, VecScalar b, VecScalar x, VecScalar y) { return a.v > b.v ? x : y; }
inline VecScalar select_lt(VecScalar a, VecScalar b, VecScalar x, VecScalar y) { return a.v < b.v ? x : y; }
inline float     hsum(VecScalar a) { return a.v; }
inline void      hsum4(VecScalar a, VecScalar b, VecScalar c, VecScalar d, float * out) {
    out[0] = a.v;
    out[1] = b.v;
    out[2] = c.v;
    out[3] = d.v;
}
inline VecScalar vfma(VecScalar a, VecScalar b, VecScalar c) { return {a.v * b.v + c.v}; }
// x[0] + ... + x[n - 1] in double: eight accumulators (element i in i % 8), combined pairwise, then the tail.
inline double sum_in_double(VecScalar, const float * x, int64_t n) {
    double  acc[8] = {};
    int64_t i      = 0;
    for (; i + 8 <= n; i += 8) {
        for (int l = 0; l < 8; ++l) {
            acc[l] += static_cast<double>(x[i + l]);
        }
    }
    double rest = 0.0;
    for (; i < n; ++i) {
        rest += static_cast<double>(x[i]);
    }
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7])) + rest;
}
inline VecScalar vexp(VecScalar a) { return {std::exp(a.v)}; }
inline VecScalar vexpm1(VecScalar a) { return {std::expm1(a.v)}; }
inline VecScalar vtanh(VecScalar a) { return {std::tanh(a.v)}; }
inline VecScalar verf(VecScalar a) { return {std::erf(a.v)}; }
inline VecScalar vlog(VecScalar a) { return {std::log(a.v)}; }
inline VecScalar vlog1p(VecScalar a) { return {std::log1p(a.v)}; }
inline VecScalar vsin(VecScalar a) { return {std::sin(a.v)}; }
inline VecScalar vcos(VecScalar a) { return {std::cos(a.v)}; }
inline VecScalar vfloor(VecScalar a) { return {std::floor(a.v)}; }
inline VecScalar vceil(VecScalar a) { return {std::ceil(a.v)}; }
inline VecScalar vround(VecScalar a) { return {std::round(a.v)}; }
inline VecScalar vtrunc(VecScalar a) { return {std::trunc(a.v)}; }

} // namespace
} // namespace switchyard::cpu::simd
