// ROPE: rotary position embedding of the first n_dims elements of each row; ROPE_BACK: its gradient (the same
// rotation by the opposite angles), built by ggml_rope_ext_back / ggml_rope_multi_back with the same op_params.
//
// a [head_dim, n_head, n_tokens, ne3]; b I32 positions [n_tokens] (4*n_tokens for the MROPE modes); c optional
// F32 frequency factors [>= n_dims/2]. src = {a, b, c}; the result is like a, `_inplace` a view of a.
// ggml_rope_custom(_inplace) (deprecated) are ggml_rope_ext(_inplace) with c = NULL.
// op_params, 16 int32 slots (upstream's layout, read by every backend):
//   [0] n_past = 0   [1] n_dims   [2] mode   [3] n_ctx = 0   [4] n_ctx_orig
//   [5] freq_base  [6] freq_scale  [7] ext_factor  [8] attn_factor  [9] beta_fast  [10] beta_slow   (f32)
//   [11..14] multi-rope sections (ggml_rope_multi; zero otherwise)
//   [15] n_offs: the first rotated dimension (0 unless ggml_rope_set_offset moved the window)
// mode bit 0 (the removed "past" mode) is rejected; ggml_rope_multi takes any mode (sections kept for MROPE modes).
// ggml_rope_set_offset moves the window of a ROPE / ROPE_BACK node that is not VISION: dimensions
// [n_offs, n_offs + n_dims) rotate (angles counted from the window start), the rest is copied.
#include "core/ops/op_common.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace switchyard::ops {

namespace {

struct RopeParams {
    int   n_dims;
    int   mode;
    int   n_ctx_orig;
    float freq_base;
    float freq_scale;
    float ext_factor;
    float attn_factor;
    float beta_fast;
    float beta_slow;
};

// The defaults of ggml_rope: no context extension, base 10000.
constexpr RopeParams plain_rope(int n_dims, int mode) {
    return RopeParams{n_dims, mode, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f};
}

void check_rope(const ggml_tensor * a, const ggml_tensor * b, const ggml_tensor * c, const RopeParams & p,
                const char * name) {
    shape_check((p.mode & 1) == 0, name, "mode %d: bit 0 is no longer supported", p.mode);
    shape_check(ggml_is_vector(b) && b->type == GGML_TYPE_I32, name, "positions b %s must be an i32 vector",
                shape(b));
    const bool    mrope    = (p.mode & GGML_ROPE_TYPE_MROPE) != 0;
    const int64_t expected = mrope ? a->ne[2] * 4 : a->ne[2];
    shape_check(b->ne[0] == expected, name, "positions b %s must have %lld entries for a %s", shape(b),
                static_cast<long long>(expected), shape(a));
    if (c) {
        shape_check(c->type == GGML_TYPE_F32 && c->ne[0] >= p.n_dims / 2, name,
                    "frequency factors c %s must be f32 with >= n_dims/2 = %d entries", shape(c), p.n_dims / 2);
    }
}

constexpr int kNoSections[GGML_MROPE_SECTIONS] = {0, 0, 0, 0};
constexpr int kOffsetSlot                      = 15; // op_params slot of n_offs

ggml_tensor * rope_impl(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b, ggml_tensor * c, const RopeParams & p,
                        bool inplace, const char * name, ggml_op op = GGML_OP_ROPE,
                        const int * sections = kNoSections) {
    if (!inputs_ok(name, {a, b})) {
        return nullptr;
    }
    check_rope(a, b, c, p, name);
    ggml_tensor * t = set_op(like(ctx, a, inplace, name), op, {a, b, c});
    if (!t) {
        return nullptr;
    }
    with_i32(t, {0, p.n_dims, p.mode, 0, p.n_ctx_orig});
    const float floats[] = {p.freq_base, p.freq_scale, p.ext_factor, p.attn_factor, p.beta_fast, p.beta_slow};
    for (int i = 0; i < 6; ++i) {
        set_op_param_f32(t, 5 + i, floats[i]);
    }
    for (int i = 0; i < GGML_MROPE_SECTIONS; ++i) {
        set_op_param_i32(t, 11 + i, sections[i]);
    }
    set_op_param_i32(t, kOffsetSlot, 0);
    return t;
}

// As upstream's 0.25.1: any mode; the sections are stored for a mode with the MROPE bit (zeros otherwise, and
// for NULL), so ggml_rope_multi of a plain mode is ggml_rope_ext.
ggml_tensor * rope_multi_impl(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b, ggml_tensor * c,
                              const RopeParams & p, const int * sections, bool inplace, ggml_op op, const char * name) {
    const bool stored = (p.mode & GGML_ROPE_TYPE_MROPE) != 0 && sections != nullptr;
    return rope_impl(ctx, a, b, c, p, inplace, name, op, stored ? sections : kNoSections);
}

// The dimension whose rotation completes n_rot turns over n_ctx_orig positions.
float yarn_corr_dim(int n_dims, int n_ctx_orig, float n_rot, float base) {
    const float two_pi = 2.0f * std::numbers::pi_v<float>;
    return static_cast<float>(n_dims) * std::log(static_cast<float>(n_ctx_orig) / (n_rot * two_pi)) /
           (2.0f * std::log(base));
}

} // namespace

} // namespace switchyard::ops

