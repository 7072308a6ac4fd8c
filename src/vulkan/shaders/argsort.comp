#version 450
// ARGSORT and TOP_K: one workgroup per row, a bitonic sort of (value, index) pairs in shared memory. The row is
// padded to a power of two (at most kMaxRow) with entries that sort after every real one. The order is total and
// matches a stable sort: by value (ascending or descending), NaNs after every number, ties in index order. The
// first ne_d0 indices of the sorted row are written (all of them for ARGSORT, k for TOP_K, descending).
#include "common.glsl"

layout(constant_id = 1) const uint TS = 0;

const uint kMaxRow = 1024;

TYPED_BUFFER(0, s, readonly)
layout(binding = 1) buffer D { int d[]; };

layout(push_constant) uniform Params {
    uvec4 ne;   // of the source
    uvec4 nb_s; // strides in elements
    uvec4 nb_d; // strides in elements
    uint  off_s, off_d, n_rows;
    uint  n_pad;      // ne.x rounded up to a power of two
    uint  ne_d0;      // indices written per row
    uint  descending; // 0 ascending, 1 descending
} p;

shared float vals[kMaxRow];
shared uint  idxs[kMaxRow];

// entry a comes before entry b
bool before(uint a, uint b) {
    const uint ia = idxs[a], ib = idxs[b];
    if ((ia >= p.ne.x) != (ib >= p.ne.x)) {
        return ib >= p.ne.x; // padding last
    }
    const float va = vals[a], vb = vals[b];
    const bool  na = isnan(va), nb = isnan(vb);
    if (na != nb) {
        return nb;
    }
    if (!na && va != vb) {
        return p.descending != 0 ? va > vb : va < vb;
    }
    return ia < ib;
}

void main() {
    const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= p.n_rows) {
        return;
    }
    const uint i1 = row % p.ne.y, i2 = (row / p.ne.y) % p.ne.z, i3 = row / (p.ne.y * p.ne.z);
    const uint base_s = p.off_s + i1 * p.nb_s.y + i2 * p.nb_s.z + i3 * p.nb_s.w;
    const uint base_d = p.off_d + i1 * p.nb_d.y + i2 * p.nb_d.z + i3 * p.nb_d.w;
    const uint wg     = gl_WorkGroupSize.x;

    for (uint i = gl_LocalInvocationID.x; i < p.n_pad; i += wg) {
        idxs[i] = i;
        vals[i] = i < p.ne.x ? LOAD(s, TS, base_s + i * p.nb_s.x) : 0.0;
    }
    barrier();
    for (uint k = 2; k <= p.n_pad; k <<= 1) {
        for (uint j = k >> 1; j > 0; j >>= 1) {
            for (uint i = gl_LocalInvocationID.x; i < p.n_pad; i += wg) {
                const uint l = i ^ j;
                if (l > i) {
                    const bool up = (i & k) == 0;
                    if (up ? before(l, i) : before(i, l)) {
                        const float v = vals[i];
                        const uint  x = idxs[i];
                        vals[i]       = vals[l];
                        idxs[i]       = idxs[l];
                        vals[l]       = v;
                        idxs[l]       = x;
                    }
                }
            }
            barrier();
        }
    }
    for (uint i = gl_LocalInvocationID.x; i < p.ne_d0; i += wg) {
        d[base_d + i * p.nb_d.x] = int(idxs[i]);
    }
}
