#include "conformance/op_cases.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace switchyard::testing {

ggml_tensor * CaseBuilder::input(ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3, InputKind kind,
                                 int64_t limit) {
    ggml_tensor * t = ggml_new_tensor_4d(ctx_, type, ne0, ne1, ne2, ne3);
    ggml_format_name(t, "in%zu", inputs_.size());
    inputs_.push_back(InputSpec{t, kind, limit});
    return t;
}

namespace {

using B = CaseBuilder;

std::string shape(int64_t a, int64_t b = 1, int64_t c = 1, int64_t d = 1) {
    const int64_t ne[4] = {a, b, c, d};
    std::string   s;
    for (int i = 0; i < 4; ++i) {
        s += i == 0 ? '[' : ',';
        s += std::to_string(ne[i]);
    }
    s += ']';
    return s;
}

std::string tname(ggml_type t) { return ggml_type_name(t); }

// The float types, then every block-quantized type that has a reference dequantizer, in enum order: a type gains
// its MUL_MAT and GET_ROWS cases by getting its format row (quant/formats.h), with no list here to extend.
std::vector<ggml_type> weight_types() {
    std::vector<ggml_type> types = {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16};
    for (int i = 0; i < GGML_TYPE_COUNT; ++i) {
        const auto t = static_cast<ggml_type>(i);
        if (ggml_is_quantized(t) && ggml_get_type_traits(t)->to_float != nullptr) {
            types.push_back(t);
        }
    }
    return types;
}

void add_binary(std::vector<OpCase> & cases) {
    struct Shapes { int64_t a[4], b[4]; };
    const Shapes shapes[] = {{{10, 5, 4, 3}, {10, 5, 4, 3}}, {{10, 5, 4, 3}, {10, 1, 1, 1}},
                             {{10, 5, 4, 3}, {1, 5, 1, 3}},  {{16, 8, 2, 2}, {16, 8, 1, 2}}};
    const ggml_op ops[] = {GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV};
    for (ggml_op op : ops) {
        for (const Shapes & s : shapes) {
            cases.push_back({std::string(ggml_op_name(op)) + "(type=f32,ne_a=" + shape(s.a[0], s.a[1], s.a[2], s.a[3]) +
                                 ",ne_b=" + shape(s.b[0], s.b[1], s.b[2], s.b[3]) + ")",
                             op, [op, s](B & b) {
                                 ggml_tensor * x = b.input(GGML_TYPE_F32, s.a[0], s.a[1], s.a[2], s.a[3]);
                                 ggml_tensor * y = b.input(GGML_TYPE_F32, s.b[0], s.b[1], s.b[2], s.b[3],
                                                           op == GGML_OP_DIV ? InputKind::Positive : InputKind::Uniform);
                                 switch (op) {
                                     case GGML_OP_ADD: return ggml_add(b.ctx(), x, y);
                                     case GGML_OP_SUB: return ggml_sub(b.ctx(), x, y);
                                     case GGML_OP_MUL: return ggml_mul(b.ctx(), x, y);
                                     default:          return ggml_div(b.ctx(), x, y);
                                 }
                             }});
        }
    }
    cases.push_back({"ADD(type=f32,a=permuted,ne=[16,8,2,2])", GGML_OP_ADD, [](B & b) {
                         ggml_tensor * x = ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, 8, 16, 2, 2), 1, 0, 2, 3);
                         return ggml_add(b.ctx(), x, b.input(GGML_TYPE_F32, 16, 8, 2, 2));
                     }});
    cases.push_back({"ADD(type=f32,inplace)", GGML_OP_ADD, [](B & b) {
                         return ggml_add_inplace(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), b.input(GGML_TYPE_F32, 10, 5));
                     }});
    for (ggml_type t : {GGML_TYPE_F16, GGML_TYPE_BF16}) {
        cases.push_back({"MUL(type=" + tname(t) + ",ne=[10,5,4,3])", GGML_OP_MUL, [t](B & b) {
                             return ggml_mul(b.ctx(), b.input(t, 10, 5, 4, 3), b.input(t, 10, 5, 1, 1));
                         }, 1e-5});
    }
    cases.push_back({"ADD1(type=f32,ne=[10,5,4,3])", GGML_OP_ADD1, [](B & b) {
                         return ggml_add1(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), b.input(GGML_TYPE_F32, 1));
                     }});
    cases.push_back({"ADD_ID(ne=[16,4,3],n_expert=5)", GGML_OP_ADD_ID, [](B & b) {
                         ggml_tensor * a   = b.input(GGML_TYPE_F32, 16, 4, 3);
                         ggml_tensor * bb  = b.input(GGML_TYPE_F32, 16, 5);
                         ggml_tensor * ids = b.input(GGML_TYPE_I32, 4, 3, 1, 1, InputKind::Indices, 5);
                         return ggml_add_id(b.ctx(), a, bb, ids);
                     }});
    cases.push_back({"ACC(ne_a=[10,6,4,3],ne_b=[4,3,2,2])", GGML_OP_ACC, [](B & b) {
                         ggml_tensor * a = b.input(GGML_TYPE_F32, 10, 6, 4, 3);
                         ggml_tensor * x = b.input(GGML_TYPE_F32, 4, 3, 2, 2);
                         return ggml_acc(b.ctx(), a, x, a->nb[1], a->nb[2], a->nb[3], a->nb[1] + 2 * sizeof(float));
                     }});
}

void add_unary(std::vector<OpCase> & cases) {
    using Fn = ggml_tensor * (*) (ggml_context *, ggml_tensor *);
    struct Simple { const char * name; ggml_op op; Fn fn; InputKind kind; };
    const Simple simple[] = {{"SQR", GGML_OP_SQR, ggml_sqr, InputKind::Uniform},     {"SQRT", GGML_OP_SQRT, ggml_sqrt, InputKind::Positive},
                             {"LOG", GGML_OP_LOG, ggml_log, InputKind::Positive},    {"SIN", GGML_OP_SIN, ggml_sin, InputKind::Uniform},
                             {"COS", GGML_OP_COS, ggml_cos, InputKind::Uniform}};
    for (const Simple & s : simple) {
        cases.push_back({std::string(s.name) + "(type=f32,ne=[10,5,4,3])", s.op, [s](B & b) {
                             return s.fn(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3, s.kind));
                         }});
    }
    for (int u = 0; u < GGML_UNARY_OP_COUNT; ++u) {
        const auto op = static_cast<ggml_unary_op>(u);
        if (op == GGML_UNARY_OP_XIELU) {
            continue;
        }
        cases.push_back({std::string("UNARY(") + ggml_unary_op_name(op) + ",type=f32,ne=[32,5,2,1])", GGML_OP_UNARY, [op](B & b) {
                             ggml_tensor * x = b.input(GGML_TYPE_F32, 32, 5, 2);
                             return ggml_unary(b.ctx(), ggml_scale(b.ctx(), x, 3.0f), op);
                         }, 1e-6});
    }
    // the named constructors of the rounding ops and expm1, out of place and in place
    using Named = ggml_tensor * (*) (ggml_context *, ggml_tensor *);
    struct NamedUnary { const char * name; Named fn; };
    const NamedUnary named[] = {{"expm1", ggml_expm1},          {"expm1_inplace", ggml_expm1_inplace},
                                {"floor", ggml_floor},          {"floor_inplace", ggml_floor_inplace},
                                {"ceil", ggml_ceil},            {"ceil_inplace", ggml_ceil_inplace},
                                {"round", ggml_round},          {"round_inplace", ggml_round_inplace},
                                {"trunc", ggml_trunc},          {"trunc_inplace", ggml_trunc_inplace}};
    for (const NamedUnary & u : named) {
        cases.push_back({std::string("UNARY(ggml_") + u.name + ",type=f32,ne=[16,5,2,1])", GGML_OP_UNARY, [u](B & b) {
                             return u.fn(b.ctx(), ggml_scale(b.ctx(), b.input(GGML_TYPE_F32, 16, 5, 2), 2.5f));
                         }, 1e-6});
    }
    cases.push_back({"UNARY(XIELU,alpha_n=0.8,alpha_p=0.8,beta=0.5,eps=-1e-6)", GGML_OP_UNARY, [](B & b) {
                         return ggml_xielu(b.ctx(), ggml_scale(b.ctx(), b.input(GGML_TYPE_F32, 32, 5, 2), 3.0f), 0.8f, 0.8f, 0.5f, -1e-6f);
                     }, 1e-6});
    cases.push_back({"UNARY(SILU,type=f32,permuted)", GGML_OP_UNARY, [](B & b) {
                         return ggml_silu(b.ctx(), ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, 32, 2, 5), 0, 2, 1, 3));
                     }, 1e-6});
    cases.push_back({"UNARY(GELU,type=f16,ne=[32,5,2,1])", GGML_OP_UNARY, [](B & b) {
                         return ggml_gelu(b.ctx(), b.input(GGML_TYPE_F16, 32, 5, 2));
                     }, 1e-5});
    cases.push_back({"LEAKY_RELU(slope=0.1)", GGML_OP_LEAKY_RELU, [](B & b) {
                         return ggml_leaky_relu(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 0.1f, false);
                     }});
    cases.push_back({"CLAMP(min=-0.5,max=0.5)", GGML_OP_CLAMP, [](B & b) {
                         return ggml_clamp(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), -0.5f, 0.5f);
                     }});
    cases.push_back({"SCALE(s=0.5)", GGML_OP_SCALE, [](B & b) { return ggml_scale(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 0.5f); }});
    cases.push_back({"SCALE(s=0.5,b=0.25)", GGML_OP_SCALE, [](B & b) {
                         return ggml_scale_bias(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 0.5f, 0.25f);
                     }});
}

