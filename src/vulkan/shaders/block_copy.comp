#version 450
// CPY / CONT / DUP from a block-quantized source, in element order (element i of the source in its logical order
// to element i of the destination). MODE 0 dequantizes into an f32, f16 or bf16 destination, one invocation per
// element; MODE 1 copies whole blocks into a destination of the same type, one invocation per block (rows of
// both tensors are whole blocks, so a block never straddles two rows).
#include "common.glsl"

layout(constant_id = 1) const uint TS   = 0; // dequant.glsl code of the source
layout(constant_id = 2) const uint TD   = 0; // MODE 0: the destination's float type
layout(constant_id = 3) const uint MODE = 0;

layout(binding = 0) readonly buffer W { uint8_t w8[]; };
TYPED_BUFFER(1, d, )
layout(binding = 1) buffer D8 { uint8_t d8[]; };

#include "dequant.glsl"

layout(push_constant) uniform Params {
    uvec4 ne_s;
    uvec4 nb_s; // bytes
    uvec4 ne_d;
    uvec4 nb_d; // MODE 0: elements; MODE 1: bytes
    uint  off_s, off_d, n; // off_s bytes; off_d as nb_d; n: elements (MODE 0) or blocks (MODE 1)
} p;

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uint  be = block_elements(TS), bb = block_bytes(TS);
    const uvec4 c  = unravel(MODE == 0u ? i : i * be, p.ne_s);
    const uint  at = p.off_s + c.y * p.nb_s.y + c.z * p.nb_s.z + c.w * p.nb_s.w + (c.x / be) * bb;
    const uvec4 e  = unravel(MODE == 0u ? i : i * be, p.ne_d);
    if (MODE == 0u) {
        STORE(d, TD, p.off_d + e.x * p.nb_d.x + e.y * p.nb_d.y + e.z * p.nb_d.z + e.w * p.nb_d.w, dequant(TS, at, c.x % be))
        return;
    }
    const uint to = p.off_d + (e.x / be) * bb + e.y * p.nb_d.y + e.z * p.nb_d.z + e.w * p.nb_d.w;
    for (uint j = 0; j < bb; ++j) {
        d8[to + j] = w8[at + j];
    }
}
