// The GGUF reader: parses a whole file from a source, checking everything before it allocates for it, and
// refuses a malformed file with one message naming the source, the byte offset and what was wrong.
#pragma once

#include "gguf/context.h"
#include "gguf/cursor.h"
#include "gguf/source.h"

#include "gguf.h"

#include <vector>

namespace switchyard::gguf {

// A new context read from source (and, with params.ctx, a new ggml_context of its tensors in *params.ctx, with
// their data when !params.no_alloc). NULL on a malformed file or a failed allocation (logged, naming caller);
// *params.ctx is then left NULL. May throw std::bad_alloc: the C functions call it under guard().
gguf_context * read_file(Source & source, const gguf_init_params & params, const char * caller);

// The parts of read_file, in file order (each logs through the cursor and returns false on a malformed file):

// n_tensors tensor infos: unique names shorter than GGML_MAX_NAME, 1..4 dimensions, known types, sizes that do
// not overflow, and offsets that lay the data out as the writer does (aligned, in order, without gaps or
// overlaps) within kMaxDataBytes
bool read_tensor_infos(Cursor & cursor, int64_t n_tensors, size_t alignment, std::vector<TensorInfo> & tensors);

// With params.ctx: the ggml_context of the tensors and, with !params.no_alloc, their data read from the data
// section at data_offset (whose presence in the source is checked before allocating). Points the infos' data
// at the bytes read.
bool load_tensors(Cursor & cursor, std::vector<TensorInfo> & tensors, uint64_t data_offset, size_t alignment,
                  const gguf_init_params & params);

} // namespace switchyard::gguf
