// ROPE: rotary position embedding with YaRN scaling and optional frequency factors; ROPE_BACK, its gradient, is
// the same rotation by the opposite angles (sines negated). op_params (int32 slots): 1 n_dims, 2 mode,
// 4 n_ctx_orig; floats: 5 freq_base, 6 freq_scale, 7 ext_factor, 8 attn_factor, 9 beta_fast, 10 beta_slow;
// 11..14 sections (multi-section modes); int32 slot 15 n_offs (ggml_rope_set_offset).
// a: [head_dim, n_head, n_tokens, ne3]; src[1]: I32 positions [n_tokens] (4 * n_tokens for the multi-section
// modes: all first positions, then all second, ...); src[2]: F32 freq factors [n_dims/2].
//
// Modes: NORMAL rotates adjacent pairs (2j, 2j+1) of the first n_dims elements, NEOX pairs (j, j + n_dims/2).
// MROPE and IMROPE rotate like NEOX; pair j takes its angle from one of the 4 positions of its token, chosen by
// sector = j % (sum of sections): MROPE in contiguous blocks of sections[0], [1], [2], [3] sectors, IMROPE
// interleaved (sector % 3 picks position 0, 1 or 2 while below 3 * sections[that one], position 3 otherwise).
// VISION (n_dims == ne0 / 2) rotates every element, pairs (j, j + n_dims) for j < n_dims, picks positions like
// MROPE, and restarts each section's angle sequence where the section starts.
//
// n_offs moves the rotated window of every mode but VISION: dimensions [n_offs, n_offs + n_dims) rotate as the
// first n_dims would without it (angles, frequency factors and YaRN ramp counted from the window start), the
// dimensions before and after the window are copied.
//
// Threads take contiguous blocks of tokens. A token's rotation angles are the same for every head: they are
// computed once per chunk of kChunk dimensions into cos / sin tables on the stack and applied to all heads before
// the next chunk (one chunk for head sizes up to kChunk), so no scratch is needed. F32 rows with adjacent elements
// are rotated by the vector rows of the selected ISA (rope_rows.h); other rows element by element.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"
#include "cpu/kernels/rope/rope_rows.h"

#include "base/fp16.h"
#include "core/tensor.h"
#include "cpu/kernel_registry.h"

#include <algorithm>
#include <cmath>

namespace switchyard::cpu::kernels {

const RopeRows & rope_rows_scalar() {
    static const RopeRows k = make_rope_rows<simd::VecScalar>();
    return k;
}

const RopeRows & rope_rows() {
    static const RopeRows & k = select_kernel(&IsaColumn::rope_rows)();
    return k;
}

namespace {

struct RopeParams {
    int   n_dims, mode, n_ctx_orig;
    float freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow;
    float corr_dims[2];
    int   sections[GGML_MROPE_SECTIONS];
    bool  multi;     // a multi-section mode (MROPE bit)
    bool  vision;
    bool  back;      // ROPE_BACK: rotate by the opposite angles
    bool  neox;      // pairs (j, j + half) rather than (2j, 2j + 1)
    int   rot_dims;  // elements rotated per row: n_dims, or ne0 = 2 * n_dims for VISION
    int   half;      // distance between the two elements of a NEOX-like pair
    int   n_offs;    // first rotated element of each row
};

// The op's parameters; corr_dims (a few logarithms) only when the computation needs them, not for supports.
RopeParams read_params(const ggml_tensor * dst, bool with_corr_dims = true) {
    RopeParams r{};
    r.n_dims      = get_op_param_i32(dst, 1);
    r.mode        = get_op_param_i32(dst, 2);
    r.n_ctx_orig  = get_op_param_i32(dst, 4);
    r.freq_base   = get_op_param_f32(dst, 5);
    r.freq_scale  = get_op_param_f32(dst, 6);
    r.ext_factor  = get_op_param_f32(dst, 7);
    r.attn_factor = get_op_param_f32(dst, 8);
    r.beta_fast   = get_op_param_f32(dst, 9);
    r.beta_slow   = get_op_param_f32(dst, 10);
    if (with_corr_dims) {
        ggml_rope_yarn_corr_dims(r.n_dims, r.n_ctx_orig, r.freq_base, r.beta_fast, r.beta_slow, r.corr_dims);
    }
    for (int i = 0; i < GGML_MROPE_SECTIONS; ++i) {
        r.sections[i] = get_op_param_i32(dst, 11 + i);
    }
    r.multi    = (r.mode & GGML_ROPE_TYPE_MROPE) != 0;
    r.vision   = r.mode == GGML_ROPE_TYPE_VISION;
    r.back     = dst->op == GGML_OP_ROPE_BACK;
    r.neox     = (r.mode & GGML_ROPE_TYPE_NEOX) != 0 || r.multi;
    r.rot_dims = r.vision ? 2 * r.n_dims : r.n_dims;
    r.half     = r.vision ? r.n_dims : r.n_dims / 2;
    r.n_offs   = get_op_param_i32(dst, 15);
    return r;
}

// The unscaled angles of the multi-section modes, pair after pair: each of the 4 positions has its own angle
// sequence p * theta_scale^j; a pair takes the one its sector selects. VISION restarts a position's sequence
// where its section starts (so each section counts its dimensions from 0).
class SectionAngles {
public:
    SectionAngles(const RopeParams & r, const float pos[4], float theta_scale) : r_(r), scale_(theta_scale) {
        for (int k = 0; k < 4; ++k) {
            base_[k]  = pos[k];
            theta_[k] = pos[k];
        }
        sect_dims_ = r.sections[0] + r.sections[1] + r.sections[2] + r.sections[3];
    }

