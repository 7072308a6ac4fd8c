// Per-op split rules. For a node, plan_node decides the split state of its result and how each source is
// used on the devices:
//   AsIs    every device uses its own slice of the source as it is;
//   Mirror  every device needs the whole source (gathered first unless it is MIRRORED already);
//   Slice   every device needs a range of the whole source (target: the split to cut along, in the source's own
//           dimensions, one range per device).
// An op or split combination without a rule is computed replicated: all sources mirrored, the result MIRRORED
// (NodePlan::replicated). When even that cannot work (the result is a view of split memory that the op cannot
// write per device) the plan is failed, with the reason.
//
// The Resolver answers "what is the split state of tensor t": from its record when t is placed in a meta buffer,
// from the user's callback for static tensors, through the view mapping for views, and by these rules for
// computed tensors. PARTIAL results of ops are all-reduced by the backend right after they are computed, so
// their consumers see them MIRRORED (effective state).
#pragma once

#include "backend/meta/meta.h"
#include "backend/meta/split_state.h"

#include <array>
#include <string>
#include <unordered_map>

namespace switchyard::meta {

class Resolver {
public:
    explicit Resolver(const MetaDevice & dev) : dev_(dev) {}

    // What the devices hold right after t is computed (PARTIAL for row-parallel products).
    SplitState raw(const ggml_tensor * t);
    // What t's consumers read.
    SplitState effective(const ggml_tensor * t);
    // The state the user's callback gives a static tensor; NONE (logged) if the answer is invalid.
    SplitState user_state(const ggml_tensor * t) const;

    const MetaDevice & device() const { return dev_; }
    int                n() const { return dev_.n(); }

private:
    const MetaDevice &                                   dev_;
    std::unordered_map<const ggml_tensor *, SplitState> memo_;
};

// A PARTIAL op result that the backend all-reduces in place (and that its consumers therefore read MIRRORED).
bool reduced_in_place(const ggml_tensor * t);

enum class Adapt : uint8_t { AsIs, Mirror, Slice };

struct SourcePlan {
    Adapt      how = Adapt::AsIs;
    SplitState target{};
};

struct NodePlan {
    SplitState                             state{};
    std::array<SourcePlan, GGML_MAX_SRC>   src{};
    bool                                   replicated = false;
    bool                                   failed     = false;
    std::string                            reason;
};

NodePlan plan_node(Resolver & resolver, const ggml_tensor * node);

//
// Helpers shared by the rule files
//

// What a rule sees: the node, the effective states of its sources, and (for ops whose result is a view, such as
// CPY and SET_ROWS) the layout the result must be written in.
struct RuleInput {
    const ggml_tensor *                    node = nullptr;
    int                                    n    = 0;
    std::array<SplitState, GGML_MAX_SRC>   src{};
    bool                                   fixed = false;
    SplitState                             out{}; // the result's layout when fixed
};

using Rule = bool (*)(const RuleInput & in, NodePlan & plan);

// Plans source j to be read with state `target` (in the source's dimensions): as it is when it already has it,
// sliced from a mirrored copy when target is one box per device; false when neither works.
bool adapt_to(const RuleInput & in, int j, const SplitState & target, NodePlan & plan);
// Source j must be whole on every device.
void mirror(NodePlan & plan, int j);
// Source j follows the result's split along `axis`: as is / sliced when it has the result's extent there,
// mirrored when it is broadcast (extent 1) along it.
bool follow(const RuleInput & in, int j, const SplitState & result, int axis, NodePlan & plan);
// The first source that is split along an axis where it has the node's extent; -1 if none.
int dominant_source(const RuleInput & in);

// rules.cpp: element-wise and row-wise families; rules_ops.cpp: ops with their own rules.
bool rule_elementwise(const RuleInput & in, NodePlan & plan);
bool rule_rows(const RuleInput & in, NodePlan & plan);
Rule rule_for_op(ggml_op op);

} // namespace switchyard::meta
