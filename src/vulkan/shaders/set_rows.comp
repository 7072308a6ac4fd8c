#version 450
// SET_ROWS into float destinations: dst[i0, idx[r, i2 % ne_i1, i3 % ne_i2], i2, i3] = src[i0, r, i2, i3] (f32
// rows, i32 or i64 indices). One invocation per source element.
#include "common.glsl"

layout(constant_id = 1) const uint TD = 0;

layout(binding = 0) readonly buffer S { float s[]; };
layout(binding = 1) readonly buffer I { int idx[]; };
TYPED_BUFFER(2, d, )

layout(push_constant) uniform Params {
    uvec4 ne;   // of s
    uvec4 nb_s; // elements
    uvec4 nb_i; // elements of the index type; .w: ne_i1
    uvec4 nb_d; // elements
    uint  off_s, off_i, off_d, n;
    uint  ne_i2, i64_idx;
} p;

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uvec4 c   = unravel(i, p.ne);
    const uint  ii  = p.off_i + (c.y * p.nb_i.x + (c.z % p.nb_i.w) * p.nb_i.y + (c.w % p.ne_i2) * p.nb_i.z) * (p.i64_idx != 0 ? 2u : 1u);
    const uint  row = uint(idx[ii]);
    const float v   = s[p.off_s + c.x * p.nb_s.x + c.y * p.nb_s.y + c.z * p.nb_s.z + c.w * p.nb_s.w];
    STORE(d, TD, p.off_d + c.x * p.nb_d.x + row * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w, v)
}
