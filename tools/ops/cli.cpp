// switchyard-ops: the command line (help, parsing, validation of op names), case selection and the progress
// indicator.
#include "cli.h"

#include "conformance/op_harness.h"

#include "ggml.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#ifdef _WIN32
#include <io.h>
#define isatty _isatty
#define fileno _fileno
#else
#include <unistd.h>
#endif

namespace switchyard::tools {

using testing::OpCase;

void usage(std::FILE * f) {
    std::fprintf(f,
                 "usage: switchyard-ops <test|perf|support> [options]\n"
                 "       switchyard-ops --list [perf] [options]\n"
                 "\n"
                 "modes:\n"
                 "  test      run every selected case on every selected device and on the scalar reference; a case passes\n"
                 "            when the normalised mean squared error is under its threshold and no guard byte changed (the\n"
                 "            guards start right at each tensor's last byte, so even a one-byte overrun is caught). Prints\n"
                 "            one line per failing case and a summary per device.\n"
                 "  perf      measure throughput of the larger perf cases (or of the test cases when -o/-p match no perf\n"
                 "            case). Each case runs in batches (each >= 50 ms) until the spread of the last 5 batches,\n"
                 "            (max - min) / median, is within the tolerance, or the time limit is reached (a case gets\n"
                 "            at least 3 batches; at the limit the spread is that of the batches it had). Prints the\n"
                 "            median time per run, GFLOP/s for matrix-like ops or GB/s (bytes read + written) for\n"
                 "            memory-bound ones, the spread, batches x runs, and 'stable' or 'UNSTABLE'.\n"
                 "  support   print which cases each device supports: one row per case with its op, the type it\n"
                 "            exercises and yes/no per device (--format text, csv or json).\n"
                 "\n"
                 "options:\n"
                 "  -o OP[,OP..]     only cases of these ops; may repeat. OP is an op name (MUL_MAT, SOFT_MAX), a unary\n"
                 "                   op (SILU, GELU) or a GLU op (SWIGLU); case does not matter. Unknown names are errors.\n"
                 "  -b BACKEND       only this device (its name, e.g. CPU, TEST); may repeat\n"
                 "  -p TEXT          only cases whose name contains TEXT\n"
                 "  -t N             threads for the CPU backend\n"
                 "  --test-device    also run on the GPU-like test device (non-host memory, asynchronous)\n"
                 "  --format F       output of 'support': text, csv or json\n"
                 "  --tolerance PCT  perf: the spread counted as stable, in percent (default 5)\n"
                 "  --max-time S     perf: seconds per case and device before reporting it unstable (default 2)\n"
                 "  --case SPEC      perf: measure this case instead of the built-in ones; may repeat (then -o and -p do\n"
                 "                   not apply). SPEC is one of\n"
                 "                     mul_mat:type=T,m=ROWS,n=COLS,k=K[,type_b=f32][,copies=N|,mib=N]\n"
                 "                     flash_attn:d=128,n_q=512,n_kv=512,heads=32/8[,kv=f16][,copies=N]\n"
                 "                     dup:mib=N     (an f32 copy; a memory bandwidth reference)\n"
                 "                   copies=N stacks N instances in one op (mib=N: enough for N MiB of weights), to hide a\n"
                 "                   GPU's submission cost and keep weights out of its cache. mul_mat n=1 and flash_attn\n"
                 "                   n_q=1 report GB/s, the others GFLOP/s\n"
                 "  --no-progress    no progress indicator (it is only ever shown when stderr is a terminal)\n"
                 "  --list           list the selected cases and exit (with 'perf': the perf cases)\n"
                 "  -h, --help       this help\n"
                 "\n"
                 "exit status:\n"
                 "  0  success (test: every selected case passed or is unsupported)\n"
                 "  1  test: at least one case failed; perf: a case could not be computed\n"
                 "  2  usage error: unknown option, mode or op, a missing or bad value, no device matching -b, or\n"
                 "     filters that select no case\n");
}

namespace {

// Every name -o accepts: the ops, the unary ops and the GLU ops.
bool known_op_name(const std::string & name) {
    for (int i = 0; i < GGML_OP_COUNT; ++i) {
        if (equal_nocase(name, ggml_op_name(static_cast<ggml_op>(i)))) return true;
    }
    for (int i = 0; i < GGML_UNARY_OP_COUNT; ++i) {
        if (equal_nocase(name, ggml_unary_op_name(static_cast<ggml_unary_op>(i)))) return true;
    }
    for (int i = 0; i < GGML_GLU_OP_COUNT; ++i) {
        if (equal_nocase(name, ggml_glu_op_name(static_cast<ggml_glu_op>(i)))) return true;
    }
    return false;
}

// Splits "A,B" and checks each name; logs unknown ones.
bool add_ops(const std::string & list, std::vector<std::string> & ops) {
    size_t start = 0;
    bool   ok    = true;
    for (;;) {
        const size_t      comma = list.find(',', start);
        const std::string name  = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (name.empty() || !known_op_name(name)) {
            std::fprintf(stderr, "error: unknown op '%s' for -o (an op such as MUL_MAT, a unary op such as SILU or a GLU op "
                                 "such as SWIGLU)\n", name.c_str());
            ok = false;
        } else {
            ops.push_back(name);
        }
        if (comma == std::string::npos) return ok;
        start = comma + 1;
    }
}

bool parse_number(const std::string & option, const std::string & text, double & out) {
    char *       end = nullptr;
    const double v   = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v > 0)) {
        std::fprintf(stderr, "error: %s needs a positive number, not '%s'\n", option.c_str(), text.c_str());
        return false;
    }
    out = v;
    return true;
}

