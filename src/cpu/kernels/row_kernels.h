// The element-wise row functions: the one-input ops, binary ops, gated units and reductions, each written once
// as a functor over a Vec type (src/cpu/simd/) and instantiated per ISA into a RowKernels table. row_kernels()
// gives the table the kernel registry selects (cpu/kernel_registry.h); the scalar one is built in unary.cpp, the
// AVX2 one in unary_avx2.cpp (compiled with AVX2 + FMA), the AVX-512 one in unary_avx512.cpp.
#pragma once

#include "ggml.h"

#include "cpu/simd/vec_avx2.h"
#include "cpu/simd/vec_scalar.h"

#include <array>
#include <cstdint>

namespace switchyard::cpu::kernels {

// Elements a reduction accumulates in lanes before adding to its double total (a multiple of every block size).
constexpr int64_t kReduceChunk = 256;

using simd::VecScalar;
#if defined(SWITCHYARD_SIMD_HAVE_AVX2)
using simd::VecAvx2;
#endif

} // namespace switchyard::cpu::kernels

// ---- element-wise functors -------------------------------------------------------------------------------------
//
// MapOp lists the one-input ops: the first GGML_UNARY_OP_COUNT values are ggml_unary_op in its order, then the
// ops with their own ggml_op. Each functor has `template <class V> static V apply(V x, const MapParams & p)`.

