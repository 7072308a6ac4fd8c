#version 450
// GET_ROWS: dst[i0, r, i2, i3] = src[i0, idx[r, i2, i3], i2, i3] for float and block-quantized sources, into
// f32. One invocation per output element. The binding holds the source's rows [first_row, first_row + n_rows);
// outputs whose row lies outside are left to the dispatches of the other windows.
#include "common.glsl"

layout(constant_id = 1) const uint TS = 0; // dequant.glsl type code

layout(binding = 0) readonly buffer W { uint8_t w8[]; };
layout(binding = 1) readonly buffer I { int idx[]; };
layout(binding = 2) buffer D { float d[]; };

#include "dequant.glsl"

layout(push_constant) uniform Params {
    uvec4 ne;   // of d
    uvec4 nb_s; // bytes; .x unused
    uvec4 nb_i; // elements; .w unused
    uvec4 nb_d; // elements
    uint  off_s, off_i, off_d, n;
    uint  i64_idx; // indices are int64 (read the low word)
    uint  first_row, n_rows;
} p;

void main() {
    const uint i = flat_index();
    if (i >= p.n) {
        return;
    }
    const uvec4 c   = unravel(i, p.ne);
    const uint  ii  = p.off_i + (c.y * p.nb_i.x + c.z * p.nb_i.y + c.w * p.nb_i.z) * (p.i64_idx != 0 ? 2u : 1u);
    const uint  row = uint(idx[ii]) - p.first_row;
    if (row >= p.n_rows) {
        return;
    }
    const uint  be  = block_elements(TS);
    const uint  blk = p.off_s + row * p.nb_s.y + c.z * p.nb_s.z + c.w * p.nb_s.w + (c.x / be) * block_bytes(TS);
    d[p.off_d + c.x * p.nb_d.x + c.y * p.nb_d.y + c.z * p.nb_d.z + c.w * p.nb_d.w] = dequant(TS, blk, c.x % be);
}
