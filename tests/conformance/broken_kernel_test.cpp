// The conformance suite must catch a faulty kernel: swap one into the CPU dispatch table and check that the
// harness reports the case as failed (wrong values; a write past the end of the output, also when the output's
// size is not a multiple of the buffer alignment, so the write lands in what would be alignment padding).
#include "conformance/op_cases.h"
#include "conformance/op_harness.h"

#include "cpu/kernel.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cstring>

namespace switchyard::testing {
namespace {

// dst = src0 (ignores src1): wrong for any ADD with non-zero src1
void add_forgets_src1(const cpu::ComputeParams & p, ggml_tensor * dst) {
    if (p.ith == 0) {
        std::memcpy(dst->data, dst->src[0]->data, ggml_nbytes(dst));
    }
}

// correct values... plus one float written past the end of dst
void add_writes_past_end(const cpu::ComputeParams & p, ggml_tensor * dst) {
    if (p.ith != 0) {
        return;
    }
    const ggml_tensor * a = dst->src[0], *b = dst->src[1];
    auto * out = static_cast<float *>(dst->data);
    for (int64_t i = 0; i < ggml_nelements(dst); ++i) {
        out[i] = static_cast<const float *>(a->data)[i] + static_cast<const float *>(b->data)[i];
    }
    out[ggml_nelements(dst)] = 42.0f;
}

const OpCase & same_shape_add() {
    for (const OpCase & c : op_cases()) {
        if (c.name == "ADD(type=f32,ne_a=[10,5,4,3],ne_b=[10,5,4,3])") return c;
    }
    throw std::runtime_error("ADD case missing from the list");
}

// ADD of two [7,3] f32 tensors: an 84-byte output, not a multiple of any alignment a backend uses (>= 8)
const OpCase & odd_sized_add() {
    static const OpCase c{"ADD(type=f32,ne=[7,3,1,1])", GGML_OP_ADD, [](CaseBuilder & b) {
                              return ggml_add(b.ctx(), b.input(GGML_TYPE_F32, 7, 3), b.input(GGML_TYPE_F32, 7, 3));
                          }};
    return c;
}

class BrokenKernel : public ::testing::Test {
protected:
    void SetUp() override {
        cpu      = ggml_backend_cpu_init();
        original = cpu::kernel_for(GGML_OP_ADD);
    }
    void TearDown() override {
        cpu::replace_kernel(GGML_OP_ADD, original);
        ggml_backend_free(cpu);
    }
    void swap_in(cpu::KernelFn fn) {
        cpu::KernelInfo broken = original;
        broken.compute         = fn;
        broken.n_tasks         = nullptr;
        cpu::replace_kernel(GGML_OP_ADD, broken);
    }
    ggml_backend_t  cpu = nullptr;
    cpu::KernelInfo original;
};

TEST_F(BrokenKernel, CorrectKernelPasses) {
    EXPECT_EQ(run_case(cpu, same_shape_add()).status, CaseStatus::Passed);
}

TEST_F(BrokenKernel, WrongValuesAreCaught) {
    swap_in(add_forgets_src1);
    const CaseResult r = run_case(cpu, same_shape_add());
    EXPECT_EQ(r.status, CaseStatus::Failed);
    EXPECT_GT(r.nmse, same_shape_add().max_nmse);
}

TEST_F(BrokenKernel, OutOfBoundsWriteIsCaught) {
    swap_in(add_writes_past_end);
    const CaseResult r = run_case(cpu, same_shape_add());
    EXPECT_EQ(r.status, CaseStatus::Failed);
    EXPECT_NE(r.message.find("guard"), std::string::npos) << r.message;
}

TEST_F(BrokenKernel, CorrectKernelPassesOnOddSizedOutput) {
    EXPECT_EQ(run_case(cpu, odd_sized_add()).status, CaseStatus::Passed);
}

// One float past the end of an output whose size is not a multiple of the alignment: the write lands inside the
// padding up to the next aligned offset, where only a guard that starts at the tensor's real end can see it.
TEST_F(BrokenKernel, OneElementOverrunIntoAlignmentPaddingIsCaught) {
    const size_t align  = ggml_backend_get_alignment(cpu);
    const size_t nbytes = 7 * 3 * sizeof(float);
    ASSERT_NE(nbytes % align, 0u) << "the case must not end on an alignment boundary";
    ASSERT_LE(nbytes + sizeof(float), (nbytes + align - 1) / align * align) << "the overrun must stay inside the padding";
    swap_in(add_writes_past_end);
    const CaseResult r = run_case(cpu, odd_sized_add());
    EXPECT_EQ(r.status, CaseStatus::Failed);
    EXPECT_NE(r.message.find("guard"), std::string::npos) << r.message;
}

} // namespace
} // namespace switchyard::testing
