// The integer GEMM's formats, packing, activation columns and portable tile (gemm.h).
#include "cpu/quants/gemm.h"

#include "cpu/kernel_registry.h"
#include "cpu/quants/act_quant.h"
#include "cpu/quants/grid_levels.h"
#include "cpu/quants/levels.h"
#include "cpu/quants/type_rows.h"

#include <algorithm>
#include <cstring>

#include <unistd.h>

namespace switchyard::cpu::quants {

namespace {

// Offsets inside a packed group: the levels, then 16 scales, then 16 min terms.
size_t levels_bytes(const GemmFormat & f) { return static_cast<size_t>(f.group) * kGemmRows; }

struct GroupOut {
    uint8_t * levels; // [group / 4][16][4]
    float *   s;
    float *   m;
};

GroupOut group_at(const GemmFormat & f, void * panel, int64_t g) {
    auto * p = static_cast<uint8_t *>(panel) + static_cast<size_t>(g) * gemm_group_bytes(f);
    auto * s = reinterpret_cast<float *>(p + levels_bytes(f));
    return {p, s, s + kGemmRows};
}

// Row r's levels v[0..group) of one group, biased, into the quad layout.
void put_levels(const GemmFormat & f, const GroupOut & o, int r, const int8_t * v) {
    for (int q = 0; q < f.group / 4; ++q) {
        uint8_t * dst = o.levels + (q * kGemmRows + r) * 4;
        for (int j = 0; j < 4; ++j) {
            dst[j] = static_cast<uint8_t>(v[4 * q + j] + f.bias);
        }
    }
}

template <class Block>
void pack_legacy(const GemmFormat & f, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    const int64_t nb = k / kQK32;
    for (int r = 0; r < rows; ++r) {
        const auto * blocks = reinterpret_cast<const Block *>(static_cast<const char *>(w) + r * w_row);
        for (int64_t b = 0; b < nb; ++b) {
            const LegacyLevels l = levels(blocks[b]);
            const GroupOut     o = group_at(f, panel, b);
            put_levels(f, o, r, l.v);
            o.s[r] = l.d;
            o.m[r] = l.m;
        }
    }
}

template <class Block>
void pack_kquant(const GemmFormat & f, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    const int64_t nb     = k / kQK_K;
    const int     groups = kQK_K / f.group; // per super-block
    const int     per16  = f.group / 16;    // KLevels keeps a scale per 16 elements
    for (int r = 0; r < rows; ++r) {
        const auto * blocks = reinterpret_cast<const Block *>(static_cast<const char *>(w) + r * w_row);
        for (int64_t b = 0; b < nb; ++b) {
            const KLevels l = levels(blocks[b]);
            for (int j = 0; j < groups; ++j) {
                const GroupOut o = group_at(f, panel, b * groups + j);
                put_levels(f, o, r, l.v + j * f.group);
                o.s[r] = l.d * static_cast<float>(l.scale[j * per16]);
                o.m[r] = f.has_min ? -l.dmin * static_cast<float>(l.min[j * per16]) : 0.0f;
            }
        }
    }
}

// The missing rows of a panel: zero levels (u = 0) and zero factors.
void clear_rows(const GemmFormat & f, int rows, int64_t k, void * panel) {
    if (rows == kGemmRows) {
        return;
    }
    for (int64_t g = 0; g < k / f.group; ++g) {
        const GroupOut o = group_at(f, panel, g);
        for (int q = 0; q < f.group / 4; ++q) {
            std::memset(o.levels + (q * kGemmRows + rows) * 4, 0, static_cast<size_t>(kGemmRows - rows) * 4);
        }
        std::fill(o.s + rows, o.s + kGemmRows, 0.0f);
        std::fill(o.m + rows, o.m + kGemmRows, 0.0f);
    }
}

// A column's (da, aux) pair of one group.
struct ColumnAux {
    float da;
    union {
        int32_t bias_sum; // -bias * sum(q), formats without a min
        float   min_sum;  // formats with one: sum(q) (q8_K, the super-block order, gemm.h) or da * sum(q)
    };
};
static_assert(sizeof(ColumnAux) == sizeof(GemmColumnAux), "gemm.h: the tiles read a column's pair as 8 bytes");

// Group g of a chunk: the interleaved levels, then the columns' pairs.
struct ChunkGroup {
    uint8_t *   levels; // [group / 4][8][4]
    ColumnAux * aux;    // [8]
};

size_t chunk_group_bytes(const GemmFormat & f, int cols = kGemmMaxCols) {
    return static_cast<size_t>(f.group) * static_cast<size_t>(cols) + static_cast<size_t>(cols) * sizeof(ColumnAux);
}

// (levels [group / 4][cols][4], aux [cols] in a chunk of `cols` columns)
ChunkGroup chunk_group(const GemmFormat & f, const void * chunk, int64_t g, int cols = kGemmMaxCols) {
    auto * p = static_cast<uint8_t *>(const_cast<void *>(chunk)) + static_cast<size_t>(g) * chunk_group_bytes(f, cols);
    return {p, reinterpret_cast<ColumnAux *>(p + static_cast<size_t>(f.group) * static_cast<size_t>(cols))};
}

int sum_levels(const int8_t * q, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) {
        s += q[i];
    }
    return s;
}

} // namespace

