// Known answers for the IQ grid formats and TQ1_0: blocks written byte by byte from the layouts in
// quant/iq_blocks.h, never by the code under test, dequantize to the values worked out here. The tests read grid
// points from the tables (format data) but do the index packing, the sign rule and the scale arithmetic
// themselves. Each format gets two blocks (d = 1 and d = -0.5, so the block stride and the sign of d are covered)
// with indices, signs and sub-scales drawn from a fixed seed; scales and grid values are small, so every
// expected value is exact whatever the order of the float operations. TQ1_0 also round-trips ternary data.
#include "quant_test_util.h"

#include "quant/iq_grids.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace {

using namespace switchyard::quant_test;
namespace sq = switchyard::quant;

constexpr int      kN            = 256;
constexpr uint16_t kHalfMinusHalf = 0xb800; // -0.5
constexpr uint16_t kD[2]          = {kHalfOne, kHalfMinusHalf};
constexpr float    kDf[2]         = {1.0f, -0.5f};

std::vector<float> decode(const sq::Format & f, const Bytes & b, int nblocks) {
    std::vector<float> y(static_cast<size_t>(nblocks * kN), -12345.0f);
    f.to_float(b.data(), y.data(), nblocks * kN);
    return y;
}

void expect_decodes_to(const sq::Format & f, const Bytes & b, const std::vector<float> & want) {
    const auto got = decode(f, b, static_cast<int>(want.size()) / kN);
    for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << ggml_type_name(f.type) << " element " << i;
    }
}

void put_u32(Bytes & b, size_t off, uint32_t v) {
    b.u16(off, static_cast<uint16_t>(v & 0xffff)).u16(off + 2, static_cast<uint16_t>(v >> 16));
}

// Byte j of a grid point.
int grid_byte(uint64_t point, int j) {
    return static_cast<int>((point >> (8 * j)) & 0xff);
}

// The 7 stored sign bits plus the eighth that makes the count of negatives even.
unsigned even_signs(unsigned seven) {
    return seven | ((static_cast<unsigned>(std::popcount(seven)) & 1u) << 7);
}

float sign(unsigned mask, int j) {
    return (mask >> j) & 1u ? -1.0f : 1.0f;
}

unsigned draw(std::mt19937 & rng, unsigned count) {
    return static_cast<unsigned>(rng() % count);
}

TEST(IqGridKnownAnswer, SignTableKeepsTheSevenBitsAndEvenParity) {
    for (unsigned i = 0; i < 128; ++i) {
        EXPECT_EQ(sq::kEvenSigns[i], even_signs(i)) << i;
    }
    EXPECT_EQ(sq::kEvenSigns[1], 0x81); // one stored negative: element 7 negative too
    EXPECT_EQ(sq::kEvenSigns[3], 0x03);
}

TEST(IqGridKnownAnswer, IQ2_XXS_SpelledOut) {
    // d = 1; group 0: run 0 takes point 0 (all magnitudes 8), sign index 1 (elements 0 and 7 negative), s = 3:
    // scale (3 + 0.5) / 4 = 0.875 -> -7, 7, 7, 7, 7, 7, 7, -7. Everything else zero bytes: point 0, no signs,
    // s = 0 -> 8 * 0.125 = 1.
    Bytes b(66);
    b.u16(0, kHalfOne);
    put_u32(b, 2 + 4, (3u << 28) | 1u);
    std::vector<float> want(kN, 1.0f);
    for (int j = 0; j < 8; ++j) {
        want[static_cast<size_t>(j)] = j == 0 || j == 7 ? -7.0f : 7.0f;
    }
    for (int j = 8; j < 32; ++j) {
        want[static_cast<size_t>(j)] = 7.0f;
    }
    EXPECT_EQ(grid_byte(sq::kIq2xxsGrid[0], 0), 8);
    expect_decodes_to(sq::kFormatIQ2_XXS, b, want);
}

TEST(IqGridKnownAnswer, IQ2_XXS) {
    std::mt19937       rng(1);
    Bytes              b(2 * 66);
    std::vector<float> want(2 * kN);
    for (int blk = 0; blk < 2; ++blk) {
        const size_t base = 66 * static_cast<size_t>(blk);
        b.u16(base, kD[blk]);
        for (int g = 0; g < 8; ++g) {
            const unsigned s = draw(rng, 16);
            uint32_t       w = s << 28;
            for (int r = 0; r < 4; ++r) {
                const unsigned idx = draw(rng, 256), sg = draw(rng, 128);
                b.u8(base + 2 + 8 * static_cast<size_t>(g) + static_cast<size_t>(r), static_cast<uint8_t>(idx));
                w |= sg << (7 * r);
                for (int j = 0; j < 8; ++j) {
                    want[static_cast<size_t>(kN * blk + 32 * g + 8 * r + j)] =
                        kDf[blk] * (static_cast<float>(s) + 0.5f) / 4 *
                        static_cast<float>(grid_byte(sq::kIq2xxsGrid[idx], j)) * sign(even_signs(sg), j);
                }
            }
            put_u32(b, base + 2 + 8 * static_cast<size_t>(g) + 4, w);
        }
    }
    expect_decodes_to(sq::kFormatIQ2_XXS, b, want);
}

