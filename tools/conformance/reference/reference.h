// The test oracle: a scalar reference implementation of every op, written for clarity, over tensors whose data
// is in host memory. compute_graph evaluates a graph node by node with it. Backends are checked against this,
// never against themselves.
#pragma once

#include "ggml.h"

#include <cstdint>

namespace switchyard::testing::reference {

// Element access for any plain type (F32, F16, BF16, F64, I8..I64) and, for reading, any block format with a
// to_float. Coordinates are element indices in each dimension; strides are honoured.
float get(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3);
void  set(ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v);

// true if the reference implements this node's op (and sub-op)
bool has_reference(const ggml_tensor * node);

// Computes one node from its sources. False if the op has no reference.
bool compute_node(ggml_tensor * node);

// Computes every node of the graph in order. False (naming the op on stderr) if one has no reference.
bool compute_graph(ggml_cgraph * graph);

} // namespace switchyard::testing::reference
