// Ops over tensors larger than one storage-buffer descriptor can bind. A descriptor covers at most
// maxStorageBufferRange bytes (128 MiB on lavapipe and on some integrated and mobile GPUs), while a buffer, and so
// a tensor, may be as large as the device's allocation limit: a 7B model's f16 embedding is 262 MB. Every operand
// is bound through a window that starts at its first byte (recorder.h), so an op runs in one dispatch when each
// operand's bytes fit one window; otherwise the node is recorded as several parts.
//
// A part is a copy of the node over views of its tensors: a box of the destination (a range of indices in
// each dimension the op lets split) and, in every source, the indices that box reads, chosen so that every
// operand fits one window. How a source's dimensions follow the destination's is the op family's SplitMap
// (ops/<family>.cpp, the op table's `map` column). A source dimension indexed by data (the rows GET_ROWS
// gathers, the experts MUL_MAT_ID picks) is cut into windows of its own, each part computing the outputs whose
// index falls in its window (Recorder::gather()).
#pragma once

#include "ggml.h"

#include <cstdint>
#include <vector>

namespace switchyard::vulkan {

// How one dimension of a source follows the destination's dimension `dst_dim`.
enum class Follow : uint8_t {
    Whole,  // read whole in every part (the default)
    Same,   // index i of the destination reads index i (the source may have more: a mask's extra rows)
    Repeat, // index i reads i % ne (binary ops' broadcast): sliced where ne matches, else whole
    Ratio,  // index i reads i / (destination ne / ne) (MUL_MAT's broadcast of the weights)
    Gather, // indexed by data: cut into windows of its own (at most one gathered dimension per node)
};

struct SourceDim {
    Follow  follow  = Follow::Whole;
    uint8_t dst_dim = 0;
};

// What an op family tells the splitter about a node.
struct SplitMap {
    bool      splits[4] = {};                  // destination dimensions a part may take a range of
    SourceDim src[GGML_MAX_SRC][4] = {};       // per source and dimension
    uint32_t  scratch_bytes[GGML_MAX_SRC] = {}; // scratch the op binds per element of a source part (0: none)
};

// The window of a gathered dimension a part computes: the part's view holds indices [first, first + count) of
// `total` (the whole dimension). A node recorded in one piece has count == total.
struct GatherWindow {
    int64_t first = 0;
    int64_t count = 0;
    int64_t total = 0;
};

// The rule of element-wise and row-wise ops: destination dimensions 1..3 split, dimensions 1..3 of every source
// follow them as `follow` (Same or Repeat); dimension 0 stays whole.
void follow_rows(const ggml_tensor * node, Follow follow, SplitMap & map);

// A part's box: per destination dimension the range [begin, end), and the gather window.
struct Piece {
    int64_t      begin[4] = {};
    int64_t      end[4]   = {};
    GatherWindow gather;
};

// The bytes of a view of t (its ne and nb), plus `scratch_bytes` per element it needs as scratch, must not exceed
// `limit` (the descriptor range less the alignment slack of a window's start).
bool fits_window(const ggml_tensor * t, uint64_t limit, uint32_t scratch_bytes = 0);

// Cuts node into pieces that each fit `limit`; false when map does not allow it or more than max_pieces would
// be needed. pieces may be nullptr (only asks whether it can).
bool split_node(const ggml_tensor * node, const SplitMap & map, uint64_t limit, std::vector<Piece> * pieces,
                size_t max_pieces = 65536);

// A part of an allocated node: its copy and its sources' copies as views of the piece (node.src points into
// sources; not copyable, for that reason).
struct Part {
    ggml_tensor  node{};
    ggml_tensor  sources[GGML_MAX_SRC]{};
    GatherWindow gather;

    Part() = default;
    Part(const Part &)             = delete;
    Part & operator=(const Part &) = delete;
};

void make_part(const ggml_tensor * node, const SplitMap & map, const Piece & piece, Part & out);

} // namespace switchyard::vulkan