namespace switchyard::cpu::kernels {

enum class MapOp : int {
    // ggml_unary_op, same values
    kAbs, kSgn, kNeg, kStep, kTanh, kElu, kRelu, kSigmoid, kGelu, kGeluQuick, kSilu, kHardswish, kHardsigmoid,
    kExp, kExpm1, kSoftplus, kGeluErf, kXielu, kFloor, kCeil, kRound, kTrunc,
    // ops of their own
    kSqr, kSqrt, kLog, kSin, kCos, kLeakyRelu, kClamp, kScale,
    kCount
};
static_assert(static_cast<int>(MapOp::kTrunc) == GGML_UNARY_OP_TRUNC && static_cast<int>(MapOp::kSqr) ==
              GGML_UNARY_OP_COUNT, "MapOp must start with ggml_unary_op in its order");

constexpr int kMapOpCount = static_cast<int>(MapOp::kCount);

// Parameters of the parametrised ops: LEAKY_RELU {slope}, CLAMP {min, max}, SCALE {s, b}, XIELU {alpha_n, alpha_p,
// beta, eps}, SWIGLU_OAI {alpha, limit}.
struct MapParams {
    float p[4] = {0, 0, 0, 0};
};

using MapRowFn    = void (*)(const float * x, float * y, int64_t n, const MapParams & prm);
using BinaryRowFn = void (*)(const float * a, const float * b, float * y, int64_t n);
using GluRowFn    = void (*)(const float * x, const float * g, float * y, int64_t n, const MapParams & prm);

// The row functions of one ISA. y may equal x (or a) in every function: no restrict.
struct RowKernels {
    std::array<MapRowFn, kMapOpCount>          map{};
    std::array<BinaryRowFn, 4>                 binary{}; // add, sub, mul, div
    std::array<GluRowFn, GGML_GLU_OP_COUNT>    glu{};    // ggml_glu_op order
    double (*sum)(const float * x, int64_t n)                                         = nullptr;
    double (*sum_sq)(const float * x, int64_t n)                                      = nullptr;
    double (*sum_sq_dev)(const float * x, int64_t n, float mean)                      = nullptr; // sum (x-mean)^2
    void (*shift_scale)(const float * x, float * y, int64_t n, float shift, float s)  = nullptr; // (x-shift)*s
    const char * isa                                                                  = "";
};

// The table the kernel registry selects (cpu/kernel_registry.h: AVX-512, else AVX2 when the CPU has it after
// SWITCHYARD_CPU_ISA, else scalar).
const RowKernels & row_kernels();
// The scalar table (always available), the AVX2 and the AVX-512 ones, which the registry's columns hold (call a
// level's only when the CPU runs it).
const RowKernels & row_kernels_scalar();
const RowKernels & row_kernels_avx2();
const RowKernels & row_kernels_avx512();

namespace {

constexpr float kGeluCoefA     = 0.044715f;
constexpr float kGeluQuickCoef = 1.702f;
constexpr float kSqrt2OverPi   = 0.79788456080286535587989211986876f;
constexpr float kSqrt2Inv      = 0.70710678118654752440084436210484f;

template <class V> V vzero() { return V::splat(0.0f); }
template <class V> V vone() { return V::splat(1.0f); }
template <class V> V sigmoid(V x) { return vone<V>() / (vone<V>() + vexp(-x)); }
template <class V> V relu(V x) { return select_gt(x, vzero<V>(), x, vzero<V>()); }
template <class V> V silu(V x) { return x / (vone<V>() + vexp(-x)); }
// 0.5 x (1 + tanh(u)) written as x / (1 + exp(-2u)): the same function without the cancellation for x << 0
template <class V> V gelu(V x) {
    const V u = V::splat(kSqrt2OverPi) * x * (vone<V>() + V::splat(kGeluCoefA) * x * x);
    return x / (vone<V>() + vexp(V::splat(-2.0f) * u));
}
template <class V> V gelu_quick(V x) { return x / (vone<V>() + vexp(V::splat(-kGeluQuickCoef) * x)); }
template <class V> V gelu_erf(V x) {
    return V::splat(0.5f) * x * (vone<V>() + verf(x * V::splat(kSqrt2Inv)));
}
template <class V> V hardsigmoid(V x) {
    return vmin(vone<V>(), vmax(vzero<V>(), (x + V::splat(3.0f)) / V::splat(6.0f)));
}

struct OpAbs { template <class V> static V apply(V x, const MapParams &) { return vabs(x); } };
struct OpSgn {
    template <class V> static V apply(V x, const MapParams &) {
        const V z = vzero<V>();
        return select_gt(x, z, vone<V>(), select_lt(x, z, V::splat(-1.0f), z));
    }
};
struct OpNeg { template <class V> static V apply(V x, const MapParams &) { return -x; } };
struct OpStep {
    template <class V> static V apply(V x, const MapParams &) { return select_gt(x, vzero<V>(), vone<V>(), vzero<V>()); }
};
struct OpTanh { template <class V> static V apply(V x, const MapParams &) { return vtanh(x); } };
struct OpElu {
    template <class V> static V apply(V x, const MapParams &) { return select_gt(x, vzero<V>(), x, vexpm1(x)); }
};
struct OpRelu { template <class V> static V apply(V x, const MapParams &) { return relu(x); } };
struct OpSigmoid { template <class V> static V apply(V x, const MapParams &) { return sigmoid(x); } };
struct OpGelu { template <class V> static V apply(V x, const MapParams &) { return gelu(x); } };
struct OpGeluQuick { template <class V> static V apply(V x, const MapParams &) { return gelu_quick(x); } };
struct OpSilu { template <class V> static V apply(V x, const MapParams &) { return silu(x); } };
struct OpHardswish { template <class V> static V apply(V x, const MapParams &) { return x * hardsigmoid(x); } };
struct OpHardsigmoid { template <class V> static V apply(V x, const MapParams &) { return hardsigmoid(x); } };
struct OpExp { template <class V> static V apply(V x, const MapParams &) { return vexp(x); } };
struct OpExpm1 { template <class V> static V apply(V x, const MapParams &) { return vexpm1(x); } };
struct OpSoftplus {
    template <class V> static V apply(V x, const MapParams &) {
        return select_gt(x, V::splat(20.0f), x, vlog1p(vexp(x)));
    }
};
struct OpGeluErf { template <class V> static V apply(V x, const MapParams &) { return gelu_erf(x); } };
// p = {alpha_n, alpha_p, beta, eps}
struct OpXielu {
    template <class V> static V apply(V x, const MapParams & p) {
        const V beta = V::splat(p.p[2]);
        const V pos  = V::splat(p.p[1]) * x * x + beta * x;
        const V neg  = (vexpm1(vmin(x, V::splat(p.p[3]))) - x) * V::splat(p.p[0]) + beta * x;
        return select_gt(x, vzero<V>(), pos, neg);
    }
};
struct OpFloor { template <class V> static V apply(V x, const MapParams &) { return vfloor(x); } };
struct OpCeil { template <class V> static V apply(V x, const MapParams &) { return vceil(x); } };
struct OpRound { template <class V> static V apply(V x, const MapParams &) { return vround(x); } };
struct OpTrunc { template <class V> static V apply(V x, const MapParams &) { return vtrunc(x); } };
struct OpSqr { template <class V> static V apply(V x, const MapParams &) { return x * x; } };
struct OpSqrt { template <class V> static V apply(V x, const MapParams &) { return vsqrt(x); } };
struct OpLog { template <class V> static V apply(V x, const MapParams &) { return vlog(x); } };
struct OpSin { template <class V> static V apply(V x, const MapParams &) { return vsin(x); } };
struct OpCos { template <class V> static V apply(V x, const MapParams &) { return vcos(x); } };
// p = {slope}: max(x, 0) + slope * min(x, 0)
struct OpLeakyRelu {
    template <class V> static V apply(V x, const MapParams & p) {
        const V z = vzero<V>();
        return relu(x) + V::splat(p.p[0]) * select_lt(x, z, x, z);
    }
};
// p = {min, max}
struct OpClamp {
    template <class V> static V apply(V x, const MapParams & p) {
        return vmax(vmin(x, V::splat(p.p[1])), V::splat(p.p[0]));
    }
};
// p = {s, b}
struct OpScale {
    template <class V> static V apply(V x, const MapParams & p) { return x * V::splat(p.p[0]) + V::splat(p.p[1]); }
};

struct OpAdd { template <class V> static V apply(V a, V b) { return a + b; } };
struct OpSub { template <class V> static V apply(V a, V b) { return a - b; } };
struct OpMul { template <class V> static V apply(V a, V b) { return a * b; } };
struct OpDiv { template <class V> static V apply(V a, V b) { return a / b; } };

// GLU: activation of x times the gate g
struct GluReglu { template <class V> static V apply(V x, V g, const MapParams &) { return relu(x) * g; } };
struct GluGeglu { template <class V> static V apply(V x, V g, const MapParams &) { return gelu(x) * g; } };
struct GluSwiglu { template <class V> static V apply(V x, V g, const MapParams &) { return silu(x) * g; } };
struct GluGegluErf { template <class V> static V apply(V x, V g, const MapParams &) { return gelu_erf(x) * g; } };
struct GluGegluQuick {
    template <class V> static V apply(V x, V g, const MapParams &) { return gelu_quick(x) * g; }
};
// p = {alpha, limit}: x' = min(x, limit), g' = clamp(g, -limit, limit), x' * sigmoid(alpha x') * (g' + 1)
struct GluSwigluOai {
    template <class V> static V apply(V x, V g, const MapParams & p) {
        const V limit = V::splat(p.p[1]);
        const V xc    = vmin(x, limit);
        const V gc    = vmax(vmin(g, limit), -limit);
        return xc / (vone<V>() + vexp(-(V::splat(p.p[0]) * xc))) * (gc + vone<V>());
    }
};

// x and g clamped (x to at most limit, g to [-limit, limit]) before silu(x) * g
struct GluSwigluClamp {
    template <class V> static V apply(V x, V g, const MapParams & p) {
        const V limit = V::splat(p.p[1]);
        const V xc    = vmin(x, limit);
        const V gc    = vmax(vmin(g, limit), -limit);
        return xc / (vone<V>() + vexp(-xc)) * gc;
    }
};

template <class V, class Op>
void map_row(const float * x, float * y, int64_t n, const MapParams & prm) {
    int64_t i = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        Op::apply(V::load(x + i), prm).store(y + i);
    }
    for (; i < n; ++i) {
        Op::apply(VecScalar::load(x + i), prm).store(y + i);
    }
}

template <class V, class Op>
void binary_row(const float * a, const float * b, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        Op::apply(V::load(a + i), V::load(b + i)).store(y + i);
    }
    for (; i < n; ++i) {
        Op::apply(VecScalar::load(a + i), VecScalar::load(b + i)).store(y + i);
    }
}

