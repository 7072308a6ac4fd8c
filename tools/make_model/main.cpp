// switchyard-make-model: writes a LLaMA-architecture GGUF file with random weights, for tests and benchmarks
// (the model writer, tools/model_writer/: model.h for what is in it, weights.h for how it is written; output_file.h
// for how it gets its name). Exit status: 0 written and verified, 1 an error while writing or verifying (no file is
// left), 2 a usage error.
#include "output_file.h"

#include "model_writer/model.h"
#include "model_writer/tokenizer_files.h"
#include "model_writer/weights.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <utility>

using namespace switchyard::make_model;
using namespace switchyard::model_writer;

namespace {

void usage(std::FILE * f) {
    std::fprintf(f,
                 "usage: switchyard-make-model -o FILE [options]\n"
                 "\n"
                 "Writes a LLaMA-architecture GGUF with random weights (for tests and benchmarks; it produces\n"
                 "meaningless text) and a small synthetic vocabulary, then reads it back to check it.\n"
                 "\n"
                 "  -o, --output FILE   the file to write (required)\n"
                 "  --preset NAME       tiny (default: 256 wide, 2 layers, 320 tokens) or 1b (2048 wide, 16 layers,\n"
                 "                      8192 ff, 32/8 heads, 32000 tokens: about 1.1 billion parameters)\n"
                 "  --type TYPE         type of every weight matrix, in any case: a ggml type name (f32, f16, bf16,\n"
                 "                      q8_0, q4_0, q4_K, q6_K, ...) or mixed (default: q4_K, q6_K for attn_v,\n"
                 "                      ffn_down and output; q4_0 / q8_0 where rows are not whole 256-element blocks)\n"
                 "  --dim N             llama.embedding_length        --layers N   llama.block_count\n"
                 "  --ff N              llama.feed_forward_length     --ctx N      llama.context_length\n"
                 "  --heads N           llama.attention.head_count    --kv-heads N llama.attention.head_count_kv\n"
                 "  --vocab N           tokens (at least 259)         --rope-base X, --rms-eps X\n"
                 "  --seed N            the weights' seed (default 42)\n"
                 "  --tokenizer FILE..  a real vocabulary instead of the synthetic one, with the tokenizer.ggml.*\n"
                 "                      keys llama.cpp's converter writes: GPT-2's encoder.json and vocab.bpe, or a\n"
                 "                      Hugging Face tokenizer.json (BPE) and its tokenizer_config.json; the\n"
                 "                      vocabulary's size sets --vocab\n"
                 "  --tokenizer-pre NAME  tokenizer.ggml.pre, for a tokenizer.json whose pre-tokenizer is not told\n"
                 "                      from the file (llama-bpe, qwen2, ...: llama.cpp's names)\n"
                 "  --tied-output       no output.weight (the output projection is token_embd)\n"
                 "  --threads N         threads generating and quantizing (default: all)\n"
                 "  --no-progress       no progress on stderr (by default, after a second: a line that updates on a\n"
                 "                      terminal, else a line at every 10%%)\n"
                 "  -h, --help          this text\n"
                 "(--preset first: the flags after it change its values; general.name then names the model by its\n"
                 "size, as 112M.) The file is written as FILE.tmp.<pid> and renamed to FILE once complete.\n");
}

bool parse_int(const char * text, int64_t & v) {
    char * end = nullptr;
    v          = std::strtoll(text, &end, 10);
    return end != text && *end == '\0';
}

bool parse_float(const char * text, float & v) {
    char * end = nullptr;
    v          = std::strtof(text, &end);
    return end != text && *end == '\0';
}

struct Args {
    std::string              path;
    Shape                    shape;
    std::vector<std::string> tokenizer_files; // --tokenizer
    std::string              tokenizer_pre;   // --tokenizer-pre
    bool                     vocab_given = false;
    int         threads  = 0;
    bool        progress = true;
    bool        help     = false;
};

// false (with a message) on a usage error
bool parse_args(int argc, char ** argv, Args & a) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            a.help = true;
            return true;
        }
        if (arg == "--tied-output") {
            a.shape.tied_output = true;
            continue;
        }
        if (arg == "--no-progress") {
            a.progress = false;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "switchyard-make-model: %s: unknown option or missing value\n", arg.c_str());
            return false;
        }
        if (arg == "--tokenizer") { // the files up to the next flag
            while (i + 1 < argc && argv[i + 1][0] != '-') {
                a.tokenizer_files.emplace_back(argv[++i]);
            }
            if (a.tokenizer_files.empty()) {
                std::fprintf(stderr, "switchyard-make-model: --tokenizer needs its files\n");
                return false;
            }
            continue;
        }
        const char * value = argv[++i];
        int64_t      n     = 0;
        bool         ok    = true;
        if (arg == "-o" || arg == "--output") {
            a.path = value;
        } else if (arg == "--preset") {
            ok = apply_preset(value, a.shape);
        } else if (arg == "--type") {
            if (!parse_weight_type(value, a.shape.weight_type)) {
                std::fprintf(stderr,
                             "switchyard-make-model: unknown type '%s' for --type; the types it can write: %s\n",
                             value, weight_type_names().c_str());
                return false;
            }
        } else if (arg == "--tokenizer-pre") {
            a.tokenizer_pre = value;
        } else if (arg == "--rope-base") {
            ok = parse_float(value, a.shape.rope_base);
        } else if (arg == "--rms-eps") {
            ok = parse_float(value, a.shape.rms_eps);
        } else if (arg == "--seed") {
            ok = parse_int(value, n) && n >= 0;
            a.shape.seed = static_cast<uint64_t>(n);
        } else if (arg == "--threads") {
            ok = parse_int(value, n) && n > 0 && n <= 1024;
            a.threads = static_cast<int>(n);
        } else {
            int64_t * field = arg == "--dim"        ? &a.shape.n_embd
                              : arg == "--layers"   ? &a.shape.n_layer
                              : arg == "--ff"       ? &a.shape.n_ff
                              : arg == "--heads"    ? &a.shape.n_head
                              : arg == "--kv-heads" ? &a.shape.n_head_kv
                              : arg == "--vocab"    ? &a.shape.n_vocab
                              : arg == "--ctx"      ? &a.shape.n_ctx
                                                    : nullptr;
            if (field == nullptr) {
                std::fprintf(stderr, "switchyard-make-model: unknown option %s\n", arg.c_str());
                return false;
            }
            ok = parse_int(value, *field);
            a.vocab_given = a.vocab_given || field == &a.shape.n_vocab;
        }
        if (!ok) {
            std::fprintf(stderr, "switchyard-make-model: bad value '%s' for %s\n", value, arg.c_str());
            return false;
        }
    }
    if (a.path.empty()) {
        std::fprintf(stderr, "switchyard-make-model: the output file (-o) is required\n");
        return false;
    }
    return true;
}

