#version 450
// NORM, RMS_NORM and L2_NORM over rows of f32, one workgroup per row (two passes for NORM: mean, then variance).
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0; // 0 norm, 1 rms_norm, 2 l2_norm

layout(binding = 0) readonly buffer S { float s[]; };
layout(binding = 1) buffer D { float d[]; };

layout(push_constant) uniform Params {
    uvec4 ne;   // of the source and destination
    uvec4 nb_s; // strides in elements
    uvec4 nb_d;
    uint  off_s, off_d, n_rows;
    float eps;
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
    for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
        d[base_d + i * p.nb_d.x] = (s[base_s + i * p.nb_s.x] - shift) * scale;
    }
}