void add_glu(std::vector<OpCase> & cases) {
    const ggml_glu_op ops[] = {GGML_GLU_OP_REGLU, GGML_GLU_OP_GEGLU, GGML_GLU_OP_SWIGLU, GGML_GLU_OP_GEGLU_ERF, GGML_GLU_OP_GEGLU_QUICK};
    for (ggml_glu_op op : ops) {
        for (int swapped = 0; swapped < 2; ++swapped) {
            cases.push_back({std::string("GLU(") + ggml_glu_op_name(op) + ",fused,swapped=" + std::to_string(swapped) + ")", GGML_OP_GLU,
                             [op, swapped](B & b) { return ggml_glu(b.ctx(), b.input(GGML_TYPE_F32, 32, 5, 2), op, swapped != 0); }, 1e-6});
        }
        cases.push_back({std::string("GLU(") + ggml_glu_op_name(op) + ",split)", GGML_OP_GLU, [op](B & b) {
                             return ggml_glu_split(b.ctx(), b.input(GGML_TYPE_F32, 16, 5, 2), b.input(GGML_TYPE_F32, 16, 5, 2), op);
                         }, 1e-6});
    }
    cases.push_back({"GLU(swiglu_oai,alpha=1.702,limit=0.7)", GGML_OP_GLU, [](B & b) {
                         return ggml_swiglu_oai(b.ctx(), b.input(GGML_TYPE_F32, 16, 5, 2), b.input(GGML_TYPE_F32, 16, 5, 2), 1.702f, 0.7f);
                     }, 1e-6});
    cases.push_back({"GLU(swiglu_clamp,limit=0.6)", GGML_OP_GLU, [](B & b) {
                         return ggml_swiglu_clamp(b.ctx(), b.input(GGML_TYPE_F32, 16, 5, 2), b.input(GGML_TYPE_F32, 16, 5, 2), 0.6f);
                     }, 1e-6});
}

void add_reduce_norm(std::vector<OpCase> & cases) {
    cases.push_back({"SUM(ne=[10,5,4,3])", GGML_OP_SUM, [](B & b) { return ggml_sum(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3)); }});
    cases.push_back({"SUM_ROWS(ne=[10,5,4,3])", GGML_OP_SUM_ROWS, [](B & b) { return ggml_sum_rows(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3)); }});
    cases.push_back({"MEAN(ne=[10,5,4,3])", GGML_OP_MEAN, [](B & b) { return ggml_mean(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3)); }});
    for (int64_t n : {int64_t{10}, int64_t{300}}) {
        cases.push_back({"CUMSUM(ne=[" + std::to_string(n) + ",5,4,3])", GGML_OP_CUMSUM, [n](B & b) {
                             return ggml_cumsum(b.ctx(), b.input(GGML_TYPE_F32, n, 5, 4, 3));
                         }});
    }
    cases.push_back({"CUMSUM(permuted)", GGML_OP_CUMSUM, [](B & b) {
                         return ggml_cumsum(b.ctx(), ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 1, 0, 2, 3));
                     }});
    cases.push_back({"ARGMAX(ne=[32,10])", GGML_OP_ARGMAX, [](B & b) { return ggml_argmax(b.ctx(), b.input(GGML_TYPE_F32, 32, 10)); }});
    cases.push_back({"NORM(eps=1e-5,ne=[64,5,4,3])", GGML_OP_NORM, [](B & b) { return ggml_norm(b.ctx(), b.input(GGML_TYPE_F32, 64, 5, 4, 3), 1e-5f); }});
    cases.push_back({"RMS_NORM(eps=1e-5,ne=[64,5,4,3])", GGML_OP_RMS_NORM, [](B & b) {
                         return ggml_rms_norm(b.ctx(), b.input(GGML_TYPE_F32, 64, 5, 4, 3), 1e-5f);
                     }});
    cases.push_back({"RMS_NORM(eps=1e-5,permuted)", GGML_OP_RMS_NORM, [](B & b) {
                         return ggml_rms_norm(b.ctx(), ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, 64, 5, 4, 3), 0, 2, 1, 3), 1e-5f);
                     }});
    cases.push_back({"L2_NORM(eps=1e-5,ne=[64,5,4,3])", GGML_OP_L2_NORM, [](B & b) {
                         return ggml_l2_norm(b.ctx(), b.input(GGML_TYPE_F32, 64, 5, 4, 3), 1e-5f);
                     }});
    cases.push_back({"GROUP_NORM(n_groups=4,ne=[16,8,12,2])", GGML_OP_GROUP_NORM, [](B & b) {
                         return ggml_group_norm(b.ctx(), b.input(GGML_TYPE_F32, 16, 8, 12, 2), 4, 1e-6f);
                     }});
}

