// The Vulkan op table: for every ggml op, whether the backend computes a node (supports), how it records it
// (record) and how it can be cut into parts when a tensor is larger than one descriptor binds (map, split.h).
// One row per op in op_table.cpp; the families' halves live in ops/<family>.cpp next to their
// shaders/<family>.comp.
//
// supports must be exact: it is called by the scheduler for every node, so everything it accepts must be
// computed correctly and everything else falls back to the CPU. Buffers are checked before (device.cpp): every
// source is in a Vulkan buffer of this device.
#pragma once

#include "vulkan/recorder.h"
#include "vulkan/split.h"

namespace switchyard::vulkan {

using SupportsFn = bool (*)(const Device & device, const ggml_tensor * node);
using RecordFn   = bool (*)(Recorder & rec, const ggml_tensor * node);
// Fills map for node (supported); false when the node cannot be cut into parts.
using MapFn      = bool (*)(const ggml_tensor * node, SplitMap & map);

struct OpInfo {
    SupportsFn supports = nullptr; // nullptr: not supported
    RecordFn   record   = nullptr;
    MapFn      map      = nullptr; // nullptr: every operand must fit one descriptor window
};

const OpInfo & op_info(ggml_op op);

// Whether a supported node can be recorded on device: every operand fits one descriptor window, or the node's
// map cuts it into parts that do; and no operand is larger than a buffer of the device.
bool fits_device(const Device & device, const ggml_tensor * node);
// Records node (supported, fits_device) in one piece or in parts.
bool record_node(Recorder & rec, const ggml_tensor * node);
// true when every operand of node fits one descriptor window of device
bool fits_windows(const Device & device, const ggml_tensor * node);

// true for ops that only describe a layout (views, reshapes) and need no work
bool is_empty_op(ggml_op op);

// The families (ops/<family>.cpp).
namespace ops {
bool supports_binary(const Device &, const ggml_tensor *);
bool record_binary(Recorder &, const ggml_tensor *);
bool map_binary(const ggml_tensor *, SplitMap &);
bool supports_unary(const Device &, const ggml_tensor *);
bool record_unary(Recorder &, const ggml_tensor *);
bool map_unary(const ggml_tensor *, SplitMap &);
bool supports_copy(const Device &, const ggml_tensor *);
bool record_copy(Recorder &, const ggml_tensor *);
bool map_copy(const ggml_tensor *, SplitMap &);
// the element-order map of unary.comp from src to dst with op code `op` and parameters f (unary.cpp)
bool record_elementwise(Recorder &, const ggml_tensor * src, const ggml_tensor * dst, uint32_t op, const float f[4]);
bool supports_set_rows(const Device &, const ggml_tensor *);
bool record_set_rows(Recorder &, const ggml_tensor *);
bool supports_glu(const Device &, const ggml_tensor *);
bool record_glu(Recorder &, const ggml_tensor *);
bool map_glu(const ggml_tensor *, SplitMap &);
bool supports_norm(const Device &, const ggml_tensor *);
bool record_norm(Recorder &, const ggml_tensor *);
bool map_norm(const ggml_tensor *, SplitMap &);
// RMS_NORM followed by a MUL of it by an f32 weight, in one dispatch (the norm is still written, so readers of it
// in later graphs or splits see it): can_fuse says whether mul qualifies, both nodes being supported
bool can_fuse_rms_norm_mul(const ggml_tensor * norm, const ggml_tensor * mul);
bool record_rms_norm_mul(Recorder &, const ggml_tensor * norm, const ggml_tensor * mul);
bool supports_softmax(const Device &, const ggml_tensor *);
bool record_softmax(Recorder &, const ggml_tensor *);
bool map_softmax(const ggml_tensor *, SplitMap &);
bool supports_rope(const Device &, const ggml_tensor *);
bool record_rope(Recorder &, const ggml_tensor *);
bool map_rope(const ggml_tensor *, SplitMap &);
bool supports_get_rows(const Device &, const ggml_tensor *);
bool record_get_rows(Recorder &, const ggml_tensor *);
bool map_get_rows(const ggml_tensor *, SplitMap &);
bool supports_mul_mat(const Device &, const ggml_tensor *);
bool record_mul_mat(Recorder &, const ggml_tensor *);
bool map_mul_mat(const ggml_tensor *, SplitMap &);
bool supports_mul_mat_id(const Device &, const ggml_tensor *);
bool record_mul_mat_id(Recorder &, const ggml_tensor *);
bool map_mul_mat_id(const ggml_tensor *, SplitMap &);
bool supports_reduce(const Device &, const ggml_tensor *);
bool record_reduce(Recorder &, const ggml_tensor *);
bool map_reduce(const ggml_tensor *, SplitMap &);
bool supports_sort(const Device &, const ggml_tensor *);
bool record_sort(Recorder &, const ggml_tensor *);
bool map_sort(const ggml_tensor *, SplitMap &);
bool supports_layout(const Device &, const ggml_tensor *);
bool record_layout(Recorder &, const ggml_tensor *);
bool supports_misc(const Device &, const ggml_tensor *);
bool record_misc(Recorder &, const ggml_tensor *);
bool supports_add_id(const Device &, const ggml_tensor *);
bool record_add_id(Recorder &, const ggml_tensor *);
bool map_add_id(const ggml_tensor *, SplitMap &);
// CPY / SET_ROWS into Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 or IQ4_NL (quantize.cpp): is_quantized_write says which
bool is_quantized_write(const ggml_tensor *);
bool supports_quantize(const ggml_tensor *);
bool record_quantize(Recorder &, const ggml_tensor *);
bool supports_im2col(const Device &, const ggml_tensor *);
bool record_im2col(Recorder &, const ggml_tensor *);
bool supports_flash_attn(const Device &, const ggml_tensor *);
bool record_flash_attn(Recorder &, const ggml_tensor *);
} // namespace ops

} // namespace switchyard::vulkan
