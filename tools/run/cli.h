// switchyard-run: the command line, with llama.cpp's flag names where it has them (llama-cli's for a run,
// llama-bench's for --bench: there -p and -n are lists of test sizes instead of a prompt and a count).
#pragma once

#include "devices.h"
#include "sampler.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace switchyard::run {

// -fa: auto and on use FLASH_ATTN_EXT, off the plain soft_max(K·Q)·V path (graph.h)
enum class FlashAttn { Auto, On, Off };

// -o in --bench: llama-bench's markdown table, or its CSV and JSON records
enum class BenchFormat { Markdown, Csv, Json };

struct BenchOptions {
    std::vector<int64_t>                      n_prompt = {512}; // -p: one ppN test each (0: none)
    std::vector<int64_t>                      n_gen    = {128}; // -n: one tgN test each (0: none)
    std::vector<std::pair<int64_t, int64_t>>  pg;               // -pg PP,TG: one ppPP+tgTG test each
    std::vector<int>                          n_threads;        // -t N,M,...: every test at each count (empty: -t's one)
    int                                       reps     = 5;     // -r
    BenchFormat                               format   = BenchFormat::Markdown;
};

struct Options {
    std::string          model;                       // -m; empty: the embedded default model
    std::string          prompt = "Once upon a time"; // -p
    bool                 prompt_given = false;
    std::string          prompt_file;                 // -f: the prompt read from this file
    std::vector<std::string> more_prompt_files;       // -f given again (--tokenize only): one line of ids each
    bool                 escape = false;              // -e: process \n \t \\ \" \' \xNN in the prompt
    std::vector<int32_t> tokens;                      // --tokens: ids instead of a prompt
    bool                 tokens_given = false;
    int                  n_predict = 32;              // -n; -1: until the end of text or a full context
    std::string          n_text;                      // -n as given (a list in --bench), read by parse_options
    int64_t              n_ctx     = 0;               // -c; 0: what the run needs (prompt + n, or the tests')
    int64_t              n_batch   = 512;             // -b
    int64_t              n_ubatch  = 0;               // -ub; 0: n_batch, or 64 for a layer split over MPI ranks
    FlashAttn            flash_attn = FlashAttn::Auto; // -fa
    DeviceOptions        devices;                     // --device, -ngl, --split-mode, --tensor-split, -t, -nr
    SamplerParams        sampling;                    // --temp, --top-k, --top-p, --min-p, --repeat-*, --seed
    bool                 seed_given   = false;
    std::string          plan_path;                   // --plan
    std::string          trace_path;                  // --trace
    bool                 tokenize     = false;        // --tokenize: print the prompt's token ids and exit
    bool                 bench        = false;        // --bench
    BenchOptions         bench_options;               // -p -n -pg -r -o in --bench
    bool                 list_devices = false;        // --list-devices
    bool                 test_device  = false;        // --test-device
    bool                 help         = false;
    bool                 version      = false;        // --version
};

// Parses argv; false with a message naming the flag on a usage error (an unknown flag, a missing or bad value, a
// prompt given twice: --tokens with -p or -f, or -p with -f, or -f twice without --tokenize; --plan or --trace
// with --bench; --tokenize with --bench or --tokens).
bool parse_options(int argc, char ** argv, Options & options, std::string & error);

// --help's text
void print_usage(std::FILE * f);

// --version's text: the Switchyard version and the ggml API it implements
void print_version(std::FILE * f);

} // namespace switchyard::run
