// The element-wise row functions of every ISA table (scalar always, AVX2 when the CPU has it) against scalar
// references in double: all one-input ops, the binary ops, the GLU variants and the reductions used by the norms.
// Inputs mix random values with the special cases of each path (tails shorter than a vector, tanh's small-x
// branch, exp overflow and underflow, rounding ties).
#include "cpu/simd/isa.h"
#include "cpu/kernels/common.h"
#include "ref_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using switchyard::cpu::kernels::BinaryRowFn;
using switchyard::cpu::kernels::kMapOpCount;
using switchyard::cpu::kernels::MapOp;
using switchyard::cpu::kernels::MapParams;
using switchyard::cpu::kernels::RowKernels;

std::vector<const RowKernels *> tables() {
    std::vector<const RowKernels *> t = {&switchyard::cpu::kernels::row_kernels_scalar()};
#if defined(__x86_64__) // the ISA tables exist in x86-64 builds only
    if (switchyard::cpu::simd::isa_supported(switchyard::cpu::simd::Isa::kAvx2)) {
        t.push_back(&switchyard::cpu::kernels::row_kernels_avx2());
    }
    if (switchyard::cpu::simd::isa_supported(switchyard::cpu::simd::Isa::kAvx512)) {
        t.push_back(&switchyard::cpu::kernels::row_kernels_avx512());
    }
#endif
    return t;
}

std::vector<float> inputs() {
    std::vector<float> v = {0.0f,  -0.0f, 1e-8f, -1e-8f, 0.29f, -0.29f, 0.31f,  -0.31f, 0.5f,   -0.5f, 1.5f,
                            2.5f,  -2.5f, 20.5f, -20.5f, 25.0f, -25.0f, 87.0f,  -87.0f, 88.5f,  -88.5f,
                            100.f, -100.f, -104.f, 3.0f, -3.0f, 1e-3f, -1e-3f, 7.25f, -7.75f, 0.125f};
    std::mt19937                          rng(42);
    std::uniform_real_distribution<float> dist(-6.0f, 6.0f);
    while (v.size() < 1003) { // not a multiple of any vector width: tails run too
        v.push_back(dist(rng));
    }
    return v;
}

// The reference of a one-input op (prm as passed to the row function).
double map_ref(MapOp op, double x, const MapParams & prm) {
    using namespace switchyard::kernel_test;
    const int o = static_cast<int>(op);
    if (op == MapOp::kXielu) {
        return ref_xielu(x, XieluParams{prm.p[0], prm.p[1], prm.p[2], prm.p[3]});
    }
    if (o < GGML_UNARY_OP_COUNT) {
        return ref_unary(static_cast<ggml_unary_op>(o), x);
    }
    switch (op) {
        case MapOp::kSqr:       return x * x;
        case MapOp::kSqrt:      return std::sqrt(x);
        case MapOp::kLog:       return std::log(x);
        case MapOp::kSin:       return std::sin(x);
        case MapOp::kCos:       return std::cos(x);
        case MapOp::kLeakyRelu: return x > 0 ? x : prm.p[0] * x;
        case MapOp::kClamp:     return std::max(static_cast<double>(prm.p[0]), std::min(x, static_cast<double>(prm.p[1])));
        case MapOp::kScale:     return x * prm.p[0] + prm.p[1];
        default:                return NAN;
    }
}

MapParams params_for(MapOp op) {
    switch (op) {
        case MapOp::kXielu:     return MapParams{{0.8f, 0.6f, 0.5f, -1e-6f}};
        case MapOp::kLeakyRelu: return MapParams{{0.1f, 0, 0, 0}};
        case MapOp::kClamp:     return MapParams{{-1.5f, 2.0f, 0, 0}};
        case MapOp::kScale:     return MapParams{{-0.75f, 0.25f, 0, 0}};
        default:                return MapParams{};
    }
}

// |got - want| <= 1e-6 + 4e-6 |want| (float math against double), exact for infinities, NaN for NaN. want is
// first rounded to float, so a reference beyond float's range expects inf.
void expect_close(double got, double want_d, const std::string & what) {
    const double want = static_cast<float>(want_d);
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << what;
    } else if (std::isinf(want)) {
        EXPECT_EQ(got, want) << what;
    } else {
        EXPECT_NEAR(got, want, 1e-6 + 4e-6 * std::fabs(want)) << what;
    }
}

TEST(RowKernels, EveryTableIsComplete) {
    for (const RowKernels * k : tables()) {
        for (int op = 0; op < kMapOpCount; ++op) {
            EXPECT_NE(k->map[static_cast<size_t>(op)], nullptr) << k->isa << " map op " << op;
        }
        for (const auto fn : k->binary) {
            EXPECT_NE(fn, nullptr) << k->isa;
        }
        for (const auto fn : k->glu) {
            EXPECT_NE(fn, nullptr) << k->isa;
        }
        EXPECT_TRUE(k->sum && k->sum_sq && k->sum_sq_dev && k->shift_scale) << k->isa;
    }
}

