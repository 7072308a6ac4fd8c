// MUL_MAT_ID's pairs grouped by expert (expert_pairs.h).
#include "cpu/kernels/mul_mat/expert_pairs.h"

#include "cpu/kernels/common.h"

#include <algorithm>

namespace switchyard::cpu::kernels {

size_t expert_groups_bytes(const ggml_tensor * dst) {
    const ggml_tensor * ids = dst->src[2];
    return scratch_align(static_cast<size_t>(dst->src[0]->ne[2] + 2 + ids->ne[0] * ids->ne[1]) * sizeof(int32_t));
}

bool group_expert_pairs(const ComputeParams & p, const ggml_tensor * as, const ggml_tensor * ids, int32_t * offset,
                        int32_t * pairs) {
    const int64_t n_expert = as->ne[2], n_used = ids->ne[0], n_pairs = ids->ne[0] * ids->ne[1];
    auto          id_of    = [&](int64_t pair) {
        return *reinterpret_cast<const int32_t *>(static_cast<const char *>(ids->data) + (pair % n_used) * ids->nb[0] +
                                                  (pair / n_used) * ids->nb[1]);
    };
    std::fill(offset, offset + n_expert + 2, 0);
    for (int64_t pair = 0; pair < n_pairs; ++pair) {
        const int32_t expert = id_of(pair);
        if (!index_in_range(expert, n_expert)) {
            if (p.ith == 0) { // every thread finds it: one reports
                report_data_error(p, "expert id %d out of range [0, %lld) at (%lld, %lld) of src2 '%s'", expert,
                                  static_cast<long long>(n_expert), static_cast<long long>(pair % n_used),
                                  static_cast<long long>(pair / n_used), ids->name);
            }
            return false;
        }
        ++offset[expert + 2];
    }
    for (int64_t x = 2; x < n_expert + 2; ++x) {
        offset[x] += offset[x - 1];
    }
    // offset[x + 1] is x's start here; filling moves it to x's end, which is x + 1's start
    for (int64_t pair = 0; pair < n_pairs; ++pair) {
        pairs[offset[id_of(pair) + 1]++] = static_cast<int32_t>(pair);
    }
    return true;
}

} // namespace switchyard::cpu::kernels
