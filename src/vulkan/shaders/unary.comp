#version 450
// One value in, one value out: the UNARY activations, the simple math ops with parameters (SCALE, CLAMP, SQR,
// SQRT, LOG, SIN, COS, LEAKY_RELU), and the identity, which with different source and destination types and
// layouts is CPY / CONT / DUP. Element i of the source (in its logical order) goes to element i of the
// destination, so shapes may differ when the element counts agree.
#include "common.glsl"

layout(constant_id = 1) const uint OP = 0; // the backend's unary codes (ops/unary.cpp)
layout(constant_id = 2) const uint TS = 0;
layout(constant_id = 3) const uint TD = 0;

TYPED_BUFFER(0, s, readonly)
TYPED_BUFFER(1, d, )

layout(push_constant) uniform Params {
    uvec4 ne_s;
    uvec4 nb_s; // strides in elements
    uvec4 ne_d;
    uvec4 nb_d;
    uint  off_s, off_d, n, pad;
    vec4  f; // op parameters
} p;

#include "activations.glsl"

float apply(float x) {
    switch (OP) {
        case 0:  return x;                                       // copy
        case 1:  return abs(x);
        case 2:  return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0);  // sgn
        case 3:  return -x;
        case 4:  return x > 0.0 ? 1.0 : 0.0;                     // step
        case 5:  return tanh_(x);
        case 6:  return x > 0.0 ? x : expm1_(x);                 // elu
        case 7:  return max(x, 0.0);                             // relu
        case 8:  return sigmoid(x);
        case 9:  return gelu_tanh(x);
        case 10: return x * sigmoid(1.702 * x);                  // gelu_quick
        case 11: return x * sigmoid(x);                          // silu
        case 12: return x * min(1.0, max(0.0, (x + 3.0) / 6.0)); // hardswish
        case 13: return min(1.0, max(0.0, (x + 3.0) / 6.0));     // hardsigmoid
        case 14: return exp(x);
        case 15: return expm1_(x);
        case 16: return x > 20.0 ? x : log(1.0 + exp(x));        // softplus
        case 17: return 0.5 * x * (1.0 + erf_(x * 0.70710678118654752440)); // gelu_erf
        case 18: // xielu: f = {alpha_n, alpha_p, beta, eps}
            return x > 0.0 ? p.f.y * x * x + p.f.z * x : p.f.x * (expm1_(min(x, p.f.w)) - x) + p.f.z * x;
        case 19: return floor(x);
        case 20: return ceil(x);
        case 21: return sign(x) * floor(abs(x) + 0.5);           // round half away from zero
        case 22: return trunc(x);
        case 30: return x * p.f.x + p.f.y;                       // scale
        case 31: return min(max(x, p.f.x), p.f.y);               // clamp
        case 32: return x * x;
        case 33: return sqrt(x);
        case 34: return log(x);
        case 35: return sin(x);
        case 36: return cos(x);
        case 37: return x > 0.0 ? x : p.f.x * x;                 // leaky_relu
        default: return 0.0;
    }
}

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uvec4 cs = unravel(i, p.ne_s);
    const uvec4 cd = unravel(i, p.ne_d);
    const float x  = LOAD(s, TS, p.off_s + cs.x * p.nb_s.x + cs.y * p.nb_s.y + cs.z * p.nb_s.z + cs.w * p.nb_s.w);
    const uint  di = p.off_d + cd.x * p.nb_d.x + cd.y * p.nb_d.y + cd.z * p.nb_d.z + cd.w * p.nb_d.w;
    STORE(d, TD, di, apply(x))
}