TEST(RowKernels, OneInputOpsMatchReference) {
    const std::vector<float> in = inputs();
    for (const RowKernels * k : tables()) {
        for (int o = 0; o < kMapOpCount; ++o) {
            const auto         op  = static_cast<MapOp>(o);
            const MapParams    prm = params_for(op);
            std::vector<float> x   = in;
            if (op == MapOp::kSqrt || op == MapOp::kLog) {
                for (float & v : x) {
                    v = std::fabs(v) + 1e-3f;
                }
            }
            std::vector<float> y(x.size());
            k->map[static_cast<size_t>(o)](x.data(), y.data(), static_cast<int64_t>(x.size()), prm);
            for (size_t i = 0; i < x.size(); ++i) {
                expect_close(y[i], map_ref(op, x[i], prm),
                             std::string(k->isa) + " op " + std::to_string(o) + " x=" + std::to_string(x[i]));
            }
        }
    }
}

TEST(RowKernels, OneInputOpsWorkInPlace) {
    for (const RowKernels * k : tables()) {
        std::vector<float> x = inputs();
        const std::vector<float> orig = x;
        k->map[static_cast<size_t>(MapOp::kSilu)](x.data(), x.data(), static_cast<int64_t>(x.size()), MapParams{});
        for (size_t i = 0; i < x.size(); ++i) {
            expect_close(x[i], switchyard::kernel_test::ref_silu(orig[i]), std::string(k->isa) + " in-place silu");
        }
    }
}

TEST(RowKernels, BinaryOpsMatchReference) {
    std::mt19937                          rng(7);
    std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
    std::vector<float>                    a(517), b(517), y(517);
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = dist(rng);
        b[i] = dist(rng) + (i % 2 ? 3.5f : -3.5f); // keep divisors away from 0
    }
    const std::function<double(double, double)> refs[4] = {
        [](double p, double q) { return p + q; }, [](double p, double q) { return p - q; },
        [](double p, double q) { return p * q; }, [](double p, double q) { return p / q; }};
    for (const RowKernels * k : tables()) {
        for (size_t op = 0; op < 4; ++op) {
            k->binary[op](a.data(), b.data(), y.data(), static_cast<int64_t>(a.size()));
            for (size_t i = 0; i < a.size(); ++i) {
                expect_close(y[i], refs[op](a[i], b[i]), std::string(k->isa) + " binary " + std::to_string(op));
            }
        }
    }
}

TEST(RowKernels, GluOpsMatchReference) {
    const std::vector<float> x = inputs();
    std::vector<float>       g(x.rbegin(), x.rend());
    for (float & v : g) {
        v = std::fmod(v, 4.0f);
    }
    const MapParams prm{{1.702f, 7.0f, 0, 0}};
    for (const RowKernels * k : tables()) {
        for (int op = 0; op < GGML_GLU_OP_COUNT; ++op) {
            std::vector<float> y(x.size());
            k->glu[static_cast<size_t>(op)](x.data(), g.data(), y.data(), static_cast<int64_t>(x.size()), prm);
            for (size_t i = 0; i < x.size(); ++i) {
                expect_close(y[i], switchyard::kernel_test::ref_glu(static_cast<ggml_glu_op>(op), x[i], g[i], prm.p[0], prm.p[1]), std::string(k->isa) + " glu " + std::to_string(op));
            }
        }
    }
}

TEST(RowKernels, ReductionsMatchReference) {
    std::mt19937                          rng(3);
    std::uniform_real_distribution<float> dist(-2.0f, 3.0f);
    for (const int64_t n : {1, 7, 8, 255, 256, 257, 4099}) {
        std::vector<float> x(static_cast<size_t>(n));
        double             s = 0, sq = 0, abs_sum = 0;
        for (float & v : x) {
            v = dist(rng);
            s += v;
            sq += static_cast<double>(v) * v;
            abs_sum += std::fabs(v);
        }
        const float mean = static_cast<float>(s / static_cast<double>(n));
        double      dev  = 0;
        for (float v : x) {
            dev += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
        }
        for (const RowKernels * k : tables()) {
            EXPECT_NEAR(k->sum(x.data(), n), s, 1e-6 * abs_sum) << k->isa << " n=" << n;
            EXPECT_NEAR(k->sum_sq(x.data(), n), sq, 1e-6 * sq) << k->isa << " n=" << n;
            EXPECT_NEAR(k->sum_sq_dev(x.data(), n, mean), dev, 1e-6 * sq) << k->isa << " n=" << n;
            std::vector<float> y(x.size());
            k->shift_scale(x.data(), y.data(), n, 0.5f, -2.0f);
            for (size_t i = 0; i < x.size(); ++i) {
                expect_close(y[i], (x[i] - 0.5) * -2.0, std::string(k->isa) + " shift_scale");
            }
        }
    }
}

TEST(RowKernels, ActiveTableIsOneOfTheKnown) {
    const std::string isa = switchyard::cpu::kernels::row_kernels().isa;
    EXPECT_TRUE(isa == "scalar" || isa == "avx2" || isa == "avx512") << isa;
}

} // namespace
