// switchyard-run: the project's main job. Loads a GGUF model of the LLaMA family (or writes and loads the
// embedded default model with random weights), places it on the devices through the backend scheduler,
// processes the prompt in batches and generates token by token, streaming the text; then prints the speed, the
// scheduler's plan and the memory each device holds. --bench prints llama-bench's pp512 / tg128 table instead.
// Exit status: 0 success, 1 an error (file, model, device, computation), 2 a usage error.
#include "cli.h"
#include "context.h"
#include "default_model.h"
#include "devices.h"
#include "dram_probe.h"
#include "model.h"
#include "report.h"
#include "sampler.h"
#include "tokenizer.h"

#include "ggml-backend.h"
#include "ggml.h"

#include "support/test_device.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace switchyard::run;

namespace {

int fail(const std::string & message) {
    std::fprintf(stderr, "switchyard-run: error: %s\n", message.c_str());
    return 1;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void list_devices() {
    std::printf("devices:\n");
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        size_t             free = 0, total = 0;
        ggml_backend_dev_memory(dev, &free, &total);
        std::printf("  %-12s %s (%.0f MiB)\n", ggml_backend_dev_name(dev), ggml_backend_dev_description(dev),
                    static_cast<double>(total) / (1024.0 * 1024.0));
    }
}

// pp512 and tg128 as llama-bench runs them: after a warm-up, each repetition from an empty cache
int run_bench(const Model & model, const Devices & devices, const Options & o) {
    std::string error;
    auto        ctx = Context::create(model, devices, {std::max<int64_t>(o.n_ctx, 512), o.n_batch}, error);
    if (!ctx) {
        return fail(error);
    }
    std::vector<int32_t> prompt(512);
    for (size_t i = 0; i < prompt.size(); ++i) {
        prompt[i] = static_cast<int32_t>((i * 7 + 3) % static_cast<size_t>(model.hparams().n_vocab));
    }
    std::vector<float> logits;
    std::vector<BenchRow> rows = {{"pp512", {}}, {"tg128", {}}};
    std::vector<double>   dram; // GB/s, measured between the repetitions
    for (int rep = -1; rep < o.bench_reps; ++rep) {
        ctx->clear();
        auto t0 = std::chrono::steady_clock::now();
        if (!ctx->decode(prompt, false, logits, error)) {
            return fail(error);
        }
        const double pp = 512.0 / seconds_since(t0);
        ctx->clear();
        t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 128; ++i) {
            if (!ctx->decode({prompt[static_cast<size_t>(i)]}, false, logits, error)) {
                return fail(error);
            }
        }
        const double tg = 128.0 / seconds_since(t0);
        if (rep >= 0) {
            rows[0].rates.push_back(pp);
            rows[1].rates.push_back(tg);
            dram.push_back(dram_read_gbs(devices.n_threads()));
        }
    }
    print_bench_table(model, devices, rows);
    print_generation_bound(model, rows[1].rates, dram);
    return 0;
}

// the prompt's token ids: --tokens, or the prompt through the file's tokenizer
bool prompt_tokens(const Model & model, const Options & o, std::unique_ptr<Tokenizer> & tok, std::vector<int32_t> & ids,
                   std::string & error) {
    if (o.tokens_given) {
        ids = o.tokens;
        return true;
    }
    tok = Tokenizer::from_gguf(model.gguf(), error);
    if (!tok) {
        error = "cannot tokenize the prompt: " + error + " (--tokens takes token ids instead)";
        return false;
    }
    ids = tok->encode(o.prompt, true);
    if (ids.empty()) {
        error = "the prompt has no tokens";
        return false;
    }
    return true;
}

int generate(const Model & model, const Devices & devices, const Options & o) {
    std::string                error;
    std::unique_ptr<Tokenizer> tok;
    std::vector<int32_t>       ids;
    if (!prompt_tokens(model, o, tok, ids, error)) {
        return fail(error);
    }
    const int64_t n_ctx = o.n_ctx > 0 ? o.n_ctx : static_cast<int64_t>(ids.size()) + std::max(o.n_predict, 1);
    auto          ctx   = Context::create(model, devices, {n_ctx, o.n_batch}, error);
    if (!ctx) {
        return fail(error);
    }
    if (!o.trace_path.empty()) {
        ggml_backend_sched_set_trace(ctx->sched(), o.trace_path.c_str());
    }
    std::vector<float> logits;
    auto               t0 = std::chrono::steady_clock::now();
    if (!ctx->decode(ids, false, logits, error)) {
        return fail(error);
    }
    const double t_prompt = seconds_since(t0);
    std::printf("%s", tok ? tok->decode(ids).c_str() : "");
    std::fflush(stdout);

    Sampler              sampler(o.sampling);
    std::vector<int32_t> out;
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < o.n_predict; ++i) {
        const int32_t id = sampler.sample(logits.data(), static_cast<int32_t>(model.hparams().n_vocab));
        if (tok && tok->is_eog(id)) {
            break;
        }
        out.push_back(id);
        if (tok) {
            std::printf("%s", tok->piece(id).c_str());
            std::fflush(stdout);
        }
        if (i + 1 < o.n_predict && !ctx->decode({id}, false, logits, error)) {
            return fail(error);
        }
    }
    const double t_gen = seconds_since(t0);
    if (!tok) {
        std::printf("generated:");
        for (size_t i = 0; i < out.size(); ++i) {
            std::printf("%s%d", i ? "," : " ", out[i]);
        }
    }
    std::printf("\n\n");
    const double n_gen = static_cast<double>(std::max<size_t>(out.size(), 1) - 1); // tokens decoded after the prompt
    std::printf("prompt: %zu tokens in %.1f ms (%.1f tokens/s); generation: %zu tokens in %.1f ms (%.1f tokens/s)\n",
                ids.size(), t_prompt * 1e3, static_cast<double>(ids.size()) / t_prompt, out.size(), t_gen * 1e3,
                n_gen > 0 ? n_gen / t_gen : 0.0);
    print_plan_summary(*ctx);
    print_memory(model, *ctx);
    if (!o.trace_path.empty()) {
        ggml_backend_sched_set_trace(ctx->sched(), nullptr);
        std::printf("trace written to %s\n", o.trace_path.c_str());
    }
    if (!o.plan_path.empty()) {
        std::ofstream(o.plan_path) << ctx->plan_json();
        std::printf("plan written to %s\n", o.plan_path.c_str());
    }
    return 0;
}

