// The GEMM tiles' column count (1..kGemmMaxCols, gemm.h; 1..kGemmFloatCols for the f32 / f16 tiles, gemm_float.h)
// as a compile-time constant, so that each tile keeps its accumulators in registers: with_cols(n, fn) calls
// fn(std::integral_constant<int, n>{}).
#pragma once

#include "cpu/quants/gemm.h"

#include <type_traits>

namespace switchyard::cpu::quants {

// n in 1..kMax (larger: kMax)
template <int kMax, int kN = 1, class Fn>
void with_cols_upto(int n, Fn && fn) {
    if constexpr (kN == kMax) {
        fn(std::integral_constant<int, kN>{});
    } else if (n <= kN) {
        fn(std::integral_constant<int, kN>{});
    } else {
        with_cols_upto<kMax, kN + 1>(n, fn);
    }
}

template <class Fn>
void with_cols(int n, Fn && fn) {
    static_assert(kGemmMaxCols == 8, "one case per column count");
    switch (n) {
        case 1:  fn(std::integral_constant<int, 1>{}); break;
        case 2:  fn(std::integral_constant<int, 2>{}); break;
        case 3:  fn(std::integral_constant<int, 3>{}); break;
        case 4:  fn(std::integral_constant<int, 4>{}); break;
        case 5:  fn(std::integral_constant<int, 5>{}); break;
        case 6:  fn(std::integral_constant<int, 6>{}); break;
        case 7:  fn(std::integral_constant<int, 7>{}); break;
        default: fn(std::integral_constant<int, 8>{}); break;
    }
}

} // namespace switchyard::cpu::quants
