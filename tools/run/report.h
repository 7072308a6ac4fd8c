// switchyard-run: what the runner prints after a run: the scheduler's plan per device (splits, copied inputs and
// their bytes), the memory each device holds (weights, KV cache, compute buffer), and --bench's table in
// llama-bench's markdown shape.
#pragma once

#include "context.h"
#include "model.h"

#include <string>
#include <vector>

namespace switchyard::run {

// "plan: N splits; CPU: 2 splits, 3 copies (1.2 KiB) in ..." from the plan of the context's last graph
void print_plan_summary(const Context & ctx);

// one line per device with its weights (how much of them mapped from the file or repacked), KV cache and
// compute buffer
void print_memory(const Model & model, const Context & ctx);

struct BenchRow {
    std::string         test;   // "pp512", "tg128"
    std::vector<double> rates;  // tokens/s of each repetition
};

void print_bench_table(const Model & model, const Devices & devices, const std::vector<BenchRow> & rows);

// "tg128 bound: DRAM read X GB/s / Y MiB of weights per token = Z t/s; tg128 reaches R of it", from the tg128
// rates and the DRAM bandwidths measured between them (medians of both)
void print_generation_bound(const Model & model, const std::vector<double> & tg_rates, const std::vector<double> & dram_gbs);

} // namespace switchyard::run
