// The softmax row functions of softmax_rows.h written once over a Vec type (common.h); included only by
// softmax_rows.cpp (VecScalar) and softmax_rows_avx2.cpp (VecAvx2). Unnamed namespace: every translation unit
// keeps its own copies, so an AVX2 instantiation is never the one the scalar path links to.
#pragma once

#include "cpu/kernels/common.h"
#include "cpu/kernels/softmax_rows.h"

#include <cmath>

namespace switchyard::cpu::kernels {
namespace {

// a * b + c, fused where the ISA has it (the build does not contract a * b + c by itself).
inline VecScalar vfma(VecScalar a, VecScalar b, VecScalar c) { return {std::fma(a.v, b.v, c.v)}; }
#if defined(SWITCHYARD_KERNELS_HAVE_AVX2)
inline VecAvx2 vfma(VecAvx2 a, VecAvx2 b, VecAvx2 c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
#endif

// out[0..4) = hsum of a, b, c, d.
inline void hsum4(VecScalar a, VecScalar b, VecScalar c, VecScalar d, float * out) {
    out[0] = a.v;
    out[1] = b.v;
    out[2] = c.v;
    out[3] = d.v;
}
#if defined(SWITCHYARD_KERNELS_HAVE_AVX2)
inline void hsum4(VecAvx2 a, VecAvx2 b, VecAvx2 c, VecAvx2 d, float * out) {
    const __m256 ab = _mm256_add_ps(_mm256_unpacklo_ps(a.v, b.v), _mm256_unpackhi_ps(a.v, b.v));
    const __m256 cd = _mm256_add_ps(_mm256_unpacklo_ps(c.v, d.v), _mm256_unpackhi_ps(c.v, d.v));
    const __m256 s  = _mm256_add_ps(_mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(3, 2, 3, 2)));
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1)));
}
#endif

// Lane-wise running maximum that ignores NaN in x, as std::max(acc, x) does.
template <class V> V max_keep(V acc, V x) { return select_gt(x, acc, x, acc); }

template <class V>
float sm_scale_mask_max(const float * a, const float * m, float * y, int64_t n, float s, float slope) {
    const V vs = V::splat(s), vsl = V::splat(slope);
    V       vm = V::splat(-INFINITY);
    float   mx = -INFINITY;
    int64_t i  = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        V x = V::load(a + i) * vs;
        if (m) {
            x = vfma(vsl, V::load(m + i), x);
        }
        x.store(y + i);
        vm = max_keep(vm, x);
    }
    for (; i < n; ++i) {
        const float x = a[i] * s + (m ? slope * m[i] : 0.0f);
        y[i]          = x;
        mx            = std::max(mx, x);
    }
    alignas(64) float t[V::kLanes];
    vm.store(t);
    for (float x : t) {
        mx = std::max(mx, x);
    }
    return mx;
}

template <class V>
float sm_mask_scores(const float * x, const float * m, float * y, int64_t n, float s) {
    const V vs = V::splat(s), ninf = V::splat(-INFINITY);
    V       vm = ninf;
    float   mx = -INFINITY;
    int64_t i  = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        const V mv = V::load(m + i);
        const V v  = select_gt(mv, ninf, vfma(V::load(x + i), vs, mv), ninf);
        v.store(y + i);
        vm = max_keep(vm, v);
    }
    for (; i < n; ++i) {
        const float v = m[i] > -INFINITY ? std::fma(x[i], s, m[i]) : -INFINITY;
        y[i]          = v;
        mx            = std::max(mx, v);
    }
    alignas(64) float t[V::kLanes];
    vm.store(t);
    for (float v : t) {
        mx = std::max(mx, v);
    }
    return mx;
}

template <class V>
float sm_max(const float * x, int64_t n) {
    V       vm = V::splat(-INFINITY);
    float   mx = -INFINITY;
    int64_t i  = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        vm = max_keep(vm, V::load(x + i));
    }
    for (; i < n; ++i) {
        mx = std::max(mx, x[i]);
    }
    alignas(64) float t[V::kLanes];
    vm.store(t);
    for (float v : t) {
        mx = std::max(mx, v);
    }
    return mx;
}

// Sums in float lanes over kChunk elements, then in double, as reduce_row in common.h.
template <class V>
double sm_exp_sum(const float * x, float * y, int64_t n, float m) {
    const V vmx   = V::splat(m);
    double  total = 0.0;
    for (int64_t c = 0; c < n; c += kChunk) {
        const int64_t end  = std::min(n, c + kChunk);
        V             acc  = V::splat(0.0f);
        float         rest = 0.0f;
        int64_t       i    = c;
        for (; i + V::kLanes <= end; i += V::kLanes) {
            const V e = vexp(V::load(x + i) - vmx);
            e.store(y + i);
            acc = acc + e;
        }
        for (; i < end; ++i) {
            const float e = vexp(VecScalar::splat(x[i] - m)).v;
            y[i]          = e;
            rest += e;
        }
        total += static_cast<double>(hsum(acc)) + static_cast<double>(rest);
    }
    return total;
}

