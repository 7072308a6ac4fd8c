// The model writer: writing the planned model. The metadata goes out through gguf_write_to_file (only_meta);
// each tensor's data is then generated, quantized and appended a chunk of rows at a time, so that a 1B-class
// model needs a few tens of MB of memory, not its size. Every row's values come from a generator seeded by
// (seed, tensor, row): the file is the same whatever the thread count.
// Quantizing random values costs up to 150 ns a weight (the K-quants search each block's scales), minutes for a
// 1B model; so a tensor of a block type larger than a pool of kPoolElements values is made of whole blocks drawn
// at random (by the same per-row generator) from that pool, quantized once per type. Each block is still the
// quantization of uniform random values, as a directly quantized one is; smaller tensors (all of the tiny preset's)
// are quantized directly.
#pragma once

#include "model.h"

#include <cstdint>
#include <functional>
#include <string>

namespace switchyard::model_writer {

struct Summary {
    uint64_t params = 0; // elements in all tensors
    uint64_t bytes  = 0; // size of the file
};

// values of each block type quantized once, for the tensors larger than this
constexpr int64_t kPoolElements = int64_t{1} << 18;

// The types written as random blocks rather than quantized values: the grid i-quants (iq2_xxs, iq2_xs, iq2_s,
// iq3_xxs, iq3_s), iq1_s and iq1_m, which ggml here cannot quantize to (their quantizers search grids, and upstream's
// need an importance matrix). Every byte pattern is a valid block of them; the writer draws the bytes from the row's
// generator and sets each block's d so that the weights come out near the usual initialisation scale.
bool random_block_type(ggml_type type);

struct Progress {
    size_t   tensors_done = 0; // tensors written completely
    size_t   n_tensors    = 0;
    uint64_t bytes_done   = 0; // bytes in the file so far
    uint64_t bytes_total  = 0; // the size of the finished file
};
// called on the writing thread after the metadata, after every chunk of rows (16 MiB of values at most) and at
// the end
using ProgressFn = std::function<void(const Progress &)>;

// Writes the file, calling `progress` (when set) as it goes; false with `error` set when it cannot (the partial
// file is then left for the caller to remove: see output_file.h).
bool write_model(const std::string & path, const Shape & shape, const Plan & plan, int n_threads, Summary & summary,
                 std::string & error, const ProgressFn & progress = {});

// Reads the file back through gguf.h and checks it against the plan: names, types, shapes and offsets, the file
// size, and the norm weights' values (all 1). False with `error` set on any difference.
bool verify_model(const std::string & path, const Plan & plan, std::string & error);

} // namespace switchyard::model_writer