void add_matrix(std::vector<OpCase> & cases) {
    for (ggml_type t : weight_types()) {
        for (int64_t m : {1, 7}) {
            constexpr int64_t n = 16, k = 256;
            cases.push_back({"MUL_MAT(type_a=" + tname(t) + ",type_b=f32,m=" + std::to_string(n) + ",n=" + std::to_string(m) + ",k=256)",
                             GGML_OP_MUL_MAT, [t, m](B & b) {
                                 return ggml_mul_mat(b.ctx(), b.input(t, k, n), b.input(GGML_TYPE_F32, k, m));
                             }, 1e-8, false, 2.0 * n * m * k});
        }
    }
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_Q8_0}) {
        cases.push_back({"MUL_MAT(type_a=" + tname(t) + ",broadcast,ne_a=[64,16,2,3],ne_b=[64,5,4,6])", GGML_OP_MUL_MAT, [t](B & b) {
                             return ggml_mul_mat(b.ctx(), b.input(t, 64, 16, 2, 3), b.input(GGML_TYPE_F32, 64, 5, 4, 6));
                         }, 1e-8});
    }
    // enough columns for the tiled paths of the GPU backends, shapes that are no multiple of their tiles
    struct Tiled { int64_t m, n; };
    for (ggml_type t : weight_types()) {
        for (const Tiled s : {Tiled{130, 70}, Tiled{67, 33}}) {
            constexpr int64_t k = 256;
            cases.push_back({"MUL_MAT(type_a=" + tname(t) + ",type_b=f32,m=" + std::to_string(s.m) + ",n=" + std::to_string(s.n) + ",k=256)",
                             GGML_OP_MUL_MAT, [t, s](B & b) {
                                 return ggml_mul_mat(b.ctx(), b.input(t, k, s.m), b.input(GGML_TYPE_F32, k, s.n));
                             }, 1e-8, false, 2.0 * s.m * s.n * k});
        }
    }
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_Q4_1, GGML_TYPE_Q4_K}) {
        cases.push_back({"MUL_MAT(type_a=" + tname(t) + ",broadcast,ne_a=[256,80,2,3],ne_b=[256,40,4,6])", GGML_OP_MUL_MAT, [t](B & b) {
                             return ggml_mul_mat(b.ctx(), b.input(t, 256, 80, 2, 3), b.input(GGML_TYPE_F32, 256, 40, 4, 6));
                         }, 1e-8});
    }
    cases.push_back({"MUL_MAT(type_a=f32,b=transposed,m=72,n=40,k=100)", GGML_OP_MUL_MAT, [](B & b) {
                         return ggml_mul_mat(b.ctx(), b.input(GGML_TYPE_F32, 100, 72), ggml_transpose(b.ctx(), b.input(GGML_TYPE_F32, 40, 100)));
                     }, 1e-8});
    cases.push_back({"MUL_MAT(type_a=f16,type_b=f16,m=72,n=40,k=96)", GGML_OP_MUL_MAT, [](B & b) {
                         return ggml_mul_mat(b.ctx(), b.input(GGML_TYPE_F16, 96, 72), b.input(GGML_TYPE_F16, 96, 40));
                     }, 1e-8});
    cases.push_back({"MUL_MAT(type_a=f32,b=transposed)", GGML_OP_MUL_MAT, [](B & b) {
                         return ggml_mul_mat(b.ctx(), b.input(GGML_TYPE_F32, 64, 16), ggml_transpose(b.ctx(), b.input(GGML_TYPE_F32, 5, 64)));
                     }, 1e-8});
    cases.push_back({"MUL_MAT(type_a=f16,type_b=f16)", GGML_OP_MUL_MAT, [](B & b) {
                         return ggml_mul_mat(b.ctx(), b.input(GGML_TYPE_F16, 64, 16), b.input(GGML_TYPE_F16, 64, 5));
                     }, 1e-8});
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_Q8_0}) {
        cases.push_back({"MUL_MAT_ID(type_a=" + tname(t) + ",n_expert=4,n_used=2,n_tokens=3)", GGML_OP_MUL_MAT_ID, [t](B & b) {
                             ggml_tensor * as  = b.input(t, 64, 16, 4);
                             ggml_tensor * x   = b.input(GGML_TYPE_F32, 64, 2, 3);
                             ggml_tensor * ids = b.input(GGML_TYPE_I32, 2, 3, 1, 1, InputKind::Distinct, 4);
                             return ggml_mul_mat_id(b.ctx(), as, x, ids);
                         }, 1e-8});
    }
    for (ggml_type t : {GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K}) {
        cases.push_back({"MUL_MAT_ID(type_a=" + tname(t) + ",n_expert=4,n_used=2,n_tokens=3,k=256)", GGML_OP_MUL_MAT_ID, [t](B & b) {
                             ggml_tensor * as  = b.input(t, 256, 16, 4);
                             ggml_tensor * x   = b.input(GGML_TYPE_F32, 256, 2, 3);
                             ggml_tensor * ids = b.input(GGML_TYPE_I32, 2, 3, 1, 1, InputKind::Distinct, 4);
                             return ggml_mul_mat_id(b.ctx(), as, x, ids);
                         }, 1e-8});
    }
    cases.push_back({"OUT_PROD(ne_a=[10,16,2,1],ne_b=[12,16,2,1])", GGML_OP_OUT_PROD, [](B & b) {
                         return ggml_out_prod(b.ctx(), b.input(GGML_TYPE_F32, 10, 16, 2), b.input(GGML_TYPE_F32, 12, 16, 2));
                     }, 1e-8});
}

