// Op cases of the training batch (issue 16): the gradient ops (SILU_BACK, RMS_NORM_BACK, SOFT_MAX_BACK,
// REPEAT_BACK, GET_ROWS_BACK, ROPE_BACK, FLASH_ATTN_BACK), the multi-section rope modes (MROPE, IMROPE, VISION), the loss
// CROSS_ENTROPY_LOSS(_BACK) and the optimizer steps. Appended to the shared list by op_cases.cpp.
#include "conformance/op_cases.h"

#include <string>

namespace switchyard::testing {

namespace {

using B = CaseBuilder;

void add_backward(std::vector<OpCase> & cases) {
    cases.push_back({"SILU_BACK(ne=[10,5,3,2])", GGML_OP_SILU_BACK, [](B & b) {
                         return ggml_silu_back(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 3, 2), b.input(GGML_TYPE_F32, 10, 5, 3, 2));
                     }});
    cases.push_back({"RMS_NORM_BACK(ne=[33,5,3,1],eps=1e-5)", GGML_OP_RMS_NORM_BACK, [](B & b) {
                         return ggml_rms_norm_back(b.ctx(), b.input(GGML_TYPE_F32, 33, 5, 3), b.input(GGML_TYPE_F32, 33, 5, 3), 1e-5f);
                     }});
    for (int inplace = 0; inplace < 2; ++inplace) {
        cases.push_back({std::string("SOFT_MAX_BACK(scale=0.7,ne=[17,6,3,1]") + (inplace ? ",inplace)" : ")"), GGML_OP_SOFT_MAX_BACK,
                         [inplace](B & b) {
                             ggml_tensor * dy = b.input(GGML_TYPE_F32, 17, 6, 3);
                             ggml_tensor * y  = ggml_soft_max_ext(b.ctx(), b.input(GGML_TYPE_F32, 17, 6, 3), nullptr, 0.7f, 0.0f);
                             return inplace ? ggml_soft_max_ext_back_inplace(b.ctx(), dy, y, 0.7f, 0.0f)
                                            : ggml_soft_max_ext_back(b.ctx(), dy, y, 0.7f, 0.0f);
                         }});
    }
    cases.push_back({"REPEAT_BACK([12,6,4,2]->[4,3,2,1])", GGML_OP_REPEAT_BACK, [](B & b) {
                         return ggml_repeat_back(b.ctx(), b.input(GGML_TYPE_F32, 12, 6, 4, 2), b.input(GGML_TYPE_F32, 4, 3, 2, 1));
                     }, 1e-10});
    cases.push_back({"REPEAT_BACK([12,6,4,2]->[12,1,4,1])", GGML_OP_REPEAT_BACK, [](B & b) {
                         return ggml_repeat_back(b.ctx(), b.input(GGML_TYPE_F32, 12, 6, 4, 2), b.input(GGML_TYPE_F32, 12, 1, 4, 1));
                     }, 1e-10});
    cases.push_back({"GET_ROWS_BACK(n_embd=8,rows=10->6)", GGML_OP_GET_ROWS_BACK, [](B & b) {
                         ggml_tensor * idx = b.input(GGML_TYPE_I32, 10, 1, 1, 1, InputKind::Indices, 6);
                         return ggml_get_rows_back(b.ctx(), b.input(GGML_TYPE_F32, 8, 10), idx, b.input(GGML_TYPE_F32, 8, 6));
                     }, 1e-10});
    // upstream's test-backend-ops case: a view of the first half of the indices (the gradient's later rows unused)
    cases.push_back({"GET_ROWS_BACK(n_embd=8,rows=10->6,view of 5 indices)", GGML_OP_GET_ROWS_BACK, [](B & b) {
                         ggml_tensor * idx = b.input(GGML_TYPE_I32, 10, 1, 1, 1, InputKind::Indices, 6);
                         return ggml_get_rows_back(b.ctx(), b.input(GGML_TYPE_F32, 8, 10), ggml_view_1d(b.ctx(), idx, 5, 0),
                                                   b.input(GGML_TYPE_F32, 8, 6));
                     }, 1e-10});
}

void add_attention_back(std::vector<OpCase> & cases) {
    struct Shape { int64_t D, N, M, n_head, n_head_kv, ne3; };
    const Shape shapes[] = {{8, 5, 7, 4, 2, 2}, {16, 6, 6, 3, 3, 1}, {4, 1, 9, 2, 1, 1}};
    for (const Shape & sh : shapes) {
        for (int masked = 0; masked < 2; ++masked) {
            const std::string name = "FLASH_ATTN_BACK(D=" + std::to_string(sh.D) + ",N=" + std::to_string(sh.N) +
                                     ",M=" + std::to_string(sh.M) + ",heads=" + std::to_string(sh.n_head) + "/" +
                                     std::to_string(sh.n_head_kv) + ",ne3=" + std::to_string(sh.ne3) +
                                     ",masked=" + std::to_string(masked) + ")";
            cases.push_back({name, GGML_OP_FLASH_ATTN_BACK, [sh, masked](B & b) {
                                 ggml_tensor * q = b.input(GGML_TYPE_F32, sh.D, sh.N, sh.n_head, sh.ne3);
                                 ggml_tensor * k = b.input(GGML_TYPE_F32, sh.D, sh.M, sh.n_head_kv, sh.ne3);
                                 ggml_tensor * v = b.input(GGML_TYPE_F32, sh.M, sh.D, sh.n_head_kv, sh.ne3);
                                 ggml_tensor * d = b.input(GGML_TYPE_F32, sh.D, sh.N, sh.n_head, sh.ne3);
                                 return ggml_flash_attn_back(b.ctx(), q, k, v, d, masked != 0);
                             }, 1e-9});
        }
    }
    // q, k and d as strided views (rows apart; a permuted q whose heads are interleaved with its rows)
    cases.push_back({"FLASH_ATTN_BACK(D=8,N=4,M=6,heads=2/2,strided,masked=1)", GGML_OP_FLASH_ATTN_BACK, [](B & b) {
                         ggml_tensor * q = ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, 8, 2, 4), 0, 2, 1, 3);
                         ggml_tensor * k = ggml_view_3d(b.ctx(), b.input(GGML_TYPE_F32, 10, 6, 2), 8, 6, 2, 40, 240, 0);
                         ggml_tensor * v = b.input(GGML_TYPE_F32, 6, 8, 2);
                         ggml_tensor * d = ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, 8, 2, 4), 0, 2, 1, 3);
                         return ggml_flash_attn_back(b.ctx(), q, k, v, d, true);
                     }, 1e-9});
}