void print_header(const Model & model, const Devices & devices, const Options & o, const std::vector<std::string> & notes) {
    const Hparams & hp = model.hparams();
    std::printf("model: %s: %s, %lld layers, %lld wide, %lld/%lld heads, %lld tokens, %.2f M parameters\n",
                model.meta_string("general.name").c_str(), hp.arch.c_str(), static_cast<long long>(hp.n_layer),
                static_cast<long long>(hp.n_embd), static_cast<long long>(hp.n_head),
                static_cast<long long>(hp.n_head_kv), static_cast<long long>(hp.n_vocab),
                static_cast<double>(model.n_params()) / 1e6);
    const std::string description = model.meta_string("general.description");
    if (!description.empty()) {
        std::printf("description: %s\n", description.c_str());
    }
    if (description.find("random weights") != std::string::npos) {
        std::printf("NOTE: this model's weights are RANDOM: the text it generates is meaningless\n");
    }
    std::printf("devices: %s, %d CPU threads; seed %u\n", devices.describe().c_str(), devices.n_threads(),
                o.sampling.seed);
    for (const std::string & note : notes) {
        std::printf("note: %s\n", note.c_str());
    }
    std::printf("\n");
}

int load_and_run(const std::string & path, const Options & o) {
    // the devices outlive the model: the meta device asks them for split states while buffers exist
    std::string              error;
    std::unique_ptr<Devices> devices;
    std::unique_ptr<Model>   model = Model::open(path, error);
    if (!model || !(devices = Devices::create(o.devices, error))) {
        return fail(error);
    }
    std::vector<std::string> notes;
    const Placement          placement =
        devices->place(model->hparams(), [&](const std::string & n) { return model->type_of(n); }, notes);
    if (!model->place(placement, error)) {
        return fail(error);
    }
    if (model->n_repacked() > 0) {
        const double mib = static_cast<double>(model->repacked_bytes()) / (1024.0 * 1024.0);
        char         line[160];
        std::snprintf(line, sizeof(line), "%d weights (%.2f MiB) repacked for the CPU's MUL_MAT (%s; -nr keeps them mapped)",
                      model->n_repacked(), mib, ggml_backend_buft_name(placement.cpu_repack));
        notes.push_back(line);
    }
    print_header(*model, *devices, o, notes);
    return o.bench ? run_bench(*model, *devices, o) : generate(*model, *devices, o);
}

} // namespace

int main(int argc, char ** argv) {
    Options     o;
    std::string error;
    if (!parse_options(argc, argv, o, error)) {
        std::fprintf(stderr, "switchyard-run: %s (see --help)\n", error.c_str());
        return 2;
    }
    if (o.help) {
        print_usage(stdout);
        return 0;
    }
    // the test device, released on every way out (after the objects of the block below)
    struct TestDevice {
        ggml_backend_dev_t dev = nullptr;
        ~TestDevice() {
            if (dev != nullptr) {
                switchyard::testing::test_device_release(dev);
            }
        }
    } test_dev;
    if (o.test_device) {
        test_dev.dev = switchyard::testing::test_device_create(switchyard::testing::TestDeviceConfig{});
        ggml_backend_device_register(test_dev.dev);
    }
    if (o.list_devices) {
        list_devices();
        return 0;
    }
    std::string path = o.model;
    if (path.empty()) {
        bool wrote = false;
        if (!ensure_default_model(path, wrote, error)) {
            return fail(error);
        }
        std::printf("no -m given: running the embedded default model %s%s\n", path.c_str(), wrote ? " (just written)" : "");
    }
    if (!o.seed_given) {
        o.sampling.seed = std::random_device{}();
    }
    return load_and_run(path, o);
}