// Progress on stderr, once writing has taken more than a second: on a terminal one line that updates (at most ten
// times a second), otherwise a line at every further 10% of the file.
class ProgressLine {
  public:
    ProgressLine(std::string path, bool enabled) : path_(std::move(path)), enabled_(enabled), tty_(isatty(2) != 0) {}

    void update(const Progress & p) {
        const double now = std::chrono::duration<double>(Clock::now() - start_).count();
        if (!enabled_ || p.bytes_total == 0 || now < 1.0) {
            return;
        }
        const int percent = static_cast<int>(100 * p.bytes_done / p.bytes_total);
        if (tty_ ? now - last_ < 0.1 && percent < 100 : percent < next_percent_) {
            return;
        }
        std::fprintf(stderr, "%swriting %s: %3d%% (tensor %zu/%zu, %.0f of %.0f MiB)%s", tty_ ? "\r" : "",
                     path_.c_str(), percent, std::min(p.tensors_done + 1, p.n_tensors), p.n_tensors,
                     static_cast<double>(p.bytes_done) / (1 << 20), static_cast<double>(p.bytes_total) / (1 << 20),
                     tty_ ? "" : "\n");
        std::fflush(stderr);
        shown_        = true;
        last_         = now;
        next_percent_ = percent / 10 * 10 + 10;
    }

