// switchyard-run: what the runner prints after a run: the scheduler's plan per device (splits, copied inputs and
// their bytes), the memory each device holds (weights, KV cache, compute buffer), and --bench's bound on the
// generation speed (the table: bench_table.h).
#pragma once

#include "context.h"
#include "model.h"

#include <cstdio>
#include <string>
#include <vector>

namespace switchyard::run {

// "plan: N splits; CPU: 2 splits, 3 copies (1.2 KiB) in ..." from the plan of the context's last graph
void print_plan_summary(const Context & ctx);

// one line per device with its weights (how much of them mapped from the file or repacked), KV cache and
// compute buffer
void print_memory(const Model & model, const Context & ctx);

// "tg128 bound: DRAM read X GB/s / Y MiB of weights per token = Z t/s; tg128 reaches R of it", from a
// generation test's rates and the DRAM bandwidths measured between them (medians of both)
void print_generation_bound(std::FILE * out, const std::string & test, const Model & model,
                            const std::vector<double> & tg_rates, const std::vector<double> & dram_gbs);

} // namespace switchyard::run
