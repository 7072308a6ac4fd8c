#include "conformance/reference/util.h"

#include <cstdio>

namespace switchyard::testing::reference {

namespace {

bool is_metadata_op(ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_RESHAPE || op == GGML_OP_VIEW || op == GGML_OP_PERMUTE ||
           op == GGML_OP_TRANSPOSE;
}

} // namespace

bool compute_node(ggml_tensor * node) {
    if (is_metadata_op(node->op)) {
        return true; // views alias their source's memory
    }
    return elementwise(node) || reduce_norm(node) || matrix(node) || layout(node) || attention(node) || conv(node) ||
           fill(node) || roll(node) || custom(node) || sam(node) || spatial(node) || training(node) ||
           recurrent(node) || deepseek(node);
}

bool has_reference(const ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_UNARY: {
            const auto u = static_cast<ggml_unary_op>(node->op_params[0]);
            return u >= 0 && u < GGML_UNARY_OP_COUNT;
        }
        case GGML_OP_CROSS_ENTROPY_LOSS: case GGML_OP_CROSS_ENTROPY_LOSS_BACK: case GGML_OP_OPT_STEP_ADAMW:
        case GGML_OP_OPT_STEP_SGD: return true;
        case GGML_OP_SSM_CONV: case GGML_OP_SSM_SCAN: case GGML_OP_RWKV_WKV6: case GGML_OP_GATED_LINEAR_ATTN:
        case GGML_OP_RWKV_WKV7: case GGML_OP_SOLVE_TRI: case GGML_OP_GATED_DELTA_NET: return true;
        case GGML_OP_LIGHTNING_INDEXER: case GGML_OP_DSV4_HC_COMB: case GGML_OP_DSV4_HC_PRE:
        case GGML_OP_DSV4_HC_POST: return true;
        case GGML_OP_UPSCALE: {
            const auto mode = static_cast<uint32_t>(node->op_params[0]);
            return (mode & 0xFFu) <= GGML_SCALE_MODE_BILINEAR && !(mode & GGML_SCALE_FLAG_ANTIALIAS);
        }
        case GGML_OP_FLASH_ATTN_BACK: return true;
        case GGML_OP_WIN_PART: case GGML_OP_WIN_UNPART: case GGML_OP_GET_REL_POS: case GGML_OP_ADD_REL_POS: return true;
        case GGML_OP_MAP_CUSTOM1: case GGML_OP_MAP_CUSTOM2: case GGML_OP_MAP_CUSTOM3: case GGML_OP_CUSTOM: return true;
        default: return node->op < GGML_OP_FLASH_ATTN_BACK || node->op == GGML_OP_GLU;
    }
}

bool compute_graph(ggml_cgraph * graph) {
    for (int i = 0; i < ggml_graph_n_nodes(graph); ++i) {
        ggml_tensor * node = ggml_graph_node(graph, i);
        if (!compute_node(node)) {
            std::fprintf(stderr, "reference: no implementation of %s (%s)\n", ggml_op_desc(node), node->name);
            return false;
        }
    }
    return true;
}

} // namespace switchyard::testing::reference
