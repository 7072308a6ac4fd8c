// The optimization context: parameters and their defaults, creation (with static graphs: building them),
// reset, and the accessors.
#include "opt/opt.h"

#include "base/log.h"

#include <memory>
#include <new>

using namespace switchyard;

namespace {

bool valid_params(const ggml_opt_params & p) {
    constexpr const char * kName = "ggml_opt_init";
    if (!p.backend_sched) {
        log_error("[%s] backend_sched is NULL\n", kName);
        return false;
    }
    if (p.loss_type < GGML_OPT_LOSS_TYPE_MEAN || p.loss_type > GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR) {
        log_error("[%s] unknown loss type %d\n", kName, static_cast<int>(p.loss_type));
        return false;
    }
    if (p.build_type != GGML_OPT_BUILD_TYPE_FORWARD && p.build_type != GGML_OPT_BUILD_TYPE_GRAD &&
        p.build_type != GGML_OPT_BUILD_TYPE_OPT) {
        log_error("[%s] unknown build type %d\n", kName, static_cast<int>(p.build_type));
        return false;
    }
    if (p.optimizer < 0 || p.optimizer >= GGML_OPT_OPTIMIZER_TYPE_COUNT) {
        log_error("[%s] unknown optimizer %d\n", kName, static_cast<int>(p.optimizer));
        return false;
    }
    if (p.opt_period < 1) {
        log_error("[%s] opt_period %d must be >= 1\n", kName, p.opt_period);
        return false;
    }
    if (p.build_type == GGML_OPT_BUILD_TYPE_OPT && !p.get_opt_pars) {
        log_error("[%s] get_opt_pars is NULL\n", kName);
        return false;
    }
    const bool any = p.ctx_compute || p.inputs || p.outputs;
    if (any && !(p.ctx_compute && p.inputs && p.outputs)) {
        log_error("[%s] static graphs need ctx_compute, inputs and outputs together (given: %s%s%s)\n", kName,
                  p.ctx_compute ? "ctx_compute " : "", p.inputs ? "inputs " : "", p.outputs ? "outputs" : "");
        return false;
    }
    if (any && !p.inputs->data) {
        log_error("[%s] with static graphs the inputs '%s' must be allocated\n", kName, p.inputs->name);
        return false;
    }
    return true;
}

} // namespace

