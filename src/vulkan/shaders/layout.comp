#version 450
// Layout ops that move elements without arithmetic, one invocation per destination element, copying bits of
// 4-byte (f32, i32) or 2-byte (f16, bf16) elements: CONCAT (a followed by b along dim x.x), PAD (zeros around a
// with x = left padding, or a repeated around it when circular), REPEAT (a tiled), ROLL (a shifted by x, as i32,
// circularly in every dimension), DIAG_MASK_INF / _ZERO (bits x.y where i0 > x.x + i1, a elsewhere), TRI (a where
// the triangle x.x keeps (i0, i1), zero elsewhere), DIAG (row 0 of each matrix of a on the diagonal). ARANGE writes
// start + step * i (f32) and FILL the bits x.x (the constant in the destination's type); neither reads anything.
#include "common.glsl"

layout(constant_id = 1) const uint OP    = 0; // 0 concat, 1 pad, 2 repeat, 3 arange, 4 roll, 5 fill, 6 diag_mask,
                                              // 7 tri, 8 diag
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
    if (OP == 4) {
        const ivec4 n = ivec4(p.ne_a);
        return load_a(uvec4(((ivec4(c) - ivec4(p.x)) % n + n) % n));
    }
    if (OP == 5) {
        return p.x.x;
    }
    if (OP == 6) {
        return int(c.x) > int(p.x.x) + int(c.y) ? p.x.y : load_a(c);
    }
    if (OP == 7) {
        const bool keep = p.x.x == 0 ? c.x >= c.y : p.x.x == 1 ? c.x > c.y : p.x.x == 2 ? c.x <= c.y : c.x < c.y;
        return keep ? load_a(c) : 0u;
    }
    if (OP == 8) {
        return c.x == c.y ? load_a(uvec4(c.x, 0, c.z, c.w)) : 0u;
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
