// Split rules of the ops that are neither plainly element-wise nor row-wise, and the op -> rule table.
//   MUL_MAT      weights split on dimension 1 (output rows): "column parallel", the result split on dimension 0;
//                both operands split on dimension 0 (the reduced dimension): "row parallel", a PARTIAL result;
//                batched products split on dimension 2/3 (attention heads, grouped-query ratio kept)
//   FLASH_ATTN   q, k, v split by heads (dimension 2); the result (heads in dimension 1) split the same way
//   ROPE         split by heads (or by tokens with the positions sliced)
//   SOFT_MAX     split by rows or heads; the mask and sinks follow
//   GET_ROWS     table split along its rows' elements, or indices split (result split by rows)
//   SET_ROWS     destination and rows split along dimension 0
//   CONCAT       along another dimension than the split; along the split dimension the segments add up
//   CPY/CONT/DUP the split carried through a change of shape (map_reshape)
//   SUM, SUM_ROWS over split elements: PARTIAL sums
#include "backend/meta/rules.h"

#include "core/tensor.h"

namespace switchyard::meta {

namespace {

bool whole(const SplitState & s) { return !is_dim_split(s); }

// A single-source op whose source is not split runs replicated on the whole tensor; true when that applies.
bool replicated_when_whole(const SplitState & s0, NodePlan & plan) {
    if (!whole(s0)) {
        return false;
    }
    mirror(plan, 0);
    plan.state = mirrored_state();
    return true;
}

// a's split scaled by num/den along the same axis
bool scaled(SplitState s, int n, int64_t num, int64_t den, SplitState & out) {
    out = s;
    return scale_shares(out, n, num, den);
}

bool rule_mul_mat_a_split(const RuleInput & in, NodePlan & plan) {
    const ggml_tensor * a = in.node->src[0];
    const ggml_tensor * b = in.node->src[1];
    const SplitState &  sa = in.src[0];
    const int           axis = axis_of(sa);
    plan.src[0].how = Adapt::AsIs;
    if (axis == 1) { // column parallel
        mirror(plan, 1);
        plan.state = with_axis(sa, 0);
        return true;
    }
    if (axis == 0) { // row parallel
        plan.state = partial_state();
        return adapt_to(in, 1, sa, plan);
    }
    SplitState tb; // batched: b's heads follow a's by the broadcast ratio
    if (b->ne[axis] % a->ne[axis] != 0 || !scaled(sa, in.n, b->ne[axis] / a->ne[axis], 1, tb)) {
        return false;
    }
    plan.state = tb;
    return adapt_to(in, 1, tb, plan);
}

bool rule_mul_mat(const RuleInput & in, NodePlan & plan) {
    const ggml_tensor * a  = in.node->src[0];
    const ggml_tensor * b  = in.node->src[1];
    const SplitState &  sa = in.src[0];
    const SplitState &  sb = in.src[1];
    if (whole(sa) && whole(sb)) {
        mirror(plan, 0);
        mirror(plan, 1);
        plan.state = mirrored_state();
        return true;
    }
    if (!whole(sa)) {
        return rule_mul_mat_a_split(in, plan);
    }
    const int axis  = axis_of(sb);
    plan.src[1].how = Adapt::AsIs;
    if (axis == 1 || (axis >= 2 && a->ne[axis] == 1)) {
        mirror(plan, 0);
        plan.state = sb;
        return true;
    }
    if (axis == 0) {
        plan.state = partial_state();
        return adapt_to(in, 0, sb, plan);
    }
    SplitState ta;
    if (b->ne[axis] % a->ne[axis] != 0 || !scaled(sb, in.n, 1, b->ne[axis] / a->ne[axis], ta)) {
        return false;
    }
    plan.state = sb;
    return adapt_to(in, 0, ta, plan);
}

bool rule_mul_mat_id(const RuleInput & in, NodePlan & plan) {
    const SplitState & sa = in.src[0];
    mirror(plan, 2);
    if (whole(sa)) {
        mirror(plan, 0);
        mirror(plan, 1);
        plan.state = mirrored_state();
        return whole(in.src[1]);
    }
    plan.src[0].how = Adapt::AsIs;
    if (axis_of(sa) == 1) {
        mirror(plan, 1);
        plan.state = with_axis(sa, 0);
        return true;
    }
    plan.state = partial_state();
    return axis_of(sa) == 0 && adapt_to(in, 1, sa, plan);
}

bool rule_get_rows(const RuleInput & in, NodePlan & plan) {
    const SplitState & sa = in.src[0];
    const SplitState & si = in.src[1];
    if (!whole(sa)) {
        mirror(plan, 1);
        plan.src[0].how = Adapt::AsIs;
        plan.state      = sa;
        return axis_of(sa) == 0;
    }
    mirror(plan, 0);
    if (whole(si)) {
        mirror(plan, 1);
        plan.state = mirrored_state();
        return true;
    }
    plan.src[1].how = Adapt::AsIs;
    plan.state      = with_axis(si, 1);
    return axis_of(si) == 0 && in.node->src[1]->ne[1] == 1;
}

// SET_ROWS: src = {rows, indices, destination}; the result is a view of the destination.
bool rule_set_rows(const RuleInput & in, NodePlan & plan) {
    if (!in.fixed || axis_of(in.out) != 0) {
        return false;
    }
    mirror(plan, 1);
    plan.state = in.out;
    return adapt_to(in, 0, in.out, plan) && adapt_to(in, 2, in.out, plan);
}

bool rule_rope(const RuleInput & in, NodePlan & plan) {
    const SplitState s0 = in.fixed ? in.out : in.src[0];
    mirror(plan, 2);
    if (whole(s0)) {
        mirror(plan, 0);
        mirror(plan, 1);
        plan.state = mirrored_state();
        return whole(in.src[1]);
    }
    const int axis  = axis_of(s0);
    const int mode  = get_op_param_i32(in.node, 2);
    plan.src[0].how = Adapt::AsIs;
    plan.state      = s0;
    if (axis == 1 || axis == 3) {
        mirror(plan, 1);
        return true;
    }
    // split by tokens: each device needs the positions of its tokens
    return axis == 2 && (mode & GGML_ROPE_TYPE_MROPE) == 0 && adapt_to(in, 1, with_axis(s0, 0), plan);
}

// SOFT_MAX: src = {a, mask, sinks}; op_params = {scale, max_bias}.
bool rule_soft_max(const RuleInput & in, NodePlan & plan) {
    const SplitState s0 = in.fixed ? in.out : in.src[0];
    if (whole(s0)) {
        for (int j = 0; j < 3; ++j) {
            mirror(plan, j);
        }
        plan.state = mirrored_state();
        return whole(in.src[1]) && whole(in.src[2]);
    }
    const int axis = axis_of(s0);
    if (axis == 0 || (axis == 2 && get_op_param_f32(in.node, 1) != 0.0f)) {
        return false; // a row cut in pieces, or ALiBi slopes that depend on the head index
    }
    plan.src[0].how = Adapt::AsIs;
    plan.state      = s0;
    if (!follow(in, 1, s0, axis, plan)) {
        return false;
    }
    if (in.node->src[2] == nullptr || axis != 2) {
        mirror(plan, 2);
        return true;
    }
    return adapt_to(in, 2, with_axis(s0, 0), plan);
}

// FLASH_ATTN_EXT: src = {q, k, v, mask, sinks}, q [D, Tq, H, S], k/v [., Tk, Hkv, S]; result [Dv, H, Tq, S].
bool rule_flash_attn(const RuleInput & in, NodePlan & plan) {
    const ggml_tensor * q = in.node->src[0];
    const ggml_tensor * k = in.node->src[1];
    const int64_t       ratio = q->ne[2] / k->ne[2];
    SplitState          sq    = in.src[0];
    if (whole(sq) && is_dim_split(in.src[1]) && axis_of(in.src[1]) == 2 && !scaled(in.src[1], in.n, ratio, 1, sq)) {
        return false;
    }
    if (whole(sq)) {
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            mirror(plan, j);
        }
        plan.state = mirrored_state();
        return whole(in.src[1]) && whole(in.src[2]) && whole(in.src[3]) && whole(in.src[4]);
    }
    SplitState skv;
    if (axis_of(sq) != 2 || get_op_param_f32(in.node, 1) != 0.0f || !scaled(sq, in.n, 1, ratio, skv)) {
        return false;
    }
    if (!adapt_to(in, 0, sq, plan) || !adapt_to(in, 1, skv, plan) || !adapt_to(in, 2, skv, plan)) {
        return false;
    }
    const ggml_tensor * mask = in.node->src[3];
    if (mask != nullptr && mask->ne[2] != 1) {
        if (mask->ne[2] != q->ne[2] || !adapt_to(in, 3, sq, plan)) {
            return false;
        }
    } else {
        mirror(plan, 3);
    }
    if (in.node->src[4] != nullptr && !adapt_to(in, 4, with_axis(sq, 0), plan)) {
        return false;
    }
    plan.state = with_axis(sq, 1);
    return true;
}

bool rule_concat(const RuleInput & in, NodePlan & plan) {
    const int          dim = get_op_param_i32(in.node, 0);
    const SplitState & sa  = in.src[0];
    const SplitState & sb  = in.src[1];
    if (is_dim_split(sa) && is_dim_split(sb) && axis_of(sa) == dim && axis_of(sb) == dim) {
        plan.src[0].how = Adapt::AsIs;
        plan.src[1].how = Adapt::AsIs;
        return concat_segments(sa, sb, in.n, plan.state);
    }
    const SplitState & s = is_dim_split(sa) ? sa : sb;
    if (!is_dim_split(s)) {
        mirror(plan, 0);
        mirror(plan, 1);
        plan.state = mirrored_state();
        return true;
    }
    const int axis = axis_of(s);
    plan.state     = s;
    return axis != dim && follow(in, 0, s, axis, plan) && follow(in, 1, s, axis, plan);
}

// CPY (into a view, or a cast), CONT and DUP, possibly with a change of shape.
bool rule_copy(const RuleInput & in, NodePlan & plan) {
    const ggml_tensor * src  = in.node->src[0];
    const ggml_tensor * node = in.node;
    if (in.fixed) {
        SplitState target;
        if (!map_reshape(in.out, in.n, node->type, node->ne, src->ne, target)) {
            return false;
        }
        plan.state = in.out;
        return adapt_to(in, 0, target, plan) && (node->src[1] == nullptr || adapt_to(in, 1, in.out, plan));
    }
    const SplitState & s0 = in.src[0];
    plan.src[1].how       = Adapt::AsIs; // a cast names its own result as the second source
    if (replicated_when_whole(s0, plan)) {
        return true;
    }
    plan.src[0].how = Adapt::AsIs;
    return map_reshape(s0, in.n, src->type, src->ne, node->ne, plan.state);
}

bool rule_repeat(const RuleInput & in, NodePlan & plan) {
    const SplitState & s0 = in.src[0];
    if (replicated_when_whole(s0, plan)) {
        return true;
    }
    plan.src[0].how = Adapt::AsIs;
    plan.state      = s0;
    return in.node->src[0]->ne[axis_of(s0)] == in.node->ne[axis_of(s0)];
}

bool rule_pad(const RuleInput & in, NodePlan & plan) {
    const SplitState & s0 = in.src[0];
    if (replicated_when_whole(s0, plan)) {
        return true;
    }
    const int axis  = axis_of(s0);
    plan.src[0].how = Adapt::AsIs;
    plan.state      = s0;
    return get_op_param_i32(in.node, 2 * axis) == 0 && get_op_param_i32(in.node, 2 * axis + 1) == 0;
}

// SUM of a split tensor: each device sums its slice, the total is their sum.
bool rule_sum(const RuleInput & in, NodePlan & plan) {
    if (replicated_when_whole(in.src[0], plan)) {
        return true;
    }
    plan.src[0].how = Adapt::AsIs;
    plan.state      = partial_state();
    return true;
}

// SUM_ROWS of rows cut in pieces: each device sums its piece of every row, the row sums add up.
bool rule_sum_rows(const RuleInput & in, NodePlan & plan) {
    if (!is_dim_split(in.src[0]) || axis_of(in.src[0]) != 0) {
        return rule_rows(in, plan);
    }
    plan.src[0].how = Adapt::AsIs;
    plan.state      = partial_state();
    return true;
}

bool rule_argmax(const RuleInput & in, NodePlan & plan) {
    const SplitState & s0 = in.src[0];
    if (replicated_when_whole(s0, plan)) {
        return true;
    }
    plan.src[0].how = Adapt::AsIs;
    plan.state      = with_axis(s0, 0);
    return axis_of(s0) == 1;
}

// Ops that work on whole planes of dimensions 0 and 1 (diagonal masks) or 0..2 (group norm).
template <int kMinAxis>
bool rule_planes(const RuleInput & in, NodePlan & plan) {
    const SplitState s0 = in.fixed ? in.out : in.src[0];
    if (replicated_when_whole(s0, plan)) {
        return true;
    }
    plan.src[0].how = Adapt::AsIs;
    plan.state      = s0;
    return axis_of(s0) >= kMinAxis;
}

bool rule_glu(const RuleInput & in, NodePlan & plan) {
    return in.node->src[1] != nullptr ? rule_elementwise(in, plan) : rule_rows(in, plan);
}

} // namespace

