// switchyard-run --bench: llama-bench's tests on the loaded model. Each test (ppN: a prompt of N tokens in
// batches of -b; tgN: N tokens one at a time; ppP+tgT: both, the rate counting P+T tokens) runs once to warm up,
// then -r times, each time from an empty KV cache; the rate of a run is its tokens over its wall time. Between
// the repetitions of the first tgN test the DRAM read bandwidth is measured, for the bound on generation speed
// printed after the table (report.h).
#pragma once

#include "cli.h"
#include "devices.h"
#include "model.h"

#include <cstdio>
#include <string>

namespace switchyard::run {

// Runs the tests of o.bench_options and writes the results in its format to standard output, the rest of the
// report to `info`; returns the exit status: 0, or 1 after a message on standard error.
int run_bench(const Model & model, Devices & devices, const Options & o, const std::string & model_path,
              std::FILE * info);

} // namespace switchyard::run
