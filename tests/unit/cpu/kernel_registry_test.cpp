// The CPU kernel registry (cpu/kernel_registry.h): the scalar column has every family that must always be there,
// other architectures' columns above scalar are empty, the selector takes for every family (and weight type) the
// highest level the CPU supports that has an entry, never a level above SWITCHYARD_CPU_ISA (this suite also runs
// with the cap at scalar, avx2 and avx512: tests/CMakeLists.txt), and the kernels' own choices are the registry's.
// The levels of the fast paths are written here by hand (the float GEMM at AVX-512 for f32 / f16 and at AVX-512
// BF16 for bf16, the integer GEMM and the repacked tile at AVX-512 VNNI, the AMX tiles at AMX).
#include "cpu/kernel_registry.h"

#include "cpu/kernels/flash_attn/tile.h"
#include "cpu/kernels/mul_mat/dequant.h"
#include "cpu/kernels/mul_mat/dot.h"
#include "cpu/kernels/reduce/softmax_rows.h"
#include "cpu/kernels/rope/rope_rows.h"
#include "cpu/kernels/row_kernels.h"
#include "cpu/quants/gemm.h"
#include "cpu/quants/gemm_float.h"
#include "cpu/quants/matvec.h"
#include "cpu/repack/format.h"
#include "cpu/simd/isa.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

using switchyard::IsaLevel;
using switchyard::kIsaLevelCount;
using switchyard::cpu::IsaColumn;
using switchyard::cpu::isa_column;
using switchyard::cpu::select_kernel;
using switchyard::cpu::selected_level;
using switchyard::cpu::simd::isa_supported;

// The families below are the whole column: a family added to IsaColumn must be added here too.
static_assert(sizeof(IsaColumn) == 17 * sizeof(void *), "kernel_registry_test.cpp lists every family of IsaColumn");

// f(name, member) for the families with one entry per level, and for those keyed by weight type.
template <class F>
void for_each_family(F && f) {
    f("row_kernels", &IsaColumn::row_kernels);
    f("softmax_rows", &IsaColumn::softmax_rows);
    f("rope_rows", &IsaColumn::rope_rows);
    f("attn_tiles", &IsaColumn::attn_tiles);
    f("dots", &IsaColumn::dots);
    f("dequant", &IsaColumn::dequant);
    f("gemm_pack", &IsaColumn::gemm_pack);
    f("gemm_tile", &IsaColumn::gemm_tile);
    f("gemm_tile_amx", &IsaColumn::gemm_tile_amx);
    f("gemm_pack_amx", &IsaColumn::gemm_pack_amx);
    f("repack_expand", &IsaColumn::repack_expand);
    f("repack_tile", &IsaColumn::repack_tile);
    f("act_q8_K", &IsaColumn::act_q8_K);
}

template <class F>
void for_each_typed_family(F && f) {
    f("matvec", &IsaColumn::matvec);
    f("gemm_float", &IsaColumn::gemm_float);
    f("gemm_float_amx", &IsaColumn::gemm_float_amx);
    f("repack_float_tile", &IsaColumn::repack_float_tile);
}

IsaLevel level(int i) { return static_cast<IsaLevel>(i); }

const char * name(IsaLevel l) { return switchyard::isa_level_name(l); }

// The cap this run is under (SWITCHYARD_CPU_ISA), or the top level.
IsaLevel cap() {
    IsaLevel     c   = switchyard::cpu::kTopIsaLevel;
    const char * env = std::getenv("SWITCHYARD_CPU_ISA");
    if (env != nullptr) {
        switchyard::parse_isa_level(env, &c);
    }
    return c;
}

// The highest of the supported levels at or below limit whose column has an entry (`has(level)`), found from the
// bottom up (the selector searches from the top down); kCount when none.
template <class Has>
IsaLevel highest_with_entry(IsaLevel limit, Has has) {
    IsaLevel best = IsaLevel::kCount;
    for (int i = 0; i <= static_cast<int>(limit); ++i) {
        if (isa_supported(level(i)) && has(level(i))) {
            best = level(i);
        }
    }
    return best;
}

TEST(KernelRegistry, ScalarColumnHasEveryFamilyThatMustAlwaysBeThere) {
    const IsaColumn & s = isa_column(IsaLevel::kScalar);
    EXPECT_NE(s.row_kernels, nullptr);
    EXPECT_NE(s.softmax_rows, nullptr);
    EXPECT_NE(s.rope_rows, nullptr);
    EXPECT_NE(s.attn_tiles, nullptr);
    EXPECT_NE(s.dots, nullptr);
    EXPECT_NE(s.dequant, nullptr);
    EXPECT_NE(s.gemm_pack, nullptr);
    EXPECT_NE(s.repack_expand, nullptr);
    EXPECT_NE(s.act_q8_K, nullptr);
    ASSERT_NE(s.matvec, nullptr);
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const auto type = static_cast<ggml_type>(t);
        if (switchyard::cpu::quants::act_type_for(type) != GGML_TYPE_COUNT) {
            EXPECT_NE(s.matvec(type), nullptr) << ggml_type_name(type);
        }
    }
    // the fast paths only: without a level of theirs the CPU takes another route
    EXPECT_EQ(s.gemm_tile, nullptr);
    EXPECT_EQ(s.gemm_tile_amx, nullptr);
    EXPECT_EQ(s.gemm_pack_amx, nullptr);
    EXPECT_EQ(s.repack_tile, nullptr);
    EXPECT_EQ(s.gemm_float, nullptr);
    EXPECT_EQ(s.gemm_float_amx, nullptr);
    EXPECT_EQ(s.repack_float_tile, nullptr);
}

