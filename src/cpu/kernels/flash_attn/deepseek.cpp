// DeepSeek V3.2 / V4 kernels: LIGHTNING_INDEXER, DSV4_HC_COMB, DSV4_HC_PRE, DSV4_HC_POST. Shapes and sources are
// those of the constructors (core/ops/deepseek.cpp); results F32. Every output element is computed by one thread
// in a fixed order, so results do not depend on the thread count.
//
// LIGHTNING_INDEXER: dst[kv, t, 0, s] = sum_h max(q[:, h, t, s] . k[:, 0, kv, s], 0) w[h, t, 0, s] +
//            mask[kv, t, 0, s % ne33] (heads in order; each dot product summed in element order in float). Threads
//            split the key rows kv; a key row that is not F32 is converted once per (kv, s) into the thread's
//            scratch (n_embd floats) and reused for every token.
// DSV4_HC_COMB (hc = 4): per token, logits l[d, s] = mixes[2*hc + d + hc*s]*scale[2] + base[2*hc + d + hc*s];
//            c[., s] = softmax over d of l[., s], plus eps; then the columns (fixed d) are divided by eps + their
//            sum over s, and n_iter - 1 times the rows (fixed s) by eps + their sum over d and the columns again.
//            dst[d, s, t] = c[d, s]. Threads split the tokens.
// DSV4_HC_PRE:  dst[i, t] = scale * sum_h x[i, h, t] w[h, t] (h in order); gated, w[h, t] is replaced by
//            1 / (1 + exp(-gate[i, h, t])). Threads split the (i, t) items.
// DSV4_HC_POST: dst[i, d, t] = x[i, t] post[d, t] + sum_s residual[i, s, t] comb[d, s, t] (s in order; without
//            comb, + residual[i, d, t]). Threads
//            split the (i, d, t) items.
#include "cpu/kernels/common.h"
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

namespace {

float f32_at(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    float v;
    std::memcpy(&v, elem_ptr(t, i0, i1, i2, i3), sizeof(v));
    return v;
}

void put_f32(ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v) {
    std::memcpy(elem_ptr(t, i0, i1, i2, i3), &v, sizeof(v));
}

bool all_f32_inputs(const ggml_tensor * dst, int n_src) {
    if (dst->type != GGML_TYPE_F32) {
        return false;
    }
    for (int i = 0; i < n_src; ++i) {
        if (dst->src[i] == nullptr || dst->src[i]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return true;
}

// ---- LIGHTNING_INDEXER ----

// A key row needs converting unless it is F32 with adjacent elements.
bool key_needs_conversion(const ggml_tensor * k) {
    return !is_f32_rows(k);
}

size_t indexer_work_size(const ggml_tensor * dst, int n_tasks) {
    const ggml_tensor * k = dst->src[1];
    return key_needs_conversion(k) ? static_cast<size_t>(n_tasks) * scratch_floats(k->ne[0]) : 0;
}

float dot(const float * a, const float * b, int64_t n) {
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        sum += a[i] * b[i];
    }
    return sum;
}

void indexer_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0];
    const ggml_tensor * k = dst->src[1];
    const ggml_tensor * w = dst->src[2];
    const ggml_tensor * m = dst->src[3];
    const int64_t       n_embd = q->ne[0], n_head = q->ne[1], n_tokens = q->ne[2], n_stream = q->ne[3];
    const bool          convert = key_needs_conversion(k);
    float * const       k_buf   = convert ? reinterpret_cast<float *>(thread_slot(p, 0, scratch_floats(n_embd)))
                                          : nullptr;
    const Range         rows = thread_range(p, k->ne[2]);
    for (int64_t s = 0; s < n_stream; ++s) {
        const int64_t s_mask = s % m->ne[3];
        for (int64_t kv = rows.begin; kv < rows.end; ++kv) {
            const char *  k_row = row_ptr(k, 0, kv, s);
            const float * key   = reinterpret_cast<const float *>(k_row);
            if (convert) {
                read_chunk(k, k_row, 0, n_embd, k_buf);
                key = k_buf;
            }
            for (int64_t t = 0; t < n_tokens; ++t) {
                float score = 0.0f;
                for (int64_t h = 0; h < n_head; ++h) {
                    const float qk = dot(reinterpret_cast<const float *>(row_ptr(q, h, t, s)), key, n_embd);
                    score += std::max(qk, 0.0f) * f32_at(w, h, t, 0, s);
                }
                score += load_value(GGML_TYPE_F16, elem_ptr(m, kv, t, 0, s_mask));
                put_f32(dst, kv, t, 0, s, score);
            }
        }
    }
}

bool indexer_supports(const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0];
    const ggml_tensor * k = dst->src[1];
    const ggml_tensor * w = dst->src[2];
    const ggml_tensor * m = dst->src[3];
    if (q == nullptr || k == nullptr || w == nullptr || m == nullptr) {
        return false;
    }
    // the key rows are read whole: adjacent elements (blocks) of a type that converts to float
    const bool key_ok = (is_float_type(k->type) || can_decode(k->type)) && has_unit_stride(k);
    return dst->type == GGML_TYPE_F32 && is_f32_rows(q) && w->type == GGML_TYPE_F32 && m->type == GGML_TYPE_F16 &&
           key_ok && m->ne[3] > 0;
}

// ---- DSV4_HC_COMB ----

constexpr int64_t kStreams = 4;

// Divides each column (fixed dst d) of c[d + hc*s] by eps + its sum over s.
void normalise_columns(float * c, float eps) {
    for (int64_t d = 0; d < kStreams; ++d) {
        float sum = eps;
        for (int64_t s = 0; s < kStreams; ++s) sum += c[d + kStreams * s];
        const float inv = 1.0f / sum;
        for (int64_t s = 0; s < kStreams; ++s) c[d + kStreams * s] *= inv;
    }
}