template <class V, class Op>
void glu_row(const float * x, const float * g, float * y, int64_t n, const MapParams & prm) {
    int64_t i = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        Op::apply(V::load(x + i), V::load(g + i), prm).store(y + i);
    }
    for (; i < n; ++i) {
        Op::apply(VecScalar::load(x + i), VecScalar::load(g + i), prm).store(y + i);
    }
}

// Reductions accumulate kChunk elements in lanes, then add the chunk's total in double.
template <class V, class Term>
double reduce_row(const float * x, int64_t n, Term term) {
    double total = 0.0;
    for (int64_t c = 0; c < n; c += kReduceChunk) {
        const int64_t end = c + kReduceChunk < n ? c + kReduceChunk : n;
        V             acc = vzero<V>();
        int64_t       i   = c;
        for (; i + V::kLanes <= end; i += V::kLanes) {
            acc = acc + term(V::load(x + i));
        }
        float rest = 0.0f;
        for (; i < end; ++i) {
            rest += hsum(term(VecScalar::load(x + i)));
        }
        total += static_cast<double>(hsum(acc)) + static_cast<double>(rest);
    }
    return total;
}

// Sums in double from the first element on (each level's sum_in_double), as upstream's SUM, SUM_ROWS and MEAN do:
// float lanes lost up to 8 x the rounding error there, enough to fail finite-difference gradient checks through a
// SUM loss. Same speed as the float lanes once the row is read from memory; about 0.7 x from L1.
template <class V>
double sum_row(const float * x, int64_t n) {
    return sum_in_double(V{}, x, n);
}

