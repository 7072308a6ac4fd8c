// switchyard-ops, the pieces shared by its modes: the command line, case selection, the devices under test and
// the progress indicator. Each mode (test, perf, support) lives in its own file and reports through its exit
// status: 0 all well, 1 some case failed, 2 a usage error (bad option, unknown op, filters that select nothing).
#pragma once

#include "conformance/op_cases.h"

#include "ggml-backend.h"

#include <cstdio>
#include <string>
#include <vector>

namespace switchyard::tools {

enum ExitCode : int {
    kExitOk       = 0,
    kExitFailures = 1, // some case failed (test mode)
    kExitUsage    = 2, // bad command line, unknown op or device, filters that select no case
};

struct Options {
    std::string              mode;     // test, perf or support; empty with --list
    std::vector<std::string> ops;      // -o (op names, unary or GLU op names; compared without case)
    std::vector<std::string> backends; // -b (device names, compared without case)
    std::string              pattern;  // -p (substring of the case name)
    std::vector<std::string> case_specs; // perf --case (case_spec.h): these cases instead of the built-in ones
    std::string              format      = "text";
    bool                     list        = false;
    bool                     help        = false;
    bool                     test_device = false;
    bool                     progress    = true; // shown only when stderr is a terminal
    int                      threads     = 0;    // 0: the backend's default
    double                   tolerance   = 0.05; // perf: the largest relative spread counted as stable
    double                   max_seconds = 2.0;  // perf: time limit per case and device before giving up on stability
};

void usage(std::FILE * f);

// Parses argv into o. Logs the problem and returns false on a usage error (unknown option or op, missing value).
bool parse_options(int argc, char ** argv, Options & o);

// The cases a mode runs, after the -o and -p filters. perf: the perf cases, or the test cases when no perf case
// matches the filters. Empty when the filters match nothing.
std::vector<const testing::OpCase *> cases_for_mode(const Options & o);

// The filters as the user gave them, for messages ("-o SILU -p f16").
std::string describe_filters(const Options & o);

// The op name filters match and reports show: the unary or GLU op for UNARY and GLU cases, else the op's name.
std::string op_label(const testing::OpCase & c);

// true when a and b are the same apart from letter case
bool equal_nocase(const std::string & a, const char * b);

struct Device {
    std::string    name;
    ggml_backend_t backend;
};

// "[CPU] 12/200" on stderr, rewritten in place; only when wanted and stderr is a terminal.
class Progress {
public:
    explicit Progress(bool wanted);
    void update(const std::string & device, size_t i, size_t n, const std::string & what = {});
    void clear(); // erases the indicator, before other output
    bool enabled() const { return enabled_; }

private:
    bool enabled_;
    bool shown_ = false;
};

// The modes. Each returns an ExitCode.
int run_test(const Options & o, const std::vector<Device> & devices, const std::vector<const testing::OpCase *> & cases);
// perf: with --case, the spec cases (prepared by prepare_spec_case) instead of `cases`.
int run_perf(const Options & o, const std::vector<Device> & devices, const std::vector<const testing::OpCase *> & cases);
int run_support(const Options & o, const std::vector<Device> & devices, const std::vector<const testing::OpCase *> & cases);

} // namespace switchyard::tools
