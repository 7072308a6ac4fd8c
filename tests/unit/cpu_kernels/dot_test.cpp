// The float dot products of the matrix kernels (kernels/mul_mat/dot.h), every level this CPU runs: against a
// double-precision reference within float rounding, for lengths around the lane counts (masked tails), and the
// 4 x 4 tile's rows bit for bit equal to dot4 on the same row (a row's bits must not depend on which path a
// thread split sends it through).
#include "cpu/kernels/mul_mat/dot.h"
#include "cpu/simd/isa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using switchyard::cpu::kernels::DotKernels;

std::vector<const DotKernels *> tables() {
    std::vector<const DotKernels *> t{&switchyard::cpu::kernels::dot_kernels_scalar()};
#if defined(__x86_64__) // the ISA tables exist in x86-64 builds only
    using switchyard::cpu::simd::Isa;
    using switchyard::cpu::simd::isa_supported;
    if (isa_supported(Isa::kAvx2)) {
        t.push_back(&switchyard::cpu::kernels::dot_kernels_avx2());
    }
    if (isa_supported(Isa::kAvx512)) {
        t.push_back(&switchyard::cpu::kernels::dot_kernels_avx512());
    }
#endif
    t.push_back(&switchyard::cpu::kernels::dot_kernels());
    return t;
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
    std::mt19937                          rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float>                    v(n);
    for (float & x : v) {
        x = u(rng);
    }
    return v;
}

// The exact dot in double and the bound on a float summation's error (n * eps * sum |x y|, generous).
struct Reference {
    double value, bound;
};

Reference reference(const float * x, const float * y, int64_t n) {
    double s = 0.0, a = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        s += static_cast<double>(x[i]) * y[i];
        a += std::fabs(static_cast<double>(x[i]) * y[i]);
    }
    return {s, (static_cast<double>(n) + 2.0) * 1.2e-7 * a + 1e-30};
}

const int64_t kLengths[] = {1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 100, 257, 1024, 1031};

TEST(DotKernels, DotMatchesTheDoubleReference) {
    for (const DotKernels * k : tables()) {
        for (const int64_t n : kLengths) {
            const auto      x   = random_floats(static_cast<size_t>(n), 1u + static_cast<uint32_t>(n));
            const auto      y   = random_floats(static_cast<size_t>(n), 100u + static_cast<uint32_t>(n));
            const Reference ref = reference(x.data(), y.data(), n);
            EXPECT_NEAR(k->dot(x.data(), y.data(), n), ref.value, ref.bound) << k->isa << " n=" << n;
        }
    }
}

TEST(DotKernels, TileRowsEqualDot4BitForBitAndTheReference) {
    for (const DotKernels * k : tables()) {
        for (const int64_t n : kLengths) {
            const int64_t lda = n + 5; // rows of a apart by more than n: the tile must not read the gap
            auto          a   = random_floats(static_cast<size_t>(4 * lda), 7u + static_cast<uint32_t>(n));
            std::vector<std::vector<float>> cols;
            const float *                   b[4];
            for (int c = 0; c < 4; ++c) {
                cols.push_back(random_floats(static_cast<size_t>(n), 50u * static_cast<uint32_t>(c + 1) + static_cast<uint32_t>(n)));
                b[c] = cols.back().data();
            }
            float tile[16];
            k->dot4x4(a.data(), lda, b, n, tile);
            for (int r = 0; r < 4; ++r) {
                float row[4];
                k->dot4(a.data() + r * lda, b[0], b[1], b[2], b[3], n, row);
                for (int c = 0; c < 4; ++c) {
                    uint32_t tb = 0, rb = 0;
                    std::memcpy(&tb, &tile[4 * r + c], 4);
                    std::memcpy(&rb, &row[c], 4);
                    EXPECT_EQ(tb, rb) << k->isa << " n=" << n << " r=" << r << " c=" << c;
                    const Reference ref = reference(a.data() + r * lda, b[c], n);
                    EXPECT_NEAR(row[c], ref.value, ref.bound) << k->isa << " n=" << n;
                }
            }
        }
    }
}

} // namespace