template <class V>
double sum_sq_row(const float * x, int64_t n) {
    return reduce_row<V>(x, n, [](auto v) { return v * v; });
}

template <class V>
double sum_sq_dev_row(const float * x, int64_t n, float mean) {
    return reduce_row<V>(x, n, [mean](auto v) {
        const auto d = v - decltype(v)::splat(mean);
        return d * d;
    });
}

template <class V>
void shift_scale_row(const float * x, float * y, int64_t n, float shift, float s) {
    MapParams prm;
    prm.p[0] = s;
    prm.p[1] = -shift * s;
    map_row<V, OpScale>(x, y, n, prm);
}

template <class V>
RowKernels make_row_kernels(const char * isa) {
    RowKernels k;
    auto set = [&k](MapOp op, MapRowFn fn) { k.map[static_cast<size_t>(op)] = fn; };
    set(MapOp::kAbs, map_row<V, OpAbs>);             set(MapOp::kSgn, map_row<V, OpSgn>);
    set(MapOp::kNeg, map_row<V, OpNeg>);             set(MapOp::kStep, map_row<V, OpStep>);
    set(MapOp::kTanh, map_row<V, OpTanh>);           set(MapOp::kElu, map_row<V, OpElu>);
    set(MapOp::kRelu, map_row<V, OpRelu>);           set(MapOp::kSigmoid, map_row<V, OpSigmoid>);
    set(MapOp::kGelu, map_row<V, OpGelu>);           set(MapOp::kGeluQuick, map_row<V, OpGeluQuick>);
    set(MapOp::kSilu, map_row<V, OpSilu>);           set(MapOp::kHardswish, map_row<V, OpHardswish>);
    set(MapOp::kHardsigmoid, map_row<V, OpHardsigmoid>);
    set(MapOp::kExp, map_row<V, OpExp>);             set(MapOp::kExpm1, map_row<V, OpExpm1>);
    set(MapOp::kSoftplus, map_row<V, OpSoftplus>);   set(MapOp::kGeluErf, map_row<V, OpGeluErf>);
    set(MapOp::kXielu, map_row<V, OpXielu>);         set(MapOp::kFloor, map_row<V, OpFloor>);
    set(MapOp::kCeil, map_row<V, OpCeil>);           set(MapOp::kRound, map_row<V, OpRound>);
    set(MapOp::kTrunc, map_row<V, OpTrunc>);         set(MapOp::kSqr, map_row<V, OpSqr>);
    set(MapOp::kSqrt, map_row<V, OpSqrt>);           set(MapOp::kLog, map_row<V, OpLog>);
    set(MapOp::kSin, map_row<V, OpSin>);             set(MapOp::kCos, map_row<V, OpCos>);
    set(MapOp::kLeakyRelu, map_row<V, OpLeakyRelu>); set(MapOp::kClamp, map_row<V, OpClamp>);
    set(MapOp::kScale, map_row<V, OpScale>);
    k.binary = {binary_row<V, OpAdd>, binary_row<V, OpSub>, binary_row<V, OpMul>, binary_row<V, OpDiv>};
    k.glu    = {glu_row<V, GluReglu>, glu_row<V, GluGeglu>, glu_row<V, GluSwiglu>, glu_row<V, GluSwigluOai>,
                glu_row<V, GluGegluErf>, glu_row<V, GluGegluQuick>, glu_row<V, GluSwigluClamp>};
    k.sum         = sum_row<V>;
    k.sum_sq      = sum_sq_row<V>;
    k.sum_sq_dev  = sum_sq_dev_row<V>;
    k.shift_scale = shift_scale_row<V>;
    k.isa         = isa;
    return k;
}

} // namespace
} // namespace switchyard::cpu::kernels
