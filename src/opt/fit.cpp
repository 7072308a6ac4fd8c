// The training loop: one epoch over a data set (train, then validate), a progress bar, and ggml_opt_fit.
#include "opt/opt.h"

#include "base/log.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

using namespace switchyard;

namespace {

// Runs batches [begin, end) of the data set, training or evaluating; false (logged) when one fails.
bool run_batches(ggml_opt_context * opt, ggml_opt_dataset * dataset, ggml_opt_result * result, int64_t begin,
                 int64_t end, bool train, ggml_opt_epoch_callback callback) {
    const int64_t t_start = ggml_time_us();
    for (int64_t ibatch = begin; ibatch < end; ++ibatch) {
        if (!opt::alloc(opt, train)) {
            return false;
        }
        ggml_opt_dataset_get_batch(dataset, opt->inputs, opt->labels, ibatch);
        if (!opt::eval(opt, result)) {
            return false;
        }
        if (callback) {
            callback(train, opt, dataset, result, ibatch + 1 - begin, end - begin, t_start);
        }
    }
    return true;
}

// Checks what ggml_opt_epoch needs; the batch size on success, else 0.
int64_t epoch_batch_size(const ggml_opt_context * opt, const ggml_opt_dataset * dataset, int64_t idata_split) {
    constexpr const char * kName = "ggml_opt_epoch";
    if (!opt->static_graphs) {
        log_error("[%s] the context must have static graphs\n", kName);
        return 0;
    }
    const ggml_tensor * inputs = opt->inputs;
    const ggml_tensor * data   = dataset->data;
    if (data->ne[0] != inputs->ne[0] || data->type != inputs->type || data->ne[1] % inputs->ne[1] != 0) {
        log_error("[%s] inputs [%" PRId64 ", %" PRId64 "] %s do not fit the data [%" PRId64 ", %" PRId64 "] %s\n",
                  kName, inputs->ne[0], inputs->ne[1], ggml_type_name(inputs->type), data->ne[0], data->ne[1],
                  ggml_type_name(data->type));
        return 0;
    }
    if ((opt->labels == nullptr) != (dataset->labels == nullptr) ||
        (opt->labels && (dataset->labels->ne[0] != opt->labels->ne[0] || dataset->labels->type != opt->labels->type))) {
        log_error("[%s] the loss's labels and the data set's labels do not match\n", kName);
        return 0;
    }
    if (idata_split > data->ne[1] || (idata_split >= 0 && idata_split % inputs->ne[1] != 0)) {
        log_error("[%s] idata_split %" PRId64 " must be at most ndata %" PRId64 " and a multiple of the batch size %" PRId64
                  "\n",
                  kName, idata_split, data->ne[1], inputs->ne[1]);
        return 0;
    }
    return inputs->ne[1];
}

void print_duration(const char * what, int64_t us) {
    const int64_t s = us / 1000000;
    fprintf(stderr, "%s%02" PRId64 ":%02" PRId64 ":%02" PRId64, what, s / 3600, (s / 60) % 60, s % 60);
}

} // namespace