void add_layout(std::vector<OpCase> & cases) {
    struct Cpy { ggml_type from, to; };
    const Cpy cpys[] = {{GGML_TYPE_F32, GGML_TYPE_F16}, {GGML_TYPE_F16, GGML_TYPE_F32}, {GGML_TYPE_F32, GGML_TYPE_BF16},
                        {GGML_TYPE_BF16, GGML_TYPE_F32}, {GGML_TYPE_F32, GGML_TYPE_Q8_0}, {GGML_TYPE_F32, GGML_TYPE_Q4_0},
                        {GGML_TYPE_F16, GGML_TYPE_F16}};
    for (const Cpy & c : cpys) {
        cases.push_back({"CPY(type_src=" + tname(c.from) + ",type_dst=" + tname(c.to) + ",ne=[64,4,2,1])", GGML_OP_CPY, [c](B & b) {
                             return ggml_cpy(b.ctx(), b.input(c.from, 64, 4, 2), b.input(c.to, 64, 4, 2));
                         }, c.to == GGML_TYPE_Q4_0 || c.to == GGML_TYPE_Q8_0 ? 1e-5 : 1e-7});
    }
    // block-quantized sources: dequantized into float destinations, or copied block by block into their own type
    // (a permuted source: whole rows of blocks in another order)
    const Cpy from_blocks[] = {{GGML_TYPE_Q8_0, GGML_TYPE_F32}, {GGML_TYPE_Q4_0, GGML_TYPE_F16}, {GGML_TYPE_Q5_1, GGML_TYPE_BF16},
                               {GGML_TYPE_Q4_K, GGML_TYPE_F32}, {GGML_TYPE_Q6_K, GGML_TYPE_F16}, {GGML_TYPE_Q8_0, GGML_TYPE_Q8_0},
                               {GGML_TYPE_Q4_K, GGML_TYPE_Q4_K}};
    for (const Cpy & c : from_blocks) {
        cases.push_back({"CPY(type_src=" + tname(c.from) + ",type_dst=" + tname(c.to) + ",ne=[256,3,2,1],src=permuted)", GGML_OP_CPY, [c](B & b) {
                             ggml_tensor * src = ggml_permute(b.ctx(), b.input(c.from, 256, 2, 3), 0, 2, 1, 3);
                             return ggml_cpy(b.ctx(), src, b.input(c.to, 256, 3, 2));
                         }, 1e-7});
    }
    cases.push_back({"CONT(type=q4_0,ne=[64,4,2,1])", GGML_OP_CONT, [](B & b) {
                         return ggml_cont(b.ctx(), ggml_permute(b.ctx(), b.input(GGML_TYPE_Q4_0, 64, 4, 2), 0, 2, 1, 3));
                     }, 1e-7});
    cases.push_back({"CPY(type=f32,src=transposed)", GGML_OP_CPY, [](B & b) {
                         return ggml_cpy(b.ctx(), ggml_transpose(b.ctx(), b.input(GGML_TYPE_F32, 12, 10)), b.input(GGML_TYPE_F32, 10, 12));
                     }});
    cases.push_back({"CONT(permuted,ne=[10,5,4,3])", GGML_OP_CONT, [](B & b) {
                         return ggml_cont(b.ctx(), ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 0, 2, 1, 3));
                     }});
    cases.push_back({"CONT(transposed,reshape_2d)", GGML_OP_CONT, [](B & b) {
                         return ggml_cont_2d(b.ctx(), ggml_transpose(b.ctx(), b.input(GGML_TYPE_F32, 6, 8)), 4, 12);
                     }});
    cases.push_back({"DUP(ne=[10,5,4,3])", GGML_OP_DUP, [](B & b) { return ggml_dup(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3)); }});
    cases.push_back({"REPEAT(ne_a=[10,5,1,3],ne_b=[20,5,4,3])", GGML_OP_REPEAT, [](B & b) {
                         ggml_tensor * shape = ggml_new_tensor_4d(b.ctx(), GGML_TYPE_F32, 20, 5, 4, 3);
                         return ggml_repeat(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 1, 3), shape);
                     }});
    for (int dim = 0; dim < 4; ++dim) {
        cases.push_back({"CONCAT(dim=" + std::to_string(dim) + ",ne=[10,5,4,3])", GGML_OP_CONCAT, [dim](B & b) {
                             int64_t ne[4] = {10, 5, 4, 3};
                             ne[dim]       = 2;
                             return ggml_concat(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), b.input(GGML_TYPE_F32, ne[0], ne[1], ne[2], ne[3]), dim);
                         }});
    }
    cases.push_back({"SET(ne_a=[10,6,4,3],ne_b=[4,3,2,2])", GGML_OP_SET, [](B & b) {
                         ggml_tensor * a = b.input(GGML_TYPE_F32, 10, 6, 4, 3);
                         return ggml_set(b.ctx(), a, b.input(GGML_TYPE_F32, 4, 3, 2, 2), a->nb[1], a->nb[2], a->nb[3], 3 * sizeof(float));
                     }});
    cases.push_back({"SET_1D(offset=5)", GGML_OP_SET, [](B & b) {
                         return ggml_set_1d(b.ctx(), b.input(GGML_TYPE_F32, 32), b.input(GGML_TYPE_F32, 8), 5 * sizeof(float));
                     }});
    cases.push_back({"PAD(p=[2,1,0,1])", GGML_OP_PAD, [](B & b) { return ggml_pad(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 2, 1, 0, 1); }});
    cases.push_back({"PAD_EXT(lp=[1,0,1,0],rp=[2,1,0,0])", GGML_OP_PAD, [](B & b) {
                         return ggml_pad_ext(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 1, 2, 0, 1, 1, 0, 0, 0);
                     }});
    cases.push_back({"ARANGE(start=0,stop=10,step=0.5)", GGML_OP_ARANGE, [](B & b) { return ggml_arange(b.ctx(), 0.0f, 10.0f, 0.5f); }});
    for (int dim : {32, 31}) {
        cases.push_back({"TIMESTEP_EMBEDDING(dim=" + std::to_string(dim) + ")", GGML_OP_TIMESTEP_EMBEDDING, [dim](B & b) {
                             return ggml_timestep_embedding(b.ctx(), b.input(GGML_TYPE_F32, 6, 1, 1, 1, InputKind::Positive), dim, 10000);
                         }, 1e-6});
    }
    for (int order = 0; order < 2; ++order) {
        cases.push_back({std::string("ARGSORT(order=") + (order ? "desc" : "asc") + ",ne=[16,10])", GGML_OP_ARGSORT, [order](B & b) {
                             return ggml_argsort(b.ctx(), b.input(GGML_TYPE_F32, 16, 10), static_cast<ggml_sort_order>(order));
                         }, 0.0});
    }
    cases.push_back({"TOP_K(k=4,ne=[16,10])", GGML_OP_TOP_K, [](B & b) { return ggml_top_k(b.ctx(), b.input(GGML_TYPE_F32, 16, 10), 4); }, 0.0, true});
    cases.push_back({"ARGSORT_TOP_K(k=4,ne=[16,10,2])", GGML_OP_ARGSORT, [](B & b) {
                         return ggml_argsort_top_k(b.ctx(), b.input(GGML_TYPE_F32, 16, 10, 2), 4);
                     }, 0.0});
    cases.push_back({"DIAG_MASK_INF(n_past=2,ne=[10,10,3])", GGML_OP_DIAG_MASK_INF, [](B & b) {
                         return ggml_diag_mask_inf(b.ctx(), b.input(GGML_TYPE_F32, 10, 10, 3), 2);
                     }});
}

void add_rows(std::vector<OpCase> & cases) {
    for (ggml_type t : weight_types()) {
        const int64_t n = ggml_blck_size(t) > 32 ? 256 : 64;
        cases.push_back({"GET_ROWS(type=" + tname(t) + ",n=" + std::to_string(n) + ",rows=10,idx=5)", GGML_OP_GET_ROWS, [t, n](B & b) {
                             return ggml_get_rows(b.ctx(), b.input(t, n, 10), b.input(GGML_TYPE_I32, 5, 1, 1, 1, InputKind::Indices, 10));
                         }});
    }
    cases.push_back({"GET_ROWS(type=f32,3d)", GGML_OP_GET_ROWS, [](B & b) {
                         return ggml_get_rows(b.ctx(), b.input(GGML_TYPE_F32, 16, 10, 3), b.input(GGML_TYPE_I32, 5, 3, 1, 1, InputKind::Indices, 10));
                     }});
    struct SetRows { ggml_type dst, idx; };
    for (SetRows s : {SetRows{GGML_TYPE_F32, GGML_TYPE_I64}, SetRows{GGML_TYPE_F16, GGML_TYPE_I32}, SetRows{GGML_TYPE_Q8_0, GGML_TYPE_I64}}) {
        cases.push_back({"SET_ROWS(type=" + tname(s.dst) + ",idx=" + tname(s.idx) + ")", GGML_OP_SET_ROWS, [s](B & b) {
                             ggml_tensor * dst = b.input(s.dst, 32, 10, 2);
                             ggml_tensor * src = b.input(GGML_TYPE_F32, 32, 4, 2);
                             ggml_tensor * idx = b.input(s.idx, 4, 2, 1, 1, InputKind::Distinct, 10);
                             return ggml_set_rows(b.ctx(), dst, src, idx);
                         }, s.dst == GGML_TYPE_Q8_0 ? 1e-5 : 1e-7});
    }
    // quantizing writes into the block formats a device may quantize on its own, compared exactly: the reference
    // writes with the same quantizer as from_float_ref, except for IQ4_NL (ggml_quantize_chunk searches 15 scales
    // where from_float_ref takes one), which only comes close
    for (ggml_type t : {GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_Q8_0, GGML_TYPE_IQ4_NL}) {
        const double tol = t == GGML_TYPE_IQ4_NL ? 1e-2 : 0.0;
        cases.push_back({"SET_ROWS(type=" + tname(t) + ",idx=i32,rows of 64)", GGML_OP_SET_ROWS, [t](B & b) {
                             ggml_tensor * dst = b.input(t, 64, 10, 2);
                             ggml_tensor * src = b.input(GGML_TYPE_F32, 64, 4, 2);
                             ggml_tensor * idx = b.input(GGML_TYPE_I32, 4, 2, 1, 1, InputKind::Distinct, 10);
                             return ggml_set_rows(b.ctx(), dst, src, idx);
                         }, tol});
        cases.push_back({"CPY(type_src=f32,type_dst=" + tname(t) + ",ne=[96,3,2,1])", GGML_OP_CPY, [t](B & b) {
                             return ggml_cpy(b.ctx(), b.input(GGML_TYPE_F32, 96, 3, 2), b.input(t, 96, 3, 2));
                         }, tol});
    }
    cases.push_back({"CPY(type_src=f16,type_dst=q5_1,permuted)", GGML_OP_CPY, [](B & b) {
                         ggml_tensor * x = ggml_permute(b.ctx(), b.input(GGML_TYPE_F16, 64, 3, 4), 0, 2, 1, 3);
                         return ggml_cpy(b.ctx(), x, b.input(GGML_TYPE_Q5_1, 64, 4, 3));
                     }, 0.0});
}