void add_rope(std::vector<OpCase> & cases) {
    for (int mode : {GGML_ROPE_TYPE_NORMAL, GGML_ROPE_TYPE_NEOX}) {
        cases.push_back({"ROPE_BACK(mode=" + std::to_string(mode) + ",n_dims=24,ext=1,ff)", GGML_OP_ROPE_BACK, [mode](B & b) {
                             ggml_tensor * pos = b.input(GGML_TYPE_I32, 6, 1, 1, 1, InputKind::Indices, 100);
                             ggml_tensor * ff  = b.input(GGML_TYPE_F32, 12, 1, 1, 1, InputKind::Positive);
                             return ggml_rope_ext_back(b.ctx(), b.input(GGML_TYPE_F32, 32, 4, 6), pos, ff, 24, mode, 512, 10000.0f,
                                                       0.25f, 1.0f, 1.0f, 32.0f, 1.0f);
                         }, 1e-8});
    }
    struct Multi { int mode; int n_dims; int sections[4]; };
    const Multi multis[] = {{GGML_ROPE_TYPE_MROPE, 32, {4, 6, 6, 0}},
                            {GGML_ROPE_TYPE_IMROPE, 24, {4, 4, 3, 1}},
                            {GGML_ROPE_TYPE_VISION, 32, {8, 8, 0, 0}}};
    for (const Multi & m : multis) {
        for (int back = 0; back < 2; ++back) {
            for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16}) {
                if (back && t == GGML_TYPE_F16) {
                    continue;
                }
                const std::string name = std::string(back ? "ROPE_BACK" : "ROPE") + "(multi,mode=" + std::to_string(m.mode) +
                                         ",n_dims=" + std::to_string(m.n_dims) + ",type=" + ggml_type_name(t) + ")";
                cases.push_back({name, back ? GGML_OP_ROPE_BACK : GGML_OP_ROPE, [m, back, t](B & b) {
                                     ggml_tensor * a   = b.input(t, 64, 3, 5);
                                     ggml_tensor * pos = b.input(GGML_TYPE_I32, 20, 1, 1, 1, InputKind::Indices, 50);
                                     int           s[4] = {m.sections[0], m.sections[1], m.sections[2], m.sections[3]};
                                     return back ? ggml_rope_multi_back(b.ctx(), a, pos, nullptr, m.n_dims, s, m.mode, 512, 10000.0f,
                                                                        1.0f, 0.0f, 1.0f, 32.0f, 1.0f)
                                                 : ggml_rope_multi(b.ctx(), a, pos, nullptr, m.n_dims, s, m.mode, 512, 10000.0f,
                                                                   1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
                                 }, t == GGML_TYPE_F16 ? 1e-5 : 1e-8});
            }
        }
    }
}

