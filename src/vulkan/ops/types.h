// Helpers the op families share: the shaders' element-type codes (shaders/common.glsl), tensor shapes and
// strides as 32-bit push-constant values, and the checks that they fit.
#pragma once

#include "ggml.h"

#include <cstdint>
#include <cstring>

namespace switchyard::vulkan::ops {

constexpr uint32_t kNoType = ~0u;

// TYPE_F32 / TYPE_F16 / TYPE_BF16 of common.glsl; kNoType for every other type
constexpr uint32_t float_type_code(ggml_type t) {
    return t == GGML_TYPE_F32 ? 0u : t == GGML_TYPE_F16 ? 1u : t == GGML_TYPE_BF16 ? 2u : kNoType;
}

constexpr bool is_float_type(ggml_type t) { return float_type_code(t) != kNoType; }

// The activation format MUL_MAT rounds its activations to for a weight type (mul_mat_act.comp's codes): the CPU's
// vec_dot_type, so both devices see the same products. AsIs: used as they are; None: no MUL_MAT for the type.
enum class ActFormat : uint32_t { F16 = 0, BF16 = 1, Q8_0 = 2, Q8_1 = 3, Q8_K = 4, AsIs = 100, None = 101 };

// One row per type the shaders read: dequant.glsl's code for it, MUL_MAT's activation format, whether
// FLASH_ATTN_EXT's shader reads it as K and V, and whether quantize.comp writes it (CPY / SET_ROWS into it). The
// op families read these rows instead of listing types; adding a type to the device starts here.
struct VkTypeRow {
    ggml_type type     = GGML_TYPE_COUNT;
    uint32_t  code     = kNoType;
    ActFormat act      = ActFormat::None;
    bool      kv       = false;
    bool      quantize = false;
};

inline constexpr VkTypeRow kVkTypeRows[] = {
    // type, dequant code, activation format, FLASH_ATTN_EXT K / V, quantize.comp writes it
    {GGML_TYPE_F32, 0, ActFormat::AsIs, true, false},    {GGML_TYPE_F16, 1, ActFormat::F16, true, false},
    {GGML_TYPE_BF16, 2, ActFormat::BF16, true, false},   {GGML_TYPE_Q4_0, 10, ActFormat::Q8_0, true, true},
    {GGML_TYPE_Q4_1, 11, ActFormat::Q8_1, true, true},   {GGML_TYPE_Q5_0, 12, ActFormat::Q8_0, true, true},
    {GGML_TYPE_Q5_1, 13, ActFormat::Q8_1, true, true},   {GGML_TYPE_Q8_0, 14, ActFormat::Q8_0, true, true},
    {GGML_TYPE_IQ4_NL, 15, ActFormat::Q8_0, true, true}, {GGML_TYPE_MXFP4, 16, ActFormat::Q8_0, false, false},
    {GGML_TYPE_Q2_K, 20, ActFormat::Q8_K, false, false}, {GGML_TYPE_Q3_K, 21, ActFormat::Q8_K, false, false},
    {GGML_TYPE_Q4_K, 22, ActFormat::Q8_K, false, false}, {GGML_TYPE_Q5_K, 23, ActFormat::Q8_K, false, false},
    {GGML_TYPE_Q6_K, 24, ActFormat::Q8_K, false, false},
};

// The row of type t; a row with code kNoType (and nothing supported) for the types the shaders do not read.
constexpr VkTypeRow vk_type_row(ggml_type t) {
    for (const VkTypeRow & r : kVkTypeRows) {
        if (r.type == t) {
            return r;
        }
    }
    return {};
}

// dequant.glsl's code for weights of type t (float types and the block formats); kNoType for others
constexpr uint32_t weight_type_code(ggml_type t) { return vk_type_row(t).code; }

// Shape and strides (in elements of the tensor's type) as the shaders take them.
struct Shape {
    uint32_t ne[4];
    uint32_t nb[4];
};

inline Shape shape_of(const ggml_tensor * t) {
    const size_t es = ggml_type_size(t->type);
    Shape        s{};
    for (int i = 0; i < 4; ++i) {
        s.ne[i] = static_cast<uint32_t>(t->ne[i]);
        s.nb[i] = static_cast<uint32_t>(t->nb[i] / es);
    }
    return s;
}

// true when the tensor's extents and element strides fit the shaders' 32-bit arithmetic
inline bool fits_u32(const ggml_tensor * t) {
    if (ggml_nelements(t) >= (int64_t(1) << 31)) {
        return false;
    }
    for (int i = 0; i < 4; ++i) {
        if (t->nb[i] >= (size_t(1) << 32) || t->ne[i] >= (int64_t(1) << 31)) {
            return false;
        }
    }
    return true;
}

// true when every stride is a whole number of elements (always, except for quantized rows)
inline bool element_strides(const ggml_tensor * t) {
    const size_t es = ggml_type_size(t->type);
    return t->nb[0] % es == 0 && t->nb[1] % es == 0 && t->nb[2] % es == 0 && t->nb[3] % es == 0;
}

// op parameter i of a node, as int32 / float
inline int32_t op_i32(const ggml_tensor * t, int i) { return t->op_params[i]; }
inline float   op_f32(const ggml_tensor * t, int i) {
    float v;
    std::memcpy(&v, &t->op_params[i], sizeof v);
    return v;
}

constexpr uint32_t kWorkgroup = 256; // invocations per group of the element-wise shaders

} // namespace switchyard::vulkan::ops
