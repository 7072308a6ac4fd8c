// The CPU dispatch table: which kernel family computes each op, one row per value of enum ggml_op in enum order
// (checked at compile time), and the KernelInfo of every op, asked once from its family.
//
// A family (a folder or file of src/cpu/kernels/, declared in families.h) returns the KernelInfo of each op it
// implements. This table is the one place that says which op is in which family; a unit test checks that each
// family answers for exactly the ops the table gives it (tests/unit/cpu/dispatch_test.cpp).
#include "core/op_traits.h"
#include "cpu/kernel.h"

#include "cpu/kernels/families.h"

#include <array>

namespace switchyard::cpu {

namespace {

bool always(const ggml_tensor *) { return true; }

// NONE and the views only re-describe their source's memory: nothing to compute
KernelInfo empty(ggml_op op) {
    return op_is_empty(op) ? KernelInfo{nullptr, nullptr, nullptr, always} : KernelInfo{};
}

using kernels::Family;

struct Row {
    ggml_op op;
    Family  family;
};

// clang-format off
constexpr std::array<Row, GGML_OP_COUNT> kRows = {{
    {GGML_OP_NONE,                     empty},
    {GGML_OP_DUP,                      kernels::copy},
    {GGML_OP_ADD,                      kernels::binary},
    {GGML_OP_ADD_ID,                   kernels::binary},
    {GGML_OP_ADD1,                     kernels::binary},
    {GGML_OP_ACC,                      kernels::binary},
    {GGML_OP_SUB,                      kernels::binary},
    {GGML_OP_MUL,                      kernels::binary},
    {GGML_OP_DIV,                      kernels::binary},
    {GGML_OP_SQR,                      kernels::unary},
    {GGML_OP_SQRT,                     kernels::unary},
    {GGML_OP_LOG,                      kernels::unary},
    {GGML_OP_SIN,                      kernels::unary},
    {GGML_OP_COS,                      kernels::unary},
    {GGML_OP_SUM,                      kernels::reduce},
    {GGML_OP_SUM_ROWS,                 kernels::reduce},
    {GGML_OP_CUMSUM,                   kernels::reduce},
    {GGML_OP_MEAN,                     kernels::reduce},
    {GGML_OP_ARGMAX,                   kernels::reduce},
    {GGML_OP_COUNT_EQUAL,              kernels::windows},
    {GGML_OP_REPEAT,                   kernels::copy},
    {GGML_OP_REPEAT_BACK,              kernels::backward},
    {GGML_OP_CONCAT,                   kernels::copy},
    {GGML_OP_SILU_BACK,                kernels::backward},
    {GGML_OP_NORM,                     kernels::norm},
    {GGML_OP_RMS_NORM,                 kernels::norm},
    {GGML_OP_RMS_NORM_BACK,            kernels::backward},
    {GGML_OP_GROUP_NORM,               kernels::norm},
    {GGML_OP_L2_NORM,                  kernels::norm},
    {GGML_OP_MUL_MAT,                  kernels::mul_mat},
    {GGML_OP_MUL_MAT_ID,               kernels::mul_mat},
    {GGML_OP_OUT_PROD,                 kernels::mul_mat},
    {GGML_OP_SCALE,                    kernels::unary},
    {GGML_OP_SET,                      kernels::copy},
    {GGML_OP_CPY,                      kernels::copy},
    {GGML_OP_CONT,                     kernels::copy},
    {GGML_OP_RESHAPE,                  empty},
    {GGML_OP_VIEW,                     empty},
    {GGML_OP_PERMUTE,                  empty},
    {GGML_OP_TRANSPOSE,                empty},
    {GGML_OP_GET_ROWS,                 kernels::rows},
    {GGML_OP_GET_ROWS_BACK,            kernels::backward},
    {GGML_OP_SET_ROWS,                 kernels::rows},
    {GGML_OP_DIAG,                     kernels::fill},
    {GGML_OP_DIAG_MASK_INF,            kernels::rows},
    {GGML_OP_DIAG_MASK_ZERO,           kernels::windows},
    {GGML_OP_SOFT_MAX,                 kernels::softmax},
    {GGML_OP_SOFT_MAX_BACK,            kernels::backward},
    {GGML_OP_ROPE,                     kernels::rope},
    {GGML_OP_ROPE_BACK,                kernels::rope},
    {GGML_OP_CLAMP,                    kernels::unary},
    {GGML_OP_CONV_TRANSPOSE_1D,        kernels::conv_1d_dw_upscale},
    {GGML_OP_IM2COL,                   kernels::im2col},
    {GGML_OP_IM2COL_BACK,              kernels::conv_nd},
    {GGML_OP_IM2COL_3D,                kernels::conv_nd},
    {GGML_OP_COL2IM_1D,                kernels::conv_nd},
    {GGML_OP_CONV_2D,                  kernels::conv_nd},
    {GGML_OP_CONV_3D,                  kernels::conv_nd},
    {GGML_OP_CONV_2D_DW,               kernels::conv_1d_dw_upscale},
    {GGML_OP_CONV_TRANSPOSE_2D,        kernels::conv_nd},
    {GGML_OP_POOL_1D,                  kernels::pool},
    {GGML_OP_POOL_2D,                  kernels::pool},
    {GGML_OP_POOL_2D_BACK,             kernels::conv_nd},
    {GGML_OP_UPSCALE,                  kernels::conv_1d_dw_upscale},
    {GGML_OP_PAD,                      kernels::copy},
    {GGML_OP_PAD_REFLECT_1D,           kernels::conv_1d_dw_upscale},
    {GGML_OP_ROLL,                     kernels::roll},
    {GGML_OP_ARANGE,                   kernels::copy},
    {GGML_OP_TIMESTEP_EMBEDDING,       kernels::copy},
    {GGML_OP_ARGSORT,                  kernels::sort},
    {GGML_OP_TOP_K,                    kernels::sort},
    {GGML_OP_LEAKY_RELU,               kernels::unary},
    {GGML_OP_TRI,                      kernels::fill},
    {GGML_OP_FILL,                     kernels::fill},
    {GGML_OP_FLASH_ATTN_EXT,           kernels::flash_attn},
    {GGML_OP_FLASH_ATTN_BACK,          kernels::flash_attn_back},
    {GGML_OP_SSM_CONV,                 kernels::recurrent},
    {GGML_OP_SSM_SCAN,                 kernels::recurrent},
    {GGML_OP_WIN_PART,                 kernels::windows},
    {GGML_OP_WIN_UNPART,               kernels::windows},
    {GGML_OP_GET_REL_POS,              kernels::windows},
    {GGML_OP_ADD_REL_POS,              kernels::windows},
    {GGML_OP_RWKV_WKV6,                kernels::recurrent},
    {GGML_OP_GATED_LINEAR_ATTN,        kernels::recurrent},
    {GGML_OP_RWKV_WKV7,                kernels::recurrent},
    {GGML_OP_SOLVE_TRI,                kernels::recurrent},
    {GGML_OP_GATED_DELTA_NET,          kernels::recurrent},
    {GGML_OP_LIGHTNING_INDEXER,        kernels::deepseek},
    {GGML_OP_DSV4_HC_COMB,             kernels::deepseek},
    {GGML_OP_DSV4_HC_PRE,              kernels::deepseek},
    {GGML_OP_DSV4_HC_POST,             kernels::deepseek},
    {GGML_OP_UNARY,                    kernels::unary},
    {GGML_OP_MAP_CUSTOM1,              kernels::custom},
    {GGML_OP_MAP_CUSTOM2,              kernels::custom},
    {GGML_OP_MAP_CUSTOM3,              kernels::custom},
    {GGML_OP_CUSTOM,                   kernels::custom},
    {GGML_OP_CROSS_ENTROPY_LOSS,       kernels::loss_optimizer},
    {GGML_OP_CROSS_ENTROPY_LOSS_BACK,  kernels::loss_optimizer},
    {GGML_OP_OPT_STEP_ADAMW,           kernels::loss_optimizer},
    {GGML_OP_OPT_STEP_SGD,             kernels::loss_optimizer},
    {GGML_OP_GLU,                      kernels::glu},
}};
// clang-format on

constexpr bool rows_complete() {
    for (size_t i = 0; i < kRows.size(); ++i) {
        if (static_cast<size_t>(kRows[i].op) != i || kRows[i].family == nullptr) {
            return false;
        }
    }
    return true;
}
static_assert(rows_complete(), "kRows: one row per ggml_op, in enum order, each with its family");

// Kept out of line so that table(), asked for every node scheduled and computed, inlines to a guard check.
[[gnu::noinline]] std::array<KernelInfo, GGML_OP_COUNT> build_table() {
    std::array<KernelInfo, GGML_OP_COUNT> table{};
    for (const Row & row : kRows) {
        table[row.op] = row.family(row.op);
    }
    return table;
}

std::array<KernelInfo, GGML_OP_COUNT> & table() {
    static std::array<KernelInfo, GGML_OP_COUNT> t = build_table();
    return t;
}

} // namespace

} // namespace switchyard::cpu

namespace switchyard::cpu::kernels {

Family family_of(ggml_op op) {
    if (!is_valid_op(op)) {
        return nullptr;
    }
    const Family family = kRows[static_cast<size_t>(op)].family;
    return family == empty ? nullptr : family;
}

} // namespace switchyard::cpu::kernels

namespace switchyard::cpu {

const KernelInfo & kernel_for(ggml_op op) {
    static const KernelInfo none{};
    if (op < 0 || op >= GGML_OP_COUNT) {
        return none;
    }
    return table()[op];
}

KernelInfo replace_kernel(ggml_op op, const KernelInfo & info) {
    const KernelInfo previous = table()[op];
    table()[op]               = info;
    return previous;
}

bool supports_node(const ggml_tensor * node) {
    const KernelInfo & info = kernel_for(node->op);
    return info.supports != nullptr && info.supports(node);
}

} // namespace switchyard::cpu
