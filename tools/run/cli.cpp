#include "cli.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

namespace switchyard::run {

namespace {

bool parse_int(const std::string & text, int64_t & v) {
    char * end = nullptr;
    v          = std::strtoll(text.c_str(), &end, 10);
    return !text.empty() && *end == '\0';
}

bool parse_float(const std::string & text, float & v) {
    char * end = nullptr;
    v          = std::strtof(text.c_str(), &end);
    return !text.empty() && *end == '\0';
}

std::vector<std::string> split(const std::string & text, char sep) {
    std::vector<std::string> parts;
    size_t                   start = 0;
    for (size_t at = text.find(sep); ; at = text.find(sep, start)) {
        parts.push_back(text.substr(start, at - start));
        if (at == std::string::npos) {
            break;
        }
        start = at + 1;
    }
    return parts;
}

bool parse_split_mode(const std::string & v, SplitMode & mode) {
    static const std::map<std::string, SplitMode> modes = {
        {"none", SplitMode::None}, {"layer", SplitMode::Layer}, {"tensor", SplitMode::Tensor}};
    const auto it = modes.find(v);
    if (it == modes.end()) {
        return false;
    }
    mode = it->second;
    return true;
}

// the flags that take a value: each sets its field from the text, false for a bad value
using Setter = std::function<bool(Options &, const std::string &)>;

Setter int_in(int64_t lo, int64_t hi, std::function<void(Options &, int64_t)> set) {
    return [=](Options & o, const std::string & v) {
        int64_t n = 0;
        if (!parse_int(v, n) || n < lo || n > hi) {
            return false;
        }
        set(o, n);
        return true;
    };
}

const std::map<std::string, Setter> & setters() {
    static const std::map<std::string, Setter> table = {
        {"-m", [](Options & o, const std::string & v) { o.model = v; return !v.empty(); }},
        {"-p", [](Options & o, const std::string & v) { o.prompt = v; o.prompt_given = true; return true; }},
        {"-n", int_in(0, 1 << 20, [](Options & o, int64_t n) { o.n_predict = static_cast<int>(n); })},
        {"-c", int_in(0, 1 << 22, [](Options & o, int64_t n) { o.n_ctx = n; })},
        {"-b", int_in(1, 1 << 16, [](Options & o, int64_t n) { o.n_batch = n; })},
        {"-t", int_in(1, 1024, [](Options & o, int64_t n) { o.devices.n_threads = static_cast<int>(n); })},
        {"-r", int_in(1, 1000, [](Options & o, int64_t n) { o.bench_reps = static_cast<int>(n); })},
        {"-ngl", int_in(0, 1 << 20, [](Options & o, int64_t n) { o.devices.n_gpu_layers = static_cast<int>(n); })},
        {"--seed", int_in(0, 0xFFFFFFFFll, [](Options & o, int64_t n) {
             o.sampling.seed = static_cast<uint32_t>(n);
             o.seed_given    = true;
         })},
        {"--top-k", int_in(0, 1 << 24, [](Options & o, int64_t n) { o.sampling.top_k = static_cast<int>(n); })},
        {"--temp", [](Options & o, const std::string & v) { return parse_float(v, o.sampling.temp); }},
        {"--top-p", [](Options & o, const std::string & v) {
             return parse_float(v, o.sampling.top_p) && o.sampling.top_p > 0.0f && o.sampling.top_p <= 1.0f;
         }},
        {"--split-mode", [](Options & o, const std::string & v) { return parse_split_mode(v, o.devices.mode); }},
        {"--device", [](Options & o, const std::string & v) { o.devices.names = split(v, ','); return !v.empty(); }},
        {"--tensor-split", [](Options & o, const std::string & v) {
             o.devices.tensor_split.clear();
             for (const std::string & part : split(v, ',')) {
                 float f = 0.0f;
                 if (!parse_float(part, f) || f < 0.0f) {
                     return false;
                 }
                 o.devices.tensor_split.push_back(f);
             }
             return true;
         }},
        {"--tokens", [](Options & o, const std::string & v) {
             o.tokens.clear();
             o.tokens_given = true;
             for (const std::string & part : split(v, ',')) {
                 int64_t id = 0;
                 if (!parse_int(part, id) || id < 0 || id > INT32_MAX) {
                     return false;
                 }
                 o.tokens.push_back(static_cast<int32_t>(id));
             }
             return true;
         }},
        {"--plan", [](Options & o, const std::string & v) { o.plan_path = v; return !v.empty(); }},
        {"--trace", [](Options & o, const std::string & v) { o.trace_path = v; return !v.empty(); }},
    };
    return table;
}

// the flags without a value
const std::map<std::string, std::function<void(Options &)>> & switches() {
    static const std::map<std::string, std::function<void(Options &)>> table = {
        {"--bench", [](Options & o) { o.bench = true; }},
        {"--list-devices", [](Options & o) { o.list_devices = true; }},
        {"--test-device", [](Options & o) { o.test_device = true; }},
        {"--no-repack", [](Options & o) { o.devices.repack = false; }},
    };
    return table;
}

const std::map<std::string, std::string> & aliases() {
    static const std::map<std::string, std::string> table = {
        {"--model", "-m"}, {"--prompt", "-p"}, {"--n-predict", "-n"}, {"--ctx-size", "-c"},
        {"--batch-size", "-b"}, {"--threads", "-t"}, {"--n-gpu-layers", "-ngl"}, {"--gpu-layers", "-ngl"},
        {"-sm", "--split-mode"}, {"-ts", "--tensor-split"}, {"-dev", "--device"}, {"--repetitions", "-r"},
        {"-nr", "--no-repack"},
    };
    return table;
}

} // namespace

bool parse_options(int argc, char ** argv, Options & o, std::string & error) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (aliases().count(arg) != 0) {
            arg = aliases().at(arg);
        }
        if (arg == "-h" || arg == "--help") {
            o.help = true;
            return true;
        }
        if (const auto flag = switches().find(arg); flag != switches().end()) {
            flag->second(o);
            continue;
        }
        const auto it = setters().find(arg);
        if (it == setters().end()) {
            error = "unknown option " + std::string(argv[i]);
            return false;
        }
        if (i + 1 >= argc) {
            error = std::string(argv[i]) + " needs a value";
            return false;
        }
        const std::string value = argv[++i];
        if (!it->second(o, value)) {
            error = "bad value '" + value + "' for " + argv[i - 1];
            return false;
        }
    }
    if (o.tokens_given && o.tokens.empty()) {
        error = "--tokens needs at least one id";
        return false;
    }
    return true;
}

