#version 450
// IM2COL: d[col, ow, oh, n] (1-D: d[col, ol, n]) = b[iw, ih, c, n] with col = (c * KH + kh) * KW + kw,
// iw = ow * s0 + kw * d0 - p0, ih = oh * s1 + kh * d1 - p1, and 0 outside b. One invocation per element of d.
#include "common.glsl"

layout(constant_id = 1) const uint TB = 0;
layout(constant_id = 2) const uint TD = 0;

TYPED_BUFFER(0, b, readonly)
TYPED_BUFFER(1, d, )

layout(push_constant) uniform Params {
    uvec4 ne_d; // (cols, OW, OH, N) also for 1-D, where OH = 1
    uvec4 nb_d; // strides in elements, matching ne_d
    uvec4 nb_b; // (w, h, c, n) strides in elements
    uint  IW, IH, KW, KH;
    int   s0, s1, p0, p1, d0, d1;
    uint  off_b, off_d, n;
} p;

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uvec4 c   = unravel(i, p.ne_d);
    const uint  kw  = c.x % p.KW, kh = (c.x / p.KW) % p.KH, ch = c.x / (p.KW * p.KH);
    const int   iw  = int(c.y) * p.s0 + int(kw) * p.d0 - p.p0;
    const int   ih  = int(c.z) * p.s1 + int(kh) * p.d1 - p.p1;
    float       v   = 0.0;
    if (iw >= 0 && uint(iw) < p.IW && ih >= 0 && uint(ih) < p.IH) {
        v = LOAD(b, TB, p.off_b + uint(iw) * p.nb_b.x + uint(ih) * p.nb_b.y + ch * p.nb_b.z + c.w * p.nb_b.w);
    }
    STORE(d, TD, p.off_d + c.x * p.nb_d.x + c.y * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w, v)
}