void add_attention(std::vector<OpCase> & cases) {
    cases.push_back({"SOFT_MAX(ne=[32,8,4,2])", GGML_OP_SOFT_MAX, [](B & b) { return ggml_soft_max(b.ctx(), b.input(GGML_TYPE_F32, 32, 8, 4, 2)); }});
    cases.push_back({"SOFT_MAX(mask=f32,scale=0.5)", GGML_OP_SOFT_MAX, [](B & b) {
                         return ggml_soft_max_ext(b.ctx(), b.input(GGML_TYPE_F32, 32, 8, 4, 2), b.input(GGML_TYPE_F32, 32, 8, 1, 1, InputKind::Mask), 0.5f, 0.0f);
                     }});
    cases.push_back({"SOFT_MAX(mask=f16,scale=0.25,max_bias=8)", GGML_OP_SOFT_MAX, [](B & b) {
                         return ggml_soft_max_ext(b.ctx(), b.input(GGML_TYPE_F32, 32, 8, 4, 2), b.input(GGML_TYPE_F16, 32, 8, 4, 1, InputKind::Mask), 0.25f, 8.0f);
                     }});
    cases.push_back({"SOFT_MAX(sinks)", GGML_OP_SOFT_MAX, [](B & b) {
                         ggml_tensor * r = ggml_soft_max_ext(b.ctx(), b.input(GGML_TYPE_F32, 32, 8, 4, 1), b.input(GGML_TYPE_F32, 32, 8, 1, 1, InputKind::Mask), 1.0f, 0.0f);
                         ggml_soft_max_add_sinks(r, b.input(GGML_TYPE_F32, 4));
                         return r;
                     }});
    struct Rope { int mode, n_dims; bool ff; float ext; ggml_type t; };
    const Rope ropes[] = {{GGML_ROPE_TYPE_NORMAL, 64, false, 0.0f, GGML_TYPE_F32}, {GGML_ROPE_TYPE_NEOX, 64, false, 0.0f, GGML_TYPE_F32},
                          {GGML_ROPE_TYPE_NEOX, 32, true, 0.0f, GGML_TYPE_F32},    {GGML_ROPE_TYPE_NORMAL, 32, false, 1.0f, GGML_TYPE_F32},
                          {GGML_ROPE_TYPE_NEOX, 64, false, 1.0f, GGML_TYPE_F16}};
    for (const Rope & r : ropes) {
        cases.push_back({"ROPE(mode=" + std::to_string(r.mode) + ",n_dims=" + std::to_string(r.n_dims) + ",ff=" + std::to_string(r.ff) +
                             ",ext=" + std::to_string(static_cast<int>(r.ext)) + ",type=" + tname(r.t) + ")",
                         GGML_OP_ROPE, [r](B & b) {
                             ggml_tensor * a   = b.input(r.t, 64, 4, 6);
                             ggml_tensor * pos = b.input(GGML_TYPE_I32, 6, 1, 1, 1, InputKind::Indices, 100);
                             ggml_tensor * ff  = r.ff ? b.input(GGML_TYPE_F32, r.n_dims / 2, 1, 1, 1, InputKind::Positive) : nullptr;
                             const float   freq_scale = r.ext != 0.0f ? 0.25f : 1.0f;
                             return ggml_rope_ext(b.ctx(), a, pos, ff, r.n_dims, r.mode, 512, 10000.0f, freq_scale, r.ext, 1.0f, 32.0f, 1.0f);
                         }, r.t == GGML_TYPE_F16 ? 1e-5 : 1e-8});
    }
    // n_dims 0 rotates nothing (a copy): llama.cpp builds it with a model's rope_freqs to ask which buffer type
    // may hold them
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        cases.push_back({"ROPE(n_dims=0,ff=1,type=" + tname(t) + ")", GGML_OP_ROPE, [t](B & b) {
                             ggml_tensor * a   = b.input(t, 64, 4, 6);
                             ggml_tensor * pos = b.input(GGML_TYPE_I32, 6, 1, 1, 1, InputKind::Indices, 100);
                             ggml_tensor * ff  = b.input(GGML_TYPE_F32, 32, 1, 1, 1, InputKind::Positive);
                             return ggml_rope_ext(b.ctx(), a, pos, ff, 0, GGML_ROPE_TYPE_NORMAL, 0, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
                         }});
    }
    struct Fa { ggml_type kv; float softcap, max_bias; bool sinks; };
    const Fa fas[] = {{GGML_TYPE_F16, 0.0f, 0.0f, false}, {GGML_TYPE_F32, 0.0f, 0.0f, false}, {GGML_TYPE_F16, 30.0f, 0.0f, false},
                      {GGML_TYPE_F16, 0.0f, 8.0f, false}, {GGML_TYPE_F16, 0.0f, 0.0f, true}, {GGML_TYPE_Q8_0, 0.0f, 0.0f, false}};
    for (const Fa & f : fas) {
        cases.push_back({"FLASH_ATTN_EXT(kv=" + tname(f.kv) + ",softcap=" + std::to_string(static_cast<int>(f.softcap)) + ",max_bias=" +
                             std::to_string(static_cast<int>(f.max_bias)) + ",sinks=" + std::to_string(f.sinks) + ",d=64,n_q=7,n_kv=32,heads=4/2)",
                         GGML_OP_FLASH_ATTN_EXT, [f](B & b) {
                             ggml_tensor * q    = b.input(GGML_TYPE_F32, 64, 7, 4, 1);
                             ggml_tensor * k    = b.input(f.kv, 64, 32, 2, 1);
                             ggml_tensor * v    = b.input(f.kv, 64, 32, 2, 1);
                             ggml_tensor * mask = b.input(GGML_TYPE_F16, 32, GGML_PAD(7, GGML_KQ_MASK_PAD), 1, 1, InputKind::Mask);
                             ggml_tensor * r    = ggml_flash_attn_ext(b.ctx(), q, k, v, mask, 0.125f, f.max_bias, f.softcap);
                             if (f.sinks) {
                                 ggml_flash_attn_ext_add_sinks(r, b.input(GGML_TYPE_F32, 4));
                             }
                             return r;
                         }, 1e-6, false, 4.0 * 64 * 7 * 32 * 4});
    }
    // as a model graph builds it: q, k, v permuted views of one fused projection, an unpadded causal-size mask
    for (const int64_t n_tok : {int64_t{8}, int64_t{33}}) {
        cases.push_back({"FLASH_ATTN_EXT(fused qkv views,kv=f32,d=64,n_tok=" + std::to_string(n_tok) + ",heads=8/4,mask unpadded)",
                         GGML_OP_FLASH_ATTN_EXT, [n_tok](B & b) {
                             constexpr int64_t hd = 64, n_head = 8, n_kv = 4;
                             ggml_tensor * qkv = b.input(GGML_TYPE_F32, hd * (n_head + 2 * n_kv), n_tok);
                             const size_t  es  = sizeof(float);
                             ggml_tensor * q = ggml_view_3d(b.ctx(), qkv, hd, n_head, n_tok, hd * es, qkv->nb[1], 0);
                             ggml_tensor * k = ggml_view_3d(b.ctx(), qkv, hd, n_kv, n_tok, hd * es, qkv->nb[1], hd * n_head * es);
                             ggml_tensor * v = ggml_view_3d(b.ctx(), qkv, hd, n_kv, n_tok, hd * es, qkv->nb[1], hd * (n_head + n_kv) * es);
                             q = ggml_permute(b.ctx(), q, 0, 2, 1, 3);
                             k = ggml_permute(b.ctx(), k, 0, 2, 1, 3);
                             v = ggml_permute(b.ctx(), v, 0, 2, 1, 3);
                             ggml_tensor * mask = b.input(GGML_TYPE_F16, n_tok, n_tok, 1, 1, InputKind::Mask);
                             return ggml_flash_attn_ext(b.ctx(), q, k, v, mask, 0.125f, 0.0f, 0.0f);
                         }, 1e-6, false, 4.0 * 64 * static_cast<double>(n_tok * n_tok) * 8});
    }
    // larger than one block of queries and one tile of keys, sizes that divide nothing evenly
    struct FaBig { ggml_type kv; float max_bias; bool sinks; };
    for (const FaBig & f : {FaBig{GGML_TYPE_F16, 0.0f, false}, FaBig{GGML_TYPE_BF16, 8.0f, true}}) {
        cases.push_back({"FLASH_ATTN_EXT(kv=" + tname(f.kv) + ",max_bias=" + std::to_string(static_cast<int>(f.max_bias)) +
                             ",sinks=" + std::to_string(f.sinks) + ",d=72,n_q=70,n_kv=150,heads=6/2)",
                         GGML_OP_FLASH_ATTN_EXT, [f](B & b) {
                             ggml_tensor * q    = b.input(GGML_TYPE_F32, 72, 70, 6, 1);
                             ggml_tensor * k    = b.input(f.kv, 72, 150, 2, 1);
                             ggml_tensor * v    = b.input(f.kv, 72, 150, 2, 1);
                             ggml_tensor * mask = b.input(GGML_TYPE_F16, 150, GGML_PAD(70, GGML_KQ_MASK_PAD), 1, 1, InputKind::Mask);
                             ggml_tensor * r    = ggml_flash_attn_ext(b.ctx(), q, k, v, mask, 0.12f, f.max_bias, 0.0f);
                             if (f.sinks) {
                                 ggml_flash_attn_ext_add_sinks(r, b.input(GGML_TYPE_F32, 6));
                             }
                             return r;
                         }, 1e-6, false, 4.0 * 72 * 70 * 150 * 6});
    }
    // K and V of different block formats and head sizes, a key count no tile divides, decoding (one query of a
    // GQA group larger than one block of rows), no mask, masks per head and batch, queries that see no key
    struct FaKv { ggml_type k, v; int64_t dk, dv, n_q, n_kv, heads, heads_kv; };
    const FaKv fkvs[] = {{GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, 64, 64, 5, 40, 4, 2},   {GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, 64, 64, 5, 40, 4, 2},
                         {GGML_TYPE_IQ4_NL, GGML_TYPE_Q8_0, 64, 64, 5, 40, 4, 2}, {GGML_TYPE_F16, GGML_TYPE_F16, 128, 128, 1, 77, 8, 2},
                         {GGML_TYPE_F16, GGML_TYPE_BF16, 192, 128, 3, 70, 2, 1},  {GGML_TYPE_F32, GGML_TYPE_F16, 256, 256, 5, 33, 2, 2},
                         {GGML_TYPE_Q8_0, GGML_TYPE_Q8_0, 64, 64, 2, 50, 16, 1}};
    for (const FaKv & f : fkvs) {
        cases.push_back({"FLASH_ATTN_EXT(k=" + tname(f.k) + ",v=" + tname(f.v) + ",dk=" + std::to_string(f.dk) + ",dv=" +
                             std::to_string(f.dv) + ",n_q=" + std::to_string(f.n_q) + ",n_kv=" + std::to_string(f.n_kv) +
                             ",heads=" + std::to_string(f.heads) + "/" + std::to_string(f.heads_kv) + ")",
                         GGML_OP_FLASH_ATTN_EXT, [f](B & b) {
                             ggml_tensor * q    = b.input(GGML_TYPE_F32, f.dk, f.n_q, f.heads, 1);
                             ggml_tensor * k    = b.input(f.k, f.dk, f.n_kv, f.heads_kv, 1);
                             ggml_tensor * v    = b.input(f.v, f.dv, f.n_kv, f.heads_kv, 1);
                             ggml_tensor * mask = b.input(GGML_TYPE_F16, f.n_kv, f.n_q, 1, 1, InputKind::Mask);
                             return ggml_flash_attn_ext(b.ctx(), q, k, v, mask, 0.1f, 0.0f, 0.0f);
                         }, 1e-6, false, 4.0 * static_cast<double>(f.dk * f.n_q * f.n_kv * f.heads)});
    }
    cases.push_back({"FLASH_ATTN_EXT(no mask,sinks,softcap=20,kv=f32,d=32,n_q=3,n_kv=10,heads=2/2)", GGML_OP_FLASH_ATTN_EXT, [](B & b) {
                         ggml_tensor * q = b.input(GGML_TYPE_F32, 32, 3, 2, 1);
                         ggml_tensor * k = b.input(GGML_TYPE_F32, 32, 10, 2, 1);
                         ggml_tensor * v = b.input(GGML_TYPE_F32, 32, 10, 2, 1);
                         ggml_tensor * r = ggml_flash_attn_ext(b.ctx(), q, k, v, nullptr, 0.5f, 0.0f, 20.0f);
                         ggml_flash_attn_ext_add_sinks(r, b.input(GGML_TYPE_F32, 2));
                         return r;
                     }, 1e-6});
    cases.push_back({"FLASH_ATTN_EXT(mask per head and batch,max_bias=8,kv=f16,d=64,n_q=5,n_kv=20,heads=4/1,ne3=2)",
                     GGML_OP_FLASH_ATTN_EXT, [](B & b) {
                         ggml_tensor * q    = b.input(GGML_TYPE_F32, 64, 5, 4, 2);
                         ggml_tensor * k    = b.input(GGML_TYPE_F16, 64, 20, 1, 2);
                         ggml_tensor * v    = b.input(GGML_TYPE_F16, 64, 20, 1, 2);
                         ggml_tensor * mask = b.input(GGML_TYPE_F16, 20, 5, 4, 2, InputKind::Mask);
                         return ggml_flash_attn_ext(b.ctx(), q, k, v, mask, 0.125f, 8.0f, 0.0f);
                     }, 1e-6});
    // the transposed Mask input hides every key from queries 44..47 (a whole block of rows)
    for (const bool sinks : {false, true}) {
        cases.push_back({"FLASH_ATTN_EXT(queries that see no key,sinks=" + std::to_string(sinks) + ",kv=f16,d=64,n_q=48,n_kv=20,heads=4/2)",
                         GGML_OP_FLASH_ATTN_EXT, [sinks](B & b) {
                             ggml_tensor * q    = b.input(GGML_TYPE_F32, 64, 48, 4, 1);
                             ggml_tensor * k    = b.input(GGML_TYPE_F16, 64, 20, 2, 1);
                             ggml_tensor * v    = b.input(GGML_TYPE_F16, 64, 20, 2, 1);
                             ggml_tensor * mask = ggml_cont(b.ctx(), ggml_transpose(b.ctx(), b.input(GGML_TYPE_F16, 48, 20, 1, 1, InputKind::Mask)));
                             ggml_tensor * r    = ggml_flash_attn_ext(b.ctx(), q, k, v, mask, 0.125f, 0.0f, 0.0f);
                             if (sinks) {
                                 ggml_flash_attn_ext_add_sinks(r, b.input(GGML_TYPE_F32, 4));
                             }
                             return r;
                         }, 1e-6});
    }
}

