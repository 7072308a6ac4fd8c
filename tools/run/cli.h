// switchyard-run: the command line, with llama.cpp's flag names where it has them.
#pragma once

#include "devices.h"
#include "sampler.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace switchyard::run {

struct Options {
    std::string          model;                       // -m; empty: the embedded default model
    std::string          prompt = "Once upon a time"; // -p
    bool                 prompt_given = false;
    std::vector<int32_t> tokens;                      // --tokens: ids instead of a prompt
    bool                 tokens_given = false;
    int                  n_predict = 32;              // -n
    int64_t              n_ctx     = 0;               // -c; 0: what the run needs (prompt + n, or 512 for --bench)
    int64_t              n_batch   = 512;             // -b
    DeviceOptions        devices;                     // --device, -ngl, --split-mode, --tensor-split, -t, -nr
    SamplerParams        sampling;                    // --temp, --top-k, --top-p, --seed
    bool                 seed_given   = false;
    std::string          plan_path;                   // --plan
    std::string          trace_path;                  // --trace
    bool                 bench        = false;        // --bench
    int                  bench_reps   = 3;            // -r
    bool                 list_devices = false;        // --list-devices
    bool                 test_device  = false;        // --test-device
    bool                 help         = false;
};

// Parses argv; false with a message (naming the flag) on a usage error.
bool parse_options(int argc, char ** argv, Options & options, std::string & error);

void print_usage(std::FILE * f);

} // namespace switchyard::run
