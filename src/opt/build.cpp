// Building the training graphs of a context: the loss (and predictions) after the model's outputs, the backward
// graph with its gradient accumulators, the optimizer steps, and the persistent state they read and write.
#include "opt/opt.h"

#include "ggml-alloc.h"

#include "base/abort.h"
#include "base/log.h"
#include "core/graph.h"

#include <cstring>
#include <unordered_map>

namespace switchyard::opt {

namespace {

constexpr const char * kName = "ggml_opt_alloc";

std::vector<ggml_tensor *> params_of(const ggml_cgraph * gf) {
    std::vector<ggml_tensor *> params;
    for (int i = 0; i < gf->n_nodes; ++i) {
        if (gf->nodes[i]->flags & GGML_TENSOR_FLAG_PARAM) {
            params.push_back(gf->nodes[i]);
        }
    }
    return params;
}

bool check_forward(const ggml_opt_context * opt) {
    if (!opt->gf || !opt->inputs || !opt->outputs) {
        log_error("[%s] no forward graph: call ggml_opt_prepare_alloc before each ggml_opt_alloc\n", kName);
        return false;
    }
    if (!opt->gf->grads) {
        log_error("[%s] the forward graph has no room for gradients (ggml_new_graph_custom with grads = true)\n", kName);
        return false;
    }
    for (int i = 0; i < opt->gf->n_nodes; ++i) {
        if (opt->gf->nodes[i]->flags & GGML_TENSOR_FLAG_LOSS) {
            log_error("[%s] node '%s' of the model is a loss: extra loss terms are not supported\n", kName,
                      opt->gf->nodes[i]->name);
            return false;
        }
    }
    const bool labelled =
        opt->loss_type == GGML_OPT_LOSS_TYPE_CROSS_ENTROPY || opt->loss_type == GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR;
    if (opt->outputs->type != GGML_TYPE_F32 && (labelled || opt->build_type_alloc >= GGML_OPT_BUILD_TYPE_GRAD)) {
        log_error("[%s] the outputs '%s' must be f32, not %s\n", kName, opt->outputs->name,
                  ggml_type_name(opt->outputs->type));
        return false;
    }
    return true;
}

// The loss after the outputs; per-datapoint losses are divided by opt_period so that gradients added over a
// period give the mean over the logical batch.
ggml_tensor * make_loss(ggml_opt_context * opt, ggml_context * ctx) {
    ggml_tensor * out    = opt->outputs;
    const float   period = static_cast<float>(opt->opt_period);
    auto named = [](ggml_tensor * t, const char * name) { return ggml_set_name(t, name); };
    auto make_labels = [&] {
        opt->labels = named(ggml_dup_tensor(ctx, out), "labels");
        ggml_set_input(opt->labels);
        return opt->labels;
    };
    opt->loss_per_datapoint = opt->loss_type != GGML_OPT_LOSS_TYPE_SUM;
    switch (opt->loss_type) {
        case GGML_OPT_LOSS_TYPE_MEAN:
            return named(ggml_scale(ctx, named(ggml_sum(ctx, out), "loss_sum"),
                                    1.0f / (period * static_cast<float>(ggml_nelements(out)))),
                         "loss_mean");
        case GGML_OPT_LOSS_TYPE_SUM: return named(ggml_sum(ctx, out), "loss_sum");
        case GGML_OPT_LOSS_TYPE_CROSS_ENTROPY: {
            ggml_tensor * loss = named(ggml_cross_entropy_loss(ctx, out, make_labels()), "loss_cross_entropy");
            return opt->opt_period > 1 ? named(ggml_scale(ctx, loss, 1.0f / period), "loss_cross_entropy_scaled")
                                       : loss;
        }
        case GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR: {
            ggml_tensor * err = named(ggml_sub(ctx, out, make_labels()), "loss_error");
            ggml_tensor * sum = named(ggml_sum(ctx, named(ggml_sqr(ctx, err), "loss_squared_error")),
                                      "loss_sum_squared_error");
            return named(ggml_scale(ctx, sum, 1.0f / (period * static_cast<float>(ggml_nelements(out)))),
                         "loss_mean_squared_error");
        }
    }
    return nullptr;
}

void add_loss(ggml_opt_context * opt) {
    ggml_context * ctx = opt->static_graphs ? opt->ctx_static.get() : opt->ctx_compute;
    opt->labels        = nullptr;
    opt->pred          = nullptr;
    opt->ncorrect      = nullptr;
    ggml_set_input(opt->inputs);
    ggml_set_output(opt->outputs);
    opt->loss = make_loss(opt, ctx);
    ggml_set_output(opt->loss);
    ggml_set_loss(opt->loss);
    ggml_build_forward_expand(opt->gf, opt->loss);
    if (opt->loss_type != GGML_OPT_LOSS_TYPE_CROSS_ENTROPY) {
        return;
    }
    opt->pred = ggml_set_name(ggml_argmax(ctx, opt->outputs), "pred");
    ggml_set_output(opt->pred);
    ggml_build_forward_expand(opt->gf, opt->pred);
    opt->ncorrect = ggml_set_name(ggml_count_equal(ctx, opt->pred, ggml_argmax(ctx, opt->labels)), "ncorrect");
    ggml_set_output(opt->ncorrect);
    ggml_build_forward_expand(opt->gf, opt->ncorrect);
}

// The persistent accumulator of a forward node (made in ctx_static on the first build).
ggml_tensor * make_accumulator(ggml_opt_context * opt, const ggml_tensor * node) {
    ggml_tensor * acc = ggml_new_tensor(opt->ctx_static.get(), GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
    ggml_format_name(acc, "grad acc for %s", node->name);
    return acc;
}

// The backward graph. Its gradient accumulators are persistent tensors of ctx_static, passed to
// ggml_build_backward_expand per forward node: the loss's (it holds 1) and, when gradients add up over several
// backward passes, one per parameter. The first build makes them; rebuilt graphs (no static graphs) reuse them,
// so gradients keep adding up across graphs.
bool build_backward(ggml_opt_context * opt, const std::vector<ggml_tensor *> & params, bool first) {
    if (params.empty()) {
        log_error("[%s] the model has no trainable parameters (ggml_set_param): gradients need at least one\n", kName);
        return false;
    }
    opt->gb_grad = ggml_graph_dup(opt->ctx_compute, opt->gf, /*force_grads =*/true);
    if (!opt->gb_grad) {
        return false;
    }
    const bool accumulate = !(opt->static_graphs && opt->build_type_alloc == GGML_OPT_BUILD_TYPE_OPT &&
                              opt->opt_period == 1);
    if (first) {
        opt->loss_grad_acc = make_accumulator(opt, opt->loss);
        for (ggml_tensor * p : params) {
            if (accumulate) {
                opt->grad_accs[p] = make_accumulator(opt, p);
            }
        }
    }
    std::vector<ggml_tensor *> accs(static_cast<size_t>(opt->gb_grad->n_nodes), nullptr);
    for (int i = 0; i < opt->gb_grad->n_nodes; ++i) {
        ggml_tensor * node = opt->gb_grad->nodes[i];
        if (node == opt->loss) {
            accs[static_cast<size_t>(i)] = opt->loss_grad_acc;
        } else if (node->flags & GGML_TENSOR_FLAG_PARAM) {
            const auto it = opt->grad_accs.find(node);
            if (it != opt->grad_accs.end()) {
                accs[static_cast<size_t>(i)] = it->second;
            } else if (!opt->grad_accs.empty()) {
                log_error("[%s] parameter '%s' was not part of the first graph: the parameters must not change "
                          "between graphs\n",
                          kName, node->name);
                return false;
            }
        }
    }
    ggml_build_backward_expand(opt->ctx_compute, opt->gb_grad, accs.data());
    return true;
}

void create_moments(ggml_opt_context * opt, const std::vector<ggml_tensor *> & params) {
    for (ggml_tensor * p : params) {
        ggml_tensor * m = ggml_new_tensor(opt->ctx_static.get(), GGML_TYPE_F32, GGML_MAX_DIMS, p->ne);
        ggml_tensor * v = ggml_new_tensor(opt->ctx_static.get(), GGML_TYPE_F32, GGML_MAX_DIMS, p->ne);
        ggml_format_name(m, "AdamW m for %s", p->name);
        ggml_format_name(v, "AdamW v for %s", p->name);
        opt->moments[p] = {m, v};
    }
}

bool build_steps(ggml_opt_context * opt) {
    const bool adamw = opt->optimizer == GGML_OPT_OPTIMIZER_TYPE_ADAMW;
    if (!opt->step_params) {
        opt->ctx_step.reset(ggml_init({ggml_tensor_overhead(), nullptr, true}));
        if (!opt->ctx_step) {
            return false;
        }
        opt->step_params = ggml_new_tensor_1d(opt->ctx_step.get(), GGML_TYPE_F32, adamw ? 7 : 2);
        ggml_format_name(opt->step_params, "%s_params", ggml_opt_optimizer_name(opt->optimizer));
        ggml_set_input(opt->step_params);
        opt->buf_step.reset(ggml_backend_alloc_ctx_tensors_from_buft(opt->ctx_step.get(), ggml_backend_cpu_buffer_type()));
        if (!opt->buf_step) {
            log_error("[%s] cannot allocate the optimizer's parameters\n", kName);
            return false;
        }
    }
    opt->gb_opt = ggml_graph_dup(opt->ctx_compute, opt->gb_grad, /*force_grads =*/true);
    if (!opt->gb_opt) {
        return false;
    }
    for (int i = opt->gf->n_nodes - 1; i >= 0; --i) {
        ggml_tensor * node = opt->gb_opt->nodes[i];
        ggml_tensor * grad = ggml_graph_get_grad(opt->gb_opt, node);
        if (!grad || !(node->flags & GGML_TENSOR_FLAG_PARAM)) {
            continue;
        }
        ggml_tensor * step = nullptr;
        if (adamw) {
            const auto it = opt->moments.find(node);
            if (it == opt->moments.end()) {
                log_error("[%s] parameter '%s' was not part of the first graph\n", kName, node->name);
                return false;
            }
            step = ggml_opt_step_adamw(opt->ctx_compute, node, grad, it->second.first, it->second.second,
                                       opt->step_params);
        } else {
            step = ggml_opt_step_sgd(opt->ctx_compute, node, grad, opt->step_params);
        }
        if (!step) {
            return false;
        }
        ggml_format_name(step, "%s step for %s", ggml_opt_optimizer_name(opt->optimizer), node->name);
        ggml_build_forward_expand(opt->gb_opt, step);
    }
    return true;
}

// The first build allocates the persistent state and starts it at zero (the loss's gradient at 1).
bool allocate_static(ggml_opt_context * opt) {
    if (opt->buf_static || !ggml_get_first_tensor(opt->ctx_static.get())) {
        return true;
    }
    opt->buf_static.reset(
        ggml_backend_alloc_ctx_tensors(opt->ctx_static.get(), ggml_backend_sched_get_backend(opt->sched, 0)));
    if (!opt->buf_static) {
        log_error("[%s] cannot allocate the optimizer's state (gradients, moments, loss)\n", kName);
        return false;
    }
    reset_state(opt, /*optimizer =*/true);
    return true;
}

} // namespace

namespace {

bool build_once(ggml_opt_context * opt, ggml_opt_build_type upto) {
    if (!check_forward(opt)) {
        return false;
    }
    const std::vector<ggml_tensor *> params = params_of(opt->gf);
    const bool                       first  = !opt->ctx_static;
    if (first) {
        const size_t n_tensors = 3 * params.size() + 16; // accumulators, moments; labels, loss and predictions
        opt->ctx_static.reset(ggml_init({n_tensors * ggml_tensor_overhead(), nullptr, true}));
        if (!opt->ctx_static) {
            return false;
        }
    }
    opt->gb_grad = nullptr;
    opt->gb_opt  = nullptr;
    add_loss(opt);
    if (!opt->loss) {
        return false;
    }
    if (upto == GGML_OPT_BUILD_TYPE_FORWARD) {
        return allocate_static(opt);
    }
    if (!build_backward(opt, params, first)) {
        return false;
    }
    const bool adamw = opt->optimizer == GGML_OPT_OPTIMIZER_TYPE_ADAMW;
    if (first && adamw && opt->build_type_alloc == GGML_OPT_BUILD_TYPE_OPT) {
        create_moments(opt, params);
    }
    if (upto == GGML_OPT_BUILD_TYPE_OPT && !build_steps(opt)) {
        return false;
    }
    return allocate_static(opt);
}

} // namespace

bool build(ggml_opt_context * opt, ggml_opt_build_type upto) {
    const bool first = !opt->ctx_static;
    if (build_once(opt, upto)) {
        return true;
    }
    if (first) { // a failed first build leaves no half-made state behind for the next try
        opt->grad_accs.clear();
        opt->moments.clear();
        opt->loss_grad_acc = nullptr;
        opt->buf_static.reset();
        opt->ctx_static.reset();
    }
    opt->gb_grad = nullptr;
    opt->gb_opt  = nullptr;
    return false;
}

void reset_state(ggml_opt_context * opt, bool optimizer) {
    if (!opt->buf_static) {
        return; // nothing built yet: the state starts at zero when it is allocated
    }
    for (const auto & [param, acc] : opt->grad_accs) {
        ggml_set_zero(acc);
    }
    if (opt->loss_grad_acc) {
        const float one = 1.0f;
        ggml_backend_tensor_set(opt->loss_grad_acc, &one, 0, sizeof(one));
    }
    if (optimizer) {
        for (const auto & [param, mv] : opt->moments) {
            ggml_set_zero(mv.first);
            ggml_set_zero(mv.second);
        }
    }
}

namespace {

class GraphCopier {
public:
    explicit GraphCopier(ggml_context * ctx) : ctx_(ctx) {}

