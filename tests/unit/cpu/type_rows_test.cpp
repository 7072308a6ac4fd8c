// The CPU's per-type rows (cpu/quants/type_rows.h): every type with a kernel at any level has a row, the rows'
// facts agree with the storage table, and the mappings the kernels read from them are upstream's (exact
// expectations from ggml-cpu.c's type_traits_cpu and the GEMM form documented in gemm.h).
#include "cpu/quants/gemm.h"
#include "cpu/quants/matvec.h"
#include "cpu/quants/type_rows.h"
#include "cpu/simd/isa.h"

#include "quant/types.h"

#include <gtest/gtest.h>

#include <set>
#include <type_traits>

namespace {

using namespace switchyard::cpu::quants;
using switchyard::kTypeTable;

TEST(CpuTypeRows, EveryTypeWithAKernelAtAnyLevelHasARow) {
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const auto type = static_cast<ggml_type>(t);
        for (size_t l = 0; l < switchyard::cpu::simd::kIsaCount; ++l) {
            const auto level = static_cast<switchyard::cpu::simd::Isa>(l);
            if (matvec_entry(type, level).fn != nullptr) {
                EXPECT_EQ(cpu_type_row(type).type, type) << ggml_type_name(type) << " has a kernel but no row";
            }
        }
        if (gemm_format(type).act_type != GGML_TYPE_COUNT) {
            EXPECT_EQ(cpu_type_row(type).type, type) << ggml_type_name(type);
        }
    }
}

TEST(CpuTypeRows, RowsAreUniqueAndAgreeWithTheStorageTable) {
    std::set<int> seen;
    for (const CpuTypeRow & r : kCpuTypeRows) {
        EXPECT_TRUE(seen.insert(r.type).second) << ggml_type_name(r.type) << " has two rows";
        EXPECT_NE(kTypeTable[r.type].name, nullptr);
        EXPECT_NE(kTypeTable[r.act].name, nullptr);
        if (r.gemm_group != 0) {
            EXPECT_TRUE(r.gemm_group == 16 || r.gemm_group == 32) << ggml_type_name(r.type);
            EXPECT_EQ(kTypeTable[r.type].blck_size % r.gemm_group, 0) << ggml_type_name(r.type);
            EXPECT_EQ(kTypeTable[r.act].blck_size % r.gemm_group, 0) << ggml_type_name(r.type);
        }
    }
}

TEST(CpuTypeRows, ActivationFormatsAreUpstreams) {
    EXPECT_EQ(vec_dot_type(GGML_TYPE_F32), GGML_TYPE_F32);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_F16), GGML_TYPE_F16);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_BF16), GGML_TYPE_BF16);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_Q4_0), GGML_TYPE_Q8_0);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_Q4_1), GGML_TYPE_Q8_1);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_Q5_0), GGML_TYPE_Q8_0);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_Q5_1), GGML_TYPE_Q8_1);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_Q8_0), GGML_TYPE_Q8_0);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_Q8_1), GGML_TYPE_Q8_1);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_IQ4_NL), GGML_TYPE_Q8_0);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_MXFP4), GGML_TYPE_Q8_0);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_Q2_K), GGML_TYPE_Q8_K);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_Q6_K), GGML_TYPE_Q8_K);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_IQ2_XXS), GGML_TYPE_Q8_K);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_IQ4_XS), GGML_TYPE_Q8_K);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_TQ1_0), GGML_TYPE_Q8_K);
    EXPECT_EQ(vec_dot_type(GGML_TYPE_TQ2_0), GGML_TYPE_Q8_K);
}

TEST(CpuTypeRows, GemmFormsAreTheDocumentedOnes) {
    struct Expect {
        ggml_type type, act;
        int       group, bias;
        bool      min;
    };
    const Expect expected[] = {
        {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, 32, 8, false},   {GGML_TYPE_Q4_1, GGML_TYPE_Q8_1, 32, 0, true},
        {GGML_TYPE_Q5_0, GGML_TYPE_Q8_0, 32, 16, false},  {GGML_TYPE_Q8_0, GGML_TYPE_Q8_0, 32, 128, false},
        {GGML_TYPE_Q2_K, GGML_TYPE_Q8_K, 16, 0, true},    {GGML_TYPE_Q3_K, GGML_TYPE_Q8_K, 16, 4, false},
        {GGML_TYPE_Q4_K, GGML_TYPE_Q8_K, 32, 0, true},    {GGML_TYPE_Q6_K, GGML_TYPE_Q8_K, 16, 32, false},
        // the grid formats' signed grid bytes (62 at most) + 128; groups of their scales
        {GGML_TYPE_IQ2_XXS, GGML_TYPE_Q8_K, 32, 128, false}, {GGML_TYPE_IQ2_XS, GGML_TYPE_Q8_K, 16, 128, false},
        {GGML_TYPE_IQ2_S, GGML_TYPE_Q8_K, 16, 128, false},   {GGML_TYPE_IQ3_XXS, GGML_TYPE_Q8_K, 32, 128, false},
        {GGML_TYPE_IQ3_S, GGML_TYPE_Q8_K, 32, 128, false},
        // iq1: 8 g + delta (-9 .. 9) + 128, groups of their scales; the trits' t = v + 1
        {GGML_TYPE_IQ1_S, GGML_TYPE_Q8_K, 32, 128, false},   {GGML_TYPE_IQ1_M, GGML_TYPE_Q8_K, 16, 128, false},
        {GGML_TYPE_TQ1_0, GGML_TYPE_Q8_K, 32, 1, false},     {GGML_TYPE_TQ2_0, GGML_TYPE_Q8_K, 32, 1, false},
    };
    for (const Expect & e : expected) {
        const GemmFormat f = gemm_format(e.type);
        EXPECT_EQ(f.act_type, e.act) << ggml_type_name(e.type);
        EXPECT_EQ(f.group, e.group) << ggml_type_name(e.type);
        EXPECT_EQ(f.bias, e.bias) << ggml_type_name(e.type);
        EXPECT_EQ(f.has_min, e.min) << ggml_type_name(e.type);
        // the K-quants with integer sub-block scales and 256-element super-blocks on both sides
        const bool superblocks = e.type == GGML_TYPE_Q4_K || e.type == GGML_TYPE_Q6_K;
        EXPECT_EQ(f.superblocks, superblocks) << ggml_type_name(e.type);
    }
    EXPECT_EQ(gemm_format(GGML_TYPE_F32).act_type, GGML_TYPE_COUNT);
    EXPECT_EQ(gemm_format(GGML_TYPE_NVFP4).act_type, GGML_TYPE_COUNT);
    EXPECT_EQ(gemm_format(GGML_TYPE_Q1_0).act_type, GGML_TYPE_COUNT);
}