using namespace switchyard;
using namespace switchyard::ops;

extern "C" {

struct ggml_tensor * ggml_rope(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int n_dims,
                               int mode) {
    return rope_impl(ctx, a, b, nullptr, plain_rope(n_dims, mode), false, "ggml_rope");
}

struct ggml_tensor * ggml_rope_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                       int n_dims, int mode) {
    return rope_impl(ctx, a, b, nullptr, plain_rope(n_dims, mode), true, "ggml_rope_inplace");
}

struct ggml_tensor * ggml_rope_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                   struct ggml_tensor * c, int n_dims, int mode, int n_ctx_orig, float freq_base,
                                   float freq_scale, float ext_factor, float attn_factor, float beta_fast,
                                   float beta_slow) {
    const RopeParams p{n_dims, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow};
    return rope_impl(ctx, a, b, c, p, false, "ggml_rope_ext");
}

struct ggml_tensor * ggml_rope_ext_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                           struct ggml_tensor * c, int n_dims, int mode, int n_ctx_orig,
                                           float freq_base, float freq_scale, float ext_factor, float attn_factor,
                                           float beta_fast, float beta_slow) {
    const RopeParams p{n_dims, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow};
    return rope_impl(ctx, a, b, c, p, true, "ggml_rope_ext_inplace");
}

// The deprecated pair (upstream: "use ggml_rope_ext instead"): ggml_rope_ext(_inplace) without frequency factors.
// Defining a function that is declared deprecated draws no warning; nothing here calls one.
struct ggml_tensor * ggml_rope_custom(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                      int n_dims, int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                      float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    const RopeParams p{n_dims, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow};
    return rope_impl(ctx, a, b, nullptr, p, false, "ggml_rope_custom");
}

struct ggml_tensor * ggml_rope_custom_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                              int n_dims, int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                              float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    const RopeParams p{n_dims, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow};
    return rope_impl(ctx, a, b, nullptr, p, true, "ggml_rope_custom_inplace");
}

struct ggml_tensor * ggml_rope_multi(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                     struct ggml_tensor * c, int n_dims, int sections[GGML_MROPE_SECTIONS], int mode,
                                     int n_ctx_orig, float freq_base, float freq_scale, float ext_factor,
                                     float attn_factor, float beta_fast, float beta_slow) {
    const RopeParams p{n_dims, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow};
    return rope_multi_impl(ctx, a, b, c, p, sections, false, GGML_OP_ROPE, "ggml_rope_multi");
}

struct ggml_tensor * ggml_rope_multi_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                             struct ggml_tensor * c, int n_dims, int sections[GGML_MROPE_SECTIONS],
                                             int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                             float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    const RopeParams p{n_dims, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow};
    return rope_multi_impl(ctx, a, b, c, p, sections, true, GGML_OP_ROPE, "ggml_rope_multi_inplace");
}

struct ggml_tensor * ggml_rope_ext_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        struct ggml_tensor * c, int n_dims, int mode, int n_ctx_orig, float freq_base,
                                        float freq_scale, float ext_factor, float attn_factor, float beta_fast,
                                        float beta_slow) {
    const RopeParams p{n_dims, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow};
    return rope_impl(ctx, a, b, c, p, false, "ggml_rope_ext_back", GGML_OP_ROPE_BACK);
}

struct ggml_tensor * ggml_rope_multi_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                          struct ggml_tensor * c, int n_dims, int sections[GGML_MROPE_SECTIONS],
                                          int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                          float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    const RopeParams p{n_dims, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow};
    return rope_multi_impl(ctx, a, b, c, p, sections, false, GGML_OP_ROPE_BACK, "ggml_rope_multi_back");
}

struct ggml_tensor * ggml_rope_set_offset(struct ggml_tensor * a, int n_offs) {
    const char * name = "ggml_rope_set_offset";
    if (!inputs_ok(name, {a})) {
        return nullptr;
    }
    shape_check(a->op == GGML_OP_ROPE || a->op == GGML_OP_ROPE_BACK, name,
                "a %s is a %s node, not ROPE or ROPE_BACK", shape(a), ggml_op_name(a->op));
    const int mode = get_op_param_i32(a, 2);
    shape_check(mode != GGML_ROPE_TYPE_VISION, name,
                "mode %d: a VISION rope rotates whole rows and takes no offset", mode);
    // an odd window, or one past the row's end, is taken as upstream takes it; no backend supports it (each
    // backend's supports_op checks the window), so computing it fails with a status
    shape_check(n_offs >= 0, name, "n_offs %d must be >= 0", n_offs);
    set_op_param_i32(a, kOffsetSlot, n_offs);
    return a;
}

// dims[0] = first dimension to correct (floor, >= 0), dims[1] = last (ceil, <= n_dims - 1).
void ggml_rope_yarn_corr_dims(int n_dims, int n_ctx_orig, float freq_base, float beta_fast, float beta_slow,
                              float dims[2]) {
    const float start = std::floor(yarn_corr_dim(n_dims, n_ctx_orig, beta_fast, freq_base));
    const float end   = std::ceil(yarn_corr_dim(n_dims, n_ctx_orig, beta_slow, freq_base));
    dims[0]           = std::max(0.0f, start);
    dims[1]           = std::min(static_cast<float>(n_dims - 1), end);
}

} // extern "C"
