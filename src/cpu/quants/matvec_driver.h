// The matrix-vector driver the levels' kernels share (matvec.h: MatVecArgs): the column count (1 to kMaxCols)
// becomes a compile-time constant, so that a weight row's sums for every column stay in registers, and the weight
// rows are walked one by one. Each level's file supplies only what computes one row against C columns.
//
//   template <class F> void kernel(const MatVecArgs & a) {
//       for_column_count(a, [&]<int C>() {
//           each_weight_row(a, [&](const uint8_t * w, float * out) { row_times_columns<F, C>(a, w, out); });
//       });
//   }
//
// Header-only and inlined into each level's translation unit (compiled with that level's flags).
#pragma once

#include "cpu/quants/matvec.h"
#include "cpu/quants/type_rows.h"

#include <cstddef>
#include <cstdint>

namespace switchyard::cpu::quants {

// Calls body.template operator()<C>() with C = a.cols (1..kMaxCols).
template <class Body>
inline void for_column_count(const MatVecArgs & a, Body && body) {
    static_assert(kMaxCols == 4, "one case per column count");
    switch (a.cols) {
        case 1:  body.template operator()<1>(); break;
        case 2:  body.template operator()<2>(); break;
        case 3:  body.template operator()<3>(); break;
        default: body.template operator()<4>(); break;
    }
}

// Calls row(weight row bytes, its first result) for each of the a.rows weight rows.
template <class Row>
inline void each_weight_row(const MatVecArgs & a, Row && row) {
    const auto * w = static_cast<const uint8_t *>(a.w);
    for (int64_t r = 0; r < a.rows; ++r) {
        row(w + static_cast<size_t>(r) * a.w_row, a.out + r * a.out_row);
    }
}

// For kernels whose sums need no registers across columns: out = dot(weight row, activation column) for every
// row and column, rows outer.
template <class Dot>
inline void each_product(const MatVecArgs & a, Dot && dot) {
    const auto * act = static_cast<const uint8_t *>(a.act);
    each_weight_row(a, [&](const uint8_t * w, float * out) {
        for (int c = 0; c < a.cols; ++c) {
            out[c * a.out_col] = dot(w, act + static_cast<size_t>(c) * a.act_col);
        }
    });
}

// A level's kernel for `weight`: make.template operator()<F>() for the one of the level's formats F whose type
// (F::kType, type_rows.h: TypeRow) it is, nullptr when none is.
template <class... F, class Make>
inline MatVecFn kernel_for(ggml_type weight, Make && make) {
    MatVecFn f = nullptr;
    ((f = (f == nullptr && F::kType == weight) ? make.template operator()<F>() : f), ...);
    return f;
}

} // namespace switchyard::cpu::quants