void add_conv(std::vector<OpCase> & cases) {
    cases.push_back({"IM2COL(1d,s=1,p=1,d=1)", GGML_OP_IM2COL, [](B & b) {
                         return ggml_im2col(b.ctx(), b.input(GGML_TYPE_F32, 3, 4, 2), b.input(GGML_TYPE_F32, 20, 4, 2), 1, 0, 1, 0, 1, 0, false, GGML_TYPE_F32);
                     }});
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        cases.push_back({"IM2COL(2d,dst=" + tname(t) + ",s=1,p=1,d=1)", GGML_OP_IM2COL, [t](B & b) {
                             return ggml_im2col(b.ctx(), b.input(GGML_TYPE_F32, 3, 3, 4, 8), b.input(GGML_TYPE_F32, 10, 9, 4, 2), 1, 1, 1, 1, 1, 1, true, t);
                         }, 1e-6});
    }
    cases.push_back({"IM2COL(2d,s=2,p=0,d=2)", GGML_OP_IM2COL, [](B & b) {
                         return ggml_im2col(b.ctx(), b.input(GGML_TYPE_F32, 3, 3, 4, 8), b.input(GGML_TYPE_F32, 12, 11, 4, 2), 2, 2, 0, 0, 2, 2, true, GGML_TYPE_F32);
                     }});
    cases.push_back({"CONV_2D(via im2col+mul_mat)", GGML_OP_IM2COL, [](B & b) {
                         return ggml_conv_2d(b.ctx(), b.input(GGML_TYPE_F32, 3, 3, 4, 8), b.input(GGML_TYPE_F32, 10, 9, 4, 2), 1, 1, 1, 1, 1, 1);
                     }, 1e-8});
    cases.push_back({"CONV_1D(via im2col+mul_mat)", GGML_OP_IM2COL, [](B & b) {
                         return ggml_conv_1d(b.ctx(), b.input(GGML_TYPE_F32, 3, 4, 2), b.input(GGML_TYPE_F32, 20, 4, 2), 1, 1, 1);
                     }, 1e-8});
    for (int op = 0; op < 2; ++op) {
        const auto pool = static_cast<ggml_op_pool>(op);
        cases.push_back({std::string("POOL_1D(") + (op ? "avg" : "max") + ",k=3,s=2)", GGML_OP_POOL_1D, [pool](B & b) {
                             return ggml_pool_1d(b.ctx(), b.input(GGML_TYPE_F32, 20, 4), pool, 3, 2, 0);
                         }});
        cases.push_back({std::string("POOL_2D(") + (op ? "avg" : "max") + ",k=3,s=2,p=1)", GGML_OP_POOL_2D, [pool](B & b) {
                             return ggml_pool_2d(b.ctx(), b.input(GGML_TYPE_F32, 10, 9, 3, 2), pool, 3, 3, 2, 2, 1.0f, 1.0f);
                         }});
    }
}

