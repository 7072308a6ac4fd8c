// The repacked float form's tile for bf16 weights on AVX-512 BF16 (float_tile.h): per step a pair of elements of
// 16 rows, one vdpbf16ps per column with the column's bf16 pair broadcast (products exact, sums in float; subnormal
// inputs count as zero, as in upstream's bf16 dot product).
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/repack/float_tile.h"

#include <cstring>

namespace switchyard::cpu::repack {

namespace {

struct StepBf16 {
    using Weights                      = __m512bh;
    static constexpr int    kCols      = quants::kGemmMaxCols;
    static constexpr size_t kColBytes  = sizeof(uint32_t);
    static constexpr size_t kStepBytes = kPanelRows * sizeof(uint32_t);
    static int64_t          steps(int64_t k) { return k / 2; }
    static __m512bh         load(const uint8_t * p) { return (__m512bh) _mm512_loadu_si512(p); }
    static __m512bh         bcast(const uint8_t * x) {
        int32_t v;
        std::memcpy(&v, x, sizeof(v));
        return (__m512bh) _mm512_set1_epi32(v);
    }
    static __m512 madd(__m512 acc, __m512bh w, __m512bh b) { return _mm512_dpbf16_ps(acc, w, b); }
};

} // namespace

void float_tile_avx512bf16(const FloatTileArgs & a) { float_tile_run<StepBf16>(a); }

} // namespace switchyard::cpu::repack

#endif // __x86_64__
