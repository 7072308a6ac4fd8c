// Matrix products: MUL_MAT, MUL_MAT_ID (one matrix per expert, picked by ids) and OUT_PROD. Results are F32.
//
// MUL_MAT:    a [K, N, ne02, ne03], b [K, M, ne12, ne13], ne12 % ne02 == 0, ne13 % ne03 == 0, a not transposed
//             -> [N, M, ne12, ne13]. op_params[0] = ggml_prec (0 = default) via ggml_mul_mat_set_prec,
//             op_params[1] = ggml_op_hint (0 = none) via ggml_mul_mat_set_hint (a hint only: same results),
//             op_params[3] = the lowest ggml_prec src[1] may be converted to (ggml_prec_set_src; recorded only).
// MUL_MAT_ID: as [K, N, n_expert], b [K, n_b, n_tokens], ids I32 [n_used, n_tokens], n_used % n_b == 0
//             -> [N, n_used, n_tokens].
// OUT_PROD:   a [M, K, ne02, ne03], b [P, K, ne12, ne13], ne12 % ne02 == 0, ne13 % ne03 == 0 -> [M, P, ne12, ne13].
#include "core/ops/op_common.h"

#include "base/abort.h"
#include "base/log.h"

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_mul_mat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    const char * name = "ggml_mul_mat";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(a->ne[0] == b->ne[0], name, "a %s and b %s differ in the shared dimension ne[0]", shape(a),
                shape(b));
    shape_check(divisible(b->ne[2], a->ne[2]) && divisible(b->ne[3], a->ne[3]), name,
                "a %s cannot be broadcast over dims 2 and 3 of b %s", shape(a), shape(b));
    shape_check(!ggml_is_transposed(a), name, "a %s must not be transposed (nb[0] = %zu > nb[1] = %zu)",
                shape(a), a->nb[0], a->nb[1]);
    const Ne ne = {a->ne[1], b->ne[1], b->ne[2], b->ne[3]};
    return set_op(new_result(ctx, GGML_TYPE_F32, ne, name), GGML_OP_MUL_MAT, {a, b});
}

void ggml_mul_mat_set_prec(struct ggml_tensor * a, enum ggml_prec prec) {
    if (!a) {
        log_error("[ggml_mul_mat_set_prec] tensor is NULL (an earlier constructor failed)\n");
        return;
    }
    if (a->op != GGML_OP_MUL_MAT) {
        fatal("[ggml_mul_mat_set_prec] tensor '%s' has op %s, not MUL_MAT", a->name, ggml_op_name(a->op));
    }
    set_op_param_i32(a, 0, static_cast<int32_t>(prec));
}

// ggml 0.25.1's precision setters (include/ggml.h): they only record what the program allows; our kernels
// accumulate in f32 whatever is set, which every allowed precision admits.
bool ggml_prec_set_acc(struct ggml_tensor * a, enum ggml_prec prec) {
    if (!a) {
        log_error("[ggml_prec_set_acc] tensor is NULL (an earlier constructor failed)\n");
        return false;
    }
    switch (a->op) {
        case GGML_OP_MUL_MAT:
        case GGML_OP_MUL_MAT_ID:      set_op_param_i32(a, 0, static_cast<int32_t>(prec)); return true;
        case GGML_OP_FLASH_ATTN_EXT: set_op_param_i32(a, 3, static_cast<int32_t>(prec)); return true;
        default:                     return false;
    }
}

bool ggml_prec_set_src(struct ggml_tensor * a, enum ggml_prec prec, int idx) {
    if (idx < 0 || idx >= GGML_MAX_SRC) {
        fatal("[ggml_prec_set_src] source index %d outside [0, %d)", idx, GGML_MAX_SRC);
    }
    if (!a) {
        log_error("[ggml_prec_set_src] tensor is NULL (an earlier constructor failed)\n");
        return false;
    }
    if ((a->op != GGML_OP_MUL_MAT && a->op != GGML_OP_MUL_MAT_ID) || idx != 1) {
        return false;
    }
    set_op_param_i32(a, 2 + idx, static_cast<int32_t>(prec));
    return true;
}

void ggml_mul_mat_set_hint(struct ggml_tensor * a, enum ggml_op_hint hint) {
    if (!a) {
        log_error("[ggml_mul_mat_set_hint] tensor is NULL (an earlier constructor failed)\n");
        return;
    }
    if (a->op != GGML_OP_MUL_MAT) {
        fatal("[ggml_mul_mat_set_hint] tensor '%s' has op %s, not MUL_MAT", a->name, ggml_op_name(a->op));
    }
    set_op_param_i32(a, 1, static_cast<int32_t>(hint));
}

struct ggml_tensor * ggml_mul_mat_id(struct ggml_context * ctx, struct ggml_tensor * as, struct ggml_tensor * b,
                                     struct ggml_tensor * ids) {
    const char * name = "ggml_mul_mat_id";
    if (!inputs_ok(name, {as, b, ids})) {
        return nullptr;
    }
    shape_check(!ggml_is_transposed(as), name, "as %s must not be transposed", shape(as));
    shape_check(ids->type == GGML_TYPE_I32, name, "ids %s must be i32", shape(ids));
    shape_check(as->ne[3] == 1 && b->ne[3] == 1, name, "as %s and b %s must be 3-d", shape(as), shape(b));
    shape_check(ids->ne[2] == 1 && ids->ne[3] == 1, name, "ids %s must be 2-d", shape(ids));
    shape_check(ids->ne[1] == b->ne[2], name, "ids %s needs one expert list per token of b %s", shape(ids),
                shape(b));
    shape_check(as->ne[0] == b->ne[0], name, "as %s and b %s differ in the shared dimension ne[0]", shape(as),
                shape(b));
    shape_check(divisible(ids->ne[0], b->ne[1]), name, "b %s cannot be broadcast to the %lld experts of ids %s",
                shape(b), static_cast<long long>(ids->ne[0]), shape(ids));
    const Ne ne = {as->ne[1], ids->ne[0], b->ne[2], 1};
    return set_op(new_result(ctx, GGML_TYPE_F32, ne, name), GGML_OP_MUL_MAT_ID, {as, b, ids});
}

struct ggml_tensor * ggml_out_prod(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    const char * name = "ggml_out_prod";
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    shape_check(a->ne[1] == b->ne[1], name, "a %s and b %s differ in the shared dimension ne[1]", shape(a),
                shape(b));
    shape_check(divisible(b->ne[2], a->ne[2]) && divisible(b->ne[3], a->ne[3]), name,
                "a %s cannot be broadcast over dims 2 and 3 of b %s", shape(a), shape(b));
    shape_check(!ggml_is_transposed(a), name, "a %s must not be transposed", shape(a));
    const Ne ne = {a->ne[0], b->ne[0], b->ne[2], b->ne[3]};
    return set_op(new_result(ctx, GGML_TYPE_F32, ne, name), GGML_OP_OUT_PROD, {a, b});
}

} // extern "C"