// A column of another architecture's level is empty: x86's on aarch64 and elsewhere, NEON's on x86-64.
TEST(KernelRegistry, ColumnsOfOtherArchitecturesAreEmpty) {
    for (int i = 1; i < static_cast<int>(kIsaLevelCount); ++i) {
#if defined(__x86_64__)
        if (level(i) != switchyard::IsaLevel::kNeon) {
            continue;
        }
#elif defined(__aarch64__)
        if (level(i) == switchyard::IsaLevel::kNeon) {
            continue;
        }
#endif
        const IsaColumn & c     = isa_column(level(i));
        auto              empty = [&](const char * family, auto member) {
            EXPECT_EQ(c.*member, nullptr) << family << " " << name(level(i));
        };
        for_each_family(empty);
        for_each_typed_family(empty);
    }
}

TEST(KernelRegistry, EachChoiceIsTheHighestSupportedLevelWithAnEntry) {
    for (int limit = 0; limit < static_cast<int>(kIsaLevelCount); ++limit) {
        for_each_family([&](const char * family, auto member) {
            const IsaLevel want =
                highest_with_entry(level(limit), [&](IsaLevel l) { return isa_column(l).*member != nullptr; });
            EXPECT_EQ(selected_level(member, level(limit)), want) << family << " limit " << name(level(limit));
            const auto entry = select_kernel(member, level(limit));
            EXPECT_EQ(entry, want == IsaLevel::kCount ? nullptr : isa_column(want).*member) << family;
        });
        for_each_typed_family([&](const char * family, auto member) {
            for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
                const auto     type = static_cast<ggml_type>(t);
                const IsaLevel want = highest_with_entry(level(limit), [&](IsaLevel l) {
                    const auto per_type = isa_column(l).*member;
                    return per_type != nullptr && per_type(type) != nullptr;
                });
                EXPECT_EQ(selected_level(member, type, level(limit)), want)
                    << family << " " << ggml_type_name(type) << " limit " << name(level(limit));
            }
        });
    }
}

TEST(KernelRegistry, NothingAboveTheCapIsChosen) {
    const IsaLevel c = cap();
    for_each_family([&](const char * family, auto member) {
        const IsaLevel l = selected_level(member);
        if (l != IsaLevel::kCount) {
            EXPECT_LE(static_cast<int>(l), static_cast<int>(c)) << family << " at " << name(l);
            EXPECT_TRUE(isa_supported(l)) << family << " at " << name(l);
        }
    });
    for_each_typed_family([&](const char * family, auto member) {
        for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
            const IsaLevel l = selected_level(member, static_cast<ggml_type>(t));
            if (l != IsaLevel::kCount) {
                EXPECT_LE(static_cast<int>(l), static_cast<int>(c)) << family << " " << t << " at " << name(l);
                EXPECT_TRUE(isa_supported(l)) << family << " " << t << " at " << name(l);
            }
        }
    });
}

