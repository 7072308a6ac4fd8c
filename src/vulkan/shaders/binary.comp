#version 450
// ADD, SUB, MUL, DIV with broadcasting of b over a (b's extent divides a's in every dimension).
#include "common.glsl"

layout(constant_id = 1) const uint OP = 0; // 0 add, 1 sub, 2 mul, 3 div
layout(constant_id = 2) const uint TA = 0;
layout(constant_id = 3) const uint TB = 0;
layout(constant_id = 4) const uint TD = 0;

TYPED_BUFFER(0, a, readonly)
TYPED_BUFFER(1, b, readonly)
TYPED_BUFFER(2, d, )

layout(push_constant) uniform Params {
    uvec4 ne;   // of a and d
    uvec4 nb_a; // strides in elements
    uvec4 ne_b;
    uvec4 nb_b;
    uvec4 nb_d;
    uint  off_a, off_b, off_d, n; // offsets in elements
} p;

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uvec4 c  = unravel(i, p.ne);
    const uvec4 cb = c % p.ne_b;
    const float x  = LOAD(a, TA, p.off_a + c.x * p.nb_a.x + c.y * p.nb_a.y + c.z * p.nb_a.z + c.w * p.nb_a.w);
    const float y  = LOAD(b, TB, p.off_b + cb.x * p.nb_b.x + cb.y * p.nb_b.y + cb.z * p.nb_b.z + cb.w * p.nb_b.w);
    float       r;
    if (OP == 0) {
        r = x + y;
    } else if (OP == 1) {
        r = x - y;
    } else if (OP == 2) {
        r = x * y;
    } else {
        r = x / y;
    }
    const uint di = p.off_d + c.x * p.nb_d.x + c.y * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w;
    STORE(d, TD, di, r)
}
