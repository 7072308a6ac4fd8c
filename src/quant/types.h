// The table of storage types: name, elements per block, bytes per block, whether it is block-quantized. It
// belongs to the storage formats (this folder, below core): a tensor's size depends on its type, never the other
// way round. The conversions (to_float / from_float_ref) are in formats.h.
#pragma once

#include "ggml.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace switchyard {

struct TypeInfo {
    const char * name;         // nullptr for removed enum values
    int64_t      blck_size;    // elements per block (1 for plain types)
    size_t       type_size;    // bytes per block
    bool         is_quantized;
};

// The table, one row per value of enum ggml_type, readable at compile time (kTypeTable[t].type_size): the kernels'
// per-type rows take their block sizes from it (cpu/quants/type_rows.h).
constexpr std::array<TypeInfo, GGML_TYPE_COUNT> make_type_table() {
    std::array<TypeInfo, GGML_TYPE_COUNT> t{};
    for (auto & e : t) {
        e = TypeInfo{nullptr, 1, 0, false};
    }
    t[GGML_TYPE_F32]     = {"f32", 1, 4, false};
    t[GGML_TYPE_F16]     = {"f16", 1, 2, false};
    t[GGML_TYPE_Q4_0]    = {"q4_0", 32, 18, true};
    t[GGML_TYPE_Q4_1]    = {"q4_1", 32, 20, true};
    t[GGML_TYPE_Q5_0]    = {"q5_0", 32, 22, true};
    t[GGML_TYPE_Q5_1]    = {"q5_1", 32, 24, true};
    t[GGML_TYPE_Q8_0]    = {"q8_0", 32, 34, true};
    t[GGML_TYPE_Q8_1]    = {"q8_1", 32, 36, true};
    t[GGML_TYPE_Q2_K]    = {"q2_K", 256, 84, true};
    t[GGML_TYPE_Q3_K]    = {"q3_K", 256, 110, true};
    t[GGML_TYPE_Q4_K]    = {"q4_K", 256, 144, true};
    t[GGML_TYPE_Q5_K]    = {"q5_K", 256, 176, true};
    t[GGML_TYPE_Q6_K]    = {"q6_K", 256, 210, true};
    t[GGML_TYPE_Q8_K]    = {"q8_K", 256, 292, true};
    t[GGML_TYPE_IQ2_XXS] = {"iq2_xxs", 256, 66, true};
    t[GGML_TYPE_IQ2_XS]  = {"iq2_xs", 256, 74, true};
    t[GGML_TYPE_IQ3_XXS] = {"iq3_xxs", 256, 98, true};
    t[GGML_TYPE_IQ1_S]   = {"iq1_s", 256, 50, true};
    t[GGML_TYPE_IQ4_NL]  = {"iq4_nl", 32, 18, true};
    t[GGML_TYPE_IQ3_S]   = {"iq3_s", 256, 110, true};
    t[GGML_TYPE_IQ2_S]   = {"iq2_s", 256, 82, true};
    t[GGML_TYPE_IQ4_XS]  = {"iq4_xs", 256, 136, true};
    t[GGML_TYPE_I8]      = {"i8", 1, 1, false};
    t[GGML_TYPE_I16]     = {"i16", 1, 2, false};
    t[GGML_TYPE_I32]     = {"i32", 1, 4, false};
    t[GGML_TYPE_I64]     = {"i64", 1, 8, false};
    t[GGML_TYPE_F64]     = {"f64", 1, 8, false};
    t[GGML_TYPE_IQ1_M]   = {"iq1_m", 256, 56, true};
    t[GGML_TYPE_BF16]    = {"bf16", 1, 2, false};
    t[GGML_TYPE_TQ1_0]   = {"tq1_0", 256, 54, true};
    t[GGML_TYPE_TQ2_0]   = {"tq2_0", 256, 66, true};
    t[GGML_TYPE_MXFP4]   = {"mxfp4", 32, 17, true};
    t[GGML_TYPE_NVFP4]   = {"nvfp4", 64, 36, true};
    t[GGML_TYPE_Q1_0]    = {"q1_0", 128, 18, true};
    t[GGML_TYPE_Q2_0]    = {"q2_0", 64, 18, true};
    return t;
}

inline constexpr auto kTypeTable = make_type_table();

static_assert(kTypeTable[GGML_TYPE_Q4_K].type_size == 144);
static_assert(kTypeTable[GGML_TYPE_Q6_K].type_size == 210);


const TypeInfo & type_info(ggml_type type);

// true for a value of enum ggml_type that names a format this library knows
bool is_valid_type(int type);

} // namespace switchyard
