#include "cli.h"

#include "ggml.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>

namespace switchyard::run {

namespace {

bool parse_int(const std::string & text, int64_t & v) {
    char * end = nullptr;
    errno      = 0;
    v          = std::strtoll(text.c_str(), &end, 10);
    return !text.empty() && *end == '\0' && errno == 0;
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

std::string range_text(int64_t lo, int64_t hi) {
    return "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
}

// a comma-separated list of integers in [lo, hi]; a reason when it is not
std::string int_list(const std::string & text, int64_t lo, int64_t hi, std::vector<int64_t> & out) {
    out.clear();
    for (const std::string & part : split(text, ',')) {
        int64_t n = 0;
        if (!parse_int(part, n) || n < lo || n > hi) {
            return "each must be " + range_text(lo, hi);
        }
        out.push_back(n);
    }
    return "";
}

// the flags that take a value: each sets its field from the text and returns "" or why the value is bad
using Setter = std::function<std::string(Options &, const std::string &)>;

Setter int_in(int64_t lo, int64_t hi, std::function<void(Options &, int64_t)> set) {
    return [=](Options & o, const std::string & v) -> std::string {
        int64_t n = 0;
        if (!parse_int(v, n) || n < lo || n > hi) {
            return "must be " + range_text(lo, hi);
        }
        set(o, n);
        return "";
    };
}

// a finite float that `ok` accepts (`what` says which)
Setter float_if(std::function<bool(float)> ok, const char * what, std::function<void(Options &, float)> set) {
    return [=](Options & o, const std::string & v) -> std::string {
        float f = 0.0f;
        if (!parse_float(v, f) || !std::isfinite(f) || !ok(f)) {
            return std::string("must be ") + what;
        }
        set(o, f);
        return "";
    };
}

Setter one_of(std::map<std::string, std::function<void(Options &)>> values, const char * what) {
    return [=](Options & o, const std::string & v) -> std::string {
        const auto it = values.find(v);
        if (it == values.end()) {
            return std::string("must be ") + what;
        }
        it->second(o);
        return "";
    };
}

std::string set_tensor_split(Options & o, const std::string & v) {
    o.devices.tensor_split.clear();
    double sum = 0.0;
    for (const std::string & part : split(v, ',')) {
        float f = 0.0f;
        if (!parse_float(part, f) || !std::isfinite(f) || f < 0.0f) {
            return "the shares must be finite, non-negative numbers with a positive sum";
        }
        sum += f;
        o.devices.tensor_split.push_back(f);
    }
    return sum > 0.0 ? "" : "the shares must be finite, non-negative numbers with a positive sum";
}

std::string set_tokens(Options & o, const std::string & v) {
    std::vector<int64_t> ids;
    if (std::string why = int_list(v, 0, INT32_MAX, ids); !why.empty()) {
        return "token ids: " + why;
    }
    o.tokens.assign(ids.begin(), ids.end());
    o.tokens_given = true;
    return "";
}

std::string set_pg(Options & o, const std::string & v) {
    std::vector<int64_t> pair;
    if (!int_list(v, 1, 1 << 20, pair).empty() || pair.size() != 2) {
        return "must be PP,TG: two integers in 1.." + std::to_string(1 << 20);
    }
    o.bench_options.pg.emplace_back(pair[0], pair[1]);
    return "";
}

const std::map<std::string, Setter> & setters() {
    using M = std::map<std::string, std::function<void(Options &)>>;
    static const std::map<std::string, Setter> table = {
        {"-m", [](Options & o, const std::string & v) { o.model = v; return v.empty() ? "must name a file" : ""; }},
        {"-p", [](Options & o, const std::string & v) { o.prompt = v; o.prompt_given = true; return ""; }},
        {"-f", [](Options & o, const std::string & v) {
             (o.prompt_file.empty() ? o.prompt_file : o.more_prompt_files.emplace_back()) = v;
             return v.empty() ? "must name a file" : "";
         }},
        {"-n", [](Options & o, const std::string & v) { o.n_text = v; return ""; }}, // read after all flags
        {"-c", int_in(0, 1 << 22, [](Options & o, int64_t n) { o.n_ctx = n; })},
        {"-b", int_in(1, 1 << 16, [](Options & o, int64_t n) { o.n_batch = n; })},
        {"-ub", int_in(1, 1 << 16, [](Options & o, int64_t n) { o.n_ubatch = n; })},
        {"-t", [](Options & o, const std::string & v) -> std::string { // a list with --bench (checked later)
             std::vector<int64_t> list;
             if (!int_list(v, 1, GGML_MAX_N_THREADS, list).empty()) {
                 return "must be " + range_text(1, GGML_MAX_N_THREADS) + " (with --bench, a list of them: 1,2,4)";
             }
             o.devices.n_threads = static_cast<int>(list[0]);
             o.bench_options.n_threads.assign(list.begin(), list.end());
             return "";
         }},
        {"-r", int_in(1, 1000, [](Options & o, int64_t n) { o.bench_options.reps = static_cast<int>(n); })},
        {"-pg", set_pg},
        {"-o", one_of(M{{"md", [](Options & o) { o.bench_options.format = BenchFormat::Markdown; }},
                        {"csv", [](Options & o) { o.bench_options.format = BenchFormat::Csv; }},
                        {"json", [](Options & o) { o.bench_options.format = BenchFormat::Json; }}},
                      "md, csv or json")},
        {"-fa", one_of(M{{"on", [](Options & o) { o.flash_attn = FlashAttn::On; }},
                         {"off", [](Options & o) { o.flash_attn = FlashAttn::Off; }},
                         {"auto", [](Options & o) { o.flash_attn = FlashAttn::Auto; }}},
                       "on, off or auto")},
        {"-ngl", int_in(0, 1 << 20, [](Options & o, int64_t n) { o.devices.n_gpu_layers = static_cast<int>(n); })},
        {"--seed", int_in(0, 0xFFFFFFFFll, [](Options & o, int64_t n) {
             o.sampling.seed = static_cast<uint32_t>(n);
             o.seed_given    = true;
         })},
        {"--top-k", int_in(0, 1 << 24, [](Options & o, int64_t n) { o.sampling.top_k = static_cast<int>(n); })},
        {"--temp", float_if([](float) { return true; }, "a finite number",
                            [](Options & o, float f) { o.sampling.temp = f; })},
        {"--top-p", float_if([](float f) { return f > 0.0f && f <= 1.0f; }, "in (0, 1]",
                             [](Options & o, float f) { o.sampling.top_p = f; })},
        {"--min-p", float_if([](float f) { return f >= 0.0f && f <= 1.0f; }, "in [0, 1]",
                             [](Options & o, float f) { o.sampling.min_p = f; })},
        {"--repeat-penalty", float_if([](float f) { return f > 0.0f && std::isfinite(1.0f / f); },
                                      "a finite number greater than 0",
                                      [](Options & o, float f) { o.sampling.repeat_penalty = f; })},
        {"--repeat-last-n", int_in(0, 1 << 20, [](Options & o, int64_t n) {
             o.sampling.repeat_last_n = static_cast<int>(n);
         })},
        {"--split-mode", one_of(M{{"none", [](Options & o) { o.devices.mode = SplitMode::None; }},
                                  {"layer", [](Options & o) { o.devices.mode = SplitMode::Layer; }},
                                  {"tensor", [](Options & o) { o.devices.mode = SplitMode::Tensor; }}},
                                "none, layer or tensor")},
        {"--device", [](Options & o, const std::string & v) {
             o.devices.names = split(v, ',');
             return v.empty() ? "must name a device" : "";
         }},
        {"--tensor-split", set_tensor_split},
        {"--tokens", set_tokens},
        {"--plan", [](Options & o, const std::string & v) { o.plan_path = v; return v.empty() ? "must name a file" : ""; }},
        {"--trace", [](Options & o, const std::string & v) { o.trace_path = v; return v.empty() ? "must name a file" : ""; }},
    };
    return table;
}

// the flags without a value
const std::map<std::string, std::function<void(Options &)>> & switches() {
    static const std::map<std::string, std::function<void(Options &)>> table = {
        {"--bench", [](Options & o) { o.bench = true; }},
        {"--tokenize", [](Options & o) { o.tokenize = true; }},
        {"--list-devices", [](Options & o) { o.list_devices = true; }},
        {"--test-device", [](Options & o) { o.test_device = true; }},
        {"--no-repack", [](Options & o) { o.devices.repack = false; }},
        {"-e", [](Options & o) { o.escape = true; }},
        {"--no-escape", [](Options & o) { o.escape = false; }},
        {"--version", [](Options & o) { o.version = true; }},
    };
    return table;
}

const std::map<std::string, std::string> & aliases() {
    static const std::map<std::string, std::string> table = {
        {"--model", "-m"}, {"--prompt", "-p"}, {"--file", "-f"}, {"--n-predict", "-n"}, {"--ctx-size", "-c"},
        {"--batch-size", "-b"}, {"--ubatch-size", "-ub"}, {"--threads", "-t"}, {"--n-gpu-layers", "-ngl"}, {"--gpu-layers", "-ngl"},
        {"-sm", "--split-mode"}, {"-ts", "--tensor-split"}, {"-dev", "--device"}, {"--repetitions", "-r"},
        {"-nr", "--no-repack"}, {"-s", "--seed"}, {"--escape", "-e"}, {"--flash-attn", "-fa"},
        {"--output", "-o"}, {"--n-prompt", "-p"}, {"--n-gen", "-n"}
    };
    return table;
}

// -p and -n as --bench reads them (lists of test sizes), or -n as a run reads it (a count)
bool read_counts(Options & o, std::string & error) {
    if (o.bench) {
        if (o.prompt_given) {
            if (std::string why = int_list(o.prompt, 0, 1 << 20, o.bench_options.n_prompt); !why.empty()) {
                error = "bad value '" + o.prompt + "' for -p in --bench (prompt sizes): " + why;
                return false;
            }
        }
        if (!o.n_text.empty()) {
            if (std::string why = int_list(o.n_text, 0, 1 << 20, o.bench_options.n_gen); !why.empty()) {
                error = "bad value '" + o.n_text + "' for -n in --bench (generation sizes): " + why;
                return false;
            }
        }
        const BenchOptions & b    = o.bench_options;
        const auto           none = [](const std::vector<int64_t> & v) {
            return std::all_of(v.begin(), v.end(), [](int64_t n) { return n == 0; });
        };
        if (none(b.n_prompt) && none(b.n_gen) && b.pg.empty()) {
            error = "--bench has no test to run (-p 0 and -n 0 without -pg)";
            return false;
        }
        return true;
    }
    int64_t n = 0;
    if (!o.n_text.empty()) {
        if (!parse_int(o.n_text, n) || n < -1 || n > (1 << 20)) {
            error = "bad value '" + o.n_text + "' for -n: must be " + range_text(-1, 1 << 20) + " (-1: no limit)";
            return false;
        }
        o.n_predict = static_cast<int>(n);
    }
    return true;
}

// the prompt given once only; no run-only output with --bench; --tokenize needs text to tokenize
bool check_combinations(const Options & o, std::string & error) {
    if (o.tokenize && (o.bench || o.tokens_given)) {
        error = std::string("--tokenize prints the ids of the prompt's text: not with ") +
                (o.bench ? "--bench" : "--tokens");
        return false;
    }
    if (o.bench_options.n_threads.size() > 1 && !o.bench) {
        error = "-t takes a list of thread counts only with --bench";
        return false;
    }
    if (!o.more_prompt_files.empty() && !o.tokenize) {
        error = "-f given twice: only --tokenize takes several prompt files";
        return false;
    }
    if (o.bench) {
        if (!o.plan_path.empty() || !o.trace_path.empty()) {
            error = std::string(o.plan_path.empty() ? "--trace" : "--plan") + " applies to a generation run, not to --bench";
            return false;
        }
        return true;
    }
    if (o.tokens_given && (o.prompt_given || !o.prompt_file.empty())) {
        error = std::string("--tokens and ") + (o.prompt_given ? "-p" : "-f") + " both give the prompt: use one";
        return false;
    }
    if (o.prompt_given && !o.prompt_file.empty()) {
        error = "-p and -f both give the prompt: use one";
        return false;
    }
    return true;
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
        if (const std::string why = it->second(o, value); !why.empty()) {
            error = "bad value '" + value + "' for " + argv[i - 1] + ": " + why;
            return false;
        }
    }
    if (o.tokens_given && o.tokens.empty()) {
        error = "--tokens needs at least one id";
        return false;
    }
    return read_counts(o, error) && check_combinations(o, error);
}

} // namespace switchyard::run
