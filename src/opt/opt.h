// The objects behind ggml-opt.h's handles and the steps the C functions share.
//
// A context owns, in ctx_static / buf_static (on the scheduler's first backend): the gradient accumulators
// (one per parameter when gradients add up over several backward passes, one for the loss, which holds 1),
// AdamW's two moments per parameter and, with static graphs, the labels and the loss, prediction and
// correct-count tensors so that they outlive each allocation. The optimizer's hyperparameters live in one small
// host tensor (step_params). Without static graphs every ggml_opt_alloc builds new graphs in the caller's
// ctx_compute, and ggml_build_backward_expand is given the persistent accumulators again, so gradients keep
// adding up across rebuilt graphs.
#pragma once

#include "ggml-opt.h"

#include "base/owners.h"

#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

struct ggml_opt_dataset {
    switchyard::ContextPtr ctx;
    switchyard::BufferPtr  buf;
    ggml_tensor *          data   = nullptr;
    ggml_tensor *          labels = nullptr;

    int64_t ndata       = 0;
    int64_t ndata_shard = 0;
    size_t  nbs_data    = 0; // bytes of data per shard
    size_t  nbs_labels  = 0; // bytes of labels per shard

    std::vector<int64_t> permutation; // shard order
};

struct ggml_opt_result {
    int64_t              ndata = 0;
    std::vector<float>   loss; // one value per evaluated batch
    std::vector<int32_t> pred;
    int64_t              ncorrect = 0; // < 0: the loss has no predictions

    int64_t opt_period         = -1;
    bool    loss_per_datapoint = false;
};

struct ggml_opt_context {
    ggml_backend_sched_t sched         = nullptr;
    ggml_context *       ctx_compute   = nullptr;
    bool                 static_graphs = false;

    ggml_opt_loss_type      loss_type        = GGML_OPT_LOSS_TYPE_SUM;
    ggml_opt_build_type     build_type_alloc = GGML_OPT_BUILD_TYPE_OPT; // the most this context builds
    ggml_opt_build_type     build_type       = GGML_OPT_BUILD_TYPE_OPT; // of the graph allocated next
    ggml_opt_optimizer_type optimizer        = GGML_OPT_OPTIMIZER_TYPE_ADAMW;

    int64_t iter                     = 1; // optimizer steps done + 1
    int32_t opt_period               = 1;
    int32_t opt_i                    = 0; // backward passes done in the current period
    bool    loss_per_datapoint       = false;

    ggml_opt_get_optimizer_params get_opt_pars    = nullptr;
    void *                        get_opt_pars_ud = nullptr;

    std::mt19937 rng; // default seed: shuffles are reproducible

    ggml_tensor * inputs   = nullptr;
    ggml_tensor * outputs  = nullptr;
    ggml_tensor * labels   = nullptr;
    ggml_tensor * loss     = nullptr;
    ggml_tensor * pred     = nullptr;
    ggml_tensor * ncorrect = nullptr;

    ggml_cgraph * gf      = nullptr; // forward
    ggml_cgraph * gb_grad = nullptr; // forward + backward
    ggml_cgraph * gb_opt  = nullptr; // forward + backward + optimizer step

    // persistent state (see the file comment)
    switchyard::ContextPtr ctx_static;
    switchyard::BufferPtr  buf_static;
    switchyard::ContextPtr ctx_step;
    switchyard::BufferPtr  buf_step;
    ggml_tensor *          step_params   = nullptr;
    ggml_tensor *          loss_grad_acc = nullptr;
    std::unordered_map<const ggml_tensor *, ggml_tensor *>                         grad_accs; // parameter -> accumulator
    std::unordered_map<const ggml_tensor *, std::pair<ggml_tensor *, ggml_tensor *>> moments;  // parameter -> m, v

    // allocation
    ggml_cgraph *          allocated_graph      = nullptr;
    ggml_cgraph *          allocated_graph_copy = nullptr;
    switchyard::ContextPtr ctx_copy;
    bool                   eval_ready  = false;
};

namespace switchyard::opt {

// Adds the loss (and predictions) to opt->gf and builds the backward and optimizer graphs up to `upto`;
// allocates the persistent state on the first call. Logs and returns false on a user error.
bool build(ggml_opt_context * opt, ggml_opt_build_type upto);

// Zeroes the parameter accumulators; sets the loss accumulator to 1; with optimizer also the moments.
void reset_state(ggml_opt_context * opt, bool optimizer);

// A copy of graph whose tensors not yet allocated are new tensors of ctx (allocated tensors are shared by
// aliasing their memory), so allocating it leaves the tensors of graph untouched.
ggml_cgraph * copy_graph(ggml_context * ctx, ggml_cgraph * graph);

bool alloc(ggml_opt_context * opt, bool backward);
bool eval(ggml_opt_context * opt, ggml_opt_result * result);

} // namespace switchyard::opt