void print_usage(std::FILE * f) {
    std::fprintf(f,
        "usage: switchyard-run [-m FILE] [-p PROMPT | --tokens IDS] [options]\n"
        "\n"
        "Runs a GGUF model of the LLaMA family (general.architecture llama or qwen2): processes the prompt in\n"
        "batches, then generates token by token, streaming the text. Without -m it runs a small embedded model\n"
        "with random weights (written once next to the executable), which produces meaningless text.\n"
        "\n"
        "  -m, --model FILE        the GGUF file\n"
        "  -p, --prompt TEXT       the prompt (default \"Once upon a time\")\n"
        "  --tokens 1,2,3          token ids instead of a prompt; the generated ids are printed instead of text\n"
        "  -n, --n-predict N       tokens to generate (default 32)\n"
        "  -c, --ctx-size N        KV cache positions (default: prompt + n; 512 for --bench)\n"
        "  -b, --batch-size N      prompt tokens per graph (default 512)\n"
        "  -t, --threads N         CPU threads (default: the hardware's, at most 8)\n"
        "  --device A[,B..]        devices to offload to (see --list-devices; default: every GPU)\n"
        "  --list-devices          list the devices and exit\n"
        "  -ngl N                  layers on the devices, the last N (N > layers: the output layer too;\n"
        "                          default 999: all); the others run on the CPU\n"
        "  -sm, --split-mode M     none (the first device), layer (layers shared out among the devices,\n"
        "                          default) or tensor (each layer split across the devices: a meta device)\n"
        "  -ts, --tensor-split a,b the devices' shares (default: equal)\n"
        "  -nr, --no-repack        keep all the CPU's weights mapped from the file (default: its q4_0, q4_K,\n"
        "                          iq4_nl and q8_0 matrices are repacked for its MUL_MAT where the CPU offers\n"
        "                          the CPU_REPACK buffer type)\n"
        "  --temp X                temperature (default 0.8; 0: greedy)\n"
        "  --top-k N               keep the N most likely tokens (default 40; 0: all)\n"
        "  --top-p X               keep the most likely tokens up to probability X (default 0.95)\n"
        "  --seed N                the sampler's seed (default: random, printed)\n"
        "  --plan FILE             write the scheduler's plan of the last graph as JSON\n"
        "  --trace FILE            write a Chrome/Perfetto trace of every computation\n"
        "  --bench                 print pp512 and tg128 throughput as llama-bench's table\n"
        "  -r N                    repetitions per --bench test (default 3)\n"
        "  --test-device           register the GPU-like test device (TEST) for trying the splits\n"
        "  -h, --help              this text\n"
        "Exit status: 0 success, 1 an error (file, model, device, computation), 2 a usage error.\n");
}

} // namespace switchyard::run