Rule rule_for_op(ggml_op op) {
    switch (op) {
        case GGML_OP_ADD:
        case GGML_OP_ADD1:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_LOG:
        case GGML_OP_SIN:
        case GGML_OP_COS:
        case GGML_OP_SCALE:
        case GGML_OP_CLAMP:
        case GGML_OP_LEAKY_RELU:
        case GGML_OP_UNARY:
        case GGML_OP_SILU_BACK:
        case GGML_OP_FILL:           return rule_elementwise;
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_L2_NORM:
        case GGML_OP_MEAN:
        case GGML_OP_CUMSUM:
        case GGML_OP_ARGSORT:
        case GGML_OP_TOP_K:          return rule_rows;
        case GGML_OP_GLU:            return rule_glu;
        case GGML_OP_MUL_MAT:        return rule_mul_mat;
        case GGML_OP_MUL_MAT_ID:     return rule_mul_mat_id;
        case GGML_OP_GET_ROWS:       return rule_get_rows;
        case GGML_OP_SET_ROWS:       return rule_set_rows;
        case GGML_OP_ROPE:           return rule_rope;
        case GGML_OP_SOFT_MAX:       return rule_soft_max;
        case GGML_OP_FLASH_ATTN_EXT: return rule_flash_attn;
        case GGML_OP_CONCAT:         return rule_concat;
        case GGML_OP_CPY:
        case GGML_OP_CONT:
        case GGML_OP_DUP:            return rule_copy;
        case GGML_OP_REPEAT:         return rule_repeat;
        case GGML_OP_PAD:            return rule_pad;
        case GGML_OP_SUM:            return rule_sum;
        case GGML_OP_SUM_ROWS:       return rule_sum_rows;
        case GGML_OP_ARGMAX:         return rule_argmax;
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO: return rule_planes<2>;
        case GGML_OP_GROUP_NORM:     return rule_planes<3>;
        default:                     return nullptr;
    }
}

} // namespace switchyard::meta
