// MUL_MAT_ID's (expert slot e, token t) pairs grouped by expert, for the kernels that multiply each expert's pairs
// together (vec.h, and repack/mul_mat.h for repacked experts): each expert's rows are then read once per node rather
// than once per pair.
#pragma once

#include "cpu/kernel.h"

#include <cstddef>
#include <cstdint>

namespace switchyard::cpu::kernels {

// Bytes of the groups of MUL_MAT_ID dst: n_expert + 2 offsets, then every pair's index.
size_t expert_groups_bytes(const ggml_tensor * dst);

// The pairs (index e + t * n_used, ids [n_used, n_tokens]) grouped by expert in pair order (a counting sort):
// expert x's are pairs[offset[x] .. offset[x + 1]); offset has n_expert + 2 entries (as: [k, m, n_expert]). False
// when an id is out of range: thread 0 reports it (report_data_error), every thread returns false.
bool group_expert_pairs(const ComputeParams & p, const ggml_tensor * as, const ggml_tensor * ids, int32_t * offset,
                        int32_t * pairs);

// A pair's input, src1 row (slot % n_b, token), and the dst column (slot, token) its result goes to.
struct PairRow {
    int64_t i11, i12;
};
inline PairRow pair_input(const ggml_tensor * dst, int64_t pair) {
    const int64_t n_used = dst->src[2]->ne[0];
    return {(pair % n_used) % dst->src[1]->ne[1], pair / n_used};
}
inline float * pair_output(ggml_tensor * dst, int64_t pair) {
    const int64_t n_used = dst->src[2]->ne[0];
    return reinterpret_cast<float *>(static_cast<char *>(dst->data) + (pair % n_used) * dst->nb[1] +
                                     (pair / n_used) * dst->nb[2]);
}

} // namespace switchyard::cpu::kernels
