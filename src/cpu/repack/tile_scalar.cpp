// The portable tile and expander of the repacked layout (format.h), element by element from the layout's
// definition: the references the vector code is tested against, and the path of CPUs without it. The tile computes
// what gemm.cpp's gemm_tile_scalar computes on the GEMM's own panels: per group an exact integer sum, then the float
// scale math in quants/gemm.h's order; the expander writes those panels (the bytes gemm_pack writes from the
// original weights). Also the choice of the tile, the expander and the float tiles this CPU runs (the kernel
// registry's).
#include "cpu/repack/format.h"

#include "base/fp16.h"
#include "cpu/kernel_registry.h"
#include "cpu/quants/grid_levels.h"
#include "cpu/quants/levels.h"
#include "cpu/quants/ternary_levels.h"
#include "quant/blocks.h"

#include <cstring>

namespace switchyard::cpu::repack {

namespace {

constexpr int kQuadBytes = 4 * kPanelRows;

uint16_t load_u16(const uint8_t * p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// One group (the GEMM's: 32 elements, 16 for q6_K) of one panel row: the levels u and the factors of
// element = s * (u - bias) + m.
struct RowGroup {
    int   u[32];
    float s;
    float m;
};

// Nibble vectors of a group (format.h): element e < 16 in the low nibble of vector e / 4, e >= 16 in the high.
void nibble_levels(const uint8_t * lv, int r, int * u) {
    for (int e = 0; e < 16; ++e) {
        const uint8_t byte = lv[(e / 4) * kQuadBytes + r * 4 + e % 4];
        u[e]      = byte & 0xf;
        u[e + 16] = byte >> 4;
    }
}

// A group's vector of fifth bits (q5_0, q5_1, q5_K): element e's is bit e / 4 of byte r * 4 + e % 4, added as 16.
void add_fifth_bits(const uint8_t * high, int r, int * u) {
    for (int e = 0; e < 32; ++e) {
        u[e] |= ((high[r * 4 + e % 4] >> (e / 4)) & 1) << 4;
    }
}

// What row_group reads of the type, looked up once per tile or panel rather than per group.
struct Layout {
    ggml_type      type;
    RepackForm     form;
    const int8_t * values; // the value table the nibbles index (iq4_nl, iq4_xs, mxfp4), or nullptr
    // the 32-element formats: bytes of a group's levels and factors, fifth bits (q5_0, q5_1), a min (q4_1, q5_1),
    // E8M0 scales (mxfp4); the GEMM's bias (added to a table's values)
    size_t level_bytes = 0, factor_bytes = 0;
    bool   fifth = false, min = false, e8m0 = false;
    int    bias = 0;
};

Layout layout_of(ggml_type type) {
    Layout t{type, repack_form(type), level_table(type)};
    quants::with_type_row(type, [&]<ggml_type T>() {
        t.level_bytes  = kLegacyLevelBytes<T>;
        t.factor_bytes = kLegacyFactorBytes<T>;
        t.fifth        = kLegacyFifthBits<T>;
        t.min          = kLegacyMin<T>;
        t.e8m0         = kE8M0Scales<T>;
        t.bias         = quants::cpu_type_row(T).gemm_bias;
    });
    return t;
}

// Group g (16 elements) of a q2_K, q3_K or q6_K panel, row r: group 2j + h is half h of the super-block's pair j.
RowGroup k16_row_group(RepackForm form, const uint8_t * panel, int r, int64_t g) {
    RowGroup        o{};
    const uint8_t * base = panel + static_cast<size_t>(g / 16) * superblock_bytes(form);
    const int       gg = static_cast<int>(g % 16), h = gg % 2, j = gg / 2;
    const uint8_t   sc = base[kK16ScalesAt + gg * kPanelRows + r];
    const float     d  = fp16_to_fp32(load_u16(base + 2 * r));
    for (int e = 0; e < 16; ++e) {
        const int q = e / 4, at = r * 4 + e % 4; // quad q, byte at of a vector
        if (form == RepackForm::kQ2KBlocks) {
            o.u[e] = (base[kQ2KHeaderBytes + gg * 64 + at] >> (2 * q)) & 3;
        } else if (form == RepackForm::kQ3KBlocks) {
            const uint8_t * pair = base + kQ3KHeaderBytes + j * kQ3KPairBytes;
            o.u[e] = ((pair[h * 64 + at] >> (2 * q)) & 3) | (((pair[128 + at] >> (4 * h + q)) & 1) << 2);
        } else {
            const uint8_t * pair = base + kQ6KHeaderBytes + j * kQ6KPairBytes;
            const uint8_t   nib  = pair[q * kQuadBytes + at];
            o.u[e] = (h == 0 ? nib & 0xf : nib >> 4) | (((pair[(4 + h) * kQuadBytes + at] >> (2 * q)) & 3) << 4);
        }
    }
    if (form == RepackForm::kQ2KBlocks) { // scale in the low nibble, min in the high
        o.s = d * static_cast<float>(sc & 0xf);
        o.m = -fp16_to_fp32(load_u16(base + 32 + 2 * r)) * static_cast<float>(sc >> 4);
    } else {
        o.s = d * static_cast<float>(static_cast<int8_t>(sc));
    }
    return o;
}

// Group g of row r of the rows form: the row's own super-block decoded as the GEMM's portable packer decodes it
// (quants/levels.h), its levels biased.
RowGroup rows_row_group(ggml_type type, const uint8_t * panel, int64_t k, int r, int64_t g) {
    RowGroup                 o{};
    const quants::GemmFormat f = quants::gemm_format(type);
    const int64_t            per_block = quant::kQK_K / f.group;
    quants::with_type_row(type, [&]<ggml_type T>() {
        if constexpr (quants::cpu_type_row(T).repack == RepackForm::kRows) {
            using Block = quants::LevelsBlockOf<T>;
            Block blk;
            std::memcpy(&blk, panel + rows_block_at(T, r, g / per_block), sizeof(Block));
            const quants::KLevels l = quants::levels(blk);
            const int             j = static_cast<int>(g % per_block);
            for (int e = 0; e < f.group; ++e) {
                o.u[e] = l.v[j * f.group + e] + f.bias;
            }
            o.s = l.d * static_cast<float>(l.scale[j * f.group / 16]);
        }
    });
    return o;
}

RowGroup row_group(const Layout & t, const uint8_t * panel, int64_t k, int r, int64_t g) {
    RowGroup         o{};
    const int64_t    ng   = k / 32;
    const RepackForm form = t.form;
    if (form == RepackForm::kRows) {
        return rows_row_group(t.type, panel, k, r, g);
    }
    if (form == RepackForm::kQ2KBlocks || form == RepackForm::kQ3KBlocks || form == RepackForm::kQ6KBlocks) {
        return k16_row_group(form, panel, r, g);
    }
    if (form == RepackForm::kQ4KBlocks || form == RepackForm::kQ5KBlocks) {
        const uint8_t * base = panel + static_cast<size_t>(g / 8) * superblock_bytes(form);
        const int       j    = static_cast<int>(g % 8);
        nibble_levels(base + kQ4KHeaderBytes + j * kNibbleGroupBytes, r, o.u);
        if (form == RepackForm::kQ5KBlocks) {
            add_fifth_bits(base + kQ5KHighAt + j * 64, r, o.u);
        }
        const float d    = fp16_to_fp32(load_u16(base + 2 * r));
        const float dmin = fp16_to_fp32(load_u16(base + 32 + 2 * r));
        o.s              = d * static_cast<float>(base[kQ4KScalesAt + j * kPanelRows + r]);
        o.m              = -dmin * static_cast<float>(base[kQ4KMinsAt + j * kPanelRows + r]);
        return o;
    }
    if (form == RepackForm::kTQ1Blocks) { // element i of the super-block: trit n of one of its 52 bytes (format.h)
        const uint8_t * lv = panel + static_cast<size_t>(g / 8) * kTQ1LevelBytes;
        for (int e = 0; e < 32; ++e) {
            const int i    = 32 * static_cast<int>(g % 8) + e;
            const int byte = i < 160 ? i % 32 : i < 240 ? 32 + (i - 160) % 16 : 48 + (i - 240) % 4;
            const int n    = i < 160 ? i / 32 : i < 240 ? (i - 160) / 16 : (i - 240) / 4;
            o.u[e] = quants::ternary_detail::trit(lv[(byte / 4) * kQuadBytes + r * 4 + byte % 4], n);
        }
        const uint8_t * d =
            panel + static_cast<size_t>(ng / 8) * kTQ1LevelBytes + static_cast<size_t>(g / 8) * kScaleGroupBytes;
        o.s = fp16_to_fp32(load_u16(d + 2 * r));
        return o;
    }
    if (form == RepackForm::kTQ2Blocks) { // vector h of group g: quads 4h + i in bits 2i
        const uint8_t * lv = panel + static_cast<size_t>(g) * kTQ2GroupBytes;
        for (int e = 0; e < 32; ++e) {
            const int h = e / 16, i = (e % 16) / 4;
            o.u[e]      = (lv[h * kQuadBytes + r * 4 + e % 4] >> (2 * i)) & 3;
        }
        const uint8_t * d =
            panel + static_cast<size_t>(ng / 8) * kTQ2LevelBytes + static_cast<size_t>(g / 8) * kScaleGroupBytes;
        o.s = fp16_to_fp32(load_u16(d + 2 * r));
        return o;
    }
    if (form == RepackForm::kIQ4XSBlocks) {
        const uint8_t * base = panel + static_cast<size_t>(g / 8) * superblock_bytes(form);
        const int       j    = static_cast<int>(g % 8);
        nibble_levels(base + kIQ4XSHeaderBytes + j * kNibbleGroupBytes, r, o.u);
        for (int & u : o.u) {
            u = t.values[u] + t.bias;
        }
        const auto scale = static_cast<int8_t>(base[kIQ4XSScalesAt + j * kPanelRows + r]);
        o.s              = fp16_to_fp32(load_u16(base + 2 * r)) * static_cast<float>(scale);
        return o;
    }
    const uint8_t * lv = panel + static_cast<size_t>(g) * t.level_bytes;
    if (form == RepackForm::kBytes) {
        for (int e = 0; e < 32; ++e) {
            o.u[e] = lv[(e / 4) * kQuadBytes + r * 4 + e % 4];
        }
    } else {
        nibble_levels(lv, r, o.u);
        if (t.values != nullptr) {
            for (int & u : o.u) {
                u = t.values[u] + t.bias;
            }
        }
        if (t.fifth) {
            add_fifth_bits(lv + 4 * kQuadBytes, r, o.u);
        }
    }
    const uint8_t * fc = panel + static_cast<size_t>(ng) * t.level_bytes + static_cast<size_t>(g) * t.factor_bytes;
    o.s                = t.e8m0 ? quants::e8m0_half(fc[r]) : fp16_to_fp32(load_u16(fc + 2 * r));
    o.m                = t.min ? fp16_to_fp32(load_u16(fc + kScaleGroupBytes + 2 * r)) : 0.0f;
    return o;
}

// The rows form's panel into the GEMM's: each super-block's 16 blocks (a row's a block apart) packed by `pack`
// into its groups of the GEMM's panel.
void expand_row_blocks(ggml_type type, const void * panel, int rows, int64_t k, void * gemm_panel,
                       void (*pack)(ggml_type, const void *, size_t, int, int64_t, void *)) {
    const quants::GemmFormat f  = quants::gemm_format(type);
    const size_t             bs = ggml_type_size(type);
    const size_t             sb = static_cast<size_t>(quant::kQK_K / f.group) * quants::gemm_group_bytes(f);
    for (int64_t b = 0; b < k / quant::kQK_K; ++b) {
        pack(type, static_cast<const uint8_t *>(panel) + rows_block_at(type, 0, b), bs, rows, quant::kQK_K,
             static_cast<uint8_t *>(gemm_panel) + static_cast<size_t>(b) * sb);
    }
}

} // namespace

void tile_scalar(ggml_type type, const quants::GemmTileArgs & a) {
    const quants::GemmFormat f  = quants::gemm_format(type);
    const Layout             t  = layout_of(type);
    const int                G  = f.group;
    const int64_t            ng = a.k / G;
    const int                cc = a.chunk_cols; // columns of the chunk: 8, or a narrow chunk's 1..7
    const size_t             cb = chunk_group_bytes(G, cc);
    const auto *             p  = static_cast<const uint8_t *>(a.panel);
    const auto *             x  = static_cast<const uint8_t *>(a.chunk);
    // groups scaled together (quants/gemm.h's float order): a super-block's, or each group alone
    const int64_t per = quants::gemm_scales_per_superblock(f) ? quants::kGemmSuperblock / G : 1;
    const auto    aux_at = [&](int64_t g, int c) {
        ChunkAux aux;
        std::memcpy(&aux, x + static_cast<size_t>(g) * cb + G * cc + c * sizeof(ChunkAux), sizeof(aux));
        return aux;
    };
    for (int c = 0; c < a.n_cols; ++c) {
        for (int r = 0; r < a.rows; ++r) {
            float acc = 0.0f;
            for (int64_t g0 = 0; g0 < ng; g0 += per) {
                float sb = 0.0f; // the super-block's sum before da
                for (int64_t g = g0; g < g0 + per; ++g) {
                    const RowGroup  o   = row_group(t, p, a.k, r, g);
                    const uint8_t * cg  = x + static_cast<size_t>(g) * cb;
                    const ChunkAux  aux = aux_at(g, c);
                    int32_t         dot = f.has_min ? 0 : aux.word;
                    for (int e = 0; e < G; ++e) {
                        dot += o.u[e] * static_cast<int8_t>(cg[((e / 4) * cc + c) * 4 + e % 4]);
                    }
                    float min_sum;
                    std::memcpy(&min_sum, &aux.word, sizeof(min_sum));
                    float & into = per > 1 ? sb : acc;
                    into += static_cast<float>(dot) * (per > 1 ? o.s : o.s * aux.da);
                    if (f.has_min) {
                        into += o.m * min_sum;
                    }
                }
                if (per > 1) {
                    acc += sb * aux_at(g0, c).da;
                }
            }
            a.out[r + c * a.out_col] = acc;
        }
    }
}

void expand_panel_portable(ggml_type type, const void * panel, int rows, int64_t k, void * gemm_panel) {
    if (repack_form(type) == RepackForm::kRows) { // the rows' own blocks: the GEMM's portable packer
        expand_row_blocks(type, panel, rows, k, gemm_panel, quants::gemm_pack_portable);
        return;
    }
    const quants::GemmFormat f  = quants::gemm_format(type);
    const Layout             t  = layout_of(type);
    const size_t             gb = quants::gemm_group_bytes(f);
    auto *                   p  = static_cast<uint8_t *>(gemm_panel);
    std::memset(p, 0, quants::gemm_panel_bytes(f, k)); // rows past `rows`: zero levels and factors
    for (int64_t g = 0; g < k / f.group; ++g, p += gb) {
        auto * s = reinterpret_cast<float *>(p + f.group * kPanelRows);
        for (int r = 0; r < rows; ++r) {
            const RowGroup o = row_group(t, static_cast<const uint8_t *>(panel), k, r, g);
            for (int e = 0; e < f.group; ++e) {
                p[(e / 4) * kQuadBytes + r * 4 + e % 4] = static_cast<uint8_t>(o.u[e]);
            }
            s[r]              = o.s;
            s[kPanelRows + r] = o.m;
        }
    }
}

void expand_panel(ggml_type type, const void * panel, int rows, int64_t k, void * gemm_panel) {
    if (repack_form(type) == RepackForm::kRows) { // the rows' own blocks: the GEMM's packer of this CPU
        expand_row_blocks(type, panel, rows, k, gemm_panel, quants::gemm_pack);
        return;
    }
    static const ExpandPanelFn expand = select_kernel(&IsaColumn::repack_expand);
    expand(type, panel, rows, k, gemm_panel);
}

FloatTileFn float_tile(ggml_type type) {
    static const auto table = select_kernel_per_type(&IsaColumn::repack_float_tile);
    return type >= 0 && type < GGML_TYPE_COUNT ? table[static_cast<size_t>(type)] : nullptr;
}

TileFn tile_fast() {
    static const TileFn fn = select_kernel(&IsaColumn::repack_tile);
    return fn;
}

} // namespace switchyard::cpu::repack
