// Training with ggml: data sets, an optimization context that builds the forward, gradient and optimizer-step
// graphs of a model and runs them through a backend scheduler, result statistics, and a ready-made training loop
// (ggml_opt_fit). Names, signatures, enum values and struct layouts are those of upstream ggml's ggml-opt.h.
//
// Error contract (ours, stricter than upstream's asserts): a NULL handle, a shape or type that does not match,
// an index out of range or an invalid parameter is logged through ggml_log_set's callback with the function's
// name and the call returns NULL / does nothing (void functions) instead of aborting. Only broken internal
// invariants end in the abort callback (ggml_set_abort_callback); so do programming errors in the model graph
// itself that ggml_build_backward_expand reports (an op without a gradient rule), as upstream.
//
// Threading: a data set, a context and a result are not thread-safe; use each from one thread at a time.
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

    struct ggml_opt_dataset;
    struct ggml_opt_context;
    struct ggml_opt_result;

    typedef struct ggml_opt_dataset * ggml_opt_dataset_t;
    typedef struct ggml_opt_context * ggml_opt_context_t;
    typedef struct ggml_opt_result  * ggml_opt_result_t;

    // ---- loss ----

    // The quantity the optimizer minimizes. MEAN and SUM reduce the model's outputs themselves (for a loss that
    // the model computes); CROSS_ENTROPY and MEAN_SQUARED_ERROR compare the outputs with labels.
    enum ggml_opt_loss_type {
        GGML_OPT_LOSS_TYPE_MEAN,
        GGML_OPT_LOSS_TYPE_SUM,
        GGML_OPT_LOSS_TYPE_CROSS_ENTROPY,
        GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR,
    };

    // ---- data set ----

    // A data set in host memory: data [ne_datapoint, ndata] of type_data and, when ne_label > 0, labels
    // [ne_label, ndata] of type_label. Shards of ndata_shard consecutive datapoints are the unit of shuffling
    // and copying; ndata must be a multiple of ndata_shard. Returns NULL (and logs) on invalid sizes or when
    // the memory cannot be allocated. The caller owns the result (ggml_opt_dataset_free).
    GGML_API ggml_opt_dataset_t ggml_opt_dataset_init(
            enum ggml_type type_data,
            enum ggml_type type_label,
            int64_t        ne_datapoint,
            int64_t        ne_label,
            int64_t        ndata,
            int64_t        ndata_shard);
    GGML_API void ggml_opt_dataset_free(ggml_opt_dataset_t dataset); // NULL is a no-op

    // The number of datapoints, and the tensors holding them (host memory: write them with memcpy or
    // ggml_backend_tensor_set). labels is NULL for a data set without labels.
    GGML_API int64_t              ggml_opt_dataset_ndata (ggml_opt_dataset_t dataset);
    GGML_API struct ggml_tensor * ggml_opt_dataset_data  (ggml_opt_dataset_t dataset); // [ne_datapoint, ndata]
    GGML_API struct ggml_tensor * ggml_opt_dataset_labels(ggml_opt_dataset_t dataset); // [ne_label,     ndata]

    // Shuffles the order of the first idata datapoints (all of them if idata < 0; idata must be a multiple of
    // the shard size) with the random generator of opt_ctx, which starts from a fixed seed: the same sequence
    // of calls on a new context gives the same order.
    GGML_API void ggml_opt_dataset_shuffle(ggml_opt_context_t opt_ctx, ggml_opt_dataset_t dataset, int64_t idata);

    // Copies batch ibatch (in the current order) into data_batch [ne_datapoint, n] and labels_batch [ne_label, n]
    // (contiguous tensors of the data set's types, in any backend buffer; labels_batch NULL exactly when the
    // data set has no labels). n must be a multiple of the shard size and (ibatch + 1) * n at most ndata.
    GGML_API void ggml_opt_dataset_get_batch(
            ggml_opt_dataset_t   dataset,
            struct ggml_tensor * data_batch,
            struct ggml_tensor * labels_batch,
            int64_t              ibatch);
    // The same into host memory: nb_data_batch bytes at data_batch decide the batch size; labels_batch must
    // have room for as many labels (NULL exactly when the data set has none).
    GGML_API void ggml_opt_dataset_get_batch_host(
            ggml_opt_dataset_t   dataset,
            void               * data_batch,
            size_t               nb_data_batch,
            void               * labels_batch,
            int64_t              ibatch);

    // ---- model / context ----

    // Which graphs a context builds: the forward pass only; also the gradients; also the optimizer step.
    enum ggml_opt_build_type {
        GGML_OPT_BUILD_TYPE_FORWARD = 10,
        GGML_OPT_BUILD_TYPE_GRAD    = 20,
        GGML_OPT_BUILD_TYPE_OPT     = 30,
    };

    enum ggml_opt_optimizer_type {
        GGML_OPT_OPTIMIZER_TYPE_ADAMW,
        GGML_OPT_OPTIMIZER_TYPE_SGD,

        GGML_OPT_OPTIMIZER_TYPE_COUNT
    };

    // Hyperparameters of the optimizers, read before every optimizer step.
    struct ggml_opt_optimizer_params {
        struct {
            float alpha; // learning rate, > 0
            float beta1; // decay of the first moment, in [0, 1]
            float beta2; // decay of the second moment, in [0, 1]
            float eps;   // added to the root of the second moment, >= 0
            float wd;    // decoupled weight decay in [0, 1], 0 disables it
        } adamw;
        struct {
            float alpha; // learning rate, > 0
            float wd;    // weight decay in [0, 1]
        } sgd;
    };

    // Computes the hyperparameters for the next optimizer step from the callback's userdata.
    typedef struct ggml_opt_optimizer_params (*ggml_opt_get_optimizer_params)(void * userdata);

    // Fixed defaults (AdamW: alpha 1e-3, beta1 0.9, beta2 0.999, eps 1e-8, no weight decay, no clipping;
    // SGD: alpha 1e-3, no weight decay). userdata is ignored.
    GGML_API struct ggml_opt_optimizer_params ggml_opt_get_default_optimizer_params(void * userdata);

    // Returns *(struct ggml_opt_optimizer_params *) userdata (the defaults, with a logged error, if NULL).
    GGML_API struct ggml_opt_optimizer_params ggml_opt_get_constant_optimizer_params(void * userdata);

    struct ggml_opt_params {
        ggml_backend_sched_t backend_sched; // runs the graphs; its first backend holds the optimizer's state

        // Static graphs: with ctx_compute, inputs and outputs set, the graphs are built once at ggml_opt_init
        // (inputs must then be allocated). Otherwise all three are NULL and every ggml_opt_alloc takes a new
        // forward graph from ggml_opt_prepare_alloc.
        struct ggml_context * ctx_compute;
        struct ggml_tensor  * inputs;
        struct ggml_tensor  * outputs;

        enum ggml_opt_loss_type  loss_type;
        enum ggml_opt_build_type build_type;

        int32_t opt_period; // backward passes whose gradients add up before each optimizer step, >= 1

        ggml_opt_get_optimizer_params get_opt_pars;    // hyperparameters before each optimizer step
        void *                        get_opt_pars_ud; // their userdata

        enum ggml_opt_optimizer_type optimizer; // AdamW keeps two moments per parameter, SGD none
    };

    // Parameters with defaults for everything but the scheduler and the loss: no static graphs, build type OPT,
    // opt_period 1, default hyperparameters, no checkpointing, AdamW.
    GGML_API struct ggml_opt_params ggml_opt_default_params(
            ggml_backend_sched_t    backend_sched,
            enum ggml_opt_loss_type loss_type);

    // Returns NULL (and logs) on invalid parameters or when the static graphs cannot be built or allocated.
    // The caller owns the result (ggml_opt_free); the scheduler, contexts and tensors stay the caller's.
    GGML_API ggml_opt_context_t ggml_opt_init(struct ggml_opt_params params);
    GGML_API void ggml_opt_free(ggml_opt_context_t opt_ctx); // NULL is a no-op

    // Zeroes the accumulated gradients (the loss's gradient becomes 1); with optimizer also the optimizer's
    // moments and its step counter.
    GGML_API void ggml_opt_reset(ggml_opt_context_t opt_ctx, bool optimizer);

    GGML_API bool ggml_opt_static_graphs(ggml_opt_context_t opt_ctx); // built once at ggml_opt_init

    // Tensors of the current graphs; without static graphs they change with every ggml_opt_alloc.
    GGML_API struct ggml_tensor * ggml_opt_inputs(  ggml_opt_context_t opt_ctx); // the model's input
    GGML_API struct ggml_tensor * ggml_opt_outputs( ggml_opt_context_t opt_ctx); // the model's output
    GGML_API struct ggml_tensor * ggml_opt_labels(  ggml_opt_context_t opt_ctx); // labels (NULL for MEAN / SUM)
    GGML_API struct ggml_tensor * ggml_opt_loss(    ggml_opt_context_t opt_ctx); // the scalar loss
    GGML_API struct ggml_tensor * ggml_opt_pred(    ggml_opt_context_t opt_ctx); // argmax per datapoint (I32)
    GGML_API struct ggml_tensor * ggml_opt_ncorrect(ggml_opt_context_t opt_ctx); // predictions matching the labels (I64)

    // The accumulated gradient of a forward node (a parameter, or the loss), NULL if it has none.
    GGML_API struct ggml_tensor * ggml_opt_grad_acc(ggml_opt_context_t opt_ctx, struct ggml_tensor * node);

    GGML_API enum ggml_opt_optimizer_type ggml_opt_context_optimizer_type(ggml_opt_context_t);

    GGML_API const char * ggml_opt_optimizer_name(enum ggml_opt_optimizer_type); // "adamw", "sgd", "undefined"

    // ---- results ----

    // Loss, predictions and accuracy gathered over evaluations. The caller owns the result.
    GGML_API ggml_opt_result_t ggml_opt_result_init(void);
    GGML_API void ggml_opt_result_free(ggml_opt_result_t result); // NULL is a no-op
    GGML_API void ggml_opt_result_reset(ggml_opt_result_t result);

    // Readers; an uncertainty pointer may be NULL. The loss is the mean over batches for per-datapoint losses
    // (MEAN, CROSS_ENTROPY, MEAN_SQUARED_ERROR) and the total for SUM; its uncertainty is the standard error
    // of that mean (for SUM: the spread of the batch sums), NaN with fewer than two batches. The accuracy is
    // correct / ndata with the binomial standard error, NaN if the loss has no predictions.
    GGML_API void ggml_opt_result_ndata(   ggml_opt_result_t result, int64_t * ndata);
    GGML_API void ggml_opt_result_loss(    ggml_opt_result_t result, double  * loss,     double * unc);
    GGML_API void ggml_opt_result_pred(    ggml_opt_result_t result, int32_t * pred); // ndata values
    GGML_API void ggml_opt_result_accuracy(ggml_opt_result_t result, double  * accuracy, double * unc);

    // ---- computation ----

    // Without static graphs: hands over the next forward graph gf (ending in outputs, built in ctx_compute,
    // whose other tensors the scheduler places) before each ggml_opt_alloc.
    GGML_API void ggml_opt_prepare_alloc(
        ggml_opt_context_t    opt_ctx,
        struct ggml_context * ctx_compute,
        struct ggml_cgraph  * gf,
        struct ggml_tensor  * inputs,
        struct ggml_tensor  * outputs);

    // Builds (without static graphs) and allocates the next graph: forward only, or forward and backward (the
    // optimizer step is added on every opt_period-th backward pass of an OPT context). Call it once before each
    // ggml_opt_eval, then set the inputs (and labels). A failure is logged and the next ggml_opt_eval refuses.
    GGML_API void ggml_opt_alloc(ggml_opt_context_t opt_ctx, bool backward);

    // Runs the allocated graph and adds its loss, predictions and correct count to result (if not NULL).
    GGML_API void ggml_opt_eval(ggml_opt_context_t opt_ctx, ggml_opt_result_t result);

    // ---- high level: a training loop built on the functions above ----
    //
    // Use: pick a loss; fill a data set (data, and labels if the loss needs them); build the model with
    // no_alloc contexts: one, allocated by you, for the parameters (ggml_set_param) and the input, another,
    // ggml_opt_fit's ctx_compute, for everything else. Dimension 1 of inputs and outputs counts datapoints.

    // Called after each batch of an epoch.
    typedef void (*ggml_opt_epoch_callback)(
            bool               train,       // training (true) or validation (false)
            ggml_opt_context_t opt_ctx,
            ggml_opt_dataset_t dataset,
            ggml_opt_result_t  result,      // the result of this part of the epoch
            int64_t            ibatch,      // batches done in this part
            int64_t            ibatch_max,  // batches in this part
            int64_t            t_start_us); // when this part started (ggml_time_us)

    // One pass over the data set with static graphs: batches before idata_split (< 0: all) train, the rest are
    // evaluated. idata_split must be a multiple of the batch size.
    GGML_API void ggml_opt_epoch(
            ggml_opt_context_t      opt_ctx,
            ggml_opt_dataset_t      dataset,
            ggml_opt_result_t       result_train, // may be NULL
            ggml_opt_result_t       result_eval,  // may be NULL
            int64_t                 idata_split,
            ggml_opt_epoch_callback callback_train,
            ggml_opt_epoch_callback callback_eval);

    // An epoch callback that draws a progress bar with loss and accuracy on stderr.
    GGML_API void ggml_opt_epoch_callback_progress_bar(
            bool               train,
            ggml_opt_context_t opt_ctx,
            ggml_opt_dataset_t dataset,
            ggml_opt_result_t  result,
            int64_t            ibatch,
            int64_t            ibatch_max,
            int64_t            t_start_us);

    // Trains the model from inputs [ne_datapoint, n] to outputs ([ne_label, n] with a labelled loss) for nepoch
    // epochs with static graphs. nbatch_logical datapoints per optimizer step (a multiple of n, dividing ndata);
    // the last val_split (in [0, 1)) of the logical batches, after one shuffle, only evaluate. get_opt_pars gets
    // a pointer to the current epoch (int64_t, from 1). silent suppresses the progress output on stderr.
    GGML_API void ggml_opt_fit(
            ggml_backend_sched_t            backend_sched,
            struct ggml_context           * ctx_compute,
            struct ggml_tensor            * inputs,
            struct ggml_tensor            * outputs,
            ggml_opt_dataset_t              dataset,
            enum ggml_opt_loss_type         loss_type,
            enum ggml_opt_optimizer_type    optimizer,
            ggml_opt_get_optimizer_params   get_opt_pars,
            int64_t                         nepoch,
            int64_t                         nbatch_logical,
            float                           val_split,
            bool                            silent);

#ifdef __cplusplus
}
#endif
