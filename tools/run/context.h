// switchyard-run: an inference context over a placed model: the KV cache, the scheduler over the devices'
// backends, and decode(), which runs tokens through the model in batches of n_batch and returns logits.
#pragma once

#include "devices.h"
#include "graph.h"
#include "kv_cache.h"
#include "model.h"

#include "ggml-backend.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace switchyard::run {

class TraceRecorder;

struct ContextParams {
    int64_t n_ctx      = 512;  // positions the KV cache holds
    int64_t n_batch    = 512;  // tokens per graph at most
    int64_t n_ubatch   = 0;    // tokens per computation (0: n_batch); a pipeline over ranks overlaps them
    bool    flash_attn = true; // attention by FLASH_ATTN_EXT, else soft_max(K·Q)·V (graph.h)
};

class Context {
public:
    ~Context();
    Context(const Context &)             = delete;
    Context & operator=(const Context &) = delete;

    // Allocates the cache and the scheduler's compute buffers (sized once for the largest graph: n_batch tokens
    // over a full cache); nullptr with a message on failure. model and devices must outlive the context.
    static std::unique_ptr<Context> create(const Model & model, const Devices & devices, const ContextParams & params,
                                           std::string & error);

    // Runs tokens after the n_past() already in the cache and appends them to it. logits receives n_vocab
    // values per token (all_logits) or for the last token only. False with a message when the cache is full, an
    // id is out of range, or the computation fails (the cache then holds the tokens of the batches that ran).
    bool decode(const std::vector<int32_t> & tokens, bool all_logits, std::vector<float> & logits, std::string & error);

    // Forgets the cached tokens.
    void clear() { n_past_ = 0; }

    // Hands every computation from now on to trace (collect after each; nullptr: none). trace must outlive its use.
    void set_trace(TraceRecorder * trace) { trace_ = trace; }

    int64_t              n_past() const { return n_past_; }
    int64_t              n_ctx() const { return cache_.n_ctx(); }
    ggml_backend_sched_t sched() const { return sched_; }
    const KvCache &      cache() const { return cache_; }
    // the scheduler's plan of the last graph (JSON)
    std::string plan_json() const;

private:
    explicit Context(const Model & model) : model_(model) {}
    // read_logits false: the logits stay where they were computed (reading them waits for every device, which
    // would stop the micro-batches of a pipeline from overlapping)
    bool run_batch(const int32_t * tokens, int64_t n, bool all_logits, bool read_logits, std::vector<float> & logits,
                   std::string & error);

    const Model &        model_;
    ContextParams        params_;
    KvCache              cache_;
    ggml_backend_sched_t sched_  = nullptr;
    int64_t              n_past_ = 0;
    TraceRecorder *      trace_  = nullptr;
    std::vector<uint8_t> graph_mem_; // the graphs' tensor descriptions
};

} // namespace switchyard::run
