// Per-format conversion entry points used by the type table (ggml_get_type_traits).
#pragma once

#include "ggml.h"

namespace switchyard::quant {

// Reference dequantize (blocks -> floats) for `type`, or nullptr if the format has none.
ggml_to_float_t to_float_fn(ggml_type type);

// Reference quantize (floats -> blocks) for `type`, or nullptr if the format has none.
ggml_from_float_t from_float_ref_fn(ggml_type type);

} // namespace switchyard::quant
