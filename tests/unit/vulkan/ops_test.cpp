// Op families of the Vulkan backend beyond the conformance list's small cases: rows long enough to need every
// invocation of a workgroup (ARGMAX, SUM_ROWS), sorts of up to 1024 elements with f16 ties (ARGSORT, TOP_K) and
// the first row length that stays on the CPU, other element types of the layout ops, f16 data for IM2COL, and
// MUL_MAT_ID for f16, Q4_0, Q4_1 (the Q8_1 excess path) and Q8_0 weights with broadcast activations, and the
// quantizing CPY and SET_ROWS (bit-exact), FLASH_ATTN_EXT over 17000 keys (in chunks), the tiled MUL_MAT over
// K = 65536 (in parts), and RMS_NORM fused with the MUL that follows it. Each case runs on
// the first Vulkan device against the scalar reference (conformance/op_harness.h).
#include "vk_fixture.h"

#include "conformance/op_cases.h"
#include "conformance/op_harness.h"

#include <cmath>
#include <vector>

namespace switchyard::testing {
namespace {

using B = CaseBuilder;

std::vector<OpCase> vulkan_cases() {
    std::vector<OpCase> cases;
    cases.push_back({"ARGMAX(ne=[1000,7])", GGML_OP_ARGMAX, [](B & b) { return ggml_argmax(b.ctx(), b.input(GGML_TYPE_F32, 1000, 7)); }, 0.0});
    cases.push_back({"SUM_ROWS(f16,ne=[300,4,2])", GGML_OP_SUM_ROWS, [](B & b) {
                         return ggml_sum_rows(b.ctx(), b.input(GGML_TYPE_F16, 300, 4, 2));
                     }, 1e-6});
    cases.push_back({"ARGSORT(asc,ne=[1000,3])", GGML_OP_ARGSORT, [](B & b) {
                         return ggml_argsort(b.ctx(), b.input(GGML_TYPE_F32, 1000, 3), GGML_SORT_ORDER_ASC);
                     }, 0.0});
    cases.push_back({"ARGSORT(desc,f16,ne=[1024,2])", GGML_OP_ARGSORT, [](B & b) {
                         return ggml_argsort(b.ctx(), b.input(GGML_TYPE_F16, 1024, 2), GGML_SORT_ORDER_DESC);
                     }, 0.0});
    cases.push_back({"ARGSORT(permuted,ne=[37,5,3])", GGML_OP_ARGSORT, [](B & b) {
                         ggml_tensor * a = ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, 37, 3, 5), 0, 2, 1, 3);
                         return ggml_argsort(b.ctx(), a, GGML_SORT_ORDER_ASC);
                     }, 0.0});
    cases.push_back({"TOP_K(k=10,ne=[1000,4])", GGML_OP_TOP_K, [](B & b) {
                         return ggml_top_k(b.ctx(), b.input(GGML_TYPE_F32, 1000, 4), 10);
                     }, 0.0, true});
    cases.push_back({"CONCAT(f16,dim=1)", GGML_OP_CONCAT, [](B & b) {
                         return ggml_concat(b.ctx(), b.input(GGML_TYPE_F16, 10, 5, 2), b.input(GGML_TYPE_F16, 10, 3, 2), 1);
                     }});
    cases.push_back({"CONCAT(i32,dim=2)", GGML_OP_CONCAT, [](B & b) {
                         ggml_tensor * x = b.input(GGML_TYPE_I32, 6, 4, 2, 1, InputKind::Indices, 100);
                         ggml_tensor * y = b.input(GGML_TYPE_I32, 6, 4, 3, 1, InputKind::Indices, 100);
                         return ggml_concat(b.ctx(), x, y, 2);
                     }, 0.0});
    cases.push_back({"CONCAT(permuted,dim=0)", GGML_OP_CONCAT, [](B & b) {
                         ggml_tensor * x = ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, 5, 7, 3), 1, 0, 2, 3);
                         return ggml_concat(b.ctx(), x, b.input(GGML_TYPE_F32, 4, 5, 3), 0);
                     }});
    cases.push_back({"REPEAT(f16)", GGML_OP_REPEAT, [](B & b) {
                         ggml_tensor * shape = ggml_new_tensor_4d(b.ctx(), GGML_TYPE_F16, 12, 6, 4, 2);
                         return ggml_repeat(b.ctx(), b.input(GGML_TYPE_F16, 4, 3, 1, 2), shape);
                     }});
    cases.push_back({"IM2COL(2d,data=f16,dst=f16)", GGML_OP_IM2COL, [](B & b) {
                         return ggml_im2col(b.ctx(), b.input(GGML_TYPE_F16, 3, 3, 4, 8), b.input(GGML_TYPE_F16, 10, 9, 4, 2), 1, 2, 1, 0, 1, 1, true,
                                            GGML_TYPE_F16);
                     }, 1e-6});
    for (ggml_type t : {GGML_TYPE_F16, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q8_0}) {
        cases.push_back({std::string("MUL_MAT_ID(type_a=") + ggml_type_name(t) + ",n_b=1,n_used=4,n_tokens=5)", GGML_OP_MUL_MAT_ID, [t](B & b) {
                             ggml_tensor * as  = b.input(t, 128, 24, 6);
                             ggml_tensor * x   = b.input(GGML_TYPE_F32, 128, 1, 5);
                             ggml_tensor * ids = b.input(GGML_TYPE_I32, 4, 5, 1, 1, InputKind::Distinct, 6);
                             return ggml_mul_mat_id(b.ctx(), as, x, ids);
                         }, 1e-8});
    }
    cases.push_back({"ADD_ID(f16 bias)", GGML_OP_ADD_ID, [](B & b) {
                         ggml_tensor * a   = b.input(GGML_TYPE_F32, 32, 4, 6);
                         ggml_tensor * bb  = b.input(GGML_TYPE_F16, 32, 8);
                         ggml_tensor * ids = b.input(GGML_TYPE_I32, 4, 6, 1, 1, InputKind::Indices, 8);
                         return ggml_add_id(b.ctx(), a, bb, ids);
                     }, 1e-7});
    cases.push_back({"CPY(f16->q4_0,permuted)", GGML_OP_CPY, [](B & b) {
                         ggml_tensor * x = ggml_permute(b.ctx(), b.input(GGML_TYPE_F16, 64, 3, 4), 0, 2, 1, 3);
                         return ggml_cpy(b.ctx(), x, b.input(GGML_TYPE_Q4_0, 64, 4, 3));
                     }, 0.0});
    cases.push_back({"CPY(f32->q8_0,rows of 96)", GGML_OP_CPY, [](B & b) {
                         return ggml_cpy(b.ctx(), b.input(GGML_TYPE_F32, 96, 5), b.input(GGML_TYPE_Q8_0, 96, 5));
                     }, 0.0});
    cases.push_back({"SET_ROWS(q4_0,idx=i32)", GGML_OP_SET_ROWS, [](B & b) {
                         ggml_tensor * dst = b.input(GGML_TYPE_Q4_0, 64, 10, 2);
                         ggml_tensor * src = b.input(GGML_TYPE_F32, 64, 4, 2);
                         ggml_tensor * idx = b.input(GGML_TYPE_I32, 4, 2, 1, 1, InputKind::Distinct, 10);
                         return ggml_set_rows(b.ctx(), dst, src, idx);
                     }, 0.0});
    // more keys than one pass of a shader may loop over on lavapipe (65535 loop iterations an invocation, about
    // 16000 keys at d = 256): the keys go in chunks whose results a second pass merges, with the sinks
    for (const ggml_type t : {GGML_TYPE_F16, GGML_TYPE_Q8_0}) {
        cases.push_back({std::string("FLASH_ATTN_EXT(k=v=") + ggml_type_name(t) + ",d=256,n_q=2,n_kv=17000,heads=4/1,sinks)",
                         GGML_OP_FLASH_ATTN_EXT, [t](B & b) {
                             ggml_tensor * q    = b.input(GGML_TYPE_F32, 256, 2, 4, 1);
                             ggml_tensor * k    = b.input(t, 256, 17000, 1, 1);
                             ggml_tensor * v    = b.input(t, 256, 17000, 1, 1);
                             ggml_tensor * mask = b.input(GGML_TYPE_F16, 17000, 2, 1, 1, InputKind::Mask);
                             ggml_tensor * r    = ggml_flash_attn_ext(b.ctx(), q, k, v, mask, 0.0625f, 0.0f, 0.0f);
                             ggml_flash_attn_ext_add_sinks(r, b.input(GGML_TYPE_F32, 4));
                             return r;
                         }, 1e-6});
    }
    // the tiled product over a K longer than one dispatch may loop over on lavapipe (from 40960 on): K in parts,
    // the later ones added to the output; Q4_1 with its per-block excess term
    for (const ggml_type t : {GGML_TYPE_F32, GGML_TYPE_Q4_1}) {
        cases.push_back({std::string("MUL_MAT(type_a=") + ggml_type_name(t) + ",m=70,n=16,k=65536)", GGML_OP_MUL_MAT, [t](B & b) {
                             return ggml_mul_mat(b.ctx(), b.input(t, 65536, 70), b.input(GGML_TYPE_F32, 65536, 16));
                         }, 1e-6});
    }
    // RMS_NORM followed by MUL runs as one dispatch; the norm must still be there for a later reader
    cases.push_back({"RMS_NORM+MUL(fused)", GGML_OP_MUL, [](B & b) {
                         ggml_tensor * n = ggml_rms_norm(b.ctx(), b.input(GGML_TYPE_F32, 64, 5, 3), 1e-5f);
                         return ggml_mul(b.ctx(), n, b.input(GGML_TYPE_F32, 64));
                     }});
    cases.push_back({"RMS_NORM+MUL(fused,norm read again)", GGML_OP_ADD, [](B & b) {
                         ggml_tensor * n = ggml_rms_norm(b.ctx(), b.input(GGML_TYPE_F32, 64, 5, 3), 1e-5f);
                         ggml_tensor * m = ggml_mul(b.ctx(), b.input(GGML_TYPE_F32, 64, 5, 3), n); // the weight as src0
                         return ggml_add(b.ctx(), m, n);
                     }});
    return cases;
}

