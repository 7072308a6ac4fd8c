// The CPU dispatch table (src/cpu/dispatch.cpp) is the one place that says which kernel family computes an op.
// Each family answers for exactly the ops the table gives it, no family answers for NONE or the views, and every
// op with a family gets a kernel: a family that gains or loses an op without the table (or the reverse) fails here.
#include "core/op_traits.h"
#include "cpu/kernel.h"
#include "cpu/kernels/families.h"

#include "ggml.h"

#include <gtest/gtest.h>

namespace {

using switchyard::cpu::KernelInfo;
using switchyard::cpu::kernels::family_of;
using switchyard::cpu::kernels::kFamilies;

TEST(CpuDispatch, EachFamilyAnswersForExactlyItsOps) {
    for (int i = 0; i < GGML_OP_COUNT; ++i) {
        const auto op = static_cast<ggml_op>(i);
        int answering = 0;
        for (size_t f = 0; f < kFamilies.size(); ++f) {
            const bool answers = kFamilies[f](op).supports != nullptr;
            answering += answers ? 1 : 0;
            EXPECT_EQ(answers, family_of(op) == kFamilies[f]) << ggml_op_name(op) << ", family " << f;
        }
        EXPECT_EQ(answering, switchyard::op_is_empty(op) ? 0 : 1) << ggml_op_name(op);
    }
}

TEST(CpuDispatch, EveryOpHasAKernelAndTheEmptyOpsComputeNothing) {
    for (int i = 0; i < GGML_OP_COUNT; ++i) {
        const auto         op   = static_cast<ggml_op>(i);
        const KernelInfo & info = switchyard::cpu::kernel_for(op);
        EXPECT_NE(info.supports, nullptr) << ggml_op_name(op);
        EXPECT_EQ(info.compute == nullptr, switchyard::op_is_empty(op)) << ggml_op_name(op);
        EXPECT_EQ(family_of(op) == nullptr, switchyard::op_is_empty(op)) << ggml_op_name(op);
    }
    EXPECT_EQ(family_of(static_cast<ggml_op>(GGML_OP_COUNT)), nullptr);
    EXPECT_EQ(switchyard::cpu::kernel_for(static_cast<ggml_op>(-1)).supports, nullptr);
}

} // namespace
