#include "cpu_repack.h"

#include <array>
#include <cstring>

namespace switchyard::run {

namespace {

constexpr const char * kRepackName = "CPU_REPACK";

// The types CPU_REPACK stores repacked (src/cpu/repack/buffer_type.h); in its buffers others are stored plainly,
// and copying them out of the mapping would gain nothing. (f32, f16 and bf16 are repacked where the CPU has their
// tile and does not take them on AMX; elsewhere such a copy is stored plainly and computes as the mapping would.)
bool repacked_type(ggml_type type) {
    constexpr std::array<ggml_type, 25> types = {
        GGML_TYPE_Q4_0,    GGML_TYPE_Q4_1,   GGML_TYPE_Q5_0,  GGML_TYPE_Q5_1,    GGML_TYPE_Q8_0,  GGML_TYPE_Q2_K,
        GGML_TYPE_Q3_K,    GGML_TYPE_Q4_K,   GGML_TYPE_Q5_K,  GGML_TYPE_Q6_K,    GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS,
        GGML_TYPE_MXFP4,   GGML_TYPE_TQ1_0,  GGML_TYPE_TQ2_0, GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S,
        GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S,  GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M,   GGML_TYPE_F32,   GGML_TYPE_F16,
        GGML_TYPE_BF16};
    for (ggml_type t : types) {
        if (t == type) {
            return true;
        }
    }
    return false;
}

} // namespace

ggml_backend_buffer_type_t cpu_repack_buffer_type(ggml_backend_dev_t cpu_dev) {
    ggml_backend_reg_t reg = cpu_dev != nullptr ? ggml_backend_dev_backend_reg(cpu_dev) : nullptr;
    if (reg == nullptr) {
        return nullptr;
    }
    const auto get_extra_bufts = reinterpret_cast<ggml_backend_dev_get_extra_bufts_t>(
        ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts"));
    if (get_extra_bufts == nullptr) {
        return nullptr;
    }
    for (ggml_backend_buffer_type_t * buft = get_extra_bufts(cpu_dev); buft != nullptr && *buft != nullptr; ++buft) {
        if (std::strcmp(ggml_backend_buft_name(*buft), kRepackName) == 0) {
            return *buft;
        }
    }
    return nullptr;
}

bool repacks_for_cpu(ggml_backend_dev_t cpu_dev, ggml_backend_buffer_type_t buft, const ggml_tensor * weight,
                     bool get_rows) {
    if (!repacked_type(weight->type) || weight->ne[2] != 1 || weight->ne[3] != 1 || !ggml_is_contiguous(weight)) {
        return false;
    }
    // the nodes as the graph builds them, on a description of the weight initialised in a buffer of the type
    ggml_context * ctx = ggml_init({5 * ggml_tensor_overhead(), nullptr, true});
    if (ctx == nullptr) {
        return false;
    }
    ggml_backend_buffer_t probe = ggml_backend_buft_alloc_buffer(buft, ggml_backend_buft_get_alignment(buft));
    bool                  ok    = false;
    if (probe != nullptr) {
        ggml_tensor * w = ggml_dup_tensor(ctx, weight);
        ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, weight->ne[0], 1);
        ggml_tensor * y = ggml_mul_mat(ctx, w, x);
        w->buffer       = probe;
        ok = ggml_backend_buffer_init_tensor(probe, w) == GGML_STATUS_SUCCESS && ggml_backend_dev_supports_op(cpu_dev, y);
        if (ok && get_rows) {
            ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
            ok                = ggml_backend_dev_supports_op(cpu_dev, ggml_get_rows(ctx, w, ids));
        }
        ggml_backend_buffer_free(probe);
    }
    ggml_free(ctx);
    return ok;
}

} // namespace switchyard::run