void add_fill(std::vector<OpCase> & cases) {
    cases.push_back({"FILL(c=0.5,ne=[10,5,4,3])", GGML_OP_FILL, [](B & b) { return ggml_fill(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 0.5f); }});
    cases.push_back({"FILL(c=-2,inplace)", GGML_OP_FILL, [](B & b) { return ggml_fill_inplace(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), -2.0f); }});
    cases.push_back({"FILL(c=0.5,type=f16)", GGML_OP_FILL, [](B & b) { return ggml_fill(b.ctx(), b.input(GGML_TYPE_F16, 10, 5, 4, 3), 0.5f); }});
    const char * tri_names[] = {"upper_diag", "upper", "lower_diag", "lower"};
    for (int type = 0; type < 4; ++type) {
        cases.push_back({std::string("TRI(") + tri_names[type] + ",ne=[9,9,3,2])", GGML_OP_TRI, [type](B & b) {
                             return ggml_tri(b.ctx(), b.input(GGML_TYPE_F32, 9, 9, 3, 2), static_cast<ggml_tri_type>(type));
                         }});
    }
    cases.push_back({"DIAG(ne=[10,1,3,2])", GGML_OP_DIAG, [](B & b) { return ggml_diag(b.ctx(), b.input(GGML_TYPE_F32, 10, 1, 3, 2)); }});
}

void add_roll(std::vector<OpCase> & cases) {
    struct Shifts { int s[4]; };
    for (const Shifts & sh : {Shifts{{2, -1, 0, 1}}, Shifts{{-9, 4, -3, 2}}, Shifts{{0, 0, 0, 0}}}) {
        cases.push_back({"ROLL(shift=[" + std::to_string(sh.s[0]) + "," + std::to_string(sh.s[1]) + "," + std::to_string(sh.s[2]) + "," +
                             std::to_string(sh.s[3]) + "],ne=[10,5,4,3])",
                         GGML_OP_ROLL, [sh](B & b) {
                             return ggml_roll(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), sh.s[0], sh.s[1], sh.s[2], sh.s[3]);
                         }});
    }
    cases.push_back({"ROLL(type=f16,shift=[3,1,0,0])", GGML_OP_ROLL, [](B & b) {
                         return ggml_roll(b.ctx(), b.input(GGML_TYPE_F16, 10, 5, 4, 3), 3, 1, 0, 0);
                     }});
}

// Custom ops: element-wise functions of the application over F32 tensors of one shape, each thread taking a
// contiguous range of rows (ith of nth). The reference runs them as one task.
template <class F>
void for_rows(ggml_tensor * dst, int ith, int nth, F && f) {
    const int64_t rows = ggml_nrows(dst), per = (rows + nth - 1) / nth;
    for (int64_t r = per * ith; r < std::min(rows, per * (ith + 1)); ++r) {
        const int64_t i1 = r % dst->ne[1], i2 = r / dst->ne[1] % dst->ne[2], i3 = r / (dst->ne[1] * dst->ne[2]);
        for (int64_t i0 = 0; i0 < dst->ne[0]; ++i0) f(i0, i1, i2, i3);
    }
}

float & at(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return *reinterpret_cast<float *>(static_cast<char *>(t->data) + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
}

float g_custom_scale = 2.0f; // userdata of the custom cases

void custom1_square_plus_one(ggml_tensor * dst, const ggml_tensor * a, int ith, int nth, void *) {
    for_rows(dst, ith, nth, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const float x = at(a, i0, i1, i2, i3);
        at(dst, i0, i1, i2, i3) = x * x + 1.0f;
    });
}

void custom2_axpy(ggml_tensor * dst, const ggml_tensor * a, const ggml_tensor * b, int ith, int nth, void * userdata) {
    const float s = *static_cast<const float *>(userdata);
    for_rows(dst, ith, nth, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        at(dst, i0, i1, i2, i3) = at(a, i0, i1, i2, i3) + s * at(b, i0, i1, i2, i3);
    });
}

void custom3_fma(ggml_tensor * dst, const ggml_tensor * a, const ggml_tensor * b, const ggml_tensor * c, int ith, int nth, void *) {
    for_rows(dst, ith, nth, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        at(dst, i0, i1, i2, i3) = at(a, i0, i1, i2, i3) * at(b, i0, i1, i2, i3) + at(c, i0, i1, i2, i3);
    });
}

