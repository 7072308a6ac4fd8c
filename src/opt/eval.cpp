// Running a context: choosing and allocating the next graph (ggml_opt_alloc), computing it and adding its loss,
// predictions and correct count to a result (ggml_opt_eval).
//
// Gradients add up over opt_period backward passes; the first backward pass of a period starts them from zero,
// and the last one of an OPT context also runs the optimizer step. Forward-only evaluations do not count towards
// the period (upstream counts them, which shifts the optimizer steps of ggml_opt_epoch after a validation pass).
#include "opt/opt.h"

#include "base/log.h"
#include "core/graph.h"

#include <cmath>

namespace switchyard::opt {

namespace {

ggml_opt_build_type next_build_type(const ggml_opt_context * opt, bool backward) {
    if (!backward) {
        return GGML_OPT_BUILD_TYPE_FORWARD;
    }
    if (opt->build_type_alloc == GGML_OPT_BUILD_TYPE_GRAD) {
        return GGML_OPT_BUILD_TYPE_GRAD;
    }
    return (opt->opt_i + 1) % opt->opt_period == 0 ? GGML_OPT_BUILD_TYPE_OPT : GGML_OPT_BUILD_TYPE_GRAD;
}

ggml_cgraph * graph_of(const ggml_opt_context * opt, ggml_opt_build_type type) {
    switch (type) {
        case GGML_OPT_BUILD_TYPE_FORWARD: return opt->gf;
        case GGML_OPT_BUILD_TYPE_GRAD: return opt->gb_grad;
        case GGML_OPT_BUILD_TYPE_OPT: return opt->gb_opt;
    }
    return nullptr;
}

// Without static graphs the graphs belong to the caller's ctx_compute and are used once.
void forget_graphs(ggml_opt_context * opt) {
    if (opt->static_graphs) {
        return;
    }
    opt->gf                   = nullptr;
    opt->gb_grad              = nullptr;
    opt->gb_opt               = nullptr;
    opt->allocated_graph      = nullptr;
    opt->allocated_graph_copy = nullptr;
}

bool valid_adamw(const ggml_opt_optimizer_params & p) {
    const auto & a = p.adamw;
    return a.alpha > 0.0f && a.beta1 >= 0.0f && a.beta1 <= 1.0f && a.beta2 >= 0.0f && a.beta2 <= 1.0f &&
           a.eps >= 0.0f && a.wd >= 0.0f && a.wd <= 1.0f;
}

bool valid_sgd(const ggml_opt_optimizer_params & p) {
    return p.sgd.alpha > 0.0f && p.sgd.wd >= 0.0f && p.sgd.wd <= 1.0f;
}

// Writes this step's hyperparameters into step_params.
bool set_step_params(ggml_opt_context * opt) {
    const ggml_opt_optimizer_params p = opt->get_opt_pars(opt->get_opt_pars_ud);
    if (opt->optimizer == GGML_OPT_OPTIMIZER_TYPE_SGD) {
        if (!valid_sgd(p)) {
            log_error("[ggml_opt_eval] invalid SGD parameters: alpha %g (> 0), wd %g (in [0, 1])\n",
                      static_cast<double>(p.sgd.alpha), static_cast<double>(p.sgd.wd));
            return false;
        }
        const float values[2] = {p.sgd.alpha, p.sgd.wd};
        ggml_backend_tensor_set(opt->step_params, values, 0, sizeof(values));
        return true;
    }
    if (!valid_adamw(p)) {
        log_error("[ggml_opt_eval] invalid AdamW parameters: alpha %g (> 0), beta1 %g, beta2 %g (in [0, 1]), eps %g "
                  "(>= 0), wd %g (in [0, 1])\n",
                  static_cast<double>(p.adamw.alpha), static_cast<double>(p.adamw.beta1),
                  static_cast<double>(p.adamw.beta2), static_cast<double>(p.adamw.eps),
                  static_cast<double>(p.adamw.wd));
        return false;
    }
    const auto  t         = static_cast<float>(opt->iter);
    const float values[7] = {p.adamw.alpha,
                             p.adamw.beta1,
                             p.adamw.beta2,
                             p.adamw.eps,
                             p.adamw.wd,
                             1.0f / (1.0f - std::pow(p.adamw.beta1, t)),
                             1.0f / (1.0f - std::pow(p.adamw.beta2, t))};
    ggml_backend_tensor_set(opt->step_params, values, 0, sizeof(values));
    return true;
}

// A result gathers evaluations of one kind of loss and one batch size.
bool result_accepts(const ggml_opt_context * opt, const ggml_opt_result * result) {
    if (result->ndata == 0) {
        return true;
    }
    if (result->loss_per_datapoint != opt->loss_per_datapoint || result->opt_period != opt->opt_period) {
        log_error("[ggml_opt_eval] the result holds evaluations of another loss type or opt_period\n");
        return false;
    }
    if (result->ndata != opt->outputs->ne[1] * static_cast<int64_t>(result->loss.size())) {
        log_error("[ggml_opt_eval] the result holds batches of another size (varying batch sizes are not supported)\n");
        return false;
    }
    return true;
}

void add_to_result(const ggml_opt_context * opt, ggml_opt_result * result) {
    if (result->ndata == 0) {
        result->loss_per_datapoint = opt->loss_per_datapoint;
        result->opt_period         = opt->opt_period;
    }
    const int64_t ndata = opt->outputs->ne[1];
    result->ndata += ndata;

    float loss = 0.0f;
    ggml_backend_tensor_get(opt->loss, &loss, 0, sizeof(loss));
    result->loss.push_back(loss);

    if (opt->pred) {
        const size_t at = result->pred.size();
        result->pred.resize(at + static_cast<size_t>(ggml_nelements(opt->pred)));
        ggml_backend_tensor_get(opt->pred, result->pred.data() + at, 0, ggml_nbytes(opt->pred));
    }
    if (!opt->ncorrect || result->ncorrect < 0) {
        result->ncorrect = -1;
        return;
    }
    int64_t ncorrect = 0;
    ggml_backend_tensor_get(opt->ncorrect, &ncorrect, 0, sizeof(ncorrect));
    result->ncorrect += ncorrect;
}

} // namespace

bool alloc(ggml_opt_context * opt, bool backward) {
    constexpr const char * kName = "ggml_opt_alloc";
    if (opt->eval_ready) {
        log_error("[%s] a graph is already allocated: call ggml_opt_eval before the next ggml_opt_alloc\n", kName);
        return false;
    }
    if (backward && opt->build_type_alloc == GGML_OPT_BUILD_TYPE_FORWARD) {
        log_error("[%s] a backward pass needs a context built for GRAD or OPT, not FORWARD\n", kName);
        return false;
    }
    const ggml_opt_build_type type = next_build_type(opt, backward);
    if (!opt->static_graphs) {
        // the first build goes as far as the context can, so that all persistent state exists from then on
        if (!build(opt, opt->buf_static || opt->ctx_static ? type : opt->build_type_alloc)) {
            forget_graphs(opt);
            return false;
        }
    }
    ggml_cgraph * graph = graph_of(opt, type);
    if (!graph) {
        log_error("[%s] internal error: no graph was built for this evaluation\n", kName);
        forget_graphs(opt);
        return false;
    }
    opt->build_type = type;
    if (backward && opt->opt_i == 0) {
        reset_state(opt, /*optimizer =*/false); // a new period: gradients start from zero
    }
    if (opt->allocated_graph == graph) {
        opt->eval_ready = true;
        return true;
    }
    ggml_backend_sched_reset(opt->sched);
    opt->allocated_graph      = nullptr;
    opt->allocated_graph_copy = graph;
    if (opt->static_graphs) {
        // the three graphs share their tensors: each allocation works on a copy so that the others stay unplaced
        const size_t n_tensors = 2 * static_cast<size_t>(graph->size);
        opt->ctx_copy.reset(ggml_init({n_tensors * ggml_tensor_overhead() +
                                           ggml_graph_overhead_custom(static_cast<size_t>(graph->size), false),
                                       nullptr, true}));
        if (!opt->ctx_copy) {
            return false;
        }
        opt->allocated_graph_copy = copy_graph(opt->ctx_copy.get(), graph);
    }
    if (!ggml_backend_sched_alloc_graph(opt->sched, opt->allocated_graph_copy)) {
        log_error("[%s] the scheduler cannot allocate the graph\n", kName);
        opt->allocated_graph_copy = nullptr;
        forget_graphs(opt);
        return false;
    }
    opt->allocated_graph = graph;
    opt->eval_ready      = true;
    return true;
}

bool eval(ggml_opt_context * opt, ggml_opt_result * result) {
    constexpr const char * kName = "ggml_opt_eval";
    if (!opt->eval_ready) {
        log_error("[%s] no graph allocated: call ggml_opt_alloc before each ggml_opt_eval\n", kName);
        return false;
    }
    const bool step = opt->allocated_graph == opt->gb_opt;
    if ((result && !result_accepts(opt, result)) || (step && !set_step_params(opt))) {
        opt->eval_ready = false; // a refused evaluation uses up its allocation, as a computed one does
        forget_graphs(opt);
        return false;
    }
    const bool            backward = opt->allocated_graph != opt->gf;
    const enum ggml_status status  = ggml_backend_sched_graph_compute(opt->sched, opt->allocated_graph_copy);
    opt->eval_ready                = false;
    forget_graphs(opt);
    if (status != GGML_STATUS_SUCCESS) {
        log_error("[%s] computing the graph failed (%s)\n", kName, ggml_status_to_string(status));
        return false;
    }
    opt->iter += step ? 1 : 0;
    if (backward) {
        opt->opt_i = (opt->opt_i + 1) % opt->opt_period;
    }
    if (result) {
        add_to_result(opt, result);
    }
    return true;
}

} // namespace switchyard::opt

