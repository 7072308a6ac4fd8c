// Reverse-mode differentiation: ggml_build_backward_expand appends to a forward graph the nodes that compute the
// gradient of its losses with respect to every node between a parameter and a loss, following upstream's
// rules (ggml_compute_backward in ggml.c) so that graphs, gradient names and accumulators match.
//
// Which nodes get a gradient: a node needs one when it is a parameter (GGML_TENSOR_FLAG_PARAM), a loss
// (GGML_TENSOR_FLAG_LOSS) or a consumer of a node that needs one through a differentiable source (positions of
// ROPE, indices of GET_ROWS, the destination of CPY, and sources of piecewise constant ops are not). I32 nodes
// never do. Losses, and with `accumulate` parameters, get an accumulator tensor in ctx_static that the graph
// reads and writes (ggml_graph_reset sets a loss's to 1 and the others to 0); other gradients are ordinary
// nodes of ctx_compute. Nodes are visited last to first; each adds its contribution to its sources' gradients:
// the first contribution becomes the gradient, later ones are added (in place into an accumulator).
//
// Ops without a gradient rule, in-place ops other than views, and graphs without a parameter or a loss are
// programming errors: logged with the op and node name, then fatal (the abort callback), as upstream.
#include "core/graph.h"

#include "base/abort.h"
#include "core/op_traits.h"

#include <cstring>
#include <vector>

namespace switchyard {

namespace {

class Backward {
public:
    Backward(ggml_context * ctx, ggml_cgraph * g, const std::vector<bool> & needed)
        : ctx_(ctx), g_(g), needed_(needed) {}

    void visit(ggml_tensor * node);

private:
    // The hash slot of t in the graph, kHashFull when t is not part of it.
    size_t slot(const ggml_tensor * t) const {
        const size_t s = hash_find(&g_->visited_hash_set, t);
        return s != kHashFull && hash_contains(&g_->visited_hash_set, t) ? s : kHashFull;
    }

    bool needs(const ggml_tensor * t) const {
        if (!t) {
            return false;
        }
        const size_t s = slot(t);
        return s != kHashFull && needed_[s];
    }

    ggml_tensor *& grad_of(const ggml_tensor * src) { return g_->grads[slot(src)]; }
    bool           has_acc(const ggml_tensor * src) { return g_->grad_accs[slot(src)] != nullptr; }

    void finish(const ggml_tensor * src) {
        ggml_tensor * g = grad_of(src);
        ggml_format_name(g, "grad for %s", src->name);
        ggml_build_forward_expand(g_, g);
    }

    // grad(src) += t (the first contribution is t itself)
    void add(const ggml_tensor * src, ggml_tensor * t) {
        ggml_tensor *& g = grad_of(src);
        g = g ? (has_acc(src) ? ggml_add_inplace(ctx_, g, t) : ggml_add(ctx_, g, t)) : t;
        finish(src);
    }

    // grad(src) -= t
    void sub(const ggml_tensor * src, ggml_tensor * t) {
        ggml_tensor *& g = grad_of(src);
        g = g ? (has_acc(src) ? ggml_sub_inplace(ctx_, g, t) : ggml_sub(ctx_, g, t)) : ggml_neg(ctx_, t);
        finish(src);
    }

    // grad(src) += t broadcast (t has one element)
    void add1(ggml_tensor * src, ggml_tensor * t) {
        ggml_tensor *& g = grad_of(src);
        g = g ? (has_acc(src) ? ggml_add1_inplace(ctx_, g, t) : ggml_add1(ctx_, g, t)) : ggml_repeat(ctx_, t, src);
        finish(src);
    }

    // grad(src) viewed with strides nb1..nb3 at offset += t
    void acc(ggml_tensor * src, ggml_tensor * t, size_t nb1, size_t nb2, size_t nb3, size_t offset) {
        ggml_tensor *& g = grad_of(src);
        if (g) {
            g = has_acc(src) ? ggml_acc_inplace(ctx_, g, t, nb1, nb2, nb3, offset)
                             : ggml_acc(ctx_, g, t, nb1, nb2, nb3, offset);
        } else {
            g = ggml_acc(ctx_, ggml_scale(ctx_, src, 0.0f), t, nb1, nb2, nb3, offset);
        }
        finish(src);
    }

