// The table of storage types: name, elements per block, bytes per block, whether it is block-quantized. It
// belongs to the storage formats (this folder, below core): a tensor's size depends on its type, never the other
// way round. The conversions (to_float / from_float_ref) are in formats.h.
#pragma once

#include "ggml.h"

#include <cstddef>
#include <cstdint>

namespace switchyard {

struct TypeInfo {
    const char * name;         // nullptr for removed enum values
    int64_t      blck_size;    // elements per block (1 for plain types)
    size_t       type_size;    // bytes per block
    bool         is_quantized;
};

const TypeInfo & type_info(ggml_type type);

// true for a value of enum ggml_type that names a format this library knows
bool is_valid_type(int type);

} // namespace switchyard
