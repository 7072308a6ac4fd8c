// From a meta graph to a Program of per-device steps.
//
// Every node that computes something gets a plan (rules.h). Its result on device d is its record's slice (or,
// for ops writing into a view such as CPY and SET_ROWS, a view of the root's slice); its sources on device d are
// their slices (AsIs), whole copies (Mirror: the slice when MIRRORED, else a copy gathered from all devices),
// or ranges of whole copies (Slice). Gathers end the current Compute step: they need every device idle.
// A PARTIAL result ends the step too and is followed by an AllReduce; devices that hold an empty part of one of
// its sources (zero-size slices) skip the node and contribute zeros.
//
// The graph allocator may place a result in the memory of one of its sources (in place). On the devices that is
// only safe when the slices line up exactly; otherwise the result is computed into a temporary and copied.
#include "backend/meta/backend.h"

#include "base/log.h"
#include "core/graph.h"
#include "core/op_traits.h"

#include <cstring>
#include <unordered_set>

namespace switchyard::meta {

namespace {

using PerDevice = std::array<ggml_tensor *, kMaxDevices>;

const ggml_tensor * root_of(const ggml_tensor * t) { return t->view_src != nullptr ? t->view_src : t; }

const ggml_backend_buffer * buffer_of(const ggml_tensor * t) { return root_of(t)->buffer; }

bool overlaps(const ggml_tensor * a, const ggml_tensor * b) {
    if (a->data == nullptr || b->data == nullptr || buffer_of(a) != buffer_of(b)) {
        return false;
    }
    const auto a0 = reinterpret_cast<uintptr_t>(a->data), a1 = a0 + ggml_nbytes(a);
    const auto b0 = reinterpret_cast<uintptr_t>(b->data), b1 = b0 + ggml_nbytes(b);
    return a0 < b1 && b0 < a1;
}

bool same_layout(const ggml_tensor * a, const ggml_tensor * b) {
    return a->type == b->type && std::memcmp(a->ne, b->ne, sizeof(a->ne)) == 0 &&
           std::memcmp(a->nb, b->nb, sizeof(a->nb)) == 0;
}

class Builder {
public:
    Builder(MetaBackend & mb, Program & prog) : mb_(mb), prog_(prog), resolver_(*mb.dev), n_(mb.n()) {
        prog_.temps.assign(static_cast<size_t>(n_), {});
        current_.nodes.assign(static_cast<size_t>(n_), {});
    }

    ggml_status add(ggml_tensor * node);
    void        finish() { flush(); }

private:
    bool          slices_of(const ggml_tensor * t, PerDevice & out);
    bool          whole_of(const ggml_tensor * t, PerDevice & out);
    bool          sliced_of(const ggml_tensor * t, const SplitState & target, PerDevice & out);
    bool          source(const ggml_tensor * t, const SourcePlan & sp, PerDevice & out);
    bool          outputs_of(const ggml_tensor * node, const NodePlan & plan, PerDevice & out);
    ggml_tensor * view_of(ggml_tensor * base, const int64_t * ne, const size_t * nb, size_t offs);
    ggml_tensor * temp_like(int d, const ggml_tensor * t);
    void          append(int d, const ggml_tensor * node, ggml_tensor * out, const std::array<PerDevice, GGML_MAX_SRC> & srcs);
    void          flush();
    void          log_replicated(const ggml_tensor * node, const NodePlan & plan);