extern "C" {

struct ggml_opt_optimizer_params ggml_opt_get_default_optimizer_params(void * userdata) {
    (void) userdata;
    ggml_opt_optimizer_params p{};
    p.adamw = {0.001f, 0.9f, 0.999f, 1e-8f, 0.0f};
    p.sgd   = {1e-3f, 0.0f};
    return p;
}

struct ggml_opt_optimizer_params ggml_opt_get_constant_optimizer_params(void * userdata) {
    if (!userdata) {
        log_error("[ggml_opt_get_constant_optimizer_params] userdata is NULL: using the defaults\n");
        return ggml_opt_get_default_optimizer_params(nullptr);
    }
    return *static_cast<const ggml_opt_optimizer_params *>(userdata);
}

struct ggml_opt_params ggml_opt_default_params(ggml_backend_sched_t backend_sched, enum ggml_opt_loss_type loss_type) {
    ggml_opt_params p{};
    p.backend_sched            = backend_sched;
    p.ctx_compute              = nullptr;
    p.inputs                   = nullptr;
    p.outputs                  = nullptr;
    p.loss_type                = loss_type;
    p.build_type               = GGML_OPT_BUILD_TYPE_OPT;
    p.opt_period               = 1;
    p.get_opt_pars             = ggml_opt_get_default_optimizer_params;
    p.get_opt_pars_ud          = nullptr;
    p.optimizer                = GGML_OPT_OPTIMIZER_TYPE_ADAMW;
    return p;
}

ggml_opt_context_t ggml_opt_init(struct ggml_opt_params params) {
    if (!valid_params(params)) {
        return nullptr;
    }
    auto opt = std::unique_ptr<ggml_opt_context>(new (std::nothrow) ggml_opt_context);
    if (!opt) {
        log_error("[ggml_opt_init] out of memory\n");
        return nullptr;
    }
    opt->sched                    = params.backend_sched;
    opt->ctx_compute              = params.ctx_compute;
    opt->static_graphs            = params.ctx_compute != nullptr;
    opt->loss_type                = params.loss_type;
    opt->build_type_alloc         = params.build_type;
    opt->build_type               = params.build_type;
    opt->optimizer                = params.optimizer;
    opt->opt_period               = params.opt_period;
    opt->get_opt_pars             = params.get_opt_pars;
    opt->get_opt_pars_ud          = params.get_opt_pars_ud;
    opt->inputs                   = params.inputs;
    opt->outputs                  = params.outputs;
    if (!opt->static_graphs) {
        return opt.release();
    }
    opt->gf = ggml_new_graph_custom(opt->ctx_compute, GGML_DEFAULT_GRAPH_SIZE, /*grads =*/true);
    if (!opt->gf) {
        log_error("[ggml_opt_init] no room for the forward graph in ctx_compute\n");
        return nullptr;
    }
    ggml_build_forward_expand(opt->gf, opt->outputs);
    if (!opt::build(opt.get(), opt->build_type_alloc)) {
        return nullptr;
    }
    return opt.release();
}

void ggml_opt_free(ggml_opt_context_t opt_ctx) {
    delete opt_ctx;
}

void ggml_opt_reset(ggml_opt_context_t opt_ctx, bool optimizer) {
    if (!opt_ctx) {
        log_error("[ggml_opt_reset] opt_ctx is NULL\n");
        return;
    }
    opt::reset_state(opt_ctx, optimizer);
    if (optimizer) {
        opt_ctx->iter = 1;
    }
}

bool ggml_opt_static_graphs(ggml_opt_context_t opt_ctx) {
    return opt_ctx && opt_ctx->static_graphs;
}

struct ggml_tensor * ggml_opt_inputs(ggml_opt_context_t opt_ctx) {
    return opt_ctx ? opt_ctx->inputs : nullptr;
}

struct ggml_tensor * ggml_opt_outputs(ggml_opt_context_t opt_ctx) {
    return opt_ctx ? opt_ctx->outputs : nullptr;
}

struct ggml_tensor * ggml_opt_labels(ggml_opt_context_t opt_ctx) {
    return opt_ctx ? opt_ctx->labels : nullptr;
}

struct ggml_tensor * ggml_opt_loss(ggml_opt_context_t opt_ctx) {
    return opt_ctx ? opt_ctx->loss : nullptr;
}

struct ggml_tensor * ggml_opt_pred(ggml_opt_context_t opt_ctx) {
    return opt_ctx ? opt_ctx->pred : nullptr;
}

struct ggml_tensor * ggml_opt_ncorrect(ggml_opt_context_t opt_ctx) {
    return opt_ctx ? opt_ctx->ncorrect : nullptr;
}

struct ggml_tensor * ggml_opt_grad_acc(ggml_opt_context_t opt_ctx, struct ggml_tensor * node) {
    if (!opt_ctx || !node) {
        log_error("[ggml_opt_grad_acc] %s is NULL\n", opt_ctx ? "node" : "opt_ctx");
        return nullptr;
    }
    if (node == opt_ctx->loss) {
        return opt_ctx->loss_grad_acc;
    }
    if (const auto it = opt_ctx->grad_accs.find(node); it != opt_ctx->grad_accs.end()) {
        return it->second;
    }
    // without accumulation (static graphs, OPT, opt_period 1) a parameter's gradient is a node of the graph
    const ggml_cgraph * g = opt_ctx->gb_opt ? opt_ctx->gb_opt : opt_ctx->gb_grad;
    return g ? ggml_graph_get_grad_acc(g, node) : nullptr;
}

enum ggml_opt_optimizer_type ggml_opt_context_optimizer_type(ggml_opt_context_t opt_ctx) {
    if (!opt_ctx) {
        log_error("[ggml_opt_context_optimizer_type] opt_ctx is NULL\n");
        return GGML_OPT_OPTIMIZER_TYPE_COUNT;
    }
    return opt_ctx->optimizer;
}

const char * ggml_opt_optimizer_name(enum ggml_opt_optimizer_type optimizer) {
    switch (optimizer) {
        case GGML_OPT_OPTIMIZER_TYPE_ADAMW: return "adamw";
        case GGML_OPT_OPTIMIZER_TYPE_SGD: return "sgd";
        default: return "undefined";
    }
}

} // extern "C"
