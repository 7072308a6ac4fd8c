// The repacked float form's tile for f32 and f16 weights on AVX-512 (float_tile.h): per step one element of 16
// rows (f16 converted to f32 on load, exactly), one FMA per column with the column's activation broadcast.
#if defined(__x86_64__) // the whole file: x86 code, built with the ISA flags of its name

#include "cpu/quants/gemm_float.h"
#include "cpu/repack/float_tile.h"

#include <cstring>

namespace switchyard::cpu::repack {

namespace {

constexpr __mmask16 kAll = 0xffff; // the zero-masking forms: the plain ones trip GCC 12's -Wmaybe-uninitialized

struct StepCommon {
    using Weights                  = __m512;
    static constexpr int    kCols     = quants::kGemmFloatCols;
    static constexpr size_t kColBytes = sizeof(float);
    static int64_t          steps(int64_t k) { return k; }
    static __m512           bcast(const uint8_t * x) {
        float v;
        std::memcpy(&v, x, sizeof(v));
        return _mm512_set1_ps(v);
    }
    static __m512 madd(__m512 acc, __m512 w, __m512 b) { return _mm512_fmadd_ps(w, b, acc); }
};

struct StepF32 : StepCommon {
    static constexpr size_t kStepBytes = kPanelRows * sizeof(float);
    static __m512           load(const uint8_t * p) { return _mm512_loadu_ps(p); }
};

struct StepF16 : StepCommon {
    static constexpr size_t kStepBytes = kPanelRows * sizeof(uint16_t);
    static __m512 load(const uint8_t * p) {
        return _mm512_maskz_cvtph_ps(kAll, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
    }
};

} // namespace

void float_tile_avx512(const FloatTileArgs & a) {
    if (a.type == GGML_TYPE_F16) {
        float_tile_run<StepF16>(a);
    } else {
        float_tile_run<StepF32>(a);
    }
}

} // namespace switchyard::cpu::repack

#endif // __x86_64__
