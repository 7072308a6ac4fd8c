// The kernel families of the CPU backend. Each family (a file of src/cpu/kernels/<group>/, named as the family)
// returns the KernelInfo of every op it implements and an empty KernelInfo for all others. Which op belongs to
// which family is written once, in the dispatch table (src/cpu/dispatch.cpp); the groups are folders:
// elementwise, reduce, copy, mul_mat, flash_attn, rope, conv, recurrent, training.
#pragma once

#include "cpu/kernel.h"

#include <array>

namespace switchyard::cpu::kernels {

using Family = KernelInfo (*)(ggml_op op);

KernelInfo unary(ggml_op op);              // elementwise/unary.cpp
KernelInfo glu(ggml_op op);                // elementwise/glu.cpp
KernelInfo binary(ggml_op op);             // elementwise/binary.cpp
KernelInfo fill(ggml_op op);               // elementwise/fill.cpp
KernelInfo roll(ggml_op op);               // elementwise/roll.cpp
KernelInfo reduce(ggml_op op);             // reduce/reduce.cpp
KernelInfo norm(ggml_op op);               // reduce/norm.cpp
KernelInfo sort(ggml_op op);               // reduce/sort.cpp
KernelInfo softmax(ggml_op op);            // reduce/softmax.cpp
KernelInfo copy(ggml_op op);               // copy/copy.cpp (with copy/layout.cpp, copy/arange.cpp)
KernelInfo rows(ggml_op op);               // copy/rows.cpp
KernelInfo windows(ggml_op op);            // copy/windows.cpp
KernelInfo mul_mat(ggml_op op);            // mul_mat/mul_mat.cpp
KernelInfo flash_attn(ggml_op op);         // flash_attn/flash_attn.cpp
KernelInfo flash_attn_back(ggml_op op);    // flash_attn/flash_attn_back.cpp
KernelInfo deepseek(ggml_op op);           // flash_attn/deepseek.cpp
KernelInfo rope(ggml_op op);               // rope/rope.cpp
KernelInfo im2col(ggml_op op);             // conv/im2col.cpp
KernelInfo pool(ggml_op op);               // conv/pool.cpp
KernelInfo conv_1d_dw_upscale(ggml_op op); // conv/conv_1d_dw_upscale.cpp
KernelInfo conv_nd(ggml_op op);            // conv/conv_nd.cpp
KernelInfo recurrent(ggml_op op);          // recurrent/recurrent.cpp
KernelInfo backward(ggml_op op);           // training/backward.cpp
KernelInfo loss_optimizer(ggml_op op);     // training/loss_optimizer.cpp
KernelInfo custom(ggml_op op);             // custom.cpp

inline constexpr std::array<Family, 25> kFamilies = {
    unary, glu, binary, fill, roll, reduce, norm, sort, softmax, copy, rows, windows, mul_mat, flash_attn,
    flash_attn_back, deepseek, rope, im2col, pool, conv_1d_dw_upscale, conv_nd, recurrent, backward, loss_optimizer,
    custom,
};

// The family the dispatch table gives `op` (dispatch.cpp); nullptr for NONE and the views (nothing to compute)
// and for values outside the enum.
Family family_of(ggml_op op);

} // namespace switchyard::cpu::kernels
