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

// dequant.glsl's code for weights of type t (float types and the block formats); kNoType for others
constexpr uint32_t weight_type_code(ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32:    return 0;
        case GGML_TYPE_F16:    return 1;
        case GGML_TYPE_BF16:   return 2;
        case GGML_TYPE_Q4_0:   return 10;
        case GGML_TYPE_Q4_1:   return 11;
        case GGML_TYPE_Q5_0:   return 12;
        case GGML_TYPE_Q5_1:   return 13;
        case GGML_TYPE_Q8_0:   return 14;
        case GGML_TYPE_IQ4_NL: return 15;
        case GGML_TYPE_MXFP4:  return 16;
        case GGML_TYPE_Q2_K:   return 20;
        case GGML_TYPE_Q3_K:   return 21;
        case GGML_TYPE_Q4_K:   return 22;
        case GGML_TYPE_Q5_K:   return 23;
        case GGML_TYPE_Q6_K:   return 24;
        default:               return kNoType;
    }
}

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
