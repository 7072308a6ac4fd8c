// switchyard-run: the project's main job. Loads a GGUF model of the LLaMA family (or writes and loads the
// embedded default model with random weights), places it on the devices through the backend scheduler,
// processes the prompt in batches and generates token by token, streaming the text (generate.h); then prints the
// speed, the scheduler's plan and the memory each device holds. --bench runs llama-bench's tests instead
// (bench.h); --tokenize prints the prompt's token ids and exits, reading only the file's metadata. Exit status:
// 0 success, 1 an error (file, model, device, computation), 2 a usage error.
#include "bench.h"
#include "cli.h"
#include "cpu_cores.h"
#include "default_model.h"
#include "devices.h"
#include "generate.h"
#include "model.h"
#include "prompt.h"
#include "ranks.h"
#include "tokenizer.h"

#include "ggml-backend.h"
#include "ggml.h"
#include "gguf.h"

#include "test_device.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace switchyard::run;

namespace {

int fail(const std::string & message) {
    std::fprintf(stderr, "%serror: %s\n", ranks::prefix().c_str(), message.c_str());
    return 1;
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

void print_header(std::FILE * out, const Model & model, const Devices & devices, const Options & o,
                  const std::vector<std::string> & notes) {
    const Hparams & hp = model.hparams();
    std::fprintf(out, "model: %s: %s, %lld layers, %lld wide, %lld/%lld heads, %lld tokens, %.2f M parameters\n",
                 model.meta_string("general.name").c_str(), hp.arch.c_str(), static_cast<long long>(hp.n_layer),
                 static_cast<long long>(hp.n_embd), static_cast<long long>(hp.n_head),
                 static_cast<long long>(hp.n_head_kv), static_cast<long long>(hp.n_vocab),
                 static_cast<double>(model.n_params()) / 1e6);
    const std::string description = model.meta_string("general.description");
    if (!description.empty()) {
        std::fprintf(out, "description: %s\n", description.c_str());
    }
    if (description.find("random weights") != std::string::npos) {
        std::fprintf(out, "NOTE: this model's weights are RANDOM: the text it generates is meaningless\n");
    }
    std::fprintf(out, "devices: %s, %d CPU threads; attention: %s; seed %u\n", devices.describe().c_str(),
                 devices.n_threads(), o.flash_attn == FlashAttn::Off ? "soft_max(K*Q)*V (-fa off)" : "FLASH_ATTN_EXT (-fa on)",
                 o.sampling.seed);
    for (const std::string & note : notes) {
        std::fprintf(out, "note: %s\n", note.c_str());
    }
    std::fprintf(out, "\n");
}

// --tokenize: the prompt's ids through the file's tokenizer, as llama-tokenize --ids prints them (add_special as
// the file asks, special tokens parsed), from the metadata alone (a vocabulary-only file will do); one line per
// prompt file when -f is given several times.
int tokenize_only(const std::string & path, const Options & o) {
    std::FILE * f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        return fail("cannot open '" + path + "': " + std::strerror(errno));
    }
    std::fclose(f);
    gguf_context * ctx = gguf_init_from_file(path.c_str(), gguf_init_params{/*no_alloc=*/true, /*ctx=*/nullptr});
    if (ctx == nullptr) {
        return fail("'" + path + "' is not a valid GGUF file");
    }
    std::string                      error;
    const std::unique_ptr<Tokenizer> tok = Tokenizer::from_gguf(ctx, error);
    gguf_free(ctx);
    if (!tok) {
        return fail("cannot tokenize: " + error);
    }
    std::vector<std::string> texts = {o.prompt};
    if (!o.prompt_file.empty()) {
        texts.assign(1 + o.more_prompt_files.size(), "");
        for (size_t i = 0; i < texts.size(); ++i) {
            if (!read_prompt_file(i == 0 ? o.prompt_file : o.more_prompt_files[i - 1], texts[i], error)) {
                return fail(error);
            }
        }
    }
    for (const std::string & text : texts) {
        const std::vector<int32_t> ids  = tok->encode(o.escape ? process_escapes(text) : text, true);
        std::string                line = "[";
        for (size_t i = 0; i < ids.size(); ++i) {
            line += (i > 0 ? ", " : "") + std::to_string(ids[i]);
        }
        std::printf("%s]\n", line.c_str());
    }
    return 0;
}

int load_and_run(const std::string & path, const Options & o, uint64_t args, std::FILE * info) {
    // the devices outlive the model: the meta device asks them for split states while buffers exist
    std::string              error;
    std::unique_ptr<Devices> devices;
    std::unique_ptr<Model>   model = Model::open(path, error);
    // with several ranks, all of them stop here together if one could not open the model or differs
    ranks::View view;
    view.ok      = model != nullptr;
    view.error   = error;
    view.options = args;
    if (model) {
        view.file_size = model->file_size();
        view.header    = model->header_checksum();
    }
    if (!ranks::agree(view, error)) {
        return fail(error);
    }
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
    int most_threads = devices->n_threads(); // with --bench -t N,M,..., the largest count
    for (int t : o.bench_options.n_threads) {
        most_threads = std::max(most_threads, t);
    }
    if (const CoreBudget & cpus = this_process_budget(); most_threads > cpus.cpus) {
        notes.push_back(std::to_string(most_threads) + " CPU threads on " + std::to_string(cpus.cpus) +
                        (cpus.cpus == 1 ? " CPU" : " CPUs") +
                        " this process may use (affinity mask, CPU quota): each node waits for its slowest thread; "
                        "the default, -t " + std::to_string(cpus.cores) + ", gives each thread a core");
    }
    ranks::remember_weights(*model);
    print_header(info, *model, *devices, o, notes);
    std::fflush(info);
    return o.bench ? run_bench(*model, *devices, o, path, info) : generate(*model, *devices, o);
}

int run(int argc, char ** argv) {
    Options     o;
    std::string error;
    if (!parse_options(argc, argv, o, error)) {
        std::fprintf(stderr, "%s%s (see --help)\n", ranks::prefix().c_str(), error.c_str());
        return 2;
    }
    // under mpirun: rank 0 prints, every rank's CPU holds a share of the layers unless --device says otherwise,
    // and the ranks on one machine share its cores
    ranks::quiet_followers();
    if (ranks::distributed() && o.devices.names.empty() && !o.test_device) {
        o.devices.names = ranks::default_devices();
    }
    if (ranks::distributed() && o.devices.n_threads == 0) {
        o.devices.n_threads = ranks::default_threads();
    }
    if (ranks::distributed() && o.devices.mode == SplitMode::Layer && o.n_ubatch == 0) {
        o.n_ubatch = 64; // a prompt in micro-batches: rank r works on one while rank r + 1 works on the one before
    }
    if (o.help) {
        print_usage(stdout);
        return 0;
    }
    if (o.version) {
        print_version(stdout);
        return 0;
    }
    if (o.tokenize) {
        std::string path = o.model;
        bool        wrote = false;
        if (path.empty() && !ensure_default_model(path, wrote, error)) {
            return fail(error);
        }
        return tokenize_only(path, o);
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
    // --bench -o csv|json: standard output has the records only, the rest of the report goes to standard error
    std::FILE * info = o.bench && o.bench_options.format != BenchFormat::Markdown ? stderr : stdout;
    std::string path = o.model;
    if (path.empty()) {
        bool wrote = false;
        if (!ensure_default_model(path, wrote, error)) {
            return fail(error);
        }
        std::fprintf(info, "no -m given: running the embedded default model %s%s\n", path.c_str(),
                     wrote ? " (just written)" : "");
    }
    if (!o.seed_given) {
        o.sampling.seed = ranks::seed_from_rank0(std::random_device{}());
    }
    return load_and_run(path, o, ranks::fingerprint(argc, argv), info);
}

} // namespace

int main(int argc, char ** argv) { return ranks::finish(run(argc, argv)); }
