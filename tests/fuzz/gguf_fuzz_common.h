// What both GGUF fuzzers do with a context that loaded: call every query on every key and tensor, write it out
// and read the output back. The reader must accept everything the writer writes, and writing what was read
// back must give the same bytes: a violation traps, so libFuzzer reports it as a crash.
#pragma once

#include "ggml.h"
#include "gguf.h"

#include <cstddef>
#include <cstdint>

namespace gguf_fuzz {

// silences the library's log (malformed input is the normal case here)
void quiet();

// every getter, then the write -> read -> write round trip; gctx is the ggml_context the reader made (or NULL)
void exercise(const gguf_context * ctx, ggml_context * gctx);

// all four readers' ways into one input: buffer (with and without data), callback in small chunks
void read_buffer(const uint8_t * data, size_t size);

} // namespace gguf_fuzz
