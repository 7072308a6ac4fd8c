// Each kernel family (one file in src/cpu/kernels/) answers for the ops it implements and returns an empty
// KernelInfo for all others. The dispatch table (src/cpu/dispatch.cpp) asks the families in turn.
#pragma once

#include "cpu/kernel.h"

namespace switchyard::cpu::kernels {

KernelInfo unary(ggml_op op);     // UNARY, SQR, SQRT, LOG, SIN, COS, LEAKY_RELU, CLAMP, SCALE, GLU
KernelInfo binary(ggml_op op);    // ADD, SUB, MUL, DIV, ADD1, ADD_ID, ACC
KernelInfo reduce(ggml_op op);    // SUM, SUM_ROWS, MEAN, ARGMAX, CUMSUM
KernelInfo norm(ggml_op op);      // NORM, RMS_NORM, L2_NORM, GROUP_NORM
KernelInfo copy(ggml_op op);      // DUP, CPY, CONT, SET, REPEAT, CONCAT, PAD, ARANGE, TIMESTEP_EMBEDDING
KernelInfo rows(ggml_op op);      // GET_ROWS, SET_ROWS, DIAG_MASK_INF
KernelInfo matmul(ggml_op op);    // MUL_MAT, MUL_MAT_ID, OUT_PROD
KernelInfo softmax(ggml_op op);   // SOFT_MAX
KernelInfo rope(ggml_op op);      // ROPE, ROPE_BACK (all modes: NORMAL, NEOX, MROPE, VISION, IMROPE)
KernelInfo attention(ggml_op op); // FLASH_ATTN_EXT
KernelInfo attention_back(ggml_op op); // FLASH_ATTN_BACK
KernelInfo conv(ggml_op op);      // IM2COL, POOL_1D, POOL_2D
KernelInfo sort(ggml_op op);      // ARGSORT, TOP_K
KernelInfo fill(ggml_op op);      // FILL, TRI, DIAG
KernelInfo roll(ggml_op op);      // ROLL
KernelInfo custom(ggml_op op);    // MAP_CUSTOM1, MAP_CUSTOM2, MAP_CUSTOM3, CUSTOM
KernelInfo rows_ext(ggml_op op);  // DIAG_MASK_ZERO, COUNT_EQUAL, WIN_PART, WIN_UNPART, GET_REL_POS, ADD_REL_POS
KernelInfo conv_ext(ggml_op op);  // CONV_TRANSPOSE_1D, CONV_2D_DW, UPSCALE, PAD_REFLECT_1D
KernelInfo backward_ext(ggml_op op); // SILU_BACK, RMS_NORM_BACK, SOFT_MAX_BACK, REPEAT_BACK, GET_ROWS_BACK
KernelInfo training_ext(ggml_op op); // CROSS_ENTROPY_LOSS(_BACK), OPT_STEP_ADAMW, OPT_STEP_SGD
KernelInfo conv_more_ext(ggml_op op); // IM2COL_BACK, IM2COL_3D, COL2IM_1D, CONV_2D, CONV_3D, CONV_TRANSPOSE_2D,
                                      // POOL_2D_BACK
KernelInfo recurrent_ext(ggml_op op); // SSM_CONV, SSM_SCAN, RWKV_WKV6, GATED_LINEAR_ATTN, RWKV_WKV7, SOLVE_TRI,
                                     // GATED_DELTA_NET
KernelInfo deepseek_ext(ggml_op op); // LIGHTNING_INDEXER, DSV4_HC_COMB, DSV4_HC_PRE, DSV4_HC_POST

} // namespace switchyard::cpu::kernels