void add_loss_and_steps(std::vector<OpCase> & cases) {
    cases.push_back({"CROSS_ENTROPY_LOSS(ne=[10,7,2,1])", GGML_OP_CROSS_ENTROPY_LOSS, [](B & b) {
                         ggml_tensor * labels = ggml_soft_max(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 2));
                         return ggml_cross_entropy_loss(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 2), labels);
                     }, 1e-10});
    cases.push_back({"CROSS_ENTROPY_LOSS_BACK(ne=[10,7,2,1])", GGML_OP_CROSS_ENTROPY_LOSS_BACK, [](B & b) {
                         ggml_tensor * labels = ggml_soft_max(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 2));
                         return ggml_cross_entropy_loss_back(b.ctx(), b.input(GGML_TYPE_F32, 1), b.input(GGML_TYPE_F32, 10, 7, 2), labels);
                     }, 1e-10});
    cases.push_back({"OPT_STEP_ADAMW(ne=[9,4,3,1])", GGML_OP_OPT_STEP_ADAMW, [](B & b) {
                         ggml_tensor * w = b.input(GGML_TYPE_F32, 9, 4, 3);
                         ggml_set_param(w);
                         ggml_tensor * g = b.input(GGML_TYPE_F32, 9, 4, 3);
                         ggml_tensor * m = b.input(GGML_TYPE_F32, 9, 4, 3);
                         ggml_tensor * v = b.input(GGML_TYPE_F32, 9, 4, 3, 1, InputKind::Positive);
                         // alpha, beta1, beta2, eps, wd, beta1h, beta2h all in [0.04, 0.8]
                         ggml_tensor * params = ggml_scale(b.ctx(), b.input(GGML_TYPE_F32, 7, 1, 1, 1, InputKind::Positive), 0.4f);
                         return ggml_opt_step_adamw(b.ctx(), w, g, m, v, params);
                     }, 1e-10});
    cases.push_back({"OPT_STEP_SGD(ne=[9,4,3,1])", GGML_OP_OPT_STEP_SGD, [](B & b) {
                         ggml_tensor * w = b.input(GGML_TYPE_F32, 9, 4, 3);
                         ggml_set_param(w);
                         ggml_tensor * params = ggml_scale(b.ctx(), b.input(GGML_TYPE_F32, 2, 1, 1, 1, InputKind::Positive), 0.1f);
                         return ggml_opt_step_sgd(b.ctx(), w, b.input(GGML_TYPE_F32, 9, 4, 3), params);
                     }, 1e-10});
}

} // namespace

void add_train_cases(std::vector<OpCase> & cases) {
    add_backward(cases);
    add_attention_back(cases);
    add_rope(cases);
    add_loss_and_steps(cases);
}

} // namespace switchyard::testing
