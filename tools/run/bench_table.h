// switchyard-run --bench: the results as llama-bench writes them (-o md, csv, json). The markdown table's columns
// are as wide as their widest cell in display columns (text_stream.h display_width), not bytes, so that cells
// with multi-byte characters ("±", a device's name) stay aligned; model and backend are left-aligned, the
// others right-aligned. CSV and JSON carry llama-bench's field names for the fields we have.
#pragma once

#include "cli.h"

#include <cstdint>
#include <string>
#include <vector>

namespace switchyard::run {

struct BenchRow {
    std::string         test;         // "pp512", "tg128", "pp512+tg128"
    int64_t             n_prompt = 0; // prompt tokens the test processes
    int64_t             n_gen    = 0; // tokens it generates
    std::vector<double> rates;        // tokens/s of each repetition
    int                 n_threads = 0; // CPU threads it ran on (0: BenchSetup::n_threads)
};

// what the rows share: the model and the devices
struct BenchSetup {
    std::string model_filename;
    std::string model_type;  // "llama 4.5M q4_K": architecture, parameters, the type of blk.0.attn_q.weight
    uint64_t    model_size = 0; // bytes
    uint64_t    model_n_params = 0;
    std::string backends;    // Devices::describe()
    int         n_threads = 0;
    int64_t     n_batch   = 0;
};

// The mean and the sample standard deviation of rates (0 for fewer than two)
double mean_of(const std::vector<double> & rates);
double stddev_of(const std::vector<double> & rates);

// The whole output in the format asked for, ending in a newline.
std::string format_bench(const BenchSetup & setup, const std::vector<BenchRow> & rows, BenchFormat format);

// One markdown table from its header and rows (every row as many cells as the header); right[i] aligns column
// i to the right. Exposed for the tests.
std::string markdown_table(const std::vector<std::string> & header, const std::vector<std::vector<std::string>> & rows,
                           const std::vector<bool> & right);

} // namespace switchyard::run
