#version 450
// GLU: the gated linear units (REGLU, GEGLU, SWIGLU, SWIGLU_OAI, GEGLU_ERF, GEGLU_QUICK,
// SWIGLU_CLAMP) on f32, from one tensor
// holding both halves of each row (swapped or not) or from two tensors.
#include "common.glsl"
#include "activations.glsl"

layout(constant_id = 1) const uint OP = 0; // ggml_glu_op

layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) readonly buffer B { float b[]; };
layout(binding = 2) buffer D { float d[]; };

layout(push_constant) uniform Params {
    uvec4 ne;   // of d
    uvec4 nb_a; // elements
    uvec4 nb_b;
    uvec4 nb_d;
    uint  off_a, off_b, off_d, n;
    uint  split, swapped;
    float alpha, limit;
} p;

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uvec4 c  = unravel(i, p.ne);
    const uint  ra = p.off_a + c.y * p.nb_a.y + c.z * p.nb_a.z + c.w * p.nb_a.w;
    float       x, g;
    if (p.split != 0) {
        x = a[ra + c.x * p.nb_a.x];
        g = b[p.off_b + c.x * p.nb_b.x + c.y * p.nb_b.y + c.z * p.nb_b.z + c.w * p.nb_b.w];
    } else {
        x = a[ra + (c.x + (p.swapped != 0 ? p.ne.x : 0u)) * p.nb_a.x];
        g = a[ra + (c.x + (p.swapped != 0 ? 0u : p.ne.x)) * p.nb_a.x];
    }
    float r;
    switch (OP) {
        case 0:  r = max(x, 0.0) * g; break;
        case 1:  r = gelu_tanh(x) * g; break;
        case 2:  r = x * sigmoid(x) * g; break;
        case 3: {
            const float xc = min(x, p.limit), gc = clamp(g, -p.limit, p.limit);
            r = xc * sigmoid(p.alpha * xc) * (gc + 1.0);
            break;
        }
        case 4:  r = 0.5 * x * (1.0 + erf_(x * 0.70710678118654752440)) * g; break;
        case 5:  r = x * sigmoid(1.702 * x) * g; break;
        default: { // 6: SWIGLU_CLAMP
            const float xc = min(x, p.limit), gc = clamp(g, -p.limit, p.limit);
            r = xc * sigmoid(xc) * gc;
            break;
        }
    }
    d[p.off_d + c.x * p.nb_d.x + c.y * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w] = r;
}
