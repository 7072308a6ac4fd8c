// The dot product of one weight row with one activation column, by a whole workgroup: each invocation takes
// chunks of the row (whole blocks of up to 32 elements, 32-element eighths of the K-quants' 256), then the group
// reduces (the result is valid in invocation 0). The including shader declares the bindings w8 (weights, bytes),
// b (TYPED_BUFFER activations) and excess (the Q8_1 excess terms), the constants TW, TB, HAS_EXCESS, and includes
// dequant.glsl first.
shared float partial[256];

// row: the weight row's first byte; col, nb_b0: the column's first element and element stride in b;
// first_excess: the index in excess of the column's first block (used with HAS_EXCESS only)
float row_dot(uint K, uint row, uint col, uint nb_b0, uint first_excess) {
    const uint be     = block_elements(TW), bb = block_bytes(TW);
    const uint ce     = min(be, 32u); // elements per chunk
    const uint nchunk = K / ce;
    float      acc    = 0.0;
    for (uint c = gl_LocalInvocationID.x; c < nchunk; c += gl_WorkGroupSize.x) {
        const uint e0  = c * ce;
        const uint blk = row + (e0 / be) * bb, j0 = e0 % be;
        for (uint j = 0; j < ce; ++j) {
            acc += dequant(TW, blk, j0 + j) * LOAD(b, TB, col + (e0 + j) * nb_b0);
        }
        if (HAS_EXCESS != 0) { // Q4_1 / Q5_1: a chunk is a block
            acc += wf16(blk + 2u) * excess[first_excess + c];
        }
    }
    const uint t = gl_LocalInvocationID.x;
    partial[t]   = acc;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            partial[t] += partial[t + s];
        }
        barrier();
    }
    return partial[0];
}
