// The repacked layout's sizes, packer and unpacker (format.h), portable code: packing runs once, at load time.
#include "cpu/repack/format.h"

#include "cpu/quants/gemm_float.h"
#include "quant/blocks.h"
#include "quant/iq_blocks.h"

#include <cstring>

namespace switchyard::cpu::repack {

namespace {

using quant::kQK32;
using quant::kQK_K;

constexpr size_t kQuadBytes = 4 * kPanelRows; // one quad of 16 rows: 64 bytes

size_t round_line(size_t n) { return (n + 63) / 64 * 64; }

uint16_t load_u16(const uint8_t * p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

void store_u16(uint8_t * p, uint16_t v) { std::memcpy(p, &v, sizeof(v)); }

// Four bytes as one word (little-endian: byte b is bits 8b .. 8b + 7): the packers treat a quad's four elements,
// which sit in consecutive bytes of the original blocks, at once.
uint32_t load_u32(const uint8_t * p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

void store_u32(uint8_t * p, uint32_t v) { std::memcpy(p, &v, sizeof(v)); }

constexpr uint32_t kLow4Bytes = 0x0f0f0f0fu, kLow2Bytes = 0x03030303u, kLow1Bytes = 0x01010101u;

void or_u32(uint8_t * p, uint32_t v) { store_u32(p, load_u32(p) | v); }

// Row r's block b, and the same as writable bytes.
template <class Block>
Block row_block(const void * w, size_t w_row, int r, int64_t b) {
    return quant::load_block<Block>(static_cast<const char *>(w) + static_cast<size_t>(r) * w_row, b);
}

template <class Block>
void put_row_block(void * w, size_t w_row, int r, int64_t b, const Block & blk) {
    quant::store_block<Block>(static_cast<char *>(w) + static_cast<size_t>(r) * w_row, b, blk);
}

// ---- q4_0, q4_1, q5_0, q5_1, iq4_nl, mxfp4: the block's qs transposed, nibbles as they are (then the fifth bits) --

template <class Block>
void pack_nibble_groups(const void * w, size_t w_row, int rows, int64_t k, uint8_t * panel) {
    constexpr ggml_type T      = Block::kType;
    const int64_t       ng     = k / kQK32;
    uint8_t *           scales = panel + static_cast<size_t>(ng) * kLegacyLevelBytes<T>;
    for (int64_t g = 0; g < ng; ++g) {
        uint8_t * lv = panel + static_cast<size_t>(g) * kLegacyLevelBytes<T>;
        uint8_t * fc = scales + static_cast<size_t>(g) * kLegacyFactorBytes<T>;
        for (int r = 0; r < rows; ++r) {
            const Block blk = row_block<Block>(w, w_row, r, g);
            for (int j = 0; j < 4; ++j) {
                std::memcpy(lv + j * kQuadBytes + r * 4, blk.qs + 4 * j, 4);
            }
            if constexpr (kLegacyFifthBits<T>) { // element e's bit (qh bit e) to bit e / 4 of byte r * 4 + e % 4
                const uint32_t qh   = load_u32(blk.qh);
                uint32_t       bits = 0;
                for (int q = 0; q < 8; ++q) { // quad q's four bits, one to each byte
                    const uint32_t n = (qh >> (4 * q)) & 0xfu;
                    bits |= ((n & 1u) | ((n & 2u) << 7) | ((n & 4u) << 14) | ((n & 8u) << 21)) << q;
                }
                store_u32(lv + 4 * kQuadBytes + r * 4, bits);
            }
            if constexpr (kE8M0Scales<T>) {
                fc[r] = blk.e;
            } else {
                store_u16(fc + 2 * r, blk.d);
            }
            if constexpr (kLegacyMin<T>) {
                store_u16(fc + kScaleGroupBytes + 2 * r, blk.m);
            }
        }
    }
}

template <class Block>
void unpack_nibble_groups(const uint8_t * panel, int first, int end, int64_t k, void * w, size_t w_row) {
    constexpr ggml_type T      = Block::kType;
    const int64_t       ng     = k / kQK32;
    const uint8_t *     scales = panel + static_cast<size_t>(ng) * kLegacyLevelBytes<T>;
    for (int64_t g = 0; g < ng; ++g) {
        const uint8_t * lv = panel + static_cast<size_t>(g) * kLegacyLevelBytes<T>;
        const uint8_t * fc = scales + static_cast<size_t>(g) * kLegacyFactorBytes<T>;
        for (int r = first; r < end; ++r) {
            Block blk{};
            for (int j = 0; j < 4; ++j) {
                std::memcpy(blk.qs + 4 * j, lv + j * kQuadBytes + r * 4, 4);
            }
            if constexpr (kLegacyFifthBits<T>) {
                const uint32_t bits = load_u32(lv + 4 * kQuadBytes + r * 4);
                uint32_t       qh   = 0;
                for (int q = 0; q < 8; ++q) { // bit q of each byte back to quad q's four bits
                    const uint32_t x = (bits >> q) & kLow1Bytes;
                    qh |= ((x & 1u) | ((x >> 7) & 2u) | ((x >> 14) & 4u) | ((x >> 21) & 8u)) << (4 * q);
                }
                store_u32(blk.qh, qh);
            }
            if constexpr (kE8M0Scales<T>) {
                blk.e = fc[r];
            } else {
                blk.d = load_u16(fc + 2 * r);
            }
            if constexpr (kLegacyMin<T>) {
                blk.m = load_u16(fc + kScaleGroupBytes + 2 * r);
            }
            put_row_block(w, w_row, r - first, g, blk);
        }
    }
}

// ---- q8_0: biased bytes ------------------------------------------------------------------------------------------

void pack_q8_0(const void * w, size_t w_row, int rows, int64_t k, uint8_t * panel) {
    const int64_t ng     = k / kQK32;
    uint8_t *     scales = panel + static_cast<size_t>(ng) * kByteGroupBytes;
    for (int64_t g = 0; g < ng; ++g) {
        uint8_t * lv = panel + static_cast<size_t>(g) * kByteGroupBytes;
        for (int r = 0; r < rows; ++r) {
            const auto blk = row_block<quant::BlockQ8_0>(w, w_row, r, g);
            for (int q = 0; q < kQK32 / 4; ++q) { // + 128 on a two's complement byte: its top bit flipped
                store_u32(lv + q * kQuadBytes + r * 4, load_u32(reinterpret_cast<const uint8_t *>(blk.qs) + 4 * q) ^ 0x80808080u);
            }
            store_u16(scales + g * kScaleGroupBytes + 2 * r, blk.d);
        }
    }
}

void unpack_q8_0(const uint8_t * panel, int first, int end, int64_t k, void * w, size_t w_row) {
    const int64_t   ng     = k / kQK32;
    const uint8_t * scales = panel + static_cast<size_t>(ng) * kByteGroupBytes;
    for (int64_t g = 0; g < ng; ++g) {
        const uint8_t * lv = panel + static_cast<size_t>(g) * kByteGroupBytes;
        for (int r = first; r < end; ++r) {
            quant::BlockQ8_0 blk;
            for (int q = 0; q < kQK32 / 4; ++q) {
                store_u32(reinterpret_cast<uint8_t *>(blk.qs) + 4 * q, load_u32(lv + q * kQuadBytes + r * 4) ^ 0x80808080u);
            }
            blk.d = load_u16(scales + g * kScaleGroupBytes + 2 * r);
            put_row_block(w, w_row, r - first, g, blk);
        }
    }
}

// ---- q4_K, q5_K: super-block header, then groups of nibbles (and q5_K's fifth bits) ---------------------------------

// q5_K: the fifth bit of element e of group g is bit g of qh[e]; in the layout, bit e / 4 of byte r * 4 + e % 4
// of the group's high vector.
template <class Block>
inline constexpr bool kFifthBits = Block::kType == GGML_TYPE_Q5_K;

template <class Block>
    requires(Block::kType == GGML_TYPE_Q4_K || Block::kType == GGML_TYPE_Q5_K)
void pack_superblock(const Block & blk, int r, uint8_t * base) {
    store_u16(base + 2 * r, blk.d);
    store_u16(base + 32 + 2 * r, blk.dmin);
    for (int g = 0; g < 8; ++g) {
        uint8_t sc, mn;
        quant::unpack_scale_min_k4(g, blk.scales, sc, mn);
        base[kQ4KScalesAt + g * kPanelRows + r] = sc;
        base[kQ4KMinsAt + g * kPanelRows + r]   = mn;
        // quad q of the group: elements 4q .. 4q + 3 (low nibbles of the vector) and 16 + 4q .. (high nibbles),
        // each four consecutive bytes of qs[32 (g / 2) ..], their low nibbles for an even group, high for an odd
        uint8_t *       lv = base + kQ4KHeaderBytes + g * kNibbleGroupBytes;
        const uint8_t * qs = blk.qs + 32 * (g / 2);
        for (int q = 0; q < 4; ++q) {
            const uint32_t a = load_u32(qs + 4 * q), b = load_u32(qs + 16 + 4 * q);
            store_u32(lv + q * kQuadBytes + r * 4, g % 2 == 0 ? (a & kLow4Bytes) | ((b & kLow4Bytes) << 4)
                                                              : ((a >> 4) & kLow4Bytes) | (b & ~kLow4Bytes));
        }
        if constexpr (kFifthBits<Block>) { // element e's bit (bit g of qh[e]) to bit e / 4 of byte e % 4
            uint32_t hv = 0;
            for (int q = 0; q < 8; ++q) {
                hv |= ((load_u32(blk.qh + 4 * q) >> g) & kLow1Bytes) << q;
            }
            store_u32(base + kQ5KHighAt + g * 64 + r * 4, hv);
        }
    }
}

// Row r's super-block of a panel's block at base, as the original bytes (one function per form).
template <class Block>
Block unpack_superblock(const uint8_t * base, int r);

template <class Block>
Block unpack_k4_block(const uint8_t * base, int r) {
    Block blk{};
    blk.d    = load_u16(base + 2 * r);
    blk.dmin = load_u16(base + 32 + 2 * r);
    uint8_t sc[8], mn[8];
    for (int g = 0; g < 8; ++g) {
        sc[g] = base[kQ4KScalesAt + g * kPanelRows + r];
        mn[g] = base[kQ4KMinsAt + g * kPanelRows + r];
        if constexpr (kFifthBits<Block>) { // bit e / 4 of byte e % 4 back to bit g of qh[e]
            const uint32_t hv = load_u32(base + kQ5KHighAt + g * 64 + r * 4);
            for (int q = 0; q < 8; ++q) {
                or_u32(blk.qh + 4 * q, ((hv >> q) & kLow1Bytes) << g);
            }
        }
    }
    // groups 2p and 2p + 1 share qs[32p .. 32p + 31]: the even group's nibbles low, the odd group's high
    for (int pair = 0; pair < 4; ++pair) {
        const uint8_t * even = base + kQ4KHeaderBytes + 2 * pair * kNibbleGroupBytes + r * 4;
        const uint8_t * odd  = even + kNibbleGroupBytes;
        uint8_t         a[16], b[16]; // row r's bytes of the two groups: element e low, e + 16 high
        for (int q = 0; q < 4; ++q) {
            std::memcpy(a + 4 * q, even + q * kQuadBytes, 4);
            std::memcpy(b + 4 * q, odd + q * kQuadBytes, 4);
        }
        uint8_t * qs = blk.qs + 32 * pair;
        for (int e = 0; e < 16; ++e) {
            qs[e]      = static_cast<uint8_t>((a[e] & 0x0f) | (b[e] << 4));
            qs[e + 16] = static_cast<uint8_t>((a[e] >> 4) | (b[e] & 0xf0));
        }
    }
    quant::pack_scales_mins_k4(sc, mn, blk.scales); // exact: every bit of the 12 bytes is used
    return blk;
}

template <>
quant::BlockQ4_K unpack_superblock<quant::BlockQ4_K>(const uint8_t * base, int r) {
    return unpack_k4_block<quant::BlockQ4_K>(base, r);
}

template <>
quant::BlockQ5_K unpack_superblock<quant::BlockQ5_K>(const uint8_t * base, int r) {
    return unpack_k4_block<quant::BlockQ5_K>(base, r);
}

// ---- q2_K, q3_K: super-block header, then 2-bit vectors per group of 16 (and q3_K's third bits) ------------------

// Element e of a q2_K / q3_K super-block: 2 bits of qs[32 * (e / 128) + e % 32] at bit 2 ((e % 128) / 32); the
// levels of elements e .. e + 3 (e a multiple of 4), one a byte.
uint32_t k2_levels(const uint8_t * qs, int e) {
    return (load_u32(qs + 32 * (e / 128) + e % 32) >> (2 * ((e % 128) / 32))) & kLow2Bytes;
}

// The inverse: levels of elements e .. e + 3 (one a byte) into qs, whose bits there are still zero.
void set_k2_levels(uint8_t * qs, int e, uint32_t levels) {
    or_u32(qs + 32 * (e / 128) + e % 32, levels << (2 * ((e % 128) / 32)));
}

// A super-block's 2-bit levels (q2_K's and tq2_0's qs) as 16 vectors of row r: vector g holds elements 16 g ..
// 16 g + 15, quad q (elements 16 g + 4 q .. + 3, consecutive bytes of qs under the same shift) in bits 2q, 2q + 1 of
// bytes r * 4 .. r * 4 + 3. unpack_k2_vectors: the inverse, into qs whose bits are still zero.
void pack_k2_vectors(const uint8_t * qs, int r, uint8_t * vectors) {
    for (int g = 0; g < 16; ++g) {
        uint32_t v = 0;
        for (int q = 0; q < 4; ++q) {
            v |= k2_levels(qs, 16 * g + 4 * q) << (2 * q);
        }
        store_u32(vectors + g * kQuadBytes + r * 4, v);
    }
}

void unpack_k2_vectors(const uint8_t * vectors, int r, uint8_t * qs) {
    for (int g = 0; g < 16; ++g) {
        const uint32_t v = load_u32(vectors + g * kQuadBytes + r * 4);
        for (int q = 0; q < 4; ++q) {
            set_k2_levels(qs, 16 * g + 4 * q, (v >> (2 * q)) & kLow2Bytes);
        }
    }
}

void pack_superblock(const quant::BlockQ2_K & blk, int r, uint8_t * base) {
    store_u16(base + 2 * r, blk.d);
    store_u16(base + 32 + 2 * r, blk.dmin);
    for (int g = 0; g < 16; ++g) {
        base[kK16ScalesAt + g * kPanelRows + r] = blk.scales[g];
    }
    pack_k2_vectors(blk.qs, r, base + kQ2KHeaderBytes);
}

template <>
quant::BlockQ2_K unpack_superblock<quant::BlockQ2_K>(const uint8_t * base, int r) {
    quant::BlockQ2_K blk{};
    blk.d    = load_u16(base + 2 * r);
    blk.dmin = load_u16(base + 32 + 2 * r);
    for (int g = 0; g < 16; ++g) {
        blk.scales[g] = base[kK16ScalesAt + g * kPanelRows + r];
    }
    unpack_k2_vectors(base + kQ2KHeaderBytes, r, blk.qs);
    return blk;
}

// ---- tq1_0, tq2_0: all super-blocks' levels, then all their d -----------------------------------------------------

// Row r's levels of a block: tq2_0's as q2_K's 16 vectors (vector 2 j + h: quads 4h .. 4h + 3 of group j of 32);
// tq1_0's 52 base-3 bytes (qs, then qh) in vector byte / 4, bytes r * 4 .. r * 4 + 3 (format.h). The unpackers: the
// inverse, into a zeroed block.
void pack_trit_levels(const quant::BlockTQ2_0 & blk, int r, uint8_t * lv) { pack_k2_vectors(blk.qs, r, lv); }
void unpack_trit_levels(const uint8_t * lv, int r, quant::BlockTQ2_0 & blk) { unpack_k2_vectors(lv, r, blk.qs); }

void pack_trit_levels(const quant::BlockTQ1_0 & blk, int r, uint8_t * lv) {
    for (int i = 0; i < 12; ++i) {
        store_u32(lv + i * kQuadBytes + r * 4, load_u32(blk.qs + 4 * i));
    }
    store_u32(lv + 12 * kQuadBytes + r * 4, load_u32(blk.qh));
}

void unpack_trit_levels(const uint8_t * lv, int r, quant::BlockTQ1_0 & blk) {
    for (int i = 0; i < 12; ++i) {
        store_u32(blk.qs + 4 * i, load_u32(lv + i * kQuadBytes + r * 4));
    }
    store_u32(blk.qh, load_u32(lv + 12 * kQuadBytes + r * 4));
}

// The d of super-block b after the nsb super-blocks' levels.
template <class Block>
void pack_trits(const void * w, size_t w_row, int rows, int64_t k, uint8_t * panel) {
    constexpr size_t kLevelBytes = kTritLevelBytes<Block::kType>;
    const int64_t    nsb         = k / kQK_K;
    for (int64_t b = 0; b < nsb; ++b) {
        for (int r = 0; r < rows; ++r) {
            const auto blk = row_block<Block>(w, w_row, r, b);
            pack_trit_levels(blk, r, panel + static_cast<size_t>(b) * kLevelBytes);
            store_u16(panel + static_cast<size_t>(nsb) * kLevelBytes + b * kScaleGroupBytes + 2 * r, blk.d);
        }
    }
}

template <class Block>
void unpack_trits(const uint8_t * panel, int first, int end, int64_t k, void * w, size_t w_row) {
    constexpr size_t kLevelBytes = kTritLevelBytes<Block::kType>;
    const int64_t    nsb         = k / kQK_K;
    for (int64_t b = 0; b < nsb; ++b) {
        for (int r = first; r < end; ++r) {
            Block blk{};
            unpack_trit_levels(panel + static_cast<size_t>(b) * kLevelBytes, r, blk);
            blk.d = load_u16(panel + static_cast<size_t>(nsb) * kLevelBytes + b * kScaleGroupBytes + 2 * r);
            put_row_block(w, w_row, r - first, b, blk);
        }
    }
}

// q3_K's scale j as stored: 6 bits, low 4 in byte j % 8 (the high nibble for j >= 8), high 2 in byte 8 + j % 4 at
// bit 2 (j / 4).
int k3_scale(const uint8_t * scales, int j) {
    return ((scales[j % 8] >> (j < 8 ? 0 : 4)) & 0xf) | (((scales[8 + j % 4] >> (2 * (j / 4))) & 3) << 4);
}

void pack_superblock(const quant::BlockQ3_K & blk, int r, uint8_t * base) {
    store_u16(base + 2 * r, blk.d);
    for (int g = 0; g < 16; ++g) {
        base[kK16ScalesAt + g * kPanelRows + r] = static_cast<uint8_t>(k3_scale(blk.scales, g) - 32);
    }
    for (int j = 0; j < 8; ++j) {
        uint8_t * pair = base + kQ3KHeaderBytes + j * kQ3KPairBytes + r * 4;
        uint32_t  low[2] = {0, 0}, third = 0;
        for (int h = 0; h < 2; ++h) {
            for (int q = 0; q < 4; ++q) { // elements i .. i + 3 of group 2 j + h, quad q
                const int i = 32 * j + 16 * h + 4 * q;
                low[h] |= k2_levels(blk.qs, i) << (2 * q);
                third |= ((load_u32(blk.hmask + i % 32) >> (i / 32)) & kLow1Bytes) << (4 * h + q);
            }
        }
        store_u32(pair, low[0]);
        store_u32(pair + 64, low[1]);
        store_u32(pair + 128, third);
    }
}

template <>
quant::BlockQ3_K unpack_superblock<quant::BlockQ3_K>(const uint8_t * base, int r) {
    quant::BlockQ3_K blk{};
    blk.d = load_u16(base + 2 * r);
    for (int g = 0; g < 16; ++g) {
        const int sv = static_cast<int8_t>(base[kK16ScalesAt + g * kPanelRows + r]) + 32;
        blk.scales[g % 8] = static_cast<uint8_t>(blk.scales[g % 8] | ((sv & 0xf) << (g < 8 ? 0 : 4)));
        blk.scales[8 + g % 4] = static_cast<uint8_t>(blk.scales[8 + g % 4] | ((sv >> 4) << (2 * (g / 4))));
    }
    for (int j = 0; j < 8; ++j) {
        const uint8_t * pair  = base + kQ3KHeaderBytes + j * kQ3KPairBytes + r * 4;
        const uint32_t  third = load_u32(pair + 128);
        for (int h = 0; h < 2; ++h) {
            const uint32_t low = load_u32(pair + h * 64);
            for (int q = 0; q < 4; ++q) {
                const int i = 32 * j + 16 * h + 4 * q;
                set_k2_levels(blk.qs, i, (low >> (2 * q)) & kLow2Bytes);
                or_u32(blk.hmask + i % 32, ((third >> (4 * h + q)) & kLow1Bytes) << (i / 32));
            }
        }
    }
    return blk;
}

// ---- q6_K: super-block header, then pairs of groups as nibbles and high bits -------------------------------------

void pack_superblock(const quant::BlockQ6_K & blk, int r, uint8_t * base) {
    store_u16(base + 2 * r, blk.d);
    for (int g = 0; g < 16; ++g) {
        base[kK16ScalesAt + g * kPanelRows + r] = static_cast<uint8_t>(blk.scales[g]);
    }
    for (int j = 0; j < 8; ++j) {
        uint8_t * lv = base + kQ6KHeaderBytes + j * kQ6KPairBytes;
        uint32_t  high[2] = {0, 0}; // vector 0 for the first group of 16, vector 1 for the second: quad q at bits 2q
        for (int q = 0; q < 4; ++q) {
            uint32_t u[2]; // the levels of elements 32 j + 16 h + 4 q .. + 3, one a byte
            for (int h = 0; h < 2; ++h) {
                const int i = 32 * j + 16 * h + 4 * q, half = i / 128, e = i % 128;
                const uint32_t low = (load_u32(blk.ql + 64 * half + e % 64) >> (e < 64 ? 0 : 4)) & kLow4Bytes;
                const uint32_t top = (load_u32(blk.qh + 32 * half + e % 32) >> (2 * (e / 32))) & kLow2Bytes;
                u[h]     = low | (top << 4);
                high[h] |= ((u[h] >> 4) & kLow2Bytes) << (2 * q);
            }
            store_u32(lv + q * kQuadBytes + r * 4, (u[0] & kLow4Bytes) | ((u[1] & kLow4Bytes) << 4));
        }
        store_u32(lv + 4 * kQuadBytes + r * 4, high[0]);
        store_u32(lv + 5 * kQuadBytes + r * 4, high[1]);
    }
}

template <>
quant::BlockQ6_K unpack_superblock<quant::BlockQ6_K>(const uint8_t * base, int r) {
    quant::BlockQ6_K blk{};
    blk.d = load_u16(base + 2 * r);
    for (int g = 0; g < 16; ++g) {
        blk.scales[g] = static_cast<int8_t>(base[kK16ScalesAt + g * kPanelRows + r]);
    }
    for (int j = 0; j < 8; ++j) {
        const uint8_t * lv      = base + kQ6KHeaderBytes + j * kQ6KPairBytes + r * 4;
        const uint32_t  high[2] = {load_u32(lv + 4 * kQuadBytes), load_u32(lv + 5 * kQuadBytes)};
        for (int q = 0; q < 4; ++q) {
            const uint32_t nib = load_u32(lv + q * kQuadBytes);
            for (int h = 0; h < 2; ++h) { // elements i .. i + 3: their low 4 bits into ql, their high 2 into qh
                const int      i = 32 * j + 16 * h + 4 * q, half = i / 128, e = i % 128;
                const uint32_t low = h == 0 ? nib & kLow4Bytes : (nib >> 4) & kLow4Bytes;
                or_u32(blk.ql + 64 * half + e % 64, low << (e < 64 ? 0 : 4));
                or_u32(blk.qh + 32 * half + e % 32, ((high[h] >> (2 * q)) & kLow2Bytes) << (2 * (e / 32)));
            }
        }
    }
    return blk;
}

// ---- iq4_xs: super-block header (d, the scales as int8), then groups of nibbles as iq4_nl's ------------------------

void pack_superblock(const quant::BlockIQ4_XS & blk, int r, uint8_t * base) {
    store_u16(base + 2 * r, blk.d);
    for (int g = 0; g < 8; ++g) {
        const int ls = quant::iq4_xs_group_scale(blk.scales_h, blk.scales_l, g);
        base[kIQ4XSScalesAt + g * kPanelRows + r] = static_cast<uint8_t>(static_cast<int8_t>(ls - 32));
        uint8_t * lv = base + kIQ4XSHeaderBytes + g * kNibbleGroupBytes + r * 4;
        for (int q = 0; q < 4; ++q) { // qs[16 g + 4 q ..]: quad q low, quad q + 4 high, as an iq4_nl block's qs
            std::memcpy(lv + q * kQuadBytes, blk.qs + 16 * g + 4 * q, 4);
        }
    }
}

template <>
quant::BlockIQ4_XS unpack_superblock<quant::BlockIQ4_XS>(const uint8_t * base, int r) {
    quant::BlockIQ4_XS blk{};
    blk.d = load_u16(base + 2 * r);
    for (int g = 0; g < 8; ++g) {
        const int ls = static_cast<int8_t>(base[kIQ4XSScalesAt + g * kPanelRows + r]) + 32; // 0..63
        blk.scales_l[g / 2] = static_cast<uint8_t>(blk.scales_l[g / 2] | (ls & 0xf) << (4 * (g % 2)));
        blk.scales_h        = static_cast<uint16_t>(blk.scales_h | (ls >> 4) << (2 * g));
        const uint8_t * lv = base + kIQ4XSHeaderBytes + g * kNibbleGroupBytes + r * 4;
        for (int q = 0; q < 4; ++q) {
            std::memcpy(blk.qs + 16 * g + 4 * q, lv + q * kQuadBytes, 4);
        }
    }
    return blk;
}

// ---- f32, f16, bf16: the values, 16 rows interleaved per element (bf16: per pair) --------------------------------

// A float panel is [steps][16 rows] of one word: an f32 or f16 element, or a bf16 pair (4 bytes). Row r's words
// are copied as words (the compiler keeps the loop tight; an element-wise memcpy of a run-time size made packing a
// model's f16 weights take seconds).
template <class Word>
void pack_words(const void * w, size_t w_row, int rows, int64_t steps, uint8_t * panel) {
    auto * out = reinterpret_cast<Word *>(panel);
    for (int r = 0; r < rows; ++r) {
        const auto * row = reinterpret_cast<const Word *>(static_cast<const uint8_t *>(w) + static_cast<size_t>(r) * w_row);
        for (int64_t s = 0; s < steps; ++s) {
            out[static_cast<size_t>(s) * kPanelRows + static_cast<size_t>(r)] = row[s];
        }
    }
}

template <class Word>
void unpack_words(const uint8_t * panel, int first, int end, int64_t steps, void * w, size_t w_row) {
    const auto * in = reinterpret_cast<const Word *>(panel);
    for (int r = first; r < end; ++r) {
        auto * row = reinterpret_cast<Word *>(static_cast<uint8_t *>(w) + static_cast<size_t>(r - first) * w_row);
        for (int64_t s = 0; s < steps; ++s) {
            row[s] = in[static_cast<size_t>(s) * kPanelRows + static_cast<size_t>(r)];
        }
    }
}

void pack_floats(ggml_type type, const void * w, size_t w_row, int rows, int64_t k, uint8_t * panel) {
    if (type == GGML_TYPE_F16) {
        pack_words<uint16_t>(w, w_row, rows, k, panel);
    } else {
        pack_words<uint32_t>(w, w_row, rows, type == GGML_TYPE_BF16 ? k / 2 : k, panel); // bf16: pairs
    }
}

void unpack_floats(ggml_type type, const uint8_t * panel, int first, int end, int64_t k, void * w, size_t w_row) {
    if (type == GGML_TYPE_F16) {
        unpack_words<uint16_t>(panel, first, end, k, w, w_row);
    } else {
        unpack_words<uint32_t>(panel, first, end, type == GGML_TYPE_BF16 ? k / 2 : k, w, w_row);
    }
}

// The rows form (format.h): block b of row r at rows_block_at; `rows` rows of w (w_row bytes apart) in, or rows
// first .. end - 1 out.
void pack_row_blocks(ggml_type type, const void * w, size_t w_row, int rows, int64_t k, uint8_t * panel) {
    const size_t bs = ggml_type_size(type);
    for (int64_t b = 0; b < k / kQK_K; ++b) {
        for (int r = 0; r < rows; ++r) {
            std::memcpy(panel + rows_block_at(type, r, b),
                        static_cast<const uint8_t *>(w) + static_cast<size_t>(r) * w_row + static_cast<size_t>(b) * bs, bs);
        }
    }
}

void unpack_row_blocks(ggml_type type, const uint8_t * panel, int first, int end, int64_t k, void * w, size_t w_row) {
    const size_t bs = ggml_type_size(type);
    for (int64_t b = 0; b < k / kQK_K; ++b) {
        for (int r = first; r < end; ++r) {
            std::memcpy(static_cast<uint8_t *>(w) + static_cast<size_t>(r - first) * w_row + static_cast<size_t>(b) * bs,
                        panel + rows_block_at(type, r, b), bs);
        }
    }
}

} // namespace

RepackForm repack_form(ggml_type type) { return quants::cpu_type_row(type).repack; }

size_t legacy_group_bytes(ggml_type type) {
    size_t bytes = 0;
    quants::with_type_row(type, [&]<ggml_type T>() { bytes = kLegacyLevelBytes<T> + kLegacyFactorBytes<T>; });
    return bytes;
}

const int8_t * level_table(ggml_type type) {
    const int8_t * values = nullptr;
    quants::with_type_row(type, [&]<ggml_type T>() { values = kLevelTable<T>; });
    return values;
}

bool repackable_type(ggml_type type) { return repack_form(type) != RepackForm::kNone; }

int64_t repack_block(ggml_type type) {
    const RepackForm form = repack_form(type);
    return superblock_bytes(form) != 0 || trit_form(form) || form == RepackForm::kRows ? kQK_K
           : form == RepackForm::kFloats                   ? 2
                                                           : kQK32;
}

bool repacks(ggml_type type, int64_t k) {
    const RepackForm form = repack_form(type);
    if (form == RepackForm::kNone || k < 1 || k % repack_block(type) != 0) {
        return false;
    }
    return form != RepackForm::kFloats || (float_tile(type) != nullptr && !quants::gemm_float_amx(type, k));
}

size_t panel_bytes(ggml_type type, int64_t k) {
    const auto groups = static_cast<size_t>(k / kQK32);
    switch (repack_form(type)) {
        case RepackForm::kNibbles:   return round_line(groups * legacy_group_bytes(type));
        case RepackForm::kBytes:     return round_line(groups * (kByteGroupBytes + kScaleGroupBytes));
        case RepackForm::kFloats:    return round_line(static_cast<size_t>(k) * kPanelRows * ggml_type_size(type));
        case RepackForm::kTQ2Blocks:
            return round_line(static_cast<size_t>(k / kQK_K) * (kTQ2LevelBytes + kScaleGroupBytes));
        case RepackForm::kTQ1Blocks:
            return round_line(static_cast<size_t>(k / kQK_K) * (kTQ1LevelBytes + kScaleGroupBytes));
        case RepackForm::kRows:      return round_line(kPanelRows * ggml_row_size(type, k));
        case RepackForm::kNone:      return 0;
        default:                     return round_line(static_cast<size_t>(k / kQK_K) * superblock_bytes(repack_form(type)));
    }
}

size_t repacked_bytes(ggml_type type, int64_t k, int64_t rows) {
    return static_cast<size_t>((rows + kPanelRows - 1) / kPanelRows) * panel_bytes(type, k);
}

void pack_panel(ggml_type type, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    auto * p = static_cast<uint8_t *>(panel);
    std::memset(p, 0, panel_bytes(type, k)); // missing rows and the padding: zero
    quants::with_type_row(type, [&]<ggml_type T>() {
        constexpr RepackForm form = quants::cpu_type_row(T).repack;
        if constexpr (form == RepackForm::kNibbles) {
            pack_nibble_groups<quant::BlockOf<T>>(w, w_row, rows, k, p);
        } else if constexpr (form == RepackForm::kBytes) {
            pack_q8_0(w, w_row, rows, k, p); // the one type of this form
        } else if constexpr (form == RepackForm::kTQ2Blocks) {
            pack_trits<quant::BlockTQ2_0>(w, w_row, rows, k, p);
        } else if constexpr (form == RepackForm::kTQ1Blocks) {
            pack_trits<quant::BlockTQ1_0>(w, w_row, rows, k, p);
        } else if constexpr (superblock_bytes(form) != 0) {
            for (int64_t b = 0; b < k / kQK_K; ++b) {
                for (int r = 0; r < rows; ++r) {
                    pack_superblock(row_block<quant::BlockOf<T>>(w, w_row, r, b), r, p + b * superblock_bytes(form));
                }
            }
        } else if constexpr (form == RepackForm::kFloats) {
            pack_floats(T, w, w_row, rows, k, p);
        } else if constexpr (form == RepackForm::kRows) {
            pack_row_blocks(T, w, w_row, rows, k, p);
        }
    });
}

void unpack_panel_rows(ggml_type type, const void * panel, int first, int end, int64_t k, void * w, size_t w_row) {
    const auto * p = static_cast<const uint8_t *>(panel);
    quants::with_type_row(type, [&]<ggml_type T>() {
        constexpr RepackForm form = quants::cpu_type_row(T).repack;
        if constexpr (form == RepackForm::kNibbles) {
            unpack_nibble_groups<quant::BlockOf<T>>(p, first, end, k, w, w_row);
        } else if constexpr (form == RepackForm::kBytes) {
            unpack_q8_0(p, first, end, k, w, w_row);
        } else if constexpr (form == RepackForm::kTQ2Blocks) {
            unpack_trits<quant::BlockTQ2_0>(p, first, end, k, w, w_row);
        } else if constexpr (form == RepackForm::kTQ1Blocks) {
            unpack_trits<quant::BlockTQ1_0>(p, first, end, k, w, w_row);
        } else if constexpr (superblock_bytes(form) != 0) {
            using Block = quant::BlockOf<T>;
            for (int64_t b = 0; b < k / kQK_K; ++b) {
                for (int r = first; r < end; ++r) {
                    put_row_block(w, w_row, r - first, b, unpack_superblock<Block>(p + b * superblock_bytes(form), r));
                }
            }
        } else if constexpr (form == RepackForm::kFloats) {
            unpack_floats(T, p, first, end, k, w, w_row);
        } else if constexpr (form == RepackForm::kRows) {
            unpack_row_blocks(T, p, first, end, k, w, w_row);
        }
    });
}

void unpack_panel(ggml_type type, const void * panel, int rows, int64_t k, void * w, size_t w_row) {
    unpack_panel_rows(type, panel, 0, rows, k, w, w_row);
}

} // namespace switchyard::cpu::repack