TEST(IqGridKnownAnswer, IQ2_XS) {
    std::mt19937       rng(2);
    Bytes              b(2 * 74);
    std::vector<float> want(2 * kN);
    for (int blk = 0; blk < 2; ++blk) {
        const size_t base = 74 * static_cast<size_t>(blk);
        b.u16(base, kD[blk]);
        for (int g = 0; g < 8; ++g) {
            const unsigned s[2] = {draw(rng, 16), draw(rng, 16)};
            b.u8(base + 66 + static_cast<size_t>(g), static_cast<uint8_t>(s[0] | (s[1] << 4)));
            for (int r = 0; r < 4; ++r) {
                const unsigned idx = draw(rng, 512), sg = draw(rng, 128);
                b.u16(base + 2 + 2 * static_cast<size_t>(4 * g + r), static_cast<uint16_t>(idx | (sg << 9)));
                for (int j = 0; j < 8; ++j) {
                    want[static_cast<size_t>(kN * blk + 32 * g + 8 * r + j)] =
                        kDf[blk] * (static_cast<float>(s[r / 2]) + 0.5f) / 4 *
                        static_cast<float>(grid_byte(sq::kIq2xsGrid[idx], j)) * sign(even_signs(sg), j);
                }
            }
        }
    }
    expect_decodes_to(sq::kFormatIQ2_XS, b, want);
}

TEST(IqGridKnownAnswer, IQ2_S) {
    std::mt19937       rng(3);
    Bytes              b(2 * 82);
    std::vector<float> want(2 * kN);
    for (int blk = 0; blk < 2; ++blk) {
        const size_t base = 82 * static_cast<size_t>(blk);
        b.u16(base, kD[blk]);
        for (int g = 0; g < 8; ++g) {
            const unsigned s[2] = {draw(rng, 16), draw(rng, 16)};
            b.u8(base + 74 + static_cast<size_t>(g), static_cast<uint8_t>(s[0] | (s[1] << 4)));
            for (int r = 0; r < 4; ++r) {
                const unsigned idx = draw(rng, 1024), signs = draw(rng, 256); // all 8 sign bits stored
                const size_t   q   = static_cast<size_t>(4 * g + r);
                b.u8(base + 2 + q, static_cast<uint8_t>(idx & 0xff));
                b.or8(base + 66 + static_cast<size_t>(g), static_cast<uint8_t>((idx >> 8) << (2 * r)));
                b.u8(base + 2 + 32 + q, static_cast<uint8_t>(signs));
                for (int j = 0; j < 8; ++j) {
                    want[static_cast<size_t>(kN * blk + 32 * g + 8 * r + j)] =
                        kDf[blk] * (static_cast<float>(s[r / 2]) + 0.5f) / 4 *
                        static_cast<float>(grid_byte(sq::kIq2sGrid[idx], j)) * sign(signs, j);
                }
            }
        }
    }
    expect_decodes_to(sq::kFormatIQ2_S, b, want);
}

TEST(IqGridKnownAnswer, IQ3_XXS) {
    std::mt19937       rng(4);
    Bytes              b(2 * 98);
    std::vector<float> want(2 * kN);
    for (int blk = 0; blk < 2; ++blk) {
        const size_t base = 98 * static_cast<size_t>(blk);
        b.u16(base, kD[blk]);
        for (int g = 0; g < 8; ++g) {
            const unsigned s = draw(rng, 16);
            uint32_t       w = s << 28;
            for (int r = 0; r < 4; ++r) {
                const unsigned sg = draw(rng, 128);
                w |= sg << (7 * r);
                for (int h = 0; h < 2; ++h) {
                    const unsigned idx = draw(rng, 256);
                    b.u8(base + 2 + static_cast<size_t>(8 * g + 2 * r + h), static_cast<uint8_t>(idx));
                    for (int j = 0; j < 4; ++j) {
                        want[static_cast<size_t>(kN * blk + 32 * g + 8 * r + 4 * h + j)] =
                            kDf[blk] * (static_cast<float>(s) + 0.5f) / 2 *
                            static_cast<float>(grid_byte(sq::kIq3xxsGrid[idx], j)) * sign(even_signs(sg), 4 * h + j);
                    }
                }
            }
            put_u32(b, base + 2 + 64 + 4 * static_cast<size_t>(g), w);
        }
    }
    expect_decodes_to(sq::kFormatIQ3_XXS, b, want);
}

