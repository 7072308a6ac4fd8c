// The CPU dispatch table: one KernelInfo per op, assembled once from the kernel families.
#include "cpu/kernel.h"

#include "cpu/kernels/families.h"

#include <array>

namespace switchyard::cpu {

namespace {

bool always(const ggml_tensor *) { return true; }

// Ops that only reinterpret their source's memory: nothing to compute.
KernelInfo metadata_only(ggml_op op) {
    switch (op) {
        case GGML_OP_NONE:
        case GGML_OP_RESHAPE:
        case GGML_OP_VIEW:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE: return KernelInfo{nullptr, nullptr, nullptr, always};
        default:                return KernelInfo{};
    }
}

using Family = KernelInfo (*)(ggml_op);

constexpr std::array<Family, 24> kFamilies = {
    metadata_only,    kernels::unary, kernels::binary,  kernels::reduce,    kernels::norm,
    kernels::copy,    kernels::rows,  kernels::matmul,  kernels::softmax,   kernels::rope,
    kernels::attention, kernels::conv, kernels::sort,   kernels::fill,      kernels::roll,
    kernels::custom,  kernels::rows_ext, kernels::conv_ext, kernels::backward_ext, kernels::training_ext,
    kernels::recurrent_ext, kernels::conv_more_ext, kernels::attention_back, kernels::deepseek_ext,
};

std::array<KernelInfo, GGML_OP_COUNT> build_table() {
    std::array<KernelInfo, GGML_OP_COUNT> table{};
    for (int i = 0; i < GGML_OP_COUNT; ++i) {
        const auto op = static_cast<ggml_op>(i);
        for (Family family : kFamilies) {
            KernelInfo info = family(op);
            if (info.supports) {
                table[i] = info;
                break;
            }
        }
    }
    return table;
}

std::array<KernelInfo, GGML_OP_COUNT> & table() {
    static std::array<KernelInfo, GGML_OP_COUNT> t = build_table();
    return t;
}

} // namespace

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
