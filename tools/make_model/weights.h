// switchyard-make-model: writing the planned model. The metadata goes out through gguf_write_to_file (only_meta);
// each tensor's data is then generated, quantized and appended a chunk of rows at a time, so that a 1B-class
// model needs a few tens of MB of memory, not its size. Every row's values come from a generator seeded by
// (seed, tensor, row): the file is the same whatever the thread count.
#pragma once

#include "model.h"

#include <cstdint>
#include <string>

namespace switchyard::make_model {

struct Summary {
    uint64_t params = 0; // elements in all tensors
    uint64_t bytes  = 0; // size of the file
};

// Writes the file; false with `error` set when it cannot.
bool write_model(const std::string & path, const Shape & shape, const Plan & plan, int n_threads, Summary & summary,
                 std::string & error);

// Reads the file back through gguf.h and checks it against the plan: names, types, shapes and offsets, the file
// size, and the norm weights' values (all 1). False with `error` set on any difference.
bool verify_model(const std::string & path, const Plan & plan, std::string & error);

} // namespace switchyard::make_model