    // ends the updating line (also when writing failed)
    ~ProgressLine() {
        if (tty_ && shown_) {
            std::fputc('\n', stderr);
        }
    }

  private:
    using Clock = std::chrono::steady_clock;
    std::string       path_;
    bool              enabled_;
    bool              tty_;
    bool              shown_        = false;
    int               next_percent_ = 0;
    double            last_         = 0.0;
    Clock::time_point start_        = Clock::now();
};

// writes, verifies and renames into place; false with `error` set (and nothing left behind) on a failure
bool make_file(const Args & args, const Plan & plan, int threads, Summary & summary, std::string & error) {
    OutputFile out;
    if (!out.open(args.path, error)) {
        return false;
    }
    ProgressLine progress(args.path, args.progress);
    return write_model(out.temp_path(), args.shape, plan, threads, summary, error,
                       [&](const Progress & p) { progress.update(p); }) &&
           verify_model(out.temp_path(), plan, error) && out.commit(error);
}

// --tokenizer: the vocabulary read into the shape (its size the vocabulary's); false with a message
bool read_vocabulary(Args & args, std::string & error) {
    if (args.tokenizer_files.empty()) {
        if (!args.tokenizer_pre.empty()) {
            error = "--tokenizer-pre applies to a vocabulary read by --tokenizer";
            return false;
        }
        return true;
    }
    auto vocabulary = std::make_shared<Vocabulary>();
    if (!read_tokenizer_files(args.tokenizer_files, args.tokenizer_pre, *vocabulary, error)) {
        return false;
    }
    const auto n = static_cast<int64_t>(vocabulary->tokens.size());
    if (args.vocab_given && args.shape.n_vocab != n) {
        error = "--vocab " + std::to_string(args.shape.n_vocab) + " differs from the " + std::to_string(n) +
                " tokens of --tokenizer";
        return false;
    }
    args.shape.n_vocab    = n;
    args.shape.vocabulary = std::move(vocabulary);
    return true;
}

} // namespace

int main(int argc, char ** argv) {
    Args args;
    if (!parse_args(argc, argv, args)) {
        usage(stderr);
        return 2;
    }
    if (args.help) {
        usage(stdout);
        return 0;
    }
    std::string error;
    if (!read_vocabulary(args, error)) {
        std::fprintf(stderr, "switchyard-make-model: %s\n", error.c_str());
        return 1;
    }
    const std::string bad_shape = check_shape(args.shape);
    const Plan        plan = bad_shape.empty() ? plan_tensors(args.shape, error) : Plan{};
    if (!bad_shape.empty() || !error.empty()) {
        std::fprintf(stderr, "switchyard-make-model: %s\n", bad_shape.empty() ? error.c_str() : bad_shape.c_str());
        return 2;
    }
    for (const std::string & note : plan.notes) {
        std::fprintf(stderr, "note: %s\n", note.c_str());
    }
    const int threads = args.threads > 0 ? args.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const auto t0 = std::chrono::steady_clock::now();
    Summary    summary;
    if (!make_file(args, plan, threads, summary, error)) {
        std::fprintf(stderr, "switchyard-make-model: %s (no file written)\n", error.c_str());
        return 1;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: '%s', llama (%s), %zu tensors, %.3f M parameters (%s), %.2f MiB, random weights (seed %llu), "
                "%.1f s\n",
                args.path.c_str(), model_name(args.shape, summary.params).c_str(), args.shape.weight_type.c_str(),
                plan.tensors.size(), static_cast<double>(summary.params) / 1e6, size_label(summary.params).c_str(),
                static_cast<double>(summary.bytes) / (1 << 20), static_cast<unsigned long long>(args.shape.seed),
                seconds);
    if (const auto & v = args.shape.vocabulary) {
        std::printf("vocabulary: %s (tokenizer.ggml.model %s, pre %s), %zu tokens%s\n", v->source.c_str(),
                    v->model.c_str(), v->pre.c_str(), v->tokens.size(),
                    v->merges.empty() ? "" : (", " + std::to_string(v->merges.size()) + " merges").c_str());
    }
    return 0;
}