GemmFormat gemm_format(ggml_type weight) {
    const CpuTypeRow row = cpu_type_row(weight);
    if (row.type != weight || row.gemm_group == 0) {
        return {};
    }
    return {row.act, row.gemm_group, row.gemm_bias, row.has_min, row.gemm_superblocks};
}

size_t gemm_group_bytes(const GemmFormat & f) { return levels_bytes(f) + 2 * kGemmRows * sizeof(float); }

size_t gemm_panel_bytes(const GemmFormat & f, int64_t k) {
    return static_cast<size_t>(k / f.group) * gemm_group_bytes(f);
}

size_t gemm_chunk_bytes(const GemmFormat & f, int64_t k, int chunk_cols) {
    return static_cast<size_t>(k / f.group) * chunk_group_bytes(f, chunk_cols);
}

void gemm_pack(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    // the levels' packers, highest first: a vector packer may decline the type or k, the portable one never does
    static const auto packers = select_kernel_chain(&IsaColumn::gemm_pack);
    for (const GemmPackFn pack : packers) {
        if (pack == nullptr || pack(weight, w, w_row, rows, k, panel)) {
            return;
        }
    }
}

void gemm_pack_portable(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    const GemmFormat f = gemm_format(weight);
    if (f.group == 0) {
        return; // no GEMM form (the caller asked gemm_format first)
    }
    with_type_row(weight, [&]<ggml_type T>() {
        using Block = LevelsBlockOf<T>;
        if constexpr (cpu_type_row(T).gemm_group == 0) {
            return;
        } else if constexpr (kTypeTable[T].blck_size == quant::kQK_K) {
            pack_kquant<Block>(f, w, w_row, rows, k, panel);
        } else {
            pack_legacy<Block>(f, w, w_row, rows, k, panel);
        }
    });
    clear_rows(f, rows, k, panel);
}

