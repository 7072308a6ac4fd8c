#version 450
// Layout ops that move elements without arithmetic, one invocation per destination element, copying bits of
// 4-byte (f32, i32) or 2-byte (f16, bf16) elements: CONCAT (a followed by b along dim x.x), PAD (zeros around a
// with x = left padding, or a repeated around it when circular), REPEAT (a tiled). ARANGE writes
// start + step * i (f32) and reads nothing.
#include "common.glsl"

layout(constant_id = 1) const uint OP    = 0; // 0 concat, 1 pad, 2 repeat, 3 arange
layout(constant_id = 2) const uint WIDTH = 4; // element bytes: 4 or 2

layout(binding = 0) readonly buffer A32 { uint a32[]; };
layout(binding = 0) readonly buffer A16 { uint16_t a16[]; };
layout(binding = 1) readonly buffer B32 { uint b32[]; };
layout(binding = 1) readonly buffer B16 { uint16_t b16[]; };
layout(binding = 2) buffer D32 { uint d32[]; };
layout(binding = 2) buffer D16 { uint16_t d16[]; };

layout(push_constant) uniform Params {
    uvec4 ne_d;
    uvec4 nb_d; // strides in elements
    uvec4 ne_a;
    uvec4 nb_a;
    uvec4 nb_b;
    uint  off_a, off_b, off_d, n;
    uvec4 x;        // concat: x.x = dim; pad: left padding; arange: (start, step) as float bits
    uint  circular; // pad
} p;

uint load_a(uvec4 c) {
    const uint i = p.off_a + c.x * p.nb_a.x + c.y * p.nb_a.y + c.z * p.nb_a.z + c.w * p.nb_a.w;
    return WIDTH == 4 ? a32[i] : uint(a16[i]);
}

uint load_b(uvec4 c) {
    const uint i = p.off_b + c.x * p.nb_b.x + c.y * p.nb_b.y + c.z * p.nb_b.z + c.w * p.nb_b.w;
    return WIDTH == 4 ? b32[i] : uint(b16[i]);
}

uint value(uint i, uvec4 c) {
    if (OP == 0) {
        uvec4 cb = c;
        const uint dim = p.x.x;
        if (c[dim] < p.ne_a[dim]) {
            return load_a(c);
        }
        cb[dim] -= p.ne_a[dim];
        return load_b(cb);
    }
    if (OP == 1) {
        if (p.circular != 0) {
            return load_a((c + p.ne_a - p.x % p.ne_a) % p.ne_a);
        }
        const ivec4 s = ivec4(c) - ivec4(p.x);
        if (any(lessThan(s, ivec4(0))) || any(greaterThanEqual(uvec4(s), p.ne_a))) {
            return 0u;
        }
        return load_a(uvec4(s));
    }
    if (OP == 2) {
        return load_a(c % p.ne_a);
    }
    precise float v = uintBitsToFloat(p.x.x) + uintBitsToFloat(p.x.y) * float(i);
    return floatBitsToUint(v);
}

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uvec4 c  = unravel(i, p.ne_d);
    const uint  v  = value(i, c);
    const uint  di = p.off_d + c.x * p.nb_d.x + c.y * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w;
    if (WIDTH == 4) {
        d32[di] = v;
    } else {
        d16[di] = uint16_t(v);
    }
}
