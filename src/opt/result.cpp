// Results: what evaluations add up (per-batch losses, predictions, correct count) and the statistics read from it.
#include "opt/opt.h"

#include "base/log.h"

#include <cmath>
#include <new>

using namespace switchyard;

namespace {

bool have(const ggml_opt_result * result, const void * out, const char * caller) {
    if (!result || !out) {
        log_error("[%s] %s is NULL\n", caller, result ? "the output pointer" : "result");
        return false;
    }
    return true;
}

} // namespace

extern "C" {

ggml_opt_result_t ggml_opt_result_init(void) {
    auto * result = new (std::nothrow) ggml_opt_result;
    if (!result) {
        log_error("[ggml_opt_result_init] out of memory\n");
    }
    return result;
}

void ggml_opt_result_free(ggml_opt_result_t result) {
    delete result;
}

void ggml_opt_result_reset(ggml_opt_result_t result) {
    if (!result) {
        log_error("[ggml_opt_result_reset] result is NULL\n");
        return;
    }
    result->ndata = 0;
    result->loss.clear();
    result->pred.clear();
    result->ncorrect = 0;
}

void ggml_opt_result_ndata(ggml_opt_result_t result, int64_t * ndata) {
    if (have(result, ndata, "ggml_opt_result_ndata")) {
        *ndata = result->ndata;
    }
}

// Per-datapoint losses were divided by opt_period in the graph (so that gradients add up to the mean over a
// logical batch); the statistics undo that. The batch values x_i give mean m and population variance s2; a
// per-datapoint loss reports m with standard error sqrt(s2 / (n - 1)), a summed loss the total with the sample
// standard deviation sqrt(s2 * n / (n - 1)) (as upstream).
void ggml_opt_result_loss(ggml_opt_result_t result, double * loss, double * unc) {
    if (!have(result, loss, "ggml_opt_result_loss")) {
        return;
    }
    const auto n = static_cast<double>(result->loss.size());
    if (result->loss.empty()) {
        *loss = 0.0;
        if (unc) {
            *unc = NAN;
        }
        return;
    }
    const double scale = result->loss_per_datapoint ? static_cast<double>(result->opt_period) : 1.0;
    double       sum   = 0.0;
    double       sum2  = 0.0;
    for (const float value : result->loss) {
        const double x = static_cast<double>(value) * scale;
        sum += x;
        sum2 += x * x;
    }
    const double mean = sum / n;
    *loss             = result->loss_per_datapoint ? mean : sum;
    if (!unc) {
        return;
    }
    if (result->loss.size() < 2) {
        *unc = NAN;
        return;
    }
    const double var = std::max(0.0, sum2 / n - mean * mean);
    *unc             = result->loss_per_datapoint ? std::sqrt(var / (n - 1.0)) : std::sqrt(var * n / (n - 1.0));
}

void ggml_opt_result_pred(ggml_opt_result_t result, int32_t * pred) {
    if (have(result, pred, "ggml_opt_result_pred")) {
        std::copy(result->pred.begin(), result->pred.end(), pred);
    }
}

void ggml_opt_result_accuracy(ggml_opt_result_t result, double * accuracy, double * unc) {
    if (!have(result, accuracy, "ggml_opt_result_accuracy")) {
        return;
    }
    const bool known = result->ncorrect >= 0 && result->ndata > 0;
    const auto n     = static_cast<double>(result->ndata);
    *accuracy        = known ? static_cast<double>(result->ncorrect) / n : NAN;
    if (unc) {
        *unc = known && result->ndata >= 2 ? std::sqrt(*accuracy * (1.0 - *accuracy) / (n - 1.0)) : NAN;
    }
}

} // extern "C"