class VulkanOpsTest : public VulkanTest, public ::testing::WithParamInterface<size_t> {};

TEST_P(VulkanOpsTest, MatchesReference) {
    const OpCase     c = vulkan_cases()[GetParam()];
    const CaseResult r = run_case(backend_, c);
    EXPECT_EQ(r.status, CaseStatus::Passed) << c.name << ": " << r.message << " (nmse " << r.nmse << ")";
}

INSTANTIATE_TEST_SUITE_P(Cases, VulkanOpsTest, ::testing::Range(size_t(0), vulkan_cases().size()));

// Rows longer than the shared-memory sort stay on the CPU.
TEST_F(VulkanTest, LongSortRowsAreUnsupported) {
    const OpCase c = {"ARGSORT(ne=[1025,2])", GGML_OP_ARGSORT, [](B & b) {
                          return ggml_argsort(b.ctx(), b.input(GGML_TYPE_F32, 1025, 2), GGML_SORT_ORDER_ASC);
                      }, 0.0};
    EXPECT_EQ(run_case(backend_, c).status, CaseStatus::Unsupported);
}

// tanh keeps its relative precision near zero, where gemma3n's altup router and small attention scores under a
// softcap live (an exp-based builtin gave llvmpipe 2x the value at 1e-8 and 6e-3 relative error at 6e-6, and the
// model's logits an NMSE of 3.5e-3 against the CPU); each value against double precision.
TEST_F(VulkanTest, TanhIsPreciseNearZero) {
    std::vector<float> xs;
    for (int e = -30; e <= 4; ++e) {
        const float v = std::pow(2.0f, static_cast<float>(e)) * 1.37f;
        xs.push_back(v);
        xs.push_back(-v);
    }
    xs.push_back(0.0f);
    const auto    n = static_cast<int64_t>(xs.size());
    ggml_tensor * x = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, n);
    ggml_tensor * y = ggml_tanh(ctx_, x);
    ggml_cgraph * gf = ggml_new_graph(ctx_);
    ggml_build_forward_expand(gf, y);
    allocate();
    ggml_backend_tensor_set(x, xs.data(), 0, ggml_nbytes(x));
    ASSERT_EQ(ggml_backend_graph_compute(backend_, gf), GGML_STATUS_SUCCESS);
    std::vector<float> ys(xs.size());
    ggml_backend_tensor_get(y, ys.data(), 0, ggml_nbytes(y));
    for (size_t i = 0; i < xs.size(); ++i) {
        const double want = std::tanh(static_cast<double>(xs[i]));
        EXPECT_LE(std::fabs(ys[i] - want), 4e-7 * std::fabs(want)) << "tanh(" << xs[i] << ") = " << ys[i];
    }
}

} // namespace
} // namespace switchyard::testing
