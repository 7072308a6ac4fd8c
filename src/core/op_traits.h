// The op table: one row per value of enum ggml_op, in enum order, checked complete at compile time.
//
// name         upstream's ggml_op_name ("ADD")
// symbol       upstream's ggml_op_symbol ("x+y"), used in graph dumps
// n_src        the most source slots the op uses, optional ones included (the soft_max mask and sinks, rope
//              frequency factors, the gate of a split GLU); GGML_MAX_SRC for CUSTOM (variable)
// can_inplace  the result may take the memory of src[0] when src[0] dies at this node (upstream's
//              ggml_op_can_inplace list; the allocator relies on kernels of these ops tolerating dst == src[0])
// is_empty     no computation: the result only re-describes memory of its source (NONE and the view ops)
//
// Every op of the enum has a row, also the ones Switchyard has no constructor for, so names and symbols of
// graphs built elsewhere print correctly.
#pragma once

#include "ggml.h"

#include <array>
#include <cstddef>

namespace switchyard {

struct OpInfo {
    ggml_op      op;
    const char * name;
    const char * symbol;
    int          n_src;
    bool         can_inplace;
    bool         is_empty;
};

// clang-format off
inline constexpr std::array<OpInfo, GGML_OP_COUNT> kOpTable = {{
    {GGML_OP_NONE,                    "NONE",                    "none",                                 0, false, true },
    {GGML_OP_DUP,                     "DUP",                     "x",                                    1, false, false},
    {GGML_OP_ADD,                     "ADD",                     "x+y",                                  2, true,  false},
    {GGML_OP_ADD_ID,                  "ADD_ID",                  "x[i]+y",                               3, true,  false},
    {GGML_OP_ADD1,                    "ADD1",                    "x+y",                                  2, true,  false},
    {GGML_OP_ACC,                     "ACC",                     "view(x,nb,offset)+=y->x",              2, false, false},
    {GGML_OP_SUB,                     "SUB",                     "x-y",                                  2, true,  false},
    {GGML_OP_MUL,                     "MUL",                     "x*y",                                  2, true,  false},
    {GGML_OP_DIV,                     "DIV",                     "x/y",                                  2, true,  false},
    {GGML_OP_SQR,                     "SQR",                     "x^2",                                  1, true,  false},
    {GGML_OP_SQRT,                    "SQRT",                    "\xe2\x88\x9ax",                        1, true,  false},
    {GGML_OP_LOG,                     "LOG",                     "log(x)",                               1, true,  false},
    {GGML_OP_SIN,                     "SIN",                     "sin(x)",                               1, false, false},
    {GGML_OP_COS,                     "COS",                     "cos(x)",                               1, false, false},
    {GGML_OP_SUM,                     "SUM",                     "\xce\xa3x",                            1, false, false},
    {GGML_OP_SUM_ROWS,                "SUM_ROWS",                "\xce\xa3x_k",                          1, false, false},
    {GGML_OP_CUMSUM,                  "CUMSUM",                  "cumsum(x)",                            1, false, false},
    {GGML_OP_MEAN,                    "MEAN",                    "\xce\xa3x/n",                          1, false, false},
    {GGML_OP_ARGMAX,                  "ARGMAX",                  "argmax(x)",                            1, false, false},
    {GGML_OP_COUNT_EQUAL,             "COUNT_EQUAL",             "count_equal(x)",                       2, false, false},
    {GGML_OP_REPEAT,                  "REPEAT",                  "repeat(x)",                            1, false, false},
    {GGML_OP_REPEAT_BACK,             "REPEAT_BACK",             "repeat_back(x)",                       1, false, false},
    {GGML_OP_CONCAT,                  "CONCAT",                  "concat(x, y)",                         2, false, false},
    {GGML_OP_SILU_BACK,               "SILU_BACK",               "silu_back(x)",                         2, true,  false},
    {GGML_OP_NORM,                    "NORM",                    "norm(x)",                              1, false, false},
    {GGML_OP_RMS_NORM,                "RMS_NORM",                "rms_norm(x)",                          1, true,  false},
    {GGML_OP_RMS_NORM_BACK,           "RMS_NORM_BACK",           "rms_norm_back(x)",                     2, true,  false},
    {GGML_OP_GROUP_NORM,              "GROUP_NORM",              "group_norm(x)",                        1, false, false},
    {GGML_OP_L2_NORM,                 "L2_NORM",                 "l2_norm(x)",                           1, false, false},
    {GGML_OP_MUL_MAT,                 "MUL_MAT",                 "X*Y",                                  2, false, false},
    {GGML_OP_MUL_MAT_ID,              "MUL_MAT_ID",              "X[i]*Y",                               3, false, false},
    {GGML_OP_OUT_PROD,                "OUT_PROD",                "X*Y",                                  2, false, false},
    {GGML_OP_SCALE,                   "SCALE",                   "x*v",                                  1, true,  false},
    {GGML_OP_SET,                     "SET",                     "y-\\>view(x)",                         2, false, false},
    {GGML_OP_CPY,                     "CPY",                     "x-\\>y",                               2, false, false},
    {GGML_OP_CONT,                    "CONT",                    "cont(x)",                              1, false, false},
    {GGML_OP_RESHAPE,                 "RESHAPE",                 "reshape(x)",                           1, false, true },
    {GGML_OP_VIEW,                    "VIEW",                    "view(x)",                              1, false, true },
    {GGML_OP_PERMUTE,                 "PERMUTE",                 "permute(x)",                           1, false, true },
    {GGML_OP_TRANSPOSE,               "TRANSPOSE",               "transpose(x)",                         1, false, true },
    {GGML_OP_GET_ROWS,                "GET_ROWS",                "get_rows(x)",                          2, false, false},
    {GGML_OP_GET_ROWS_BACK,           "GET_ROWS_BACK",           "get_rows_back(x)",                     2, false, false},
    {GGML_OP_SET_ROWS,                "SET_ROWS",                "set_rows(x)",                          3, false, false},
    {GGML_OP_DIAG,                    "DIAG",                    "diag(x)",                              1, false, false},
    {GGML_OP_DIAG_MASK_INF,           "DIAG_MASK_INF",           "diag_mask_inf(x)",                     1, true,  false},
    {GGML_OP_DIAG_MASK_ZERO,          "DIAG_MASK_ZERO",          "diag_mask_zero(x)",                    1, true,  false},
    {GGML_OP_SOFT_MAX,                "SOFT_MAX",                "soft_max(x)",                          3, true,  false},
    {GGML_OP_SOFT_MAX_BACK,           "SOFT_MAX_BACK",           "soft_max_back(x)",                     2, true,  false},
    {GGML_OP_ROPE,                    "ROPE",                    "rope(x)",                              3, true,  false},
    {GGML_OP_ROPE_BACK,               "ROPE_BACK",               "rope_back(x)",                         3, true,  false},
    {GGML_OP_CLAMP,                   "CLAMP",                   "clamp(x)",                             1, true,  false},
    {GGML_OP_CONV_TRANSPOSE_1D,       "CONV_TRANSPOSE_1D",       "conv_transpose_1d(x)",                 2, false, false},
    {GGML_OP_IM2COL,                  "IM2COL",                  "im2col(x)",                            2, false, false},
    {GGML_OP_IM2COL_BACK,             "IM2COL_BACK",             "im2col_back(x)",                       2, false, false},
    {GGML_OP_IM2COL_3D,               "IM2COL_3D",               "im2col_3d(x)",                         2, false, false},
    {GGML_OP_COL2IM_1D,               "COL2IM_1D",               "col2im_1d(x)",                         1, false, false},
    {GGML_OP_CONV_2D,                 "CONV_2D",                 "conv_2d(x)",                           2, false, false},
    {GGML_OP_CONV_3D,                 "CONV_3D",                 "conv_3d(x)",                           2, false, false},
    {GGML_OP_CONV_2D_DW,              "CONV_2D_DW",              "conv_2d_dw(x)",                        2, false, false},
    {GGML_OP_CONV_TRANSPOSE_2D,       "CONV_TRANSPOSE_2D",       "conv_transpose_2d(x)",                 2, false, false},
    {GGML_OP_POOL_1D,                 "POOL_1D",                 "pool_1d(x)",                           1, false, false},
    {GGML_OP_POOL_2D,                 "POOL_2D",                 "pool_2d(x)",                           1, false, false},
    {GGML_OP_POOL_2D_BACK,            "POOL_2D_BACK",            "pool_2d_back(x)",                      2, false, false},
    {GGML_OP_UPSCALE,                 "UPSCALE",                 "upscale(x)",                           1, false, false},
    {GGML_OP_PAD,                     "PAD",                     "pad(x)",                               1, false, false},
    {GGML_OP_PAD_REFLECT_1D,          "PAD_REFLECT_1D",          "pad_reflect_1d(x)",                    1, false, false},
    {GGML_OP_ROLL,                    "ROLL",                    "roll(x)",                              1, false, false},
    {GGML_OP_ARANGE,                  "ARANGE",                  "arange(start, stop, step)",            0, false, false},
    {GGML_OP_TIMESTEP_EMBEDDING,      "TIMESTEP_EMBEDDING",      "timestep_embedding(timesteps, dim, max_period)", 1, false, false},
    {GGML_OP_ARGSORT,                 "ARGSORT",                 "argsort(x)",                           1, false, false},
    {GGML_OP_TOP_K,                   "TOP_K",                   "top_k(x)",                             1, false, false},
    {GGML_OP_LEAKY_RELU,              "LEAKY_RELU",              "leaky_relu(x)",                        1, false, false},
    {GGML_OP_TRI,                     "TRI",                     "tri(x)",                               1, false, false},
    {GGML_OP_FILL,                    "FILL",                    "fill(x, c)",                           1, true,  false},
    {GGML_OP_FLASH_ATTN_EXT,          "FLASH_ATTN_EXT",          "flash_attn_ext(x)",                    5, false, false},
    {GGML_OP_FLASH_ATTN_BACK,         "FLASH_ATTN_BACK",         "flash_attn_back(x)",                   4, false, false},
    {GGML_OP_SSM_CONV,                "SSM_CONV",                "ssm_conv(x)",                          2, false, false},
    {GGML_OP_SSM_SCAN,                "SSM_SCAN",                "ssm_scan(x)",                          7, false, false},
    {GGML_OP_WIN_PART,                "WIN_PART",                "win_part(x)",                          1, false, false},
    {GGML_OP_WIN_UNPART,              "WIN_UNPART",              "win_unpart(x)",                        1, false, false},
    {GGML_OP_GET_REL_POS,             "GET_REL_POS",             "get_rel_pos(x)",                       1, false, false},
    {GGML_OP_ADD_REL_POS,             "ADD_REL_POS",             "add_rel_pos(x)",                       3, false, false},
    {GGML_OP_RWKV_WKV6,               "RWKV_WKV6",               "rwkv_wkv6(k, v, r, tf, td, s)",        6, false, false},
    {GGML_OP_GATED_LINEAR_ATTN,       "GATED_LINEAR_ATTN",       "gated_linear_attn(k, v, q, gate, s)",  5, false, false},
    {GGML_OP_RWKV_WKV7,               "RWKV_WKV7",               "rwkv_wkv7(r, w, k, v, a, b, s)",       7, false, false},
    {GGML_OP_SOLVE_TRI,               "SOLVE_TRI",               "A X = B, A triangular, solve X",       2, false, false},
    {GGML_OP_GATED_DELTA_NET,         "GATED_DELTA_NET",         "gated_delta_net(q, k, v, g, beta, s)", 6, false, false},
    {GGML_OP_LIGHTNING_INDEXER,       "LIGHTNING_INDEXER",       "lightning_indexer(q, k, w, mask)",     4, false, false},
    {GGML_OP_DSV4_HC_COMB,            "DSV4_HC_COMB",            "dsv4_hc_comb(mixes, scale, base)",     3, false, false},
    {GGML_OP_DSV4_HC_PRE,             "DSV4_HC_PRE",             "dsv4_hc_pre(x, w)",                    2, false, false},
    {GGML_OP_DSV4_HC_POST,            "DSV4_HC_POST",            "dsv4_hc_post(x, res, post, comb)",     4, false, false},
    {GGML_OP_UNARY,                   "UNARY",                   "unary(x)",                             1, true,  false},
    {GGML_OP_MAP_CUSTOM1,             "MAP_CUSTOM1",             "map_custom(x)",                        1, false, false},
    {GGML_OP_MAP_CUSTOM2,             "MAP_CUSTOM2",             "map_custom(x,y)",                      2, false, false},
    {GGML_OP_MAP_CUSTOM3,             "MAP_CUSTOM3",             "map_custom(x,y,z)",                    3, false, false},
    {GGML_OP_CUSTOM,                  "CUSTOM",                  "custom(x)",                  GGML_MAX_SRC, false, false},
    {GGML_OP_CROSS_ENTROPY_LOSS,      "CROSS_ENTROPY_LOSS",      "cross_entropy_loss(x,y)",              2, false, false},
    {GGML_OP_CROSS_ENTROPY_LOSS_BACK, "CROSS_ENTROPY_LOSS_BACK", "cross_entropy_loss_back(x,y)",         3, false, false},
    {GGML_OP_OPT_STEP_ADAMW,          "OPT_STEP_ADAMW",          "adamw(x)",                             5, false, false},
    {GGML_OP_OPT_STEP_SGD,            "OPT_STEP_SGD",            "sgd(x)",                               3, false, false},
    {GGML_OP_GLU,                     "GLU",                     "glu(x)",                               2, false, false},
}};

inline constexpr std::array<const char *, GGML_UNARY_OP_COUNT> kUnaryOpNames = {
    "ABS", "SGN", "NEG", "STEP", "TANH", "ELU", "RELU", "SIGMOID", "GELU", "GELU_QUICK", "SILU", "HARDSWISH",
    "HARDSIGMOID", "EXP", "EXPM1", "SOFTPLUS", "GELU_ERF", "XIELU", "FLOOR", "CEIL", "ROUND", "TRUNC",
};

inline constexpr std::array<const char *, GGML_GLU_OP_COUNT> kGluOpNames = {
    "REGLU", "GEGLU", "SWIGLU", "SWIGLU_OAI", "GEGLU_ERF", "GEGLU_QUICK", "SWIGLU_CLAMP",
};
// clang-format on

namespace detail {

constexpr bool op_table_complete() {
    for (size_t i = 0; i < kOpTable.size(); ++i) {
        const OpInfo & row = kOpTable[i];
        if (static_cast<size_t>(row.op) != i || row.name == nullptr || row.symbol == nullptr || row.n_src < 0 ||
            row.n_src > GGML_MAX_SRC) {
            return false;
        }
    }
    return true;
}

template <size_t N>
constexpr bool names_complete(const std::array<const char *, N> & names) {
    for (const char * n : names) {
        if (n == nullptr) {
            return false;
        }
    }
    return true;
}

} // namespace detail

static_assert(detail::op_table_complete(), "kOpTable: one row per ggml_op, in enum order");
static_assert(detail::names_complete(kUnaryOpNames), "kUnaryOpNames: one name per ggml_unary_op");
static_assert(detail::names_complete(kGluOpNames), "kGluOpNames: one name per ggml_glu_op");

// The row of `op`; ops outside the enum get the NONE row's shape with name "UNKNOWN".
const OpInfo & op_info(ggml_op op);

constexpr bool is_valid_op(int op) {
    return op >= 0 && op < GGML_OP_COUNT;
}

// NONE and the view ops: nothing to compute (the is_empty column)
constexpr bool op_is_empty(ggml_op op) {
    return is_valid_op(op) && kOpTable[static_cast<size_t>(op)].is_empty;
}

// VIEW, RESHAPE, PERMUTE, TRANSPOSE: the result re-describes its source's memory (empty, and not NONE)
constexpr bool op_is_view(ggml_op op) {
    return op != GGML_OP_NONE && op_is_empty(op);
}
static_assert(op_is_view(GGML_OP_VIEW) && op_is_view(GGML_OP_RESHAPE) && op_is_view(GGML_OP_PERMUTE) &&
              op_is_view(GGML_OP_TRANSPOSE) && !op_is_view(GGML_OP_NONE) && !op_is_view(GGML_OP_CPY));

} // namespace switchyard
