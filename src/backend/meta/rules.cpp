// Where split states come from (Resolver), the planning driver (plan_node) with its replicated fallback, the
// helpers rules share, and the two generic families: element-wise ops (with broadcasting) and row-wise ops
// (each row along dimension 0 is processed on its own: norms, row reductions, sorting, fused GLU).
#include "backend/meta/rules.h"

#include "base/log.h"
#include "core/op_traits.h"

namespace switchyard::meta {

namespace {

const ggml_tensor * root_of(const ggml_tensor * t) { return t->view_src != nullptr ? t->view_src : t; }

// A tensor in a buffer that is not a meta buffer, or with host data of its own: the meta device has no slices.
bool is_external(const ggml_tensor * t) {
    const ggml_tensor * root = root_of(t);
    if (root->buffer != nullptr) {
        return meta_buffer(root->buffer) == nullptr;
    }
    return root->data != nullptr;
}

std::string describe_sources(const RuleInput & in) {
    std::string s;
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        if (in.node->src[j] != nullptr && in.node->src[j] != in.node) {
            s += std::string(s.empty() ? "" : ", ") + ggml_backend_meta_split_axis_name(in.src[j].axis);
        }
    }
    return s;
}

NodePlan replicate(const RuleInput & in) {
    NodePlan plan;
    plan.state      = mirrored_state();
    plan.replicated = true;
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        plan.src[j].how = Adapt::Mirror;
    }
    plan.reason = std::string("no split rule for ") + ggml_op_desc(in.node) + " with sources split as [" +
                  describe_sources(in) + "]";
    return plan;
}

// Plans an op whose result is a view of existing memory (CPY, SET_ROWS, in-place ops): the layout is given.
NodePlan plan_fixed(const RuleInput & in) {
    NodePlan plan;
    if (in.out.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED) {
        plan = replicate(in);
        // all sources mirrored already: an ordinary computation on every device, not a fallback
        plan.replicated = false;
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            const ggml_tensor * src = in.node->src[j];
            plan.replicated = plan.replicated || (src && src != in.node && in.src[j].axis != GGML_BACKEND_SPLIT_AXIS_MIRRORED);
        }
        return plan;
    }
    const Rule rule = is_dim_split(in.out) ? rule_for_op(in.node->op) : nullptr;
    if (rule != nullptr && rule(in, plan) && same_state(plan.state, in.out, in.n)) {
        return plan;
    }
    plan        = NodePlan{};
    plan.failed = true;
    plan.reason = std::string(ggml_op_desc(in.node)) + " writes into a view split as " +
                  ggml_backend_meta_split_axis_name(in.out.axis) + " from sources split as [" + describe_sources(in) +
                  "], which the devices cannot compute on their slices";
    return plan;
}

} // namespace

bool reduced_in_place(const ggml_tensor * t) {
    return t->view_src == nullptr && t->op != GGML_OP_NONE && !is_static(t) && !is_external(t);
}

SplitState Resolver::user_state(const ggml_tensor * t) const {
    SplitState s = dev_.get_split_state(t, dev_.user_data);
    if (!normalize_user_state(s, t, n())) {
        return none_state();
    }
    return s;
}

SplitState Resolver::raw(const ggml_tensor * t) {
    if (auto it = memo_.find(t); it != memo_.end()) {
        return it->second;
    }
    SplitState s;
    const ggml_tensor * root = root_of(t);
    if (root != t) {
        const ViewMap m = map_view(effective(root), n(), root, t->ne, t->nb, t->view_offs);
        s               = m.ok ? m.state : none_state();
    } else if (const Record * rec = find_record(t)) {
        s = rec->state;
    } else if (is_static(t)) {
        s = user_state(t);
    } else if (is_external(t)) {
        s = none_state();
    } else if (t->op == GGML_OP_NONE) {
        s = mirrored_state(); // an input the scheduler or the caller fills: written to every device
    } else {
        s = plan_node(*this, t).state;
    }
    memo_[t] = s;
    return s;
}

SplitState Resolver::effective(const ggml_tensor * t) {
    const SplitState s = raw(t);
    if (s.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL && reduced_in_place(t)) {
        return mirrored_state();
    }
    return s;
}

NodePlan plan_node(Resolver & resolver, const ggml_tensor * node) {
    RuleInput in;
    in.node = node;
    in.n    = resolver.n();
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor * src = node->src[j];
        in.src[j]               = src != nullptr && src != node ? resolver.effective(src) : mirrored_state();
    }
    if (node->view_src != nullptr && !op_is_view(node->op)) {
        in.fixed = true;
        in.out   = resolver.raw(node);
        return plan_fixed(in);
    }
    NodePlan   plan;
    const Rule rule = rule_for_op(node->op);
    if (rule != nullptr && rule(in, plan)) {
        return plan;
    }
    return replicate(in);
}

//
// Helpers
//

void mirror(NodePlan & plan, int j) { plan.src[j].how = Adapt::Mirror; }

bool adapt_to(const RuleInput & in, int j, const SplitState & target, NodePlan & plan) {
    if (same_state(in.src[j], target, in.n)) {
        plan.src[j].how = Adapt::AsIs;
        return true;
    }
    if (is_single_box(target)) {
        plan.src[j].how    = Adapt::Slice;
        plan.src[j].target = target;
        return true;
    }
    return false;
}

bool follow(const RuleInput & in, int j, const SplitState & result, int axis, NodePlan & plan) {
    const ggml_tensor * src = in.node->src[j];
    if (src == nullptr || src == in.node) {
        return true;
    }
    if (src->ne[axis] == 1 && in.node->ne[axis] != 1) {
        if (is_dim_split(in.src[j])) {
            return false;
        }
        mirror(plan, j);
        return true;
    }
    if (src->ne[axis] != in.node->ne[axis]) {
        return false;
    }
    return adapt_to(in, j, with_axis(result, axis), plan);
}

int dominant_source(const RuleInput & in) {
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor * src = in.node->src[j];
        if (src != nullptr && src != in.node && is_dim_split(in.src[j]) &&
            src->ne[axis_of(in.src[j])] == in.node->ne[axis_of(in.src[j])]) {
            return j;
        }
    }
    return -1;
}

namespace {

// No source split along a dimension: the result is MIRRORED (sources gathered / reduced where needed).
bool all_whole(const RuleInput & in, NodePlan & plan) {
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor * src = in.node->src[j];
        if (src != nullptr && src != in.node && is_dim_split(in.src[j])) {
            return false;
        }
        mirror(plan, j);
    }
    plan.state = mirrored_state();
    return true;
}

} // namespace

bool rule_elementwise(const RuleInput & in, NodePlan & plan) {
    const int dom = in.fixed ? -1 : dominant_source(in);
    if (dom < 0 && !in.fixed) {
        return all_whole(in, plan);
    }
    const SplitState result = in.fixed ? in.out : in.src[dom];
    const int        axis   = axis_of(result);
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        if (!follow(in, j, result, axis, plan)) {
            return false;
        }
    }
    plan.state = result;
    return true;
}

bool rule_rows(const RuleInput & in, NodePlan & plan) {
    const SplitState s0 = in.fixed ? in.out : in.src[0];
    if (!is_dim_split(s0)) {
        return all_whole(in, plan);
    }
    const int axis = axis_of(s0);
    if (axis == 0 || in.node->src[0]->ne[axis] != in.node->ne[axis]) {
        return false; // a row would be cut in pieces
    }
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        if (!follow(in, j, s0, axis, plan)) {
            return false;
        }
    }
    plan.state = s0;
    return true;
}

} // namespace switchyard::meta