    // The angle of pair j (called for j = 0, 1, 2, ... in order).
    float next(int64_t j) {
        const int sector = static_cast<int>(j % sect_dims_);
        const int s0 = r_.sections[0], s01 = s0 + r_.sections[1], s012 = s01 + r_.sections[2];
        if (r_.vision) {
            const int starts[4] = {0, s0, s01, s012};
            for (int k = 0; k < 4; ++k) {
                if (sector == starts[k]) {
                    theta_[k] = base_[k];
                    break; // the first section starting here restarts, as upstream's else-if chain
                }
            }
        }
        int pick = 3;
        if (r_.mode == GGML_ROPE_TYPE_IMROPE) {
            const int m = sector % 3;
            pick        = sector < 3 * r_.sections[m] ? m : 3;
        } else {
            pick = sector < s0 ? 0 : sector < s01 ? 1 : sector < s012 ? 2 : 3;
        }
        const float theta = theta_[pick];
        for (float & t : theta_) {
            t *= scale_;
        }
        return theta;
    }

private:
    const RopeParams & r_;
    float              scale_;
    float              base_[4];
    float              theta_[4];
    int                sect_dims_;
};

// YaRN: blend interpolated and extrapolated angles per dimension and scale the magnitude.
void yarn_angle(const RopeParams & r, float theta_extrap, int64_t i0, float * cos_out, float * sin_out) {
    const float theta_interp = r.freq_scale * theta_extrap;
    float       theta        = theta_interp;
    float       mscale       = r.attn_factor;
    if (r.ext_factor != 0.0f) {
        const float y        = (static_cast<float>(i0) / 2 - r.corr_dims[0]) / std::max(0.001f, r.corr_dims[1] - r.corr_dims[0]);
        const float ramp_mix = (1.0f - std::min(1.0f, std::max(0.0f, y))) * r.ext_factor;
        theta                = theta_interp * (1 - ramp_mix) + theta_extrap * ramp_mix;
        mscale *= 1.0f + 0.1f * std::log(1.0f / r.freq_scale);
    }
    *cos_out = std::cos(theta) * mscale;
    *sin_out = std::sin(theta) * mscale;
}

float load(ggml_type type, const char * p) {
    return type == GGML_TYPE_F16 ? fp16_to_fp32(*reinterpret_cast<const uint16_t *>(p)) : *reinterpret_cast<const float *>(p);
}

void store(ggml_type type, char * p, float v) {
    if (type == GGML_TYPE_F16) {
        *reinterpret_cast<uint16_t *>(p) = fp32_to_fp16(v);
    } else {
        *reinterpret_cast<float *>(p) = v;
    }
}

// cos / sin of the dimension pairs of one chunk (pair j: dimensions c0 + 2j, c0 + 2j + 1).
struct AngleTable {
    float cos[kChunk / 2];
    float sin[kChunk / 2];
};

// Rotates window dimensions [c0, c1) (c0, c1 even, or c1 = rot_dims) of every head of token row (i2, i3) by the
// angles t; the window starts n_offs elements into the row.
void rotate_chunk(const RopeParams & r, const ggml_tensor * a, ggml_tensor * dst, int64_t i2, int64_t i3, int64_t c0,
                  int64_t c1, const AngleTable & t) {
    const bool       neox  = r.neox;
    const int64_t    pairs = (c1 - c0) / 2, half = r.half;
    const bool       rows  = is_f32_rows(a) && is_f32_rows(dst);
    const RopeRows & k     = rope_rows();
    for (int64_t i1 = 0; i1 < a->ne[1]; ++i1) {
        const char * src = row_ptr(a, i1, i2, i3) + r.n_offs * static_cast<int64_t>(a->nb[0]);
        char *       out = row_ptr(dst, i1, i2, i3) + r.n_offs * static_cast<int64_t>(dst->nb[0]);
        if (rows) {
            const auto * x = reinterpret_cast<const float *>(src);
            auto *       y = reinterpret_cast<float *>(out);
            if (neox) {
                k.neox(x + c0 / 2, y + c0 / 2, t.cos, t.sin, pairs, half);
            } else {
                k.normal(x + c0, y + c0, t.cos, t.sin, pairs);
            }
            continue;
        }
        for (int64_t j = 0; j < pairs; ++j) {
            const int64_t i0 = c0 + 2 * j;
            const int64_t j0 = neox ? i0 / 2 : i0;
            const int64_t j1 = neox ? i0 / 2 + half : i0 + 1;
            const float   x0 = load(a->type, src + j0 * a->nb[0]);
            const float   x1 = load(a->type, src + j1 * a->nb[0]);
            store(dst->type, out + j0 * dst->nb[0], x0 * t.cos[j] - x1 * t.sin[j]);
            store(dst->type, out + j1 * dst->nb[0], x0 * t.sin[j] + x1 * t.cos[j]);
        }
    }
}

// Copies the dimensions outside the window [n_offs, n_offs + rot_dims) of every head of token row (i2, i3)
// unchanged.
void copy_outside(const RopeParams & r, const ggml_tensor * a, ggml_tensor * dst, int64_t i2, int64_t i3) {
    const int64_t end = r.n_offs + r.rot_dims;
    if (r.n_offs == 0 && end == a->ne[0]) {
        return;
    }
    for (int64_t i1 = 0; i1 < a->ne[1]; ++i1) {
        const char * src = row_ptr(a, i1, i2, i3);
        char *       out = row_ptr(dst, i1, i2, i3);
        const auto   copy = [&](int64_t from, int64_t to) {
            for (int64_t i0 = from; i0 < to; ++i0) {
                store(dst->type, out + i0 * dst->nb[0], load(a->type, src + i0 * a->nb[0]));
            }
        };
        copy(0, r.n_offs);
        copy(end, a->ne[0]);
    }
}

int32_t position_at(const ggml_tensor * pos, int64_t i) {
    int32_t v;
    std::memcpy(&v, static_cast<const char *>(pos->data) + i * static_cast<int64_t>(pos->nb[0]), sizeof(v));
    return v;
}

// Fills t with the cos / sin of pairs [c0/2, c1/2) from the unscaled angle of each pair (angle(j)).
template <class Angle>
void fill_table(const RopeParams & r, const ggml_tensor * ff, int64_t c0, int64_t c1, Angle && angle, AngleTable & t) {
    for (int64_t i0 = c0; i0 < c1; i0 += 2) {
        const int64_t j = (i0 - c0) / 2;
        const float   f = ff ? *reinterpret_cast<const float *>(static_cast<const char *>(ff->data) + (i0 / 2) * ff->nb[0]) : 1.0f;
        yarn_angle(r, angle(i0 / 2) / f, i0, &t.cos[j], &t.sin[j]);
        if (r.back) {
            t.sin[j] = -t.sin[j];
        }
    }
}

void rope_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * a           = dst->src[0];
    const ggml_tensor * pos         = dst->src[1];
    const ggml_tensor * ff          = dst->src[2];
    const RopeParams    r           = read_params(dst);
    // n_dims 0 rotates nothing: the rows are copied (copy_outside)
    const float         theta_scale = r.n_dims > 0 ? std::pow(r.freq_base, -2.0f / static_cast<float>(r.n_dims)) : 1.0f;
    const Range         tokens      = thread_range(p, a->ne[2] * a->ne[3]);
    AngleTable          t;
    for (int64_t tr = tokens.begin; tr < tokens.end; ++tr) {
        const int64_t i2 = tr % a->ne[2], i3 = tr / a->ne[2];
        float         positions[4] = {static_cast<float>(position_at(pos, i2)), 0.0f, 0.0f, 0.0f};
        if (r.multi) {
            for (int k = 1; k < 4; ++k) {
                positions[k] = static_cast<float>(position_at(pos, i2 + k * a->ne[2]));
            }
        }
        float         theta = positions[0];
        SectionAngles sections(r, positions, theta_scale);
        for (int64_t c0 = 0; c0 < r.rot_dims; c0 += kChunk) {
            const int64_t c1 = std::min<int64_t>(r.rot_dims, c0 + kChunk);
            if (r.multi) {
                fill_table(r, ff, c0, c1, [&](int64_t j) { return sections.next(j); }, t);
            } else {
                fill_table(r, ff, c0, c1, [&](int64_t) { const float th = theta; theta *= theta_scale; return th; }, t);
            }
            rotate_chunk(r, a, dst, i2, i3, c0, c1, t);
        }
        copy_outside(r, a, dst, i2, i3);
    }
}

bool rope_mode_ok(const ggml_tensor * dst, const RopeParams & r) {
    switch (r.mode) {
        case GGML_ROPE_TYPE_NORMAL:
        case GGML_ROPE_TYPE_NEOX: return dst->src[1]->ne[0] >= dst->src[0]->ne[2];
        case GGML_ROPE_TYPE_MROPE:
        case GGML_ROPE_TYPE_IMROPE:
        case GGML_ROPE_TYPE_VISION: break;
        default: return false;
    }
    for (int s : r.sections) {
        if (s < 0) {
            return false;
        }
    }
    const bool some = r.sections[0] > 0 || r.sections[1] > 0 || r.sections[2] > 0;
    return some && dst->src[1]->ne[0] >= 4 * dst->src[0]->ne[2] && (!r.vision || 2 * r.n_dims == dst->src[0]->ne[0]);
}

bool rope_supports(const ggml_tensor * dst) {
    const ggml_tensor * a   = dst->src[0];
    const ggml_tensor * pos = dst->src[1];
    const ggml_tensor * ff  = dst->src[2];
    if (!a || !pos || pos->type != GGML_TYPE_I32 || (a->type != GGML_TYPE_F32 && a->type != GGML_TYPE_F16) ||
        dst->type != a->type || !ggml_are_same_shape(a, dst)) {
        return false;
    }
    const RopeParams r = read_params(dst, /*with_corr_dims=*/false);
    const bool offset_ok = r.n_offs >= 0 && r.n_offs % 2 == 0 && (r.n_offs == 0 || !r.vision) &&
                           static_cast<int64_t>(r.n_offs) + r.rot_dims <= a->ne[0];
    return rope_mode_ok(dst, r) && (!ff || (ff->type == GGML_TYPE_F32 && ff->ne[0] >= r.rot_dims / 2)) &&
           r.n_dims >= 0 && r.n_dims % 2 == 0 && offset_ok;
}

} // namespace

KernelInfo rope(ggml_op op) {
    if (op == GGML_OP_ROPE || op == GGML_OP_ROPE_BACK) {
        return KernelInfo{rope_compute, nullptr, nullptr, rope_supports};
    }
    return KernelInfo{};
}

} // namespace switchyard::cpu::kernels