TEST(IqGridKnownAnswer, IQ3_S) {
    std::mt19937       rng(5);
    Bytes              b(2 * 110);
    std::vector<float> want(2 * kN);
    for (int blk = 0; blk < 2; ++blk) {
        const size_t base = 110 * static_cast<size_t>(blk);
        b.u16(base, kD[blk]);
        for (int g = 0; g < 8; ++g) {
            const unsigned s = draw(rng, 16);
            b.or8(base + 106 + static_cast<size_t>(g / 2), static_cast<uint8_t>(s << (4 * (g % 2))));
            for (int r = 0; r < 4; ++r) {
                const unsigned signs = draw(rng, 256);
                b.u8(base + 74 + static_cast<size_t>(4 * g + r), static_cast<uint8_t>(signs));
                for (int h = 0; h < 2; ++h) {
                    const unsigned idx = draw(rng, 512);
                    const int      t   = 2 * r + h;
                    b.u8(base + 2 + static_cast<size_t>(8 * g + t), static_cast<uint8_t>(idx & 0xff));
                    b.or8(base + 66 + static_cast<size_t>(g), static_cast<uint8_t>((idx >> 8) << t));
                    for (int j = 0; j < 4; ++j) {
                        want[static_cast<size_t>(kN * blk + 32 * g + 4 * t + j)] =
                            kDf[blk] * static_cast<float>(1 + 2 * s) *
                            static_cast<float>(grid_byte(sq::kIq3sGrid[idx], j)) * sign(signs, 4 * h + j);
                    }
                }
            }
        }
    }
    expect_decodes_to(sq::kFormatIQ3_S, b, want);
}

// Grid value j of an IQ1 point: the byte as a signed int8 (-1, 0, 1).
float iq1_value(uint64_t point, int j) {
    const int v = grid_byte(point, j);
    return static_cast<float>(v > 127 ? v - 256 : v);
}

TEST(IqGridKnownAnswer, IQ1_S_SpelledOut) {
    // d = 1, all index bytes 0 (point 0: all -1), qh[0] = 0x8000 (s = 0, shift -1/8) -> group 0 all -1.125;
    // the other groups have shift +1/8 -> -0.875
    Bytes b(50);
    b.u16(0, kHalfOne).u16(34, 0x8000);
    std::vector<float> want(kN, -0.875f);
    for (int j = 0; j < 32; ++j) {
        want[static_cast<size_t>(j)] = -1.125f;
    }
    EXPECT_EQ(iq1_value(sq::kIq1sGrid[0], 3), -1.0f);
    expect_decodes_to(sq::kFormatIQ1_S, b, want);
}

TEST(IqGridKnownAnswer, IQ1_S) {
    std::mt19937       rng(6);
    Bytes              b(2 * 50);
    std::vector<float> want(2 * kN);
    for (int blk = 0; blk < 2; ++blk) {
        const size_t base = 50 * static_cast<size_t>(blk);
        b.u16(base, kD[blk]);
        for (int g = 0; g < 8; ++g) {
            const unsigned s = draw(rng, 8), neg = draw(rng, 2);
            unsigned       qh = (s << 12) | (neg << 15);
            for (int r = 0; r < 4; ++r) {
                const unsigned idx = draw(rng, 2048);
                b.u8(base + 2 + static_cast<size_t>(4 * g + r), static_cast<uint8_t>(idx & 0xff));
                qh |= (idx >> 8) << (3 * r);
                for (int j = 0; j < 8; ++j) {
                    want[static_cast<size_t>(kN * blk + 32 * g + 8 * r + j)] =
                        kDf[blk] * static_cast<float>(2 * s + 1) *
                        (iq1_value(sq::kIq1sGrid[idx], j) + (neg ? -0.125f : 0.125f));
                }
            }
            b.u16(base + 34 + 2 * static_cast<size_t>(g), static_cast<uint16_t>(qh));
        }
    }
    expect_decodes_to(sq::kFormatIQ1_S, b, want);
}