using namespace switchyard;

extern "C" {

void ggml_opt_prepare_alloc(ggml_opt_context_t opt_ctx, struct ggml_context * ctx_compute, struct ggml_cgraph * gf,
                            struct ggml_tensor * inputs, struct ggml_tensor * outputs) {
    constexpr const char * kName = "ggml_opt_prepare_alloc";
    if (!opt_ctx || !ctx_compute || !gf || !inputs || !outputs) {
        log_error("[%s] opt_ctx, ctx_compute, gf, inputs and outputs must not be NULL\n", kName);
        return;
    }
    if (opt_ctx->static_graphs) {
        log_error("[%s] the context has static graphs: there is nothing to prepare\n", kName);
        return;
    }
    if (opt_ctx->eval_ready) {
        log_error("[%s] a graph is allocated and not evaluated yet\n", kName);
        return;
    }
    opt_ctx->ctx_compute = ctx_compute;
    opt_ctx->gf          = gf;
    opt_ctx->inputs      = inputs;
    opt_ctx->outputs     = outputs;
}

void ggml_opt_alloc(ggml_opt_context_t opt_ctx, bool backward) {
    if (!opt_ctx) {
        log_error("[ggml_opt_alloc] opt_ctx is NULL\n");
        return;
    }
    opt::alloc(opt_ctx, backward);
}

void ggml_opt_eval(ggml_opt_context_t opt_ctx, ggml_opt_result_t result) {
    if (!opt_ctx) {
        log_error("[ggml_opt_eval] opt_ctx is NULL\n");
        return;
    }
    opt::eval(opt_ctx, result);
}

} // extern "C"
