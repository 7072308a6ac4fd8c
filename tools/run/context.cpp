#include "context.h"

#include "trace_recorder.h"

#include <algorithm>

namespace switchyard::run {

namespace {

ggml_context * graph_context(std::vector<uint8_t> & mem) {
    return ggml_init({mem.size(), mem.data(), true});
}

} // namespace

Context::~Context() { ggml_backend_sched_free(sched_); }

std::unique_ptr<Context> Context::create(const Model & model, const Devices & devices, const ContextParams & params,
                                         std::string & error) {
    if (params.n_ctx < 1 || params.n_batch < 1) {
        error = "the context size and the batch size must be at least 1";
        return nullptr;
    }
    std::unique_ptr<Context> c(new Context(model));
    c->params_ = params;
    if (!c->cache_.init(model.hparams(), model.placement(), params.n_ctx, error)) {
        return nullptr;
    }
    const size_t nodes = graph_size(model.hparams());
    c->graph_mem_.resize(nodes * ggml_tensor_overhead() + ggml_graph_overhead_custom(nodes, false));
    std::vector<ggml_backend_t> backends = devices.backends();
    c->sched_ = ggml_backend_sched_new(backends.data(), nullptr, static_cast<int>(backends.size()), nodes, false, true);
    if (c->sched_ == nullptr) {
        error = "cannot create the scheduler";
        return nullptr;
    }
    // the largest graph: a full batch whose last token fills the cache, with the logits of every token
    const int64_t  n_tokens = std::min(params.n_batch, params.n_ctx);
    ggml_context * ctx      = graph_context(c->graph_mem_);
    GraphInputs    in;
    ggml_cgraph *  gf = build_graph(ctx, model, c->cache_, n_tokens, params.n_ctx - n_tokens, true, params.flash_attn, in);
    const bool     ok = ggml_backend_sched_reserve(c->sched_, gf);
    ggml_free(ctx);
    if (!ok) {
        error = "cannot allocate the compute buffers (see the scheduler's message above)";
        return nullptr;
    }
    return c;
}

bool Context::decode(const std::vector<int32_t> & tokens, bool all_logits, std::vector<float> & logits,
                     std::string & error) {
    const int64_t n_vocab = model_.hparams().n_vocab;
    logits.clear();
    if (tokens.empty()) {
        error = "decode: no tokens";
        return false;
    }
    for (int32_t id : tokens) {
        if (id < 0 || id >= n_vocab) {
            error = "decode: token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                    std::to_string(n_vocab - 1) + ")";
            return false;
        }
    }
    if (n_past_ + static_cast<int64_t>(tokens.size()) > cache_.n_ctx()) {
        error = "decode: the context is full (" + std::to_string(cache_.n_ctx()) + " positions, " +
                std::to_string(n_past_) + " used, " + std::to_string(tokens.size()) + " more asked)";
        return false;
    }
    const int64_t n    = static_cast<int64_t>(tokens.size());
    const int64_t step = params_.n_ubatch > 0 ? std::min(params_.n_ubatch, params_.n_batch) : params_.n_batch;
    for (int64_t i0 = 0; i0 < n; i0 += step) {
        const int64_t n_batch = std::min(step, n - i0);
        const bool    want    = all_logits || i0 + n_batch == n;
        std::vector<float> part;
        if (!run_batch(tokens.data() + i0, n_batch, all_logits, want, part, error)) {
            return false;
        }
        if (want) {
            logits.insert(logits.end(), part.begin(), part.end());
        }
    }
    return true;
}

bool Context::run_batch(const int32_t * tokens, int64_t n, bool all_logits, bool read_logits, std::vector<float> & logits,
                        std::string & error) {
    ggml_context * ctx = graph_context(graph_mem_);
    GraphInputs    in;
    ggml_cgraph *  gf = build_graph(ctx, model_, cache_, n, n_past_, all_logits, params_.flash_attn, in);
    ggml_backend_sched_reset(sched_);
    if (!ggml_backend_sched_alloc_graph(sched_, gf)) {
        ggml_free(ctx);
        error = "decode: cannot allocate the graph (see the scheduler's message above)";
        return false;
    }
    set_graph_inputs(in, tokens, n, n_past_);
    const ggml_status status = ggml_backend_sched_graph_compute(sched_, gf);
    if (trace_ != nullptr) {
        trace_->collect(n, n_past_);
    }
    if (status != GGML_STATUS_SUCCESS) {
        ggml_free(ctx);
        error = std::string("decode: the computation failed: ") + ggml_status_to_string(status);
        return false;
    }
    if (read_logits) {
        logits.resize(static_cast<size_t>(ggml_nelements(in.logits)));
        ggml_backend_tensor_get(in.logits, logits.data(), 0, logits.size() * sizeof(float));
    }
    ggml_free(ctx);
    n_past_ += n;
    return true;
}

std::string Context::plan_json() const {
    std::string s(ggml_backend_sched_plan_json(sched_, nullptr, 0) + 1, '\0');
    ggml_backend_sched_plan_json(sched_, s.data(), s.size());
    s.pop_back();
    return s;
}

} // namespace switchyard::run