bool parse_one(int argc, char ** argv, int & i, Options & o) {
    const std::string a = argv[i];
    std::string       v;
    auto value = [&]() {
        if (i + 1 >= argc) {
            std::fprintf(stderr, "error: option %s needs a value (see --help)\n", a.c_str());
            return false;
        }
        v = argv[++i];
        return true;
    };
    if (a == "-h" || a == "--help") o.help = true;
    else if (a == "test" || a == "perf" || a == "support") {
        if (!o.mode.empty() && o.mode != a) {
            std::fprintf(stderr, "error: two modes given ('%s' and '%s')\n", o.mode.c_str(), a.c_str());
            return false;
        }
        o.mode = a;
    }
    else if (a == "--list") o.list = true;
    else if (a == "--test-device") o.test_device = true;
    else if (a == "--no-progress") o.progress = false;
    else if (a == "-o") return value() && add_ops(v, o.ops);
    else if (a == "-b") { if (!value()) return false; o.backends.push_back(v); }
    else if (a == "-p") return value() && (o.pattern = v, true);
    else if (a == "--case") return value() && (o.case_specs.push_back(v), true);
    else if (a == "--format") {
        if (!value()) return false;
        if (v != "text" && v != "csv" && v != "json") {
            std::fprintf(stderr, "error: unknown format '%s' (text, csv or json)\n", v.c_str());
            return false;
        }
        o.format = v;
    } else if (a == "-t") {
        double n = 0;
        if (!value() || !parse_number(a, v, n)) return false;
        o.threads = static_cast<int>(n);
        if (o.threads != n) { std::fprintf(stderr, "error: -t needs a whole number\n"); return false; }
    } else if (a == "--tolerance") {
        if (!value() || !parse_number(a, v, o.tolerance)) return false;
        o.tolerance /= 100.0;
    } else if (a == "--max-time") {
        return value() && parse_number(a, v, o.max_seconds);
    } else {
        std::fprintf(stderr, "error: unknown %s '%s' (see --help)\n", a.size() > 1 && a[0] == '-' ? "option" : "mode", a.c_str());
        return false;
    }
    return true;
}

bool selected(const Options & o, const OpCase & c) {
    if (!o.pattern.empty() && c.name.find(o.pattern) == std::string::npos) return false;
    if (o.ops.empty()) return true;
    const std::string op = ggml_op_name(c.op), label = op_label(c);
    return std::any_of(o.ops.begin(), o.ops.end(), [&](const std::string & want) {
        return equal_nocase(want, op.c_str()) || equal_nocase(want, label.c_str());
    });
}

std::vector<const OpCase *> select_cases(const Options & o, const std::vector<OpCase> & all) {
    std::vector<const OpCase *> out;
    for (const OpCase & c : all) {
        if (selected(o, c)) out.push_back(&c);
    }
    return out;
}

} // namespace

bool parse_options(int argc, char ** argv, Options & o) {
    for (int i = 1; i < argc; ++i) {
        if (!parse_one(argc, argv, i, o)) return false;
    }
    if (!o.case_specs.empty() && o.mode != "perf" && !o.help) {
        std::fprintf(stderr, "error: --case is for perf mode\n");
        return false;
    }
    if (o.mode.empty() && !o.list && !o.help) {
        std::fprintf(stderr, "error: no mode given (test, perf or support; see --help)\n");
        return false;
    }
    return true;
}

std::vector<const OpCase *> cases_for_mode(const Options & o) {
    if (o.mode == "perf") {
        std::vector<const OpCase *> cases = select_cases(o, testing::perf_cases());
        if (!cases.empty() || (o.ops.empty() && o.pattern.empty())) return cases;
    }
    return select_cases(o, testing::op_cases());
}

std::string describe_filters(const Options & o) {
    std::string s;
    for (const std::string & op : o.ops) s += (s.empty() ? "-o " : " -o ") + op;
    if (!o.pattern.empty()) s += (s.empty() ? "-p '" : " -p '") + o.pattern + "'";
    return s.empty() ? "(no filters)" : s;
}

bool equal_nocase(const std::string & a, const char * b) {
    size_t i = 0;
    for (; i < a.size() && b[i] != '\0'; ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    }
    return i == a.size() && b[i] == '\0';
}

std::string op_label(const OpCase & c) {
    const testing::CaseInfo info = testing::describe_case(c);
    return info.sub_op.empty() ? info.op : info.sub_op;
}

Progress::Progress(bool wanted) : enabled_(wanted && isatty(fileno(stderr))) {}

void Progress::update(const std::string & device, size_t i, size_t n, const std::string & what) {
    if (!enabled_) return;
    // \033[K erases the rest of the line, so a shorter update leaves nothing of a longer one behind
    std::fprintf(stderr, "\r[%s] %zu/%zu %.60s\033[K", device.c_str(), i, n, what.c_str());
    std::fflush(stderr);
    shown_ = true;
}

void Progress::clear() {
    if (!enabled_ || !shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
}

} // namespace switchyard::tools
