#include "generate.h"

#include "context.h"
#include "diagnose.h"
#include "prompt.h"
#include "ranks.h"
#include "report.h"
#include "sampler.h"
#include "text_stream.h"
#include "trace_recorder.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace switchyard::run {

namespace {

int fail(const std::string & message) {
    std::fprintf(stderr, "%serror: %s\n", ranks::prefix().c_str(), message.c_str());
    return 1;
}

void warn(const std::string & message) {
    if (ranks::rank() == 0) {
        std::fprintf(stderr, "switchyard-run: warning: %s\n", message.c_str());
    }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// --plan's file: opened before the run, written after it
class PlanFile {
public:
    ~PlanFile() {
        if (f_ != nullptr) {
            std::fclose(f_);
        }
    }
    bool open(const std::string & path, std::string & error) {
        path_ = path;
        f_    = std::fopen(path.c_str(), "w");
        if (f_ == nullptr) {
            error = "cannot write the plan to '" + path + "': " + std::strerror(errno);
        }
        return f_ != nullptr;
    }
    bool write(const std::string & text, std::string & error) {
        const bool wrote  = std::fputs(text.c_str(), f_) >= 0 && std::fflush(f_) == 0;
        const int  err    = errno;
        const bool closed = std::fclose(f_) == 0;
        f_                = nullptr;
        if (!wrote || !closed) {
            error = "cannot write the plan to '" + path_ + "': " + std::strerror(wrote ? errno : err);
        }
        return wrote && closed;
    }

private:
    std::FILE * f_ = nullptr;
    std::string path_;
};

// the KV cache positions of the run: -c, or what the prompt and -n need (-n -1: the model's context, at most 4096)
int64_t context_size(const Options & o, const Model & model, size_t n_prompt) {
    if (o.n_ctx > 0) {
        return o.n_ctx;
    }
    const int64_t prompt = static_cast<int64_t>(n_prompt);
    if (o.n_predict >= 0) {
        return prompt + std::max(o.n_predict, 1);
    }
    return std::max(std::min<int64_t>(model.hparams().n_ctx_train, 4096), prompt + 1);
}

// the error for logits that are not finite after `tokens`, with the first node that produced such a value
std::string non_finite_error(Context & ctx, const std::vector<int32_t> & tokens, const std::vector<float> & logits,
                             const char * when) {
    const int64_t at = first_non_finite(logits);
    const float   v  = logits[static_cast<size_t>(at)];
    return std::string("the logits ") + when + " are not finite (" + (std::isnan(v) ? "nan" : "an infinity") +
           " for token " + std::to_string(at) + "): " + find_non_finite_node(ctx, tokens);
}

struct Generated {
    std::vector<int32_t> ids;
    bool                 context_full = false;
    double               seconds      = 0.0;
};

// tokens after the prompt until -n, the end of text or a full context; false with a message on an error
bool generate_tokens(Context & ctx, const Model & model, const Options & o, const Tokenizer * tok,
                     const std::vector<int32_t> & prompt, std::vector<float> & logits, TextStream & text,
                     Generated & g, std::string & error) {
    Sampler sampler(o.sampling);
    for (int32_t id : prompt) {
        sampler.accept(id);
    }
    const int64_t limit = o.n_predict < 0 ? std::numeric_limits<int64_t>::max() : o.n_predict;
    const auto    t0    = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < limit; ++i) {
        // every rank continues with rank 0's choice (their logits are the same; this keeps them in step)
        const int32_t id =
            ranks::token_from_rank0(sampler.sample(logits.data(), static_cast<int32_t>(model.hparams().n_vocab)));
        if (tok != nullptr && tok->is_eog(id)) {
            break;
        }
        g.ids.push_back(id);
        sampler.accept(id);
        if (tok != nullptr) {
            std::fputs(text.push(tok->piece(id)).c_str(), stdout);
            std::fflush(stdout);
        }
        if (i + 1 == limit) {
            break;
        }
        if (ctx.n_past() >= ctx.n_ctx()) {
            g.context_full = true;
            break;
        }
        if (!ctx.decode({id}, false, logits, error)) {
            return false;
        }
        if (first_non_finite(logits) >= 0) {
            std::vector<int32_t> all = prompt;
            all.insert(all.end(), g.ids.begin(), g.ids.end());
            error = non_finite_error(ctx, all, logits, ("after generated token " + std::to_string(i + 1)).c_str());
            return false;
        }
    }
    g.seconds = seconds_since(t0);
    return true;
}

// The generation rate counts the tokens decoded after the prompt (the first comes from the prompt's logits); with
// none decoded there is no rate to give.
void print_speed(size_t n_prompt, double t_prompt, const Generated & g) {
    const size_t n_gen = std::max<size_t>(g.ids.size(), 1) - 1;
    char         rate[64];
    if (n_gen > 0) {
        std::snprintf(rate, sizeof(rate), "%.1f tokens/s", static_cast<double>(n_gen) / g.seconds);
    } else {
        std::snprintf(rate, sizeof(rate), "no decode step");
    }
    std::printf("prompt: %zu tokens in %.1f ms (%.1f tokens/s); generation: %zu tokens in %.1f ms (%s)\n", n_prompt,
                t_prompt * 1e3, static_cast<double>(n_prompt) / t_prompt, g.ids.size(), g.seconds * 1e3, rate);
}

} // namespace

