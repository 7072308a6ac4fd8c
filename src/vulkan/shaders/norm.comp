#version 450
// NORM, RMS_NORM and L2_NORM over rows of f32, one workgroup per row (two passes for NORM: mean, then variance).
// With FUSE_MUL the normalised row is also multiplied by a broadcast f32 weight into m (RMS_NORM followed by MUL
// in one dispatch; d is still written).
#include "common.glsl"

layout(constant_id = 1) const uint OP = 0; // 0 norm, 1 rms_norm, 2 l2_norm
layout(constant_id = 2) const uint FUSE_MUL = 0;

layout(binding = 0) readonly buffer S { float s[]; };
layout(binding = 1) buffer D { float d[]; };
layout(binding = 2) readonly buffer W { float w[]; }; // FUSE_MUL only
layout(binding = 3) buffer M { float m[]; };          // FUSE_MUL only

layout(push_constant) uniform Params {
    uvec4 ne;   // of the source and destination
    uvec4 nb_s; // strides in elements
    uvec4 nb_d;
    uint  off_s, off_d, n_rows;
    float eps;
    uvec4 ne_w; // FUSE_MUL: the weight, repeated over the rows
    uvec4 nb_w;
    uvec4 nb_m;
    uint  off_w, off_m;
} p;

shared float partial[256];

float reduce_sum(float v) {
    const uint t = gl_LocalInvocationID.x;
    partial[t]   = v;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            partial[t] += partial[t + s];
        }
        barrier();
    }
    const float r = partial[0];
    barrier();
    return r;
}

void main() {
    const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= p.n_rows) {
        return;
    }
    const uint i1 = row % p.ne.y, i2 = (row / p.ne.y) % p.ne.z, i3 = row / (p.ne.y * p.ne.z);
    const uint base_s = p.off_s + i1 * p.nb_s.y + i2 * p.nb_s.z + i3 * p.nb_s.w;
    const uint base_d = p.off_d + i1 * p.nb_d.y + i2 * p.nb_d.z + i3 * p.nb_d.w;
    const uint n      = p.ne.x;

    float sum = 0.0, sq = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
        const float v = s[base_s + i * p.nb_s.x];
        sum += v;
        sq += v * v;
    }
    float shift = 0.0, scale;
    if (OP == 0) {
        shift = reduce_sum(sum) / float(n);
        float var = 0.0;
        for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
            const float v = s[base_s + i * p.nb_s.x] - shift;
            var += v * v;
        }
        scale = inversesqrt(reduce_sum(var) / float(n) + p.eps);
    } else if (OP == 1) {
        scale = inversesqrt(reduce_sum(sq) / float(n) + p.eps);
    } else {
        scale = 1.0 / max(sqrt(reduce_sum(sq)), p.eps);
    }
    uint base_w = 0, base_m = 0;
    if (FUSE_MUL != 0) {
        base_w = p.off_w + (i1 % p.ne_w.y) * p.nb_w.y + (i2 % p.ne_w.z) * p.nb_w.z + (i3 % p.ne_w.w) * p.nb_w.w;
        base_m = p.off_m + i1 * p.nb_m.y + i2 * p.nb_m.z + i3 * p.nb_m.w;
    }
    for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
        const float v = (s[base_s + i * p.nb_s.x] - shift) * scale;
        d[base_d + i * p.nb_d.x] = v;
        if (FUSE_MUL != 0) {
            m[base_m + i * p.nb_m.x] = v * w[base_w + (i % p.ne_w.x) * p.nb_w.x];
        }
    }
}