extern "C" {

void ggml_opt_epoch(ggml_opt_context_t opt_ctx, ggml_opt_dataset_t dataset, ggml_opt_result_t result_train,
                    ggml_opt_result_t result_eval, int64_t idata_split, ggml_opt_epoch_callback callback_train,
                    ggml_opt_epoch_callback callback_eval) {
    if (!opt_ctx || !dataset) {
        log_error("[ggml_opt_epoch] %s is NULL\n", opt_ctx ? "dataset" : "opt_ctx");
        return;
    }
    const int64_t batch = epoch_batch_size(opt_ctx, dataset, idata_split);
    if (batch == 0) {
        return;
    }
    const int64_t nbatches     = dataset->data->ne[1] / batch;
    const int64_t ibatch_split = idata_split < 0 ? nbatches : idata_split / batch;
    if (run_batches(opt_ctx, dataset, result_train, 0, ibatch_split, true, callback_train)) {
        run_batches(opt_ctx, dataset, result_eval, ibatch_split, nbatches, false, callback_eval);
    }
}

void ggml_opt_epoch_callback_progress_bar(bool train, ggml_opt_context_t opt_ctx, ggml_opt_dataset_t dataset,
                                          ggml_opt_result_t result, int64_t ibatch, int64_t ibatch_max,
                                          int64_t t_start_us) {
    (void) dataset;
    if (!opt_ctx || !result || ibatch <= 0 || ibatch_max <= 0) {
        return;
    }
    // 8 cells, each filled in eighths with the Unicode block elements U+2588 (full) .. U+258F (one eighth)
    static const char * const kEighths[9] = {" ", "\u258F", "\u258E", "\u258D", "\u258C",
                                             "\u258B", "\u258A", "\u2589", "\u2588"};
    constexpr int64_t         kCells      = 8;
    const int64_t             filled      = ibatch * kCells * 8 / ibatch_max; // in eighths of a cell
    fprintf(stderr, "%s[", train ? "train: " : "val:   ");
    for (int64_t cell = 0; cell < kCells; ++cell) {
        const int64_t eighths = std::min<int64_t>(8, std::max<int64_t>(0, filled - 8 * cell));
        fputs(kEighths[eighths], stderr);
    }
    const int64_t batch = ggml_opt_inputs(opt_ctx)->ne[1];
    double        loss = 0.0, loss_unc = 0.0, accuracy = 0.0, accuracy_unc = 0.0;
    ggml_opt_result_loss(result, &loss, &loss_unc);
    ggml_opt_result_accuracy(result, &accuracy, &accuracy_unc);
    const int64_t t_us = ggml_time_us() - t_start_us;
    fprintf(stderr, "] data=%07" PRId64 "/%07" PRId64 " loss=%.5f\u00b1%.5f acc=%.2f\u00b1%.2f%% ", ibatch * batch,
            ibatch_max * batch, loss, loss_unc, 100.0 * accuracy, 100.0 * accuracy_unc);
    print_duration("t=", t_us);
    print_duration(" ETA=", t_us * (ibatch_max - ibatch) / ibatch);
    fputs(ibatch == ibatch_max ? " \n" : " \r", stderr);
    fflush(stderr);
}

void ggml_opt_fit(ggml_backend_sched_t backend_sched, struct ggml_context * ctx_compute, struct ggml_tensor * inputs,
                  struct ggml_tensor * outputs, ggml_opt_dataset_t dataset, enum ggml_opt_loss_type loss_type,
                  enum ggml_opt_optimizer_type optimizer, ggml_opt_get_optimizer_params get_opt_pars, int64_t nepoch,
                  int64_t nbatch_logical, float val_split, bool silent) {
    constexpr const char * kName = "ggml_opt_fit";
    if (!backend_sched || !ctx_compute || !inputs || !outputs || !dataset || !get_opt_pars) {
        log_error("[%s] backend_sched, ctx_compute, inputs, outputs, dataset and get_opt_pars must not be NULL\n", kName);
        return;
    }
    ggml_time_init();
    const int64_t t_start         = ggml_time_us();
    const int64_t ndata           = dataset->data->ne[1];
    const int64_t nbatch_physical = inputs->ne[1];
    if (nepoch < 0 || nbatch_logical <= 0 || ndata % nbatch_logical != 0 || nbatch_logical % nbatch_physical != 0 ||
        !(val_split >= 0.0f && val_split < 1.0f)) {
        log_error("[%s] need nepoch >= 0, a logical batch (%" PRId64 ") that divides ndata (%" PRId64
                  ") and is a multiple of the inputs' batch (%" PRId64 "), and val_split (%g) in [0, 1)\n",
                  kName, nbatch_logical, ndata, nbatch_physical, static_cast<double>(val_split));
        return;
    }
    const int64_t opt_period       = nbatch_logical / nbatch_physical;
    const int64_t nbatches_logical = ndata / nbatch_logical;
    // the training part ends on a logical batch: whole optimizer steps only
    const auto    ibatch_split = static_cast<int64_t>((1.0f - val_split) * static_cast<float>(nbatches_logical)) *
                              opt_period;
    const int64_t idata_split = ibatch_split * nbatch_physical;

    int64_t         epoch  = 1;
    ggml_opt_params params = ggml_opt_default_params(backend_sched, loss_type);
    params.ctx_compute     = ctx_compute;
    params.inputs          = inputs;
    params.outputs         = outputs;
    params.opt_period      = static_cast<int32_t>(opt_period);
    params.get_opt_pars    = get_opt_pars;
    params.get_opt_pars_ud = &epoch;
    params.optimizer       = optimizer;
    ggml_opt_context_t opt = ggml_opt_init(params);
    if (!opt) {
        return;
    }
    if (nbatch_logical < ndata) {
        ggml_opt_dataset_shuffle(opt, dataset, -1); // once over everything: which datapoints validate
    }
    ggml_opt_result_t       result_train = ggml_opt_result_init();
    ggml_opt_result_t       result_val   = ggml_opt_result_init();
    ggml_opt_epoch_callback callback     = silent ? nullptr : ggml_opt_epoch_callback_progress_bar;
    for (; epoch <= nepoch && result_train && result_val; ++epoch) {
        if (nbatch_logical < idata_split) {
            ggml_opt_dataset_shuffle(opt, dataset, idata_split); // the training part only
        }
        ggml_opt_result_reset(result_train);
        ggml_opt_result_reset(result_val);
        if (!silent) {
            fprintf(stderr, "%s: epoch %04" PRId64 "/%04" PRId64 ":\n", kName, epoch, nepoch);
        }
        ggml_opt_epoch(opt, dataset, result_train, result_val, idata_split, callback, callback);
        if (!silent) {
            fprintf(stderr, "\n");
        }
    }
    if (!silent) {
        print_duration("ggml_opt_fit: training took ", ggml_time_us() - t_start);
        fprintf(stderr, "\n");
    }
    ggml_opt_free(opt);
    ggml_opt_result_free(result_train);
    ggml_opt_result_free(result_val);
}

} // extern "C"