    MetaBackend &                                      mb_;
    Program &                                          prog_;
    Resolver                                           resolver_;
    int                                                n_;
    Step                                               current_;
    std::unordered_map<const ggml_tensor *, PerDevice> gathered_; // root -> whole copies
    std::unordered_map<const ggml_tensor *, PerDevice> views_;    // view -> its slices
};

ggml_tensor * Builder::view_of(ggml_tensor * base, const int64_t * ne, const size_t * nb, size_t offs) {
    ggml_tensor * v = prog_.pool.make(base->type, ne);
    if (v == nullptr) {
        return nullptr;
    }
    std::memcpy(v->nb, nb, sizeof(v->nb));
    ggml_tensor * root = base->view_src != nullptr ? base->view_src : base;
    v->view_src        = root;
    v->view_offs       = (base->view_src != nullptr ? base->view_offs : 0) + offs;
    v->buffer          = root->buffer;
    v->data            = root->data != nullptr ? static_cast<char *>(root->data) + v->view_offs : nullptr;
    ggml_set_name(v, base->name);
    prog_.views.push_back(v);
    return v;
}

ggml_tensor * Builder::temp_like(int d, const ggml_tensor * t) {
    ggml_tensor * tmp = prog_.pool.make(t->type, t->ne);
    if (tmp != nullptr) {
        std::memcpy(tmp->nb, t->nb, sizeof(tmp->nb));
        ggml_format_name(tmp, "%.48s (tmp)", t->name);
        prog_.temps[static_cast<size_t>(d)].push_back(tmp);
    }
    return tmp;
}

bool Builder::slices_of(const ggml_tensor * t, PerDevice & out) {
    const ggml_tensor * root = root_of(t);
    const Record *      rec  = find_record(root);
    if (rec == nullptr) {
        return false;
    }
    if (root == t) {
        out = rec->simple;
        return true;
    }
    if (auto it = views_.find(t); it != views_.end()) {
        out = it->second;
        return true;
    }
    const ViewMap m = map_view(resolver_.effective(root), n_, root, t->ne, t->nb, t->view_offs);
    for (int d = 0; d < n_ && m.ok; ++d) {
        out[d] = view_of(rec->simple[d], m.dev[d].ne, m.dev[d].nb, m.dev[d].offs);
        if (out[d] == nullptr) {
            return false;
        }
    }
    views_[t] = out;
    return m.ok;
}

bool Builder::whole_of(const ggml_tensor * t, PerDevice & out) {
    if (resolver_.effective(t).axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED) {
        return slices_of(t, out);
    }
    const ggml_tensor * root = root_of(t);
    auto                it   = gathered_.find(root);
    if (it == gathered_.end()) {
        PerDevice copies{};
        for (int d = 0; d < n_; ++d) {
            copies[d] = temp_like(d, root);
            if (copies[d] == nullptr) {
                return false;
            }
        }
        flush();
        Step step;
        step.kind    = Step::Kind::Gather;
        step.source  = root;
        step.tensors = copies;
        prog_.steps.push_back(std::move(step));
        ++prog_.n_gather;
        it = gathered_.emplace(root, copies).first;
    }
    for (int d = 0; d < n_; ++d) {
        out[d] = root == t ? it->second[d] : view_of(it->second[d], t->ne, t->nb, t->view_offs);
        if (out[d] == nullptr) {
            return false;
        }
    }
    return true;
}

bool Builder::sliced_of(const ggml_tensor * t, const SplitState & target, PerDevice & out) {
    PerDevice whole{};
    if (!whole_of(t, whole)) {
        return false;
    }
    const int a = axis_of(target);
    for (int d = 0; d < n_; ++d) {
        int64_t ne[GGML_MAX_DIMS];
        std::memcpy(ne, t->ne, sizeof(ne));
        ne[a]               = share(target, n_, 0, d);
        const int64_t start = box_start(target, n_, d);
        const size_t  offs  = a == 0 ? ggml_row_size(t->type, start) : static_cast<size_t>(start) * whole[d]->nb[a];
        out[d]              = view_of(whole[d], ne, whole[d]->nb, offs);
        if (out[d] == nullptr) {
            return false;
        }
    }
    return true;
}

bool Builder::source(const ggml_tensor * t, const SourcePlan & sp, PerDevice & out) {
    switch (sp.how) {
        case Adapt::AsIs:   return slices_of(t, out) || whole_of(t, out);
        case Adapt::Mirror: return whole_of(t, out);
        case Adapt::Slice:  return sliced_of(t, sp.target, out);
    }
    return false;
}

bool Builder::outputs_of(const ggml_tensor * node, const NodePlan & plan, PerDevice & out) {
    if (node->view_src != nullptr) {
        return slices_of(node, out);
    }
    const Record * rec = find_record(node);
    if (rec == nullptr) {
        log_error("[ggml_backend_meta] node '%s' (%s) is not allocated in a meta buffer\n", node->name, ggml_op_desc(node));
        return false;
    }
    if (!same_state(rec->state, plan.state, n_)) {
        log_error("[ggml_backend_meta] the split of node '%s' changed since it was allocated (%s, now %s)\n", node->name,
                  ggml_backend_meta_split_axis_name(rec->state.axis), ggml_backend_meta_split_axis_name(plan.state.axis));
        return false;
    }
    out = rec->simple;
    return true;
}

void Builder::flush() {
    bool any = false;
    for (const auto & list : current_.nodes) {
        any = any || !list.empty();
    }
    if (any) {
        prog_.steps.push_back(std::move(current_));
    }
    current_      = Step{};
    current_.nodes.assign(static_cast<size_t>(n_), {});
}

void Builder::log_replicated(const ggml_tensor * node, const NodePlan & plan) {
    ++prog_.n_replicated;
    std::lock_guard lock(mb_.log_mutex);
    if (mb_.logged_ops.insert(static_cast<int>(node->op)).second) {
        log_warn("[ggml_backend_meta] %s; computing '%s' and other %s nodes whole on every device (logged once per op)\n",
                 plan.reason.c_str(), node->name, ggml_op_desc(node));
    }
}

// Queues out (slice d of node) with its sources, through a temporary when it would overwrite a source it does
// not line up with.
void Builder::append(int d, const ggml_tensor * node, ggml_tensor * out, const std::array<PerDevice, GGML_MAX_SRC> & srcs) {
    auto & list = current_.nodes[static_cast<size_t>(d)];
    for (int j = 0; j < GGML_MAX_SRC && node->view_src == nullptr; ++j) {
        const ggml_tensor * s = srcs[j][d];
        if (s == nullptr || s == out || !overlaps(out, s)) {
            continue;
        }
        if (out->data == s->data && same_layout(out, s) && node->data == node->src[j]->data) {
            continue; // in place with matching slices
        }
        ggml_tensor * tmp = temp_like(d, out);
        ggml_tensor * cpy = tmp != nullptr ? view_of(out, out->ne, out->nb, 0) : nullptr;
        if (cpy == nullptr) {
            break;
        }
        tmp->op    = out->op;
        tmp->flags = out->flags;
        std::memcpy(tmp->op_params, out->op_params, sizeof(tmp->op_params));
        std::memcpy(tmp->src, out->src, sizeof(tmp->src));
        cpy->op     = GGML_OP_CPY;
        cpy->flags  = GGML_TENSOR_FLAG_COMPUTE;
        cpy->src[0] = tmp;
        cpy->src[1] = out;
        list.push_back(tmp);
        list.push_back(cpy);
        ++prog_.n_redirected;
        return;
    }
    list.push_back(out);
}

ggml_status Builder::add(ggml_tensor * node) {
    if (op_is_view(node->op) || node->op == GGML_OP_NONE) {
        return GGML_STATUS_SUCCESS;
    }
    const NodePlan plan = plan_node(resolver_, node);
    if (plan.failed) {
        log_error("[ggml_backend_meta] cannot compute '%s': %s\n", node->name, plan.reason.c_str());
        return GGML_STATUS_FAILED;
    }
    if (plan.replicated) {
        log_replicated(node, plan);
    }
    PerDevice                              out{};
    std::array<PerDevice, GGML_MAX_SRC>    srcs{};
    if (!outputs_of(node, plan, out)) {
        return GGML_STATUS_FAILED;
    }
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        const ggml_tensor * src = node->src[j];
        if (src == node) {
            srcs[j] = out;
        } else if (src != nullptr && !source(src, plan.src[j], srcs[j])) {
            log_error("[ggml_backend_meta] cannot provide source %d ('%s') of '%s' to the devices\n", j, src->name,
                      node->name);
            return GGML_STATUS_FAILED;
        }
    }
    const bool reduce = plan.state.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL && reduced_in_place(node);
    Step       allreduce;
    allreduce.kind = Step::Kind::AllReduce;
    for (int d = 0; d < n_; ++d) {
        ggml_tensor * o = out[d];
        o->op           = node->op;
        o->flags        = node->flags | GGML_TENSOR_FLAG_COMPUTE;
        std::memcpy(o->op_params, node->op_params, sizeof(o->op_params));
        bool empty_source = false;
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            o->src[j]    = srcs[j][d];
            empty_source = empty_source || (o->src[j] != nullptr && ggml_nbytes(o->src[j]) == 0);
        }
        allreduce.tensors[d] = o;
        allreduce.zero[d]    = reduce && empty_source;
        if (ggml_nbytes(o) > 0 && !allreduce.zero[d]) {
            append(d, node, o, srcs);
        }
    }
    if (reduce) {
        flush();
        prog_.steps.push_back(std::move(allreduce));
        ++prog_.n_allreduce;
    }
    gathered_.erase(root_of(node)); // written: earlier whole copies are stale
    return GGML_STATUS_SUCCESS;
}

} // namespace

ggml_status build_program(MetaBackend & mb, ggml_cgraph * graph, Program & prog) {
    std::unordered_set<MetaBuffer *> buffers;
    for (int i = 0; i < graph->n_nodes; ++i) {
        const ggml_tensor * node = graph->nodes[i];
        for (int j = -1; j < GGML_MAX_SRC; ++j) {
            const ggml_tensor * t = j < 0 ? node : node->src[j];
            if (t != nullptr && meta_buffer_of(t) != nullptr) {
                buffers.insert(meta_buffer_of(t));
            }
        }
    }
    for (MetaBuffer * buf : buffers) {
        if (!ensure_layout(*buf)) {
            return GGML_STATUS_ALLOC_FAILED;
        }
    }
    Builder builder(mb, prog);
    for (int i = 0; i < graph->n_nodes; ++i) {
        const ggml_status status = builder.add(graph->nodes[i]);
        if (status != GGML_STATUS_SUCCESS) {
            return status;
        }
    }
    builder.finish();
    return GGML_STATUS_SUCCESS;
}

} // namespace switchyard::meta