// The columns the generic sites branch on (with_type_row): exact expectations from the formats and upstream.
TEST(CpuTypeRows, PairsRepackFormsAndBlocksAreTheDocumentedOnes) {
    for (const CpuTypeRow & r : kCpuTypeRows) {
        // upstream's x86 matrix-vector order sums block pairs for the two table formats only
        EXPECT_EQ(r.upstream_pairs, r.type == GGML_TYPE_IQ4_NL || r.type == GGML_TYPE_MXFP4) << ggml_type_name(r.type);
        RepackForm form = RepackForm::kNone;
        if (r.type == GGML_TYPE_Q4_0 || r.type == GGML_TYPE_Q4_1 || r.type == GGML_TYPE_Q5_0 ||
            r.type == GGML_TYPE_Q5_1 || r.type == GGML_TYPE_IQ4_NL || r.type == GGML_TYPE_MXFP4) {
            form = RepackForm::kNibbles;
        } else if (r.type == GGML_TYPE_Q8_0) {
            form = RepackForm::kBytes;
        } else if (r.type == GGML_TYPE_Q4_K) {
            form = RepackForm::kQ4KBlocks;
        } else if (r.type == GGML_TYPE_Q2_K) {
            form = RepackForm::kQ2KBlocks;
        } else if (r.type == GGML_TYPE_Q3_K) {
            form = RepackForm::kQ3KBlocks;
        } else if (r.type == GGML_TYPE_Q5_K) {
            form = RepackForm::kQ5KBlocks;
        } else if (r.type == GGML_TYPE_Q6_K) {
            form = RepackForm::kQ6KBlocks;
        } else if (r.type == GGML_TYPE_IQ4_XS) {
            form = RepackForm::kIQ4XSBlocks;
        } else if (r.type == GGML_TYPE_TQ2_0) {
            form = RepackForm::kTQ2Blocks;
        } else if (r.type == GGML_TYPE_TQ1_0) {
            form = RepackForm::kTQ1Blocks;
        } else if (r.type == GGML_TYPE_F32 || r.type == GGML_TYPE_F16 || r.type == GGML_TYPE_BF16) {
            form = RepackForm::kFloats;
        } else if (r.type == GGML_TYPE_IQ2_XXS || r.type == GGML_TYPE_IQ2_XS || r.type == GGML_TYPE_IQ2_S ||
                   r.type == GGML_TYPE_IQ3_XXS || r.type == GGML_TYPE_IQ3_S || r.type == GGML_TYPE_IQ1_S ||
                   r.type == GGML_TYPE_IQ1_M) {
            form = RepackForm::kRows; // their levels come from grids: the rows as they are
        }
        EXPECT_EQ(r.repack, form) << ggml_type_name(r.type);
    }
}

// Every block struct maps back to its type with the storage table's size, and the table formats carry their table.
TEST(CpuTypeRows, BlockOfEveryTypeIsItsStruct) {
    int checked = 0;
    for (const CpuTypeRow & r : kCpuTypeRows) {
        with_type_row(r.type, [&]<ggml_type T>() {
            using Block = switchyard::quant::BlockOf<T>;
            if constexpr (!std::is_void_v<Block>) {
                EXPECT_EQ(Block::kType, T);
                EXPECT_EQ(sizeof(Block), kTypeTable[T].type_size) << ggml_type_name(T);
                const int8_t * values = switchyard::quant::value_table<Block>();
                EXPECT_EQ(values != nullptr, T == GGML_TYPE_IQ4_NL || T == GGML_TYPE_IQ4_XS || T == GGML_TYPE_MXFP4)
                    << ggml_type_name(T);
                ++checked;
            }
        });
    }
    EXPECT_EQ(checked, 19); // q4_0, q4_1, q5_0, q5_1, q8_0, q8_1, q2_K .. q8_K, iq4_nl, iq4_xs, tq2_0, mxfp4, nvfp4, q1_0, q2_0
    EXPECT_EQ(switchyard::quant::value_table<switchyard::quant::BlockIQ4_NL>()[0], -127);
    EXPECT_EQ(switchyard::quant::value_table<switchyard::quant::BlockMXFP4>()[15], -12);
    EXPECT_FALSE(with_type_row(GGML_TYPE_COUNT, []<ggml_type>() {}));
    EXPECT_FALSE(with_type_row(GGML_TYPE_I32, []<ggml_type>() {}));
}

} // namespace