TEST(IqGridKnownAnswer, IQ1_M) {
    std::mt19937       rng(7);
    Bytes              b(2 * 56);
    std::vector<float> want(2 * kN);
    for (int blk = 0; blk < 2; ++blk) {
        const size_t base = 56 * static_cast<size_t>(blk);
        unsigned     words[4] = {};
        for (int k = 0; k < 4; ++k) { // nibble k of d (1 = 0x3c00, -0.5 = 0xb800) is the top of word k
            words[k] = ((kD[blk] >> (4 * k)) & 0xfu) << 12;
        }
        for (int g = 0; g < 8; ++g) {
            const unsigned s[2] = {draw(rng, 8), draw(rng, 8)}; // runs 0-1, runs 2-3
            words[g / 2] |= (s[0] | (s[1] << 3)) << (6 * (g % 2));
            for (int r = 0; r < 4; ++r) {
                const unsigned idx = draw(rng, 2048), neg = draw(rng, 2);
                b.u8(base + static_cast<size_t>(4 * g + r), static_cast<uint8_t>(idx & 0xff));
                b.or8(base + 32 + static_cast<size_t>(2 * g + r / 2),
                      static_cast<uint8_t>(((idx >> 8) | (neg << 3)) << (4 * (r % 2))));
                for (int j = 0; j < 8; ++j) {
                    want[static_cast<size_t>(kN * blk + 32 * g + 8 * r + j)] =
                        kDf[blk] * static_cast<float>(2 * s[r / 2] + 1) *
                        (iq1_value(sq::kIq1sGrid[idx], j) + (neg ? -0.125f : 0.125f));
                }
            }
        }
        for (int k = 0; k < 4; ++k) {
            b.u16(base + 48 + 2 * static_cast<size_t>(k), static_cast<uint16_t>(words[k]));
        }
    }
    expect_decodes_to(sq::kFormatIQ1_M, b, want);
}

TEST(IqGridKnownAnswer, GridFormatsDecodeOnly) {
    // no quantizer without the importance-matrix search; the type's block size is the layout's
    const std::pair<const sq::Format *, size_t> formats[] = {
        {&sq::kFormatIQ2_XXS, 66}, {&sq::kFormatIQ2_XS, 74}, {&sq::kFormatIQ2_S, 82}, {&sq::kFormatIQ3_XXS, 98},
        {&sq::kFormatIQ3_S, 110},  {&sq::kFormatIQ1_S, 50},  {&sq::kFormatIQ1_M, 56}};
    for (const auto & [f, bytes] : formats) {
        EXPECT_NE(f->to_float, nullptr) << ggml_type_name(f->type);
        EXPECT_EQ(f->from_float_ref, nullptr) << ggml_type_name(f->type);
        EXPECT_EQ(f->quantize_rows, nullptr) << ggml_type_name(f->type);
        EXPECT_EQ(ggml_type_size(f->type), bytes) << ggml_type_name(f->type);
        EXPECT_EQ(ggml_blck_size(f->type), kN) << ggml_type_name(f->type);
    }
}

// TQ1_0 byte of trits t[0..4] (t[0] the most significant base-3 digit): ceil(256 * T / 243).
uint8_t tq1_byte(const int * t) {
    int value = 0;
    for (int n = 0; n < 5; ++n) {
        value = value * 3 + t[n];
    }
    return static_cast<uint8_t>((value * 256 + 242) / 243);
}

// Packs 256 trits (0..2) as TQ1_0 stores them, into a 54-byte block at base (d not written).
void pack_tq1(Bytes & b, size_t base, const std::vector<int> & trits, size_t first) {
    const auto trit = [&](int elem) { return trits[first + static_cast<size_t>(elem)]; };
    for (int m = 0; m < 32; ++m) { // qs[m]: elements m + 32 n
        const int t[5] = {trit(m), trit(m + 32), trit(m + 64), trit(m + 96), trit(m + 128)};
        b.u8(base + static_cast<size_t>(m), tq1_byte(t));
    }
    for (int m = 0; m < 16; ++m) { // qs[32 + m]: elements 160 + m + 16 n
        const int t[5] = {trit(160 + m), trit(176 + m), trit(192 + m), trit(208 + m), trit(224 + m)};
        b.u8(base + 32 + static_cast<size_t>(m), tq1_byte(t));
    }
    for (int m = 0; m < 4; ++m) { // qh[m]: elements 240 + m + 4 n, lowest digit 0
        const int t[5] = {trit(240 + m), trit(244 + m), trit(248 + m), trit(252 + m), 0};
        b.u8(base + 48 + static_cast<size_t>(m), tq1_byte(t));
    }
}