// dst = src[0] - userdata * src[1] (ggml_custom_4d) or, in place, dst = dst - userdata * src[1]
void custom_sub_scaled(ggml_tensor * dst, int ith, int nth, void * userdata) {
    const float s = *static_cast<const float *>(userdata);
    for_rows(dst, ith, nth, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        at(dst, i0, i1, i2, i3) = at(dst->src[0], i0, i1, i2, i3) - s * at(dst->src[1], i0, i1, i2, i3);
    });
}

void add_custom(std::vector<OpCase> & cases) {
    auto push = [&](std::string name, ggml_op op, std::function<ggml_tensor *(B &)> build) {
        OpCase c{std::move(name), op, std::move(build)};
        c.host_only = true;
        cases.push_back(std::move(c));
    };
    for (int n_tasks : {1, 2, GGML_N_TASKS_MAX}) {
        push("MAP_CUSTOM1(x*x+1,n_tasks=" + std::to_string(n_tasks) + ")", GGML_OP_MAP_CUSTOM1, [n_tasks](B & b) {
            return ggml_map_custom1(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 3), custom1_square_plus_one, n_tasks, nullptr);
        });
    }
    push("MAP_CUSTOM1(x*x+1,inplace,n_tasks=max)", GGML_OP_MAP_CUSTOM1, [](B & b) {
        return ggml_map_custom1_inplace(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 3), custom1_square_plus_one, GGML_N_TASKS_MAX, nullptr);
    });
    push("MAP_CUSTOM2(a+2b,n_tasks=max)", GGML_OP_MAP_CUSTOM2, [](B & b) {
        return ggml_map_custom2(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 3), b.input(GGML_TYPE_F32, 10, 7, 3), custom2_axpy,
                                GGML_N_TASKS_MAX, &g_custom_scale);
    });
    push("MAP_CUSTOM2(a+2b,inplace,n_tasks=3)", GGML_OP_MAP_CUSTOM2, [](B & b) {
        return ggml_map_custom2_inplace(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 3), b.input(GGML_TYPE_F32, 10, 7, 3), custom2_axpy, 3,
                                        &g_custom_scale);
    });
    push("MAP_CUSTOM3(a*b+c,n_tasks=1)", GGML_OP_MAP_CUSTOM3, [](B & b) {
        return ggml_map_custom3(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 3), b.input(GGML_TYPE_F32, 10, 7, 3), b.input(GGML_TYPE_F32, 10, 7, 3),
                                custom3_fma, 1, nullptr);
    });
    push("MAP_CUSTOM3(a*b+c,inplace,n_tasks=max)", GGML_OP_MAP_CUSTOM3, [](B & b) {
        return ggml_map_custom3_inplace(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 3), b.input(GGML_TYPE_F32, 10, 7, 3),
                                        b.input(GGML_TYPE_F32, 10, 7, 3), custom3_fma, GGML_N_TASKS_MAX, nullptr);
    });
    push("CUSTOM(4d,a-2b,n_tasks=max)", GGML_OP_CUSTOM, [](B & b) {
        ggml_tensor * args[2] = {b.input(GGML_TYPE_F32, 10, 7, 3, 2), b.input(GGML_TYPE_F32, 10, 7, 3, 2)};
        return ggml_custom_4d(b.ctx(), GGML_TYPE_F32, 10, 7, 3, 2, args, 2, custom_sub_scaled, GGML_N_TASKS_MAX, &g_custom_scale);
    });
    push("CUSTOM(inplace,a-2b,n_tasks=2)", GGML_OP_CUSTOM, [](B & b) {
        ggml_tensor * args[1] = {b.input(GGML_TYPE_F32, 10, 7, 3, 2)};
        return ggml_custom_inplace(b.ctx(), b.input(GGML_TYPE_F32, 10, 7, 3, 2), args, 1, custom_sub_scaled, 2, &g_custom_scale);
    });
}

std::vector<OpCase> make_cases() {
    std::vector<OpCase> cases;
    add_binary(cases);
    add_unary(cases);
    add_glu(cases);
    add_reduce_norm(cases);
    add_matrix(cases);
    add_layout(cases);
    add_rows(cases);
    add_attention(cases);
    add_conv(cases);
    add_fill(cases);
    add_roll(cases);
    add_custom(cases);
    add_vision_cases(cases);
    add_train_cases(cases);
    add_conv_cases(cases);
    add_recurrent_cases(cases);
    add_deepseek_cases(cases);
    return cases;
}

std::vector<OpCase> make_perf_cases() {
    std::vector<OpCase> cases;
    const int64_t       k = 4096, n = 4096;
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K}) {
        for (int64_t m : {1, 512}) {
            cases.push_back({"MUL_MAT(type_a=" + tname(t) + ",type_b=f32,m=4096,n=" + std::to_string(m) + ",k=4096)", GGML_OP_MUL_MAT,
                             [t, m](B & b) { return ggml_mul_mat(b.ctx(), b.input(t, k, n), b.input(GGML_TYPE_F32, k, m)); }, 1e-6,
                             false, 2.0 * n * m * k});
        }
    }
    cases.push_back({"SOFT_MAX(ne=[4096,512,1,1],mask)", GGML_OP_SOFT_MAX, [](B & b) {
                         return ggml_soft_max_ext(b.ctx(), b.input(GGML_TYPE_F32, 4096, 512), b.input(GGML_TYPE_F32, 4096, 512, 1, 1, InputKind::Mask), 0.125f, 0.0f);
                     }});
    cases.push_back({"RMS_NORM(ne=[4096,512,1,1])", GGML_OP_RMS_NORM, [](B & b) {
                         return ggml_rms_norm(b.ctx(), b.input(GGML_TYPE_F32, 4096, 512), 1e-5f);
                     }});
    cases.push_back({"ROPE(neox,ne=[128,32,512,1])", GGML_OP_ROPE, [](B & b) {
                         ggml_tensor * pos = b.input(GGML_TYPE_I32, 512, 1, 1, 1, InputKind::Indices, 4096);
                         return ggml_rope_ext(b.ctx(), b.input(GGML_TYPE_F32, 128, 32, 512), pos, nullptr, 128, GGML_ROPE_TYPE_NEOX, 4096,
                                              10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
                     }});
    cases.push_back({"FLASH_ATTN_EXT(d=128,n_q=512,n_kv=512,heads=32/8,kv=f16)", GGML_OP_FLASH_ATTN_EXT, [](B & b) {
                         ggml_tensor * q = b.input(GGML_TYPE_F32, 128, 512, 32);
                         ggml_tensor * kk = b.input(GGML_TYPE_F16, 128, 512, 8);
                         ggml_tensor * v = b.input(GGML_TYPE_F16, 128, 512, 8);
                         ggml_tensor * mask = b.input(GGML_TYPE_F16, 512, GGML_PAD(512, GGML_KQ_MASK_PAD), 1, 1, InputKind::Mask);
                         return ggml_flash_attn_ext(b.ctx(), q, kk, v, mask, 0.088f, 0.0f, 0.0f);
                     }, 1e-6, false, 4.0 * 128 * 512 * 512 * 32});
    return cases;
}

} // namespace

const std::vector<OpCase> & perf_cases() {
    static const std::vector<OpCase> cases = make_perf_cases();
    return cases;
}

const std::vector<OpCase> & op_cases() {
    static const std::vector<OpCase> cases = make_cases();
    return cases;
}

} // namespace switchyard::testing
