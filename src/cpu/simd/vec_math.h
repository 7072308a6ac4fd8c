// The math functions of the Vec concept (simd/vec_scalar.h) written once for every level with more than one
// lane: tanh from the level's vexp, and the functions without a vector version here (expm1, erf, log, log1p,
// sin, cos, round) lane by lane through the scalar library. Included by vec_avx2.h and vec_avx512.h inside their
// ISA guards; the scalar level has its own one-line versions (overload resolution prefers them).
#pragma once

#include <cmath>

namespace switchyard::cpu::simd {
namespace {

template <class V>
concept WideVec = V::kLanes > 1;

// Applies a scalar function to each lane.
template <WideVec V, class F>
V lanewise(V a, F f) {
    alignas(64) float t[V::kLanes];
    a.store(t);
    for (float & x : t) {
        x = f(x);
    }
    return V::load(t);
}

// tanh: odd Taylor polynomial for |x| < 0.3, 1 - 2 / (exp(2|x|) + 1) with the sign of x above.
template <WideVec V>
V vtanh(V a) {
    const V ax  = vabs(a);
    const V one = V::splat(1.0f);
    const V big = one - V::splat(2.0f) / (vexp(ax + ax) + one);
    const V x2  = a * a;
    V       p   = V::splat(-1382.0f / 155925.0f);
    p           = p * x2 + V::splat(62.0f / 2835.0f);
    p           = p * x2 + V::splat(-17.0f / 315.0f);
    p           = p * x2 + V::splat(2.0f / 15.0f);
    p           = p * x2 + V::splat(-1.0f / 3.0f);
    const V small = a + a * x2 * p;
    return select_lt(ax, V::splat(0.3f), small, with_sign_of(big, a));
}

template <WideVec V> V vexpm1(V a) { return lanewise(a, [](float x) { return std::expm1(x); }); }
template <WideVec V> V verf(V a) { return lanewise(a, [](float x) { return std::erf(x); }); }
template <WideVec V> V vlog(V a) { return lanewise(a, [](float x) { return std::log(x); }); }
template <WideVec V> V vlog1p(V a) { return lanewise(a, [](float x) { return std::log1p(x); }); }
template <WideVec V> V vsin(V a) { return lanewise(a, [](float x) { return std::sin(x); }); }
template <WideVec V> V vcos(V a) { return lanewise(a, [](float x) { return std::cos(x); }); }
template <WideVec V> V vround(V a) { return lanewise(a, [](float x) { return std::round(x); }); }

} // namespace
} // namespace switchyard::cpu::simd