// The levels of the fast paths, written by hand from the kernels that exist.
TEST(KernelRegistry, FastPathsHaveTheirLevels) {
    auto at = [](IsaLevel l) { return isa_supported(l) ? l : IsaLevel::kCount; };
    // x86-64's level or aarch64's (a CPU has the levels of one architecture only)
    auto x86_or_neon = [&](IsaLevel l) { return isa_supported(IsaLevel::kNeon) ? IsaLevel::kNeon : at(l); };
    EXPECT_EQ(selected_level(&IsaColumn::gemm_float, GGML_TYPE_F32), x86_or_neon(IsaLevel::kAvx512));
    EXPECT_EQ(selected_level(&IsaColumn::gemm_float, GGML_TYPE_F16), x86_or_neon(IsaLevel::kAvx512));
    EXPECT_EQ(selected_level(&IsaColumn::gemm_float, GGML_TYPE_BF16), at(IsaLevel::kAvx512Bf16));
    EXPECT_EQ(selected_level(&IsaColumn::gemm_float, GGML_TYPE_Q4_0), IsaLevel::kCount);
    EXPECT_EQ(selected_level(&IsaColumn::gemm_float_amx, GGML_TYPE_F16), at(IsaLevel::kAmx));
    EXPECT_EQ(selected_level(&IsaColumn::gemm_float_amx, GGML_TYPE_BF16), at(IsaLevel::kAmx));
    EXPECT_EQ(selected_level(&IsaColumn::gemm_float_amx, GGML_TYPE_F32), IsaLevel::kCount);
    EXPECT_EQ(selected_level(&IsaColumn::gemm_tile), x86_or_neon(IsaLevel::kAvx512Vnni));
    EXPECT_EQ(selected_level(&IsaColumn::gemm_tile_amx), at(IsaLevel::kAmx));
    EXPECT_EQ(selected_level(&IsaColumn::gemm_pack_amx), at(IsaLevel::kAmx)); // the tile's panels with it
    EXPECT_EQ(selected_level(&IsaColumn::repack_tile), at(IsaLevel::kAvx512Vnni));
    EXPECT_EQ(selected_level(&IsaColumn::repack_float_tile, GGML_TYPE_F32), at(IsaLevel::kAvx512));
    EXPECT_EQ(selected_level(&IsaColumn::repack_float_tile, GGML_TYPE_F16), at(IsaLevel::kAvx512));
    EXPECT_EQ(selected_level(&IsaColumn::repack_float_tile, GGML_TYPE_BF16), at(IsaLevel::kAvx512Bf16));
    EXPECT_EQ(selected_level(&IsaColumn::repack_float_tile, GGML_TYPE_Q4_0), IsaLevel::kCount);
    // the expander and the packer fall back to the portable ones
    const IsaLevel vnni_or_scalar = isa_supported(IsaLevel::kAvx512Vnni) ? IsaLevel::kAvx512Vnni : IsaLevel::kScalar;
    EXPECT_EQ(selected_level(&IsaColumn::repack_expand), vnni_or_scalar);
    EXPECT_EQ(selected_level(&IsaColumn::gemm_pack), vnni_or_scalar);
    // the q8_K activation quantizer: AVX-512's vector one, else the reference
    EXPECT_EQ(selected_level(&IsaColumn::act_q8_K), isa_supported(IsaLevel::kAvx512) ? IsaLevel::kAvx512 : IsaLevel::kScalar);
}

TEST(KernelRegistry, PackersAreTriedFromTheHighestLevelDown) {
    const auto chain = switchyard::cpu::select_kernel_chain(&IsaColumn::gemm_pack);
    size_t     n     = 0;
    for (int i = static_cast<int>(kIsaLevelCount) - 1; i >= 0; --i) {
        if (isa_supported(level(i)) && isa_column(level(i)).gemm_pack != nullptr) {
            EXPECT_EQ(chain[n++], isa_column(level(i)).gemm_pack) << name(level(i));
        }
    }
    ASSERT_GE(n, 1u);
    EXPECT_EQ(chain[n - 1], isa_column(IsaLevel::kScalar).gemm_pack) << "the portable packer comes last";
    for (; n < chain.size(); ++n) {
        EXPECT_EQ(chain[n], nullptr);
    }
}

// The tables the kernels run are the registry's choices.
TEST(KernelRegistry, KernelsRunTheRegistrysChoice) {
    namespace k = switchyard::cpu::kernels;
    namespace q = switchyard::cpu::quants;
    EXPECT_EQ(&k::row_kernels(), &select_kernel(&IsaColumn::row_kernels)());
    EXPECT_EQ(&k::softmax_rows(), &select_kernel(&IsaColumn::softmax_rows)());
    EXPECT_EQ(&k::rope_rows(), &select_kernel(&IsaColumn::rope_rows)());
    EXPECT_EQ(&k::attn_tile_kernels(), &select_kernel(&IsaColumn::attn_tiles)());
    EXPECT_EQ(&k::dot_kernels(), &select_kernel(&IsaColumn::dots)());
    EXPECT_EQ(&k::dequant_kernels(), &select_kernel(&IsaColumn::dequant)());
    EXPECT_EQ(q::gemm_tile_fast(), select_kernel(&IsaColumn::gemm_tile));
    EXPECT_EQ(q::gemm_tile_amx(), select_kernel(&IsaColumn::gemm_tile_amx));
    EXPECT_EQ(q::gemm_int_amx(), select_kernel(&IsaColumn::gemm_tile_amx) != nullptr);
    EXPECT_EQ(switchyard::cpu::repack::tile_fast(), select_kernel(&IsaColumn::repack_tile));
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const auto type = static_cast<ggml_type>(t);
        SCOPED_TRACE(ggml_type_name(type));
        EXPECT_EQ(q::matvec_kernel(type).fn, select_kernel(&IsaColumn::matvec, type));
        EXPECT_EQ(q::gemm_float_available(type), select_kernel(&IsaColumn::gemm_float, type) != nullptr);
        EXPECT_EQ(q::gemm_float_amx(type, 2 * q::kGemmAmxBlock),
                  select_kernel(&IsaColumn::gemm_float_amx, type) != nullptr);
        EXPECT_FALSE(q::gemm_float_amx(type, q::kGemmAmxBlock + 2)) << "AMX rows are whole blocks";
    }
}

} // namespace
