// Which ops may write their result over the memory of a source that dies at them (in-place reuse).
//
// The op table's can_inplace column (src/core/op_traits.h, upstream's ggml_op_can_inplace list): element-wise
// ops and row-wise ops that read a row before writing it. Only src[0] is offered: the CPU kernel contract
// (src/cpu/kernel.h) promises "dst may alias src[0]" and nothing more, and for these ops src[0] is the operand
// with the result's layout.
#pragma once

#include "core/op_traits.h"
#include "ggml.h"

namespace switchyard::alloc {

constexpr bool op_can_inplace(ggml_op op) {
    return is_valid_op(op) && kOpTable[static_cast<size_t>(op)].can_inplace;
}

// May the result of `op` take the memory of its source in slot `src_slot`?
constexpr bool inplace_slot_allowed(ggml_op op, int src_slot) {
    return src_slot == 0 && op_can_inplace(op);
}

} // namespace switchyard::alloc