template <class V>
void sm_scale(float * y, int64_t n, float s) {
    const V vs = V::splat(s);
    int64_t i  = 0;
    for (; i + V::kLanes <= n; i += V::kLanes) {
        (V::load(y + i) * vs).store(y + i);
    }
    for (; i < n; ++i) {
        y[i] *= s;
    }
}

// Columns [d, d + K * lanes) of acc, kept in registers over all nv rows of v.
template <class V, int K>
void acc_cols(float * acc, int64_t d, float corr, const float * w, const float * v, int64_t nv, int64_t ldv) {
    V         a[K];
    const V   vc = V::splat(corr);
    for (int k = 0; k < K; ++k) {
        a[k] = V::load(acc + d + k * V::kLanes) * vc;
    }
    for (int64_t j = 0; j < nv; ++j) {
        if (w[j] == 0.0f) {
            continue;
        }
        const V       wj  = V::splat(w[j]);
        const float * row = v + j * ldv + d;
        for (int k = 0; k < K; ++k) {
            a[k] = vfma(wj, V::load(row + k * V::kLanes), a[k]);
        }
    }
    for (int k = 0; k < K; ++k) {
        a[k].store(acc + d + k * V::kLanes);
    }
}

template <class V>
void sm_acc_rows(float * acc, int64_t dv, float corr, const float * w, const float * v, int64_t nv, int64_t ldv) {
    int64_t d = 0;
    for (; d + 8 * V::kLanes <= dv; d += 8 * V::kLanes) {
        acc_cols<V, 8>(acc, d, corr, w, v, nv, ldv);
    }
    for (; d + 4 * V::kLanes <= dv; d += 4 * V::kLanes) {
        acc_cols<V, 4>(acc, d, corr, w, v, nv, ldv);
    }
    for (; d + V::kLanes <= dv; d += V::kLanes) {
        acc_cols<V, 1>(acc, d, corr, w, v, nv, ldv);
    }
    for (; d < dv; ++d) {
        acc_cols<VecScalar, 1>(acc, d, corr, w, v, nv, ldv);
    }
}

// out[i * ldo + j] = dot(q_i, k_j) over n elements for QB query rows and KB key rows.
template <class V, int QB, int KB>
void dot_block(const float * q, int64_t ldq, const float * k, int64_t ldk, int64_t n, float * out, int64_t ldo) {
    V       acc[QB][KB];
    for (int i = 0; i < QB; ++i) {
        for (int j = 0; j < KB; ++j) acc[i][j] = V::splat(0.0f);
    }
    int64_t d = 0;
    for (; d + V::kLanes <= n; d += V::kLanes) {
        V kv[KB];
        for (int j = 0; j < KB; ++j) kv[j] = V::load(k + j * ldk + d);
        for (int i = 0; i < QB; ++i) {
            const V qv = V::load(q + i * ldq + d);
            for (int j = 0; j < KB; ++j) acc[i][j] = vfma(qv, kv[j], acc[i][j]);
        }
    }
    for (int i = 0; i < QB; ++i) {
        if constexpr (KB == 4) {
            hsum4(acc[i][0], acc[i][1], acc[i][2], acc[i][3], out + i * ldo);
        } else {
            for (int j = 0; j < KB; ++j) out[i * ldo + j] = hsum(acc[i][j]);
        }
        for (int j = 0; j < KB; ++j) {
            for (int64_t e = d; e < n; ++e) out[i * ldo + j] += q[i * ldq + e] * k[j * ldk + e];
        }
    }
}

template <class V, int QB>
void sm_dot_rows(const float * q, int64_t nq, int64_t ldq, const float * k, int64_t nk, int64_t ldk, int64_t n, float * out,
                 int64_t ldo) {
    int64_t i = 0;
    for (; i + QB <= nq; i += QB) {
        int64_t j = 0;
        for (; j + 4 <= nk; j += 4) dot_block<V, QB, 4>(q + i * ldq, ldq, k + j * ldk, ldk, n, out + i * ldo + j, ldo);
        for (; j < nk; ++j) dot_block<V, QB, 1>(q + i * ldq, ldq, k + j * ldk, ldk, n, out + i * ldo + j, ldo);
    }
    for (; i < nq; ++i) {
        int64_t j = 0;
        for (; j + 4 <= nk; j += 4) dot_block<V, 1, 4>(q + i * ldq, ldq, k + j * ldk, ldk, n, out + i * ldo + j, ldo);
        for (; j < nk; ++j) dot_block<V, 1, 1>(q + i * ldq, ldq, k + j * ldk, ldk, n, out + i * ldo + j, ldo);
    }
}

// QB: query rows per register block of dot_rows (with 4 key rows; QB * 4 + 4 + 1 vector registers)
template <class V, int QB>
SoftmaxRowKernels make_softmax_row_kernels(const char * isa) {
    SoftmaxRowKernels k;
    k.scale_mask_max = sm_scale_mask_max<V>;
    k.max            = sm_max<V>;
    k.mask_scores    = sm_mask_scores<V>;
    k.exp_sum        = sm_exp_sum<V>;
    k.scale          = sm_scale<V>;
    k.acc_rows       = sm_acc_rows<V>;
    k.dot_rows       = sm_dot_rows<V, QB>;
    k.isa            = isa;
    return k;
}

} // namespace
} // namespace switchyard::cpu::kernels