TEST(IqGridKnownAnswer, TQ1_0_SpelledOut) {
    // all trits 1 (value 0): T = 121 -> byte 128 in qs, T = 120 -> byte 127 in qh. All trits 2: byte 255
    // (value +d) in qs, T = 240 -> byte 253 in qh. d = 2 at byte 52.
    Bytes b(2 * 54);
    for (size_t j = 0; j < 48; ++j) {
        b.u8(j, 128).u8(54 + j, 255);
    }
    for (size_t j = 48; j < 52; ++j) {
        b.u8(j, 127).u8(54 + j, 253);
    }
    b.u16(52, kHalfTwo).u16(54 + 52, kHalfTwo);
    std::vector<float> want(2 * kN, 0.0f);
    std::fill(want.begin() + kN, want.end(), 2.0f);
    expect_decodes_to(sq::kFormatTQ1_0, b, want);
}

TEST(IqGridKnownAnswer, TQ1_0) {
    std::mt19937       rng(8);
    std::vector<int>   trits(2 * kN);
    Bytes              b(2 * 54);
    std::vector<float> want(2 * kN);
    for (size_t i = 0; i < trits.size(); ++i) {
        trits[i] = static_cast<int>(draw(rng, 3));
        want[i]  = kDf[i / kN] * static_cast<float>(trits[i] - 1);
    }
    for (int blk = 0; blk < 2; ++blk) {
        pack_tq1(b, 54 * static_cast<size_t>(blk), trits, static_cast<size_t>(kN * blk));
        b.u16(54 * static_cast<size_t>(blk) + 52, kD[blk]);
    }
    expect_decodes_to(sq::kFormatTQ1_0, b, want);
}

TEST(IqGridKnownAnswer, TQ1_0RoundTripsTernaryData) {
    // levels -a, 0, a with a = 1.5 (exact in fp16), every block holding a: the quantizer writes the bytes the
    // layout gives for those trits and d = a, and dequantizing gives the input back exactly
    std::mt19937       rng(9);
    const int          nblocks = 3;
    std::vector<int>   trits(nblocks * kN);
    std::vector<float> x(trits.size());
    for (size_t i = 0; i < trits.size(); ++i) {
        trits[i] = i % kN == 17 ? 2 : static_cast<int>(draw(rng, 3));
        x[i]     = 1.5f * static_cast<float>(trits[i] - 1);
    }
    Bytes want(nblocks * 54);
    for (int blk = 0; blk < nblocks; ++blk) {
        pack_tq1(want, 54 * static_cast<size_t>(blk), trits, static_cast<size_t>(kN * blk));
        want.u16(54 * static_cast<size_t>(blk) + 52, 0x3e00); // 1.5
    }
    std::vector<uint8_t> q(want.size(), 0xee);
    sq::kFormatTQ1_0.from_float_ref(x.data(), q.data(), static_cast<int64_t>(x.size()));
    EXPECT_EQ(q, want.vec());
    std::vector<uint8_t> rows(want.size(), 0xee);
    EXPECT_EQ(sq::kFormatTQ1_0.quantize_rows(x.data(), rows.data(), nblocks, kN, nullptr), want.size());
    EXPECT_EQ(rows, want.vec());
    std::vector<float> back(x.size());
    sq::kFormatTQ1_0.to_float(q.data(), back.data(), static_cast<int64_t>(back.size()));
    EXPECT_EQ(back, x);
}

} // namespace

// The formats are registered: ggml_get_type_traits hands out their dequantizers (and TQ1_0's quantizer), and the
// grid formats, which have no quantizer here, report none.
TEST(IqGridFormats, TraitsListTheirConversions) {
    const std::pair<ggml_type, const sq::Format *> formats[] = {
        {GGML_TYPE_IQ2_XXS, &sq::kFormatIQ2_XXS}, {GGML_TYPE_IQ2_XS, &sq::kFormatIQ2_XS},
        {GGML_TYPE_IQ2_S, &sq::kFormatIQ2_S},     {GGML_TYPE_IQ3_XXS, &sq::kFormatIQ3_XXS},
        {GGML_TYPE_IQ3_S, &sq::kFormatIQ3_S},     {GGML_TYPE_IQ1_S, &sq::kFormatIQ1_S},
        {GGML_TYPE_IQ1_M, &sq::kFormatIQ1_M},     {GGML_TYPE_TQ1_0, &sq::kFormatTQ1_0},
    };
    for (const auto & [type, format] : formats) {
        const ggml_type_traits * tt = ggml_get_type_traits(type);
        EXPECT_EQ(tt->to_float, format->to_float) << ggml_type_name(type);
        EXPECT_NE(tt->to_float, nullptr) << ggml_type_name(type);
        EXPECT_EQ(tt->from_float_ref != nullptr, type == GGML_TYPE_TQ1_0) << ggml_type_name(type);
    }
}