int generate(const Model & model, const Devices & devices, const Options & o) {
    std::string                error;
    std::unique_ptr<Tokenizer> tok;
    std::vector<int32_t>       ids;
    if (!prompt_tokens(model, o, tok, ids, error)) {
        return fail(error);
    }
    const int64_t n_ctx = context_size(o, model, ids.size());
    if (static_cast<int64_t>(ids.size()) > n_ctx) {
        warn("the prompt has " + std::to_string(ids.size()) + " tokens, more than the context's " +
             std::to_string(n_ctx) + " positions (-c): only its last " + std::to_string(n_ctx) + " are used");
        ids.erase(ids.begin(), ids.end() - n_ctx);
    }
    PlanFile      plan;
    TraceRecorder trace;
    if ((!o.plan_path.empty() && !plan.open(o.plan_path, error)) || (!o.trace_path.empty() && !trace.open(o.trace_path, error))) {
        return fail(error);
    }
    auto ctx = Context::create(model, devices, {n_ctx, o.n_batch, o.n_ubatch, o.flash_attn != FlashAttn::Off}, error);
    if (!ctx) {
        return fail(error);
    }
    if (!o.trace_path.empty()) {
        trace.attach(ctx->sched());
        ctx->set_trace(&trace);
    }
    std::vector<float> logits;
    ranks::reset_traffic();
    const auto         t0 = std::chrono::steady_clock::now();
    if (!ctx->decode(ids, false, logits, error)) {
        return fail(error);
    }
    const double t_prompt = seconds_since(t0);
    ranks::end_phase("prompt", static_cast<int64_t>(ids.size()));
    if (first_non_finite(logits) >= 0) {
        return fail(non_finite_error(*ctx, ids, logits, "of the prompt"));
    }
    TextStream text;
    std::fputs(tok ? text.push(tok->decode(ids)).c_str() : "", stdout);
    std::fflush(stdout);

    Generated  g;
    const bool ok = generate_tokens(*ctx, model, o, tok.get(), ids, logits, text, g, error);
    std::fputs(text.flush().c_str(), stdout);
    if (!tok) {
        std::printf("generated:");
        for (size_t i = 0; i < g.ids.size(); ++i) {
            std::printf("%s%d", i ? "," : " ", g.ids[i]);
        }
    }
    std::printf("\n");
    std::fflush(stdout);
    if (!ok) {
        return fail(error);
    }
    if (g.context_full) {
        warn("the context is full (" + std::to_string(ctx->n_ctx()) + " positions, -c): the generation stopped after " +
             std::to_string(g.ids.size()) + " tokens");
    }
    std::printf("\n");
    print_speed(ids.size(), t_prompt, g);
    ranks::end_phase("generation", static_cast<int64_t>(std::max<size_t>(g.ids.size(), 1) - 1));
    ranks::print_traffic(stdout);
    print_plan_summary(*ctx);
    print_memory(model, *ctx);
    if (!o.trace_path.empty()) {
        trace.detach();
        ctx->set_trace(nullptr);
        if (!trace.finish(error)) {
            return fail(error);
        }
        std::printf("trace of %d computations written to %s\n", trace.n_computes(), o.trace_path.c_str());
    }
    if (!o.plan_path.empty()) {
        if (!plan.write(ctx->plan_json(), error)) {
            return fail(error);
        }
        std::printf("plan written to %s\n", o.plan_path.c_str());
    }
    return 0;
}

} // namespace switchyard::run
