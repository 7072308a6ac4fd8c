// switchyard-run: weights repacked for the CPU's MUL_MAT. The CPU device may offer an extra buffer type,
// CPU_REPACK (ggml_backend_dev_get_extra_bufts, reached as upstream's applications reach it: through the reg's
// ggml_backend_reg_get_proc_address), that stores 2-D weights of the legacy, K-quant, iq4_nl, iq4_xs, mxfp4, tq1_0
// and tq2_0 types (and of the float types where the CPU has their tile) in the layout its MUL_MAT reads without packing
// them on every call; any other tensor put there is stored plainly. As llama.cpp
// does (and -nr / --no-repack turns off), the runner copies into one such buffer the CPU's weights that it would
// repack and that only MUL_MAT reads, as src0 (the attention and FFN matrices, the output), and a tied output that is
// also the token embedding, which GET_ROWS reads as well (the device unpacks the rows it reads); everything else
// stays mapped from the file (Model::place).
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

namespace switchyard::run {

// The CPU device's CPU_REPACK buffer type; nullptr where the device offers none (a CPU without a tile faster than
// the portable one, SWITCHYARD_CPU_ISA=scalar) or the reg has no ggml_backend_dev_get_extra_bufts.
ggml_backend_buffer_type_t cpu_repack_buffer_type(ggml_backend_dev_t cpu_dev);

// true when `weight` (a tensor description, which the caller's graphs read only as MUL_MAT's src0) belongs in
// `buft`: it is stored repacked there (a type the buffer type repacks, 2-D, contiguous) and the CPU device
// accepts MUL_MAT with it as src0 (ggml_backend_dev_supports_op on a MUL_MAT node whose weight is initialised in
// a small buffer of that type, as llama.cpp asks), and with get_rows GET_ROWS as well. Allocates and frees a small
// probe buffer; false when it cannot.
bool repacks_for_cpu(ggml_backend_dev_t cpu_dev, ggml_backend_buffer_type_t buft, const ggml_tensor * weight,
                     bool get_rows = false);

} // namespace switchyard::run
