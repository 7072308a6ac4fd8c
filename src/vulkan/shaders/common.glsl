// Shared by every shader: the workgroup size, storage extensions, typed views of a binding, fp16/bf16
// conversions with round-to-nearest-even (as the host's), and the flat invocation index of a 2D dispatch.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require

// Every shader's workgroup is (specialisation constant 0, 1, 1). Declared here, before any code reads
// gl_WorkGroupSize: glslang folds a use that precedes the declaration to the default size 1.
layout(local_size_x_id = 0) in;

// Element types of a typed binding (specialisation constants T*): the backend's codes (ops/types.h).
#define TYPE_F32  0u
#define TYPE_F16  1u
#define TYPE_BF16 2u

// A binding seen as f32, f16 and raw 16-bit words; NAME_f[], NAME_h[], NAME_u[].
#define TYPED_BUFFER(BINDING, NAME, QUAL)                                      \
    layout(binding = BINDING) QUAL buffer NAME##F32 { float NAME##_f[]; };     \
    layout(binding = BINDING) QUAL buffer NAME##F16 { float16_t NAME##_h[]; }; \
    layout(binding = BINDING) QUAL buffer NAME##U16 { uint16_t NAME##_u[]; };

#define LOAD(NAME, T, I) \
    ((T) == TYPE_F32 ? NAME##_f[I] : (T) == TYPE_F16 ? float(NAME##_h[I]) : uintBitsToFloat(uint(NAME##_u[I]) << 16))

#define STORE(NAME, T, I, V)                                   \
    if ((T) == TYPE_F32) {                                     \
        NAME##_f[I] = (V);                                     \
    } else if ((T) == TYPE_F16) {                              \
        NAME##_u[I] = uint16_t(f32_to_f16(V));                 \
    } else {                                                   \
        NAME##_u[I] = uint16_t(f32_to_bf16(V));                \
    }

// IEEE half with round-to-nearest-even, the conversion the host uses.
uint f32_to_f16(float f) {
    const uint x    = floatBitsToUint(f);
    const uint sign = (x >> 16) & 0x8000u;
    uint       a    = x & 0x7fffffffu;
    if (a >= 0x7f800000u) {
        return sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u);
    }
    if (a >= 0x477ff000u) {
        return sign | 0x7c00u; // rounds to infinity
    }
    if (a < 0x38800000u) { // below the smallest normal half: the subnormal count, rounded to even
        return sign | uint(roundEven(uintBitsToFloat(a) * 16777216.0));
    }
    a += 0xc8000fffu + ((a >> 13) & 1u); // rebias the exponent, round to nearest even
    return sign | (a >> 13);
}

uint f32_to_bf16(float f) {
    const uint u = floatBitsToUint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return (u >> 16) | 64u; // quiet NaN
    }
    return (u + (0x7fffu + ((u >> 16) & 1u))) >> 16;
}

float f16_bits_to_f32(uint h) { return unpackHalf2x16(h).x; }

// The flat index of this invocation in a dispatch of (x, y) groups of gl_WorkGroupSize.x.
uint flat_index() { return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x; }

// i -> (i0, i1, i2, i3) for a tensor of shape ne
uvec4 unravel(uint i, uvec4 ne) {
    const uint i0 = i % ne.x;
    i /= ne.x;
    const uint i1 = i % ne.y;
    i /= ne.y;
    const uint i2 = i % ne.z;
    return uvec4(i0, i1, i2, i / ne.z);
}