    ggml_tensor * operator()(ggml_tensor * t) {
        if (!t) {
            return nullptr;
        }
        if (const auto it = map_.find(t); it != map_.end()) {
            return it->second;
        }
        ggml_tensor * c = ggml_dup_tensor(ctx_, t);
        if (!c) {
            fatal("[%s] internal error: no room to copy the graph's tensors", kName);
        }
        map_[t] = c;
        std::memcpy(c->nb, t->nb, sizeof(t->nb));
        std::memcpy(c->op_params, t->op_params, sizeof(t->op_params));
        std::memcpy(c->name, t->name, sizeof(t->name));
        c->op        = t->op;
        c->flags     = t->flags;
        c->data      = t->data;
        c->buffer    = t->buffer;
        c->extra     = t->extra;
        c->view_offs = t->view_offs;
        c->view_src  = (*this)(t->view_src);
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            c->src[j] = (*this)(t->src[j]);
        }
        return c;
    }

private:
    ggml_context *                                  ctx_;
    std::unordered_map<ggml_tensor *, ggml_tensor *> map_;
};

} // namespace

ggml_cgraph * copy_graph(ggml_context * ctx, ggml_cgraph * graph) {
    ggml_cgraph * copy = ggml_new_graph_custom(ctx, static_cast<size_t>(graph->size), /*grads =*/false);
    if (!copy) {
        fatal("[%s] internal error: no room for a copy of the graph", kName);
    }
    GraphCopier map(ctx);
    for (int i = 0; i < graph->n_leafs; ++i) {
        ggml_build_forward_expand(copy, map(graph->leafs[i]));
    }
    for (int i = 0; i < graph->n_nodes; ++i) {
        ggml_build_forward_expand(copy, map(graph->nodes[i]));
    }
    check(copy->n_leafs == graph->n_leafs && copy->n_nodes == graph->n_nodes, "the graph copy has the source's shape");
    return copy;
}

} // namespace switchyard::opt
