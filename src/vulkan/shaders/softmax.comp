#version 450
// SOFT_MAX over rows of f32: x * scale + slope * mask (f32 or f16 mask, broadcast over dims 2 and 3; ALiBi slope
// per head i2), with an optional per-head sink logit that joins the normalisation. One workgroup per row.
#include "common.glsl"

layout(constant_id = 1) const uint TM = 0; // mask type

layout(binding = 0) readonly buffer A { float a[]; };
TYPED_BUFFER(1, m, readonly)
layout(binding = 2) readonly buffer Sinks { float sinks[]; };
layout(binding = 3) buffer D { float d[]; };

layout(push_constant) uniform Params {
    uvec4 ne;   // of a and d
    uvec4 nb_a; // strides in elements
    uvec4 ne_m;
    uvec4 nb_m;
    uvec4 nb_d;
    uint  off_a, off_m, off_sinks, off_d;
    float scale, m0, m1;
    uint  n_log2;
    uint  has_mask, has_sinks;
} p;

shared float partial[256];

float reduce(float v, bool is_max) {
    const uint t = gl_LocalInvocationID.x;
    partial[t]   = v;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            partial[t] = is_max ? max(partial[t], partial[t + s]) : partial[t] + partial[t + s];
        }
        barrier();
    }
    const float r = partial[0];
    barrier();
    return r;
}

void main() {
    const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= p.ne.y * p.ne.z * p.ne.w) {
        return;
    }
    const uint i1 = row % p.ne.y, i2 = (row / p.ne.y) % p.ne.z, i3 = row / (p.ne.y * p.ne.z);
    const uint base_a = p.off_a + i1 * p.nb_a.y + i2 * p.nb_a.z + i3 * p.nb_a.w;
    const uint base_d = p.off_d + i1 * p.nb_d.y + i2 * p.nb_d.z + i3 * p.nb_d.w;
    const uint base_m = p.off_m + i1 * p.nb_m.y + (i2 % p.ne_m.z) * p.nb_m.z + (i3 % p.ne_m.w) * p.nb_m.w;
    const float slope = p.m0 == 0.0 ? 1.0 : (i2 < p.n_log2 ? pow(p.m0, float(i2 + 1)) : pow(p.m1, float(2 * (i2 - p.n_log2) + 1)));
    const uint  n     = p.ne.x;

    float mx = -1.0 / 0.0;
    for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
        float v = a[base_a + i * p.nb_a.x] * p.scale;
        if (p.has_mask != 0) {
            v += slope * LOAD(m, TM, base_m + i * p.nb_m.x);
        }
        d[base_d + i * p.nb_d.x] = v;
        mx = max(mx, v);
    }
    mx = reduce(mx, true);
    const float sink = p.has_sinks != 0 ? sinks[p.off_sinks + i2] : 0.0;
    if (p.has_sinks != 0) {
        mx = max(mx, sink);
    }
    float sum = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
        const float v = d[base_d + i * p.nb_d.x];
        const float e = isinf(v) && v < 0.0 ? 0.0 : exp(v - mx);
        d[base_d + i * p.nb_d.x] = e;
        sum += e;
    }
    sum = reduce(sum, false);
    if (p.has_sinks != 0) {
        sum += exp(sink - mx);
    }
    const float inv = sum > 0.0 ? 1.0 / sum : 0.0;
    for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
        d[base_d + i * p.nb_d.x] *= inv;
    }
}