namespace {

// One group of a converted activation row (act_type bytes in scratch): its q8 levels and the column's pair.
struct GroupActivation {
    const int8_t * q;
    ColumnAux      aux;
};

// plain_sum: the min term's word is the unscaled sum(q) for q8_K activations (the VNNI, portable and NEON tiles'
// super-block order, gemm.h); the AMX tile scales group by group and takes da * sum(q).
GroupActivation group_activation(const GemmFormat & f, const void * scratch, int64_t g, bool plain_sum) {
    const int64_t  i0      = g * f.group;
    float          da      = 0.0f;
    float          min_sum = 0.0f;
    const int8_t * src     = nullptr;
    int            sum     = 0;
    if (f.act_type == GGML_TYPE_Q8_K) {
        const auto & b = static_cast<const quant::BlockQ8_K *>(scratch)[i0 / kQK_K];
        da  = b.d;
        src = b.qs + i0 % kQK_K;
        for (int j = 0; j < f.group / 16; ++j) { // the block's sums per 16 (exact: the converter counts them)
            sum += b.bsums[i0 % kQK_K / 16 + j];
        }
    } else if (f.act_type == GGML_TYPE_Q8_1) {
        const auto & b = static_cast<const quant::BlockQ8_1 *>(scratch)[i0 / kQK32];
        da  = fp16_to_fp32(b.d);
        src = b.qs;
        min_sum = fp16_to_fp32(b.s); // upstream's rounded d * sum(q)
    } else {
        const auto & b = static_cast<const quant::BlockQ8_0 *>(scratch)[i0 / kQK32];
        da  = fp16_to_fp32(b.d);
        src = b.qs;
    }
    GroupActivation out{src, {}};
    out.aux.da = da;
    if (f.act_type != GGML_TYPE_Q8_K) {
        sum = sum_levels(src, f.group);
    }
    if (!f.has_min) {
        out.aux.bias_sum = -f.bias * sum;
    } else {
        out.aux.min_sum = f.act_type == GGML_TYPE_Q8_1                      ? min_sum
                          : plain_sum && gemm_scales_per_superblock(f) ? static_cast<float>(sum)
                                                                       : da * static_cast<float>(sum);
    }
    return out;
}

size_t amx_chunk_group_bytes(const GemmFormat & f) {
    return static_cast<size_t>(f.group) * kGemmAmxIntCols + kGemmAmxIntCols * sizeof(ColumnAux);
}

} // namespace

void gemm_activation(const GemmFormat & f, const float * x, int64_t k, void * scratch, void * chunk, int col,
                     int chunk_cols) {
    act_converter(f.act_type)(x, scratch, k);
    for (int64_t g = 0; g < k / f.group; ++g) {
        const GroupActivation a  = group_activation(f, scratch, g, true);
        const ChunkGroup      cg = chunk_group(f, chunk, g, chunk_cols);
        for (int qd = 0; qd < f.group / 4; ++qd) {
            std::memcpy(cg.levels + (qd * chunk_cols + col) * 4, a.q + 4 * qd, 4);
        }
        cg.aux[col] = a.aux;
    }
}

GemmTileFn gemm_tile_amx() {
    static const GemmTileFn fn = select_kernel(&IsaColumn::gemm_tile_amx);
    return fn;
}

bool gemm_int_amx() { return gemm_tile_amx() != nullptr; }

size_t gemm_amx_panel_bytes(const GemmFormat & f, int64_t k) {
    return f.superblocks ? static_cast<size_t>(k / kQK_K) * kGemmAmxSbPanelBytes : gemm_panel_bytes(f, k);
}

void gemm_pack_amx(ggml_type weight, const void * w, size_t w_row, int rows, int64_t k, void * panel) {
    static const GemmPackFn pack = select_kernel(&IsaColumn::gemm_pack_amx); // with gemm_tile_amx: only on AMX
    pack(weight, w, w_row, rows, k, panel);
}

size_t gemm_amx_chunk_bytes(const GemmFormat & f, int64_t k) {
    if (f.superblocks) {
        return static_cast<size_t>(k / kQK_K) * kGemmAmxSbChunkBytes;
    }
    return static_cast<size_t>(k / f.group) * amx_chunk_group_bytes(f);
}

