#version 450
// ADD_ID: d[i0, i1, i2] = a[i0, i1, i2] + b[i0, ids[i1, i2]] (the bias of the expert each slot picked). One
// invocation per element; an id outside b's rows gives NaN.
#include "common.glsl"

layout(constant_id = 1) const uint TA = 0;
layout(constant_id = 2) const uint TB = 0;
layout(constant_id = 3) const uint TD = 0;

TYPED_BUFFER(0, a, readonly)
TYPED_BUFFER(1, b, readonly)
layout(binding = 2) readonly buffer I { int ids[]; };
TYPED_BUFFER(3, d, )

layout(push_constant) uniform Params {
    uvec4 ne;   // of a and d
    uvec4 nb_a; // strides in elements
    uvec4 nb_d;
    uvec4 nb_i; // .x, .y: strides of ids; .z: b's rows
    uint  nb_b1, off_a, off_b, off_i, off_d, n;
} p;

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uvec4 c  = unravel(i, p.ne);
    const int   id = ids[p.off_i + c.y * p.nb_i.x + c.z * p.nb_i.y];
    const float x  = LOAD(a, TA, p.off_a + c.x * p.nb_a.x + c.y * p.nb_a.y + c.z * p.nb_a.z + c.w * p.nb_a.w);
    float       r  = uintBitsToFloat(0x7fc00000u);
    if (id >= 0 && uint(id) < p.nb_i.z) {
        r = x + LOAD(b, TB, p.off_b + c.x * p.nb_i.w + uint(id) * p.nb_b1);
    }
    STORE(d, TD, p.off_d + c.x * p.nb_d.x + c.y * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w, r)
}