// Divides each row (fixed src s) of c[d + hc*s] by eps + its sum over d.
void normalise_rows(float * c, float eps) {
    for (int64_t s = 0; s < kStreams; ++s) {
        float sum = eps;
        for (int64_t d = 0; d < kStreams; ++d) sum += c[d + kStreams * s];
        const float inv = 1.0f / sum;
        for (int64_t d = 0; d < kStreams; ++d) c[d + kStreams * s] *= inv;
    }
}

void hc_comb_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * mixes  = dst->src[0];
    const ggml_tensor * scale  = dst->src[1];
    const ggml_tensor * base   = dst->src[2];
    const float         eps    = op_f32(dst, 0);
    const int32_t       n_iter = op_i32(dst, 1);
    const float         sc     = f32_at(scale, 2, 0, 0, 0);
    const int64_t       first  = 2 * kStreams; // the comb logits follow the pre and post mixes
    const Range         tokens = thread_range(p, mixes->ne[1]);
    for (int64_t t = tokens.begin; t < tokens.end; ++t) {
        float c[kStreams * kStreams];
        for (int64_t s = 0; s < kStreams; ++s) {
            float * col = c + kStreams * s;
            float   max = -INFINITY;
            for (int64_t d = 0; d < kStreams; ++d) {
                col[d] = f32_at(mixes, first + d + kStreams * s, t, 0, 0) * sc + f32_at(base, first + d + kStreams * s, 0, 0, 0);
                max    = std::max(max, col[d]);
            }
            float sum = 0.0f;
            for (int64_t d = 0; d < kStreams; ++d) {
                col[d] = std::exp(col[d] - max);
                sum += col[d];
            }
            const float inv = 1.0f / sum;
            for (int64_t d = 0; d < kStreams; ++d) col[d] = col[d] * inv + eps;
        }
        normalise_columns(c, eps);
        for (int32_t it = 1; it < n_iter; ++it) {
            normalise_rows(c, eps);
            normalise_columns(c, eps);
        }
        for (int64_t s = 0; s < kStreams; ++s) {
            for (int64_t d = 0; d < kStreams; ++d) put_f32(dst, d, s, t, 0, c[d + kStreams * s]);
        }
    }
}

bool hc_comb_supports(const ggml_tensor * dst) {
    return all_f32_inputs(dst, 3) && dst->src[0]->ne[0] == (2 + kStreams) * kStreams && dst->ne[0] == kStreams &&
           dst->ne[1] == kStreams && op_i32(dst, 1) > 0;
}

// ---- DSV4_HC_PRE / DSV4_HC_POST ----

void hc_pre_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * x = dst->src[0];
    const ggml_tensor * w = dst->src[1];
    const int64_t       n_embd = x->ne[0], hc = x->ne[1];
    const float         scale  = op_f32(dst, 0);
    const bool          gated  = op_i32(dst, 1) != 0;
    const Range         items  = thread_range(p, n_embd * x->ne[2]);
    for (int64_t item = items.begin; item < items.end; ++item) {
        const int64_t i = item % n_embd, t = item / n_embd;
        float         sum = 0.0f;
        for (int64_t h = 0; h < hc; ++h) {
            const float wv = gated ? 1.0f / (1.0f + std::exp(-f32_at(w, i, h, t, 0))) : f32_at(w, h, t, 0, 0);
            sum += f32_at(x, i, h, t, 0) * wv;
        }
        put_f32(dst, i, t, 0, 0, scale * sum);
    }
}

void hc_post_compute(const ComputeParams & p, ggml_tensor * dst) {
    const ggml_tensor * x        = dst->src[0];
    const ggml_tensor * residual = dst->src[1];
    const ggml_tensor * post     = dst->src[2];
    const ggml_tensor * comb     = dst->src[3];
    const int64_t       n_embd = x->ne[0], hc = residual->ne[1];
    const Range         items  = thread_range(p, n_embd * hc * x->ne[1]);
    for (int64_t item = items.begin; item < items.end; ++item) {
        const int64_t i = item % n_embd, d = (item / n_embd) % hc, t = item / (n_embd * hc);
        float         sum = f32_at(x, i, t, 0, 0) * f32_at(post, d, t, 0, 0);
        if (comb == nullptr) {
            sum += f32_at(residual, i, d, t, 0); // the identity
        } else {
            for (int64_t s = 0; s < hc; ++s) sum += f32_at(residual, i, s, t, 0) * f32_at(comb, d, s, t, 0);
        }
        put_f32(dst, i, d, t, 0, sum);
    }
}

bool hc_pre_supports(const ggml_tensor * dst) {
    return all_f32_inputs(dst, 2);
}

bool hc_post_supports(const ggml_tensor * dst) {
    return all_f32_inputs(dst, 3) && (dst->src[3] == nullptr || dst->src[3]->type == GGML_TYPE_F32);
}

} // namespace

KernelInfo deepseek(ggml_op op) {
    switch (op) {
        case GGML_OP_LIGHTNING_INDEXER:
            return KernelInfo{indexer_compute, nullptr, indexer_work_size, indexer_supports};
        case GGML_OP_DSV4_HC_COMB: return KernelInfo{hc_comb_compute, nullptr, nullptr, hc_comb_supports};
        case GGML_OP_DSV4_HC_PRE:  return KernelInfo{hc_pre_compute, nullptr, nullptr, hc_pre_supports};
        case GGML_OP_DSV4_HC_POST: return KernelInfo{hc_post_compute, nullptr, nullptr, hc_post_supports};
        default: return KernelInfo{};
    }
}

} // namespace switchyard::cpu::kernels