void gemm_activation_amx(const GemmFormat & f, const float * x, int64_t k, void * scratch, void * chunk, int col) {
    act_converter(f.act_type)(x, scratch, k);
    if (f.superblocks) {
        for (int64_t sb = 0; sb < k / kQK_K; ++sb) {
            const auto & b  = static_cast<const quant::BlockQ8_K *>(scratch)[sb];
            auto *       p  = static_cast<uint8_t *>(chunk) + static_cast<size_t>(sb) * kGemmAmxSbChunkBytes;
            auto *       da = reinterpret_cast<float *>(p + static_cast<size_t>(kGemmAmxIntCols) * kQK_K);
            std::memcpy(p + static_cast<size_t>(col) * kQK_K, b.qs, kQK_K);
            da[col] = b.d;
            for (int j = 0; j < kQK_K / kQK32; ++j) { // as group_activation's min_sum, from the block's sums per 16
                da[kGemmAmxIntCols * (1 + j) + col] = b.d * static_cast<float>(b.bsums[2 * j] + b.bsums[2 * j + 1]);
            }
        }
        return;
    }
    for (int64_t g = 0; g < k / f.group; ++g) {
        const GroupActivation a = group_activation(f, scratch, g, false);
        auto * p = static_cast<uint8_t *>(chunk) + static_cast<size_t>(g) * amx_chunk_group_bytes(f);
        std::memcpy(p + static_cast<size_t>(col) * f.group, a.q, static_cast<size_t>(f.group));
        std::memcpy(p + static_cast<size_t>(f.group) * kGemmAmxIntCols + col * sizeof(ColumnAux), &a.aux, sizeof(ColumnAux));
    }
}

void gemm_tile_scalar(const GemmFormat & f, const GemmTileArgs & a) {
    if (a.panel2 != nullptr) {
        gemm_tile_scalar(f, gemm_second_panel(a));
    }
    const int64_t ng = a.k / f.group;
    // groups scaled together (gemm.h's float order): the super-block's, or each group alone
    const int64_t per = gemm_scales_per_superblock(f) ? kGemmSuperblock / f.group : 1;
    for (int c = 0; c < a.n_cols; ++c) {
        for (int r = 0; r < a.rows; ++r) {
            float acc = 0.0f;
            for (int64_t g0 = 0; g0 < ng; g0 += per) {
                float t = 0.0f; // the super-block's sum before da
                for (int64_t g = g0; g < g0 + per; ++g) {
                    const GroupOut    o   = group_at(f, const_cast<void *>(a.panel), g);
                    const ChunkGroup  cg  = chunk_group(f, a.chunk, g);
                    const ColumnAux & aux = cg.aux[c];
                    int32_t           dot = f.has_min ? 0 : aux.bias_sum;
                    for (int i = 0; i < f.group; ++i) {
                        const int qd = i / 4;
                        dot += o.levels[(qd * kGemmRows + r) * 4 + i % 4] *
                               static_cast<int8_t>(cg.levels[(qd * kGemmMaxCols + c) * 4 + i % 4]);
                    }
                    float & into = per > 1 ? t : acc; // into the super-block's t by s, or into acc by s * da
                    into += static_cast<float>(dot) * (per > 1 ? o.s[r] : o.s[r] * aux.da);
                    if (f.has_min) {
                        into += o.m[r] * aux.min_sum;
                    }
                }
                if (per > 1) {
                    acc += t * chunk_group(f, a.chunk, g0).aux[c].da;
                }
            }
            a.out[r + c * a.out_col] = acc;
        }
    }
}

size_t gemm_pass_bytes() {
    static const size_t bytes = [] {
#ifdef _SC_LEVEL2_CACHE_SIZE
        const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#else
        const long l2 = 0;
#endif
        return l2 > 0 ? std::clamp<size_t>(static_cast<size_t>(l2) / 2, size_t{256} << 10, size_t{1} << 20)
                      : size_t{1} << 20;
    }();
    return bytes;
}

GemmTileFn gemm_tile_fast() {
    static const GemmTileFn fn = select_kernel(&IsaColumn::gemm_tile);
    return fn;
}

} // namespace switchyard::cpu::quants