    [[noreturn]] void unsupported(const ggml_tensor * node, const char * what) {
        fatal("[ggml_build_backward_expand] no gradient for %s %s of node '%s'", what, ggml_op_desc(node), node->name);
    }

    void arithmetic(ggml_tensor * node, ggml_tensor * grad);
    void reductions(ggml_tensor * node, ggml_tensor * grad);
    void layout(ggml_tensor * node, ggml_tensor * grad);
    void view(ggml_tensor * node, ggml_tensor * grad);
    void mul_mat(ggml_tensor * node, ggml_tensor * grad);
    void rope(ggml_tensor * node, ggml_tensor * grad);
    void unary(ggml_tensor * node, ggml_tensor * grad);
    void glu(ggml_tensor * node, ggml_tensor * grad);
    void spatial(ggml_tensor * node, ggml_tensor * grad);

    ggml_context *            ctx_;
    ggml_cgraph *             g_;
    const std::vector<bool> & needed_;
};

// ADD, ADD1, SUB, MUL, DIV, SQR, SQRT, LOG, SIN, COS, SCALE
void Backward::arithmetic(ggml_tensor * node, ggml_tensor * grad) {
    ggml_tensor * a = node->src[0];
    ggml_tensor * b = node->src[1];
    const bool    da = needs(a), db = needs(b);
    auto          reduce_to_b = [&](ggml_tensor * t) { return ggml_are_same_shape(a, b) ? t : ggml_repeat_back(ctx_, t, b); };
    switch (node->op) {
        case GGML_OP_ADD:
            if (da) add(a, grad);
            if (db) add(b, reduce_to_b(grad));
            break;
        case GGML_OP_ADD1:
            if (da) add(a, grad);
            if (db) add(b, ggml_mean(ctx_, grad)); // upstream's rule (a sum would be the derivative)
            break;
        case GGML_OP_SUB:
            if (da) add(a, grad);
            if (db) sub(b, grad);
            break;
        case GGML_OP_MUL:
            if (da) add(a, ggml_mul(ctx_, grad, b));
            if (db) add(b, reduce_to_b(ggml_mul(ctx_, a, grad)));
            break;
        case GGML_OP_DIV:
            if (da) add(a, ggml_div(ctx_, grad, b));
            if (db) sub(b, ggml_mul(ctx_, grad, ggml_div(ctx_, node, b)));
            break;
        case GGML_OP_SQR:
            if (da) add(a, ggml_scale(ctx_, ggml_mul(ctx_, a, grad), 2.0f));
            break;
        case GGML_OP_SQRT:
            if (da) add(a, ggml_scale(ctx_, ggml_div(ctx_, grad, node), 0.5f));
            break;
        case GGML_OP_LOG:
            if (da) add(a, ggml_div(ctx_, grad, a));
            break;
        case GGML_OP_SIN:
            if (da) add(a, ggml_mul(ctx_, grad, ggml_cos(ctx_, a)));
            break;
        case GGML_OP_COS:
            if (da) sub(a, ggml_mul(ctx_, grad, ggml_sin(ctx_, a)));
            break;
        default: { // SCALE
            float s;
            std::memcpy(&s, node->op_params, sizeof(s));
            if (da) add(a, ggml_scale(ctx_, grad, s));
            break;
        }
    }
}

// SUM, SUM_ROWS, MEAN, REPEAT, REPEAT_BACK, RMS_NORM, SOFT_MAX, CROSS_ENTROPY_LOSS, GET_ROWS, DIAG_MASK_*
void Backward::reductions(ggml_tensor * node, ggml_tensor * grad) {
    ggml_tensor * a = node->src[0];
    if (node->op == GGML_OP_SOFT_MAX && needs(node->src[1])) {
        unsupported(node, "the mask of");
    }
    if (node->op == GGML_OP_CROSS_ENTROPY_LOSS && needs(node->src[1])) {
        unsupported(node, "the labels of");
    }
    if (!needs(a)) {
        return;
    }
    switch (node->op) {
        case GGML_OP_SUM:         add1(a, grad); break;
        case GGML_OP_SUM_ROWS:    add(a, ggml_repeat(ctx_, grad, a)); break;
        case GGML_OP_MEAN:        add1(a, ggml_scale(ctx_, grad, 1.0f / static_cast<float>(a->ne[0]))); break;
        case GGML_OP_REPEAT:      add(a, ggml_repeat_back(ctx_, grad, a)); break;
        case GGML_OP_REPEAT_BACK: add(a, ggml_repeat(ctx_, grad, a)); break;
        case GGML_OP_RMS_NORM: {
            float eps;
            std::memcpy(&eps, node->op_params, sizeof(eps));
            add(a, ggml_rms_norm_back(ctx_, grad, a, eps));
            break;
        }
        case GGML_OP_SOFT_MAX: {
            float p[2];
            std::memcpy(p, node->op_params, sizeof(p));
            add(a, ggml_soft_max_ext_back(ctx_, grad, node, p[0], p[1]));
            break;
        }
        case GGML_OP_CROSS_ENTROPY_LOSS: add(a, ggml_cross_entropy_loss_back(ctx_, grad, a, node->src[1])); break;
        case GGML_OP_GET_ROWS:           add(a, ggml_get_rows_back(ctx_, grad, node->src[1], a)); break;
        default: // DIAG_MASK_INF, DIAG_MASK_ZERO: masked elements get no gradient
            add(a, ggml_diag_mask_zero(ctx_, grad, node->op_params[0]));
            break;
    }
}

// DUP, CPY, CONT, RESHAPE, PERMUTE, TRANSPOSE, ACC, SET
void Backward::layout(ggml_tensor * node, ggml_tensor * grad) {
    ggml_tensor * a = node->src[0];
    ggml_tensor * b = node->src[1];
    switch (node->op) {
        case GGML_OP_DUP:
            if (needs(a)) add(a, grad);
            break;
        case GGML_OP_CONT:
            if (needs(a)) add(a, ggml_are_same_shape(node, a) ? grad : ggml_reshape(ctx_, grad, a));
            break;
        case GGML_OP_CPY: // element i of a lands at element i of the destination, which contributes nothing
        case GGML_OP_RESHAPE:
            if (needs(a)) add(a, ggml_reshape(ctx_, ggml_is_contiguous(grad) ? grad : ggml_cont(ctx_, grad), a));
            break;
        case GGML_OP_TRANSPOSE:
            if (needs(a)) add(a, ggml_transpose(ctx_, grad));
            break;
        case GGML_OP_PERMUTE: {
            int back[4] = {0, 0, 0, 0};
            for (int i = 0; i < 4; ++i) {
                back[node->op_params[i] & 3] = i;
            }
            if (needs(a)) add(a, ggml_permute(ctx_, grad, back[0], back[1], back[2], back[3]));
            break;
        }
        default: { // ACC, SET: op_params {nb1, nb2, nb3, offset} place b in a view of a
            const auto  nb1 = static_cast<size_t>(node->op_params[0]), nb2 = static_cast<size_t>(node->op_params[1]);
            const auto  nb3 = static_cast<size_t>(node->op_params[2]), off = static_cast<size_t>(node->op_params[3]);
            ggml_tensor * part = ggml_view_4d(ctx_, grad, b->ne[0], b->ne[1], b->ne[2], b->ne[3], nb1, nb2, nb3, off);
            if (needs(a)) {
                add(a, node->op == GGML_OP_ACC ? grad : ggml_acc(ctx_, grad, ggml_neg(ctx_, part), nb1, nb2, nb3, off));
            }
            if (needs(b)) add(b, ggml_reshape(ctx_, ggml_cont(ctx_, part), b));
            break;
        }
    }
}

// VIEW: the gradient lands in the viewed part of the source's gradient (strides rescaled when the gradient's
// type differs from the source's).
void Backward::view(ggml_tensor * node, ggml_tensor * grad) {
    ggml_tensor * a = node->src[0];
    if (!needs(a)) {
        return;
    }
    size_t offset;
    std::memcpy(&offset, node->op_params, sizeof(offset));
    size_t nb[3] = {node->nb[1], node->nb[2], node->nb[3]};
    const ggml_tensor * g = grad_of(a);
    if (g && g->type != a->type) {
        const size_t from = ggml_element_size(a), to = ggml_element_size(g);
        offset            = offset / from * to;
        for (size_t & n : nb) {
            n = n / from * to;
        }
    }
    acc(a, grad, nb[0], nb[1], nb[2], offset);
}

// MUL_MAT: node [m, p, q, r] = a [n, m, q1, r1] x b [n, p, q, r]; a broadcasts over dims 2 and 3 of b.
void Backward::mul_mat(ggml_tensor * node, ggml_tensor * grad) {
    ggml_tensor * a = node->src[0];
    ggml_tensor * b = node->src[1];
    if (needs(a)) {
        ggml_tensor * t = ggml_out_prod(ctx_, b, grad); // [n, m, q, r]
        if (!ggml_are_same_shape(t, a)) {
            if (t->ne[3] != 1) {
                unsupported(node, "a broadcast in dim 3 of the first source of");
            }
            const int64_t k = t->ne[2] / a->ne[2];
            t = ggml_view_4d(ctx_, t, a->ne[0], a->ne[1], a->ne[2], k, t->nb[1], t->nb[2] * k, t->nb[2], 0);
            t = ggml_repeat_back(ctx_, t, a);
        }
        add(a, t);
    }
    if (needs(b)) {
        add(b, ggml_out_prod(ctx_, a, ggml_transpose(ctx_, grad)));
    }
}

void Backward::rope(ggml_tensor * node, ggml_tensor * grad) {
    if (needs(node->src[2])) {
        unsupported(node, "the frequency factors of");
    }
    ggml_tensor * a = node->src[0];
    if (!needs(a)) {
        return;
    }
    const int32_t * ip = node->op_params;
    float           f[6];
    std::memcpy(f, ip + 5, sizeof(f));
    int sections[GGML_MROPE_SECTIONS];
    std::memcpy(sections, ip + 11, sizeof(sections));
    ggml_tensor * b = node->src[1];
    ggml_tensor * c = node->src[2];
    ggml_tensor * back =
        grad->ne[2] == b->ne[0]
            ? ggml_rope_ext_back(ctx_, grad, b, c, ip[1], ip[2], ip[4], f[0], f[1], f[2], f[3], f[4], f[5])
            : ggml_rope_multi_back(ctx_, grad, b, c, ip[1], sections, ip[2], ip[4], f[0], f[1], f[2], f[3], f[4], f[5]);
    if (back && ip[15] != 0) {
        back = ggml_rope_set_offset(back, ip[15]); // the gradient rotates back the same window
    }
    add(a, back);
}

void Backward::unary(ggml_tensor * node, ggml_tensor * grad) {
    ggml_tensor * a = node->src[0];
    if (!needs(a)) {
        return;
    }
    switch (ggml_get_unary_op(node)) {
        case GGML_UNARY_OP_ABS:  add(a, ggml_mul(ctx_, ggml_sgn(ctx_, a), grad)); break;
        case GGML_UNARY_OP_NEG:  sub(a, grad); break;
        case GGML_UNARY_OP_RELU: add(a, ggml_mul(ctx_, ggml_step(ctx_, a), grad)); break;
        case GGML_UNARY_OP_SILU: add(a, ggml_silu_back(ctx_, grad, a)); break;
        case GGML_UNARY_OP_EXP:  add(a, ggml_mul(ctx_, node, grad)); break;
        case GGML_UNARY_OP_EXPM1: add(a, ggml_mul(ctx_, grad, ggml_exp(ctx_, a))); break;
        case GGML_UNARY_OP_SOFTPLUS: add(a, ggml_mul(ctx_, grad, ggml_sigmoid(ctx_, a))); break;
        case GGML_UNARY_OP_SGN:
        case GGML_UNARY_OP_STEP: break; // piecewise constant
        default:                 unsupported(node, "the unary op");
    }
}

// GLU: only the split SWIGLU (gate in src[1]) has a gradient, as upstream.
void Backward::glu(ggml_tensor * node, ggml_tensor * grad) {
    ggml_tensor * a = node->src[0];
    ggml_tensor * b = node->src[1];
    if (ggml_get_glu_op(node) != GGML_GLU_OP_SWIGLU || !b || node->op_params[1] != 0) {
        unsupported(node, "this GLU form:");
    }
    if (needs(a)) add(a, ggml_silu_back(ctx_, ggml_mul(ctx_, grad, b), a));
    if (needs(b)) add(b, ggml_mul(ctx_, ggml_silu(ctx_, a), grad));
}

// IM2COL (to the data; the kernel is shape only), POOL_2D
void Backward::spatial(ggml_tensor * node, ggml_tensor * grad) {
    const int32_t * p = node->op_params;
    if (node->op == GGML_OP_IM2COL) {
        ggml_tensor * data = node->src[1];
        if (needs(data)) {
            add(data, ggml_im2col_back(ctx_, grad, node->src[0], data->ne, p[0], p[1], p[2], p[3], p[4], p[5], p[6] == 1));
        }
        return;
    }
    ggml_tensor * a = node->src[0];
    if (needs(a)) {
        add(a, ggml_pool_2d_back(ctx_, grad, a, static_cast<ggml_op_pool>(p[0]), p[1], p[2], p[3], p[4],
                                 static_cast<float>(p[5]), static_cast<float>(p[6])));
    }
}

void Backward::visit(ggml_tensor * node) {
    ggml_tensor * grad = ggml_graph_get_grad(g_, node);
    if (!grad) {
        return;
    }
    switch (node->op) {
        case GGML_OP_NONE: break;
        case GGML_OP_ADD: case GGML_OP_ADD1: case GGML_OP_SUB: case GGML_OP_MUL: case GGML_OP_DIV:
        case GGML_OP_SQR: case GGML_OP_SQRT: case GGML_OP_LOG: case GGML_OP_SIN: case GGML_OP_COS:
        case GGML_OP_SCALE: arithmetic(node, grad); break;
        case GGML_OP_SUM: case GGML_OP_SUM_ROWS: case GGML_OP_MEAN: case GGML_OP_REPEAT: case GGML_OP_REPEAT_BACK:
        case GGML_OP_RMS_NORM: case GGML_OP_SOFT_MAX: case GGML_OP_CROSS_ENTROPY_LOSS: case GGML_OP_GET_ROWS:
        case GGML_OP_DIAG_MASK_INF: case GGML_OP_DIAG_MASK_ZERO: reductions(node, grad); break;
        case GGML_OP_DUP: case GGML_OP_CPY: case GGML_OP_CONT: case GGML_OP_RESHAPE: case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE: case GGML_OP_ACC: case GGML_OP_SET: layout(node, grad); break;
        case GGML_OP_VIEW:    view(node, grad); break;
        case GGML_OP_MUL_MAT: mul_mat(node, grad); break;
        case GGML_OP_ROPE:    rope(node, grad); break;
        case GGML_OP_UNARY:   unary(node, grad); break;
        case GGML_OP_GLU:     glu(node, grad); break;
        case GGML_OP_IM2COL: case GGML_OP_POOL_2D: spatial(node, grad); break;
        default:              unsupported(node, "op");
    }
    for (int i = 0; i < 3; ++i) {
        const ggml_tensor * s = node->src[i];
        if (needs(s) && !ggml_are_same_shape(s, grad_of(s))) {
            fatal("[ggml_build_backward_expand] the gradient of '%s' is not shaped like it", s->name);
        }
    }
}

// Sources whose gradient does not reach the node's output.
bool ignores_source(const ggml_tensor * node, int i) {
    switch (node->op) {
        case GGML_OP_IM2COL:
        case GGML_OP_IM2COL_BACK: return i == 0; // used for its shape only
        case GGML_OP_UNARY: {
            const ggml_unary_op u = ggml_get_unary_op(node);
            return i == 0 && (u == GGML_UNARY_OP_SGN || u == GGML_UNARY_OP_STEP);
        }
        case GGML_OP_CPY:
        case GGML_OP_GET_ROWS:
        case GGML_OP_GET_ROWS_BACK:
        case GGML_OP_ROPE: return i == 1;
        default: return false;
    }
}

// ops whose result may be a view of a source without being in-place: the views and CPY (which returns a view of
// its destination)
bool differentiable_view(ggml_op op) { return op == GGML_OP_CPY || op_is_view(op); }

void check_trainable(const ggml_cgraph * g) {
    bool any_param = false, any_loss = false;
    for (int i = 0; i < g->n_nodes; ++i) {
        any_param = any_param || (g->nodes[i]->flags & GGML_TENSOR_FLAG_PARAM);
        any_loss  = any_loss || (g->nodes[i]->flags & GGML_TENSOR_FLAG_LOSS);
    }
    if (!any_param) {
        fatal("[ggml_build_backward_expand] no trainable parameters (ggml_set_param) in the graph");
    }
    if (!any_loss) {
        fatal("[ggml_build_backward_expand] no loss (ggml_set_loss) in the graph");
    }
}

// Marks the forward nodes that need a gradient and installs the accumulators: the caller's (grad_accs[i] for
// forward node i, when given) and one for each loss.
std::vector<bool> mark_needed(ggml_context * ctx, ggml_cgraph * g, ggml_tensor ** grad_accs) {
    std::vector<bool> needed(g->visited_hash_set.size, false);
    for (int i = 0; i < g->n_nodes; ++i) {
        ggml_tensor * node = g->nodes[i];
        if (node->type == GGML_TYPE_I32) {
            continue;
        }
        bool need = (node->flags & (GGML_TENSOR_FLAG_PARAM | GGML_TENSOR_FLAG_LOSS)) != 0;
        for (int j = 0; j < GGML_MAX_SRC && !need; ++j) {
            const ggml_tensor * s = node->src[j];
            if (!s || ignores_source(node, j) || !hash_contains(&g->visited_hash_set, s) ||
                !needed[hash_find(&g->visited_hash_set, s)]) {
                continue;
            }
            if (s->type != GGML_TYPE_F32 && s->type != GGML_TYPE_F16) {
                fatal("[ggml_build_backward_expand] '%s' needs a gradient but is %s (only f32 and f16 are)", s->name,
                      ggml_type_name(s->type));
            }
            need = true;
        }
        if (!need) {
            continue;
        }
        if (node->view_src && !differentiable_view(node->op)) {
            fatal("[ggml_build_backward_expand] in-place op %s of node '%s' cannot be differentiated",
                  ggml_op_desc(node), node->name);
        }
        const size_t slot = hash_find(&g->visited_hash_set, node);
        if (grad_accs && grad_accs[i]) {
            g->grad_accs[slot] = grad_accs[i];
            g->grads[slot]     = grad_accs[i];
        } else if (node->flags & GGML_TENSOR_FLAG_LOSS) {
            g->grad_accs[slot] = ggml_new_tensor(ctx, GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
            g->grads[slot]     = g->grad_accs[slot];
            ggml_format_name(g->grad_accs[slot], "grad acc for %s", node->name);
        }
        needed[slot] = true;
    }
    return needed;
}

} // namespace

} // namespace switchyard

using namespace switchyard;

extern "C" {

void ggml_build_backward_expand(struct ggml_context * ctx, struct ggml_cgraph * cgraph, struct ggml_tensor ** grad_accs) {
    if (!cgraph || cgraph->n_nodes == 0 || !cgraph->grads || !cgraph->grad_accs) {
        fatal("[ggml_build_backward_expand] the graph must have nodes and room for gradients (ggml_new_graph_custom "
              "with grads = true)");
    }
    check_trainable(cgraph);
    const size_t slots = cgraph->visited_hash_set.size;
    std::memset(cgraph->grads, 0, slots * sizeof(ggml_tensor *));
    std::memset(cgraph->grad_accs, 0, slots * sizeof(ggml_tensor *));
    const std::vector<bool> needed = mark_needed(ctx, cgraph, grad_accs);
    const int               n_forward = cgraph->n_nodes;
    Backward                backward(ctx, cgraph, needed);
    for (int i = n_forward - 1; i >= 0; --i) {
        backward.visit(cgraph->nodes[i]);
    }
}

} // extern "C"
