#include "quant/search.h"

#include <algorithm>
#include <cmath>

namespace switchyard::quant {

namespace {

// The value of largest magnitude (sign kept) and that magnitude.
struct Extreme {
    float value;
    float magnitude;
};

Extreme largest_magnitude(int n, const float * x) {
    Extreme e{0.0f, 0.0f};
    for (int i = 0; i < n; ++i) {
        const float a = std::fabs(x[i]);
        if (a > e.magnitude) {
            e = Extreme{x[i], a};
        }
    }
    return e;
}

int clamp_level(int l, int lo, int hi) {
    return std::max(lo, std::min(hi, l));
}

// Weighted sums of x * l and l * l for the symmetric levels given by iscale.
struct Moments {
    float sumlx = 0.0f;
    float suml2 = 0.0f;
};

Moments symmetric_moments(int n, int nmax, const float * x, const float * w, float iscale) {
    Moments m;
    for (int i = 0; i < n; ++i) {
        const int   l  = clamp_level(round_nearest(iscale * x[i]), -nmax, nmax - 1);
        const float wi = w ? w[i] : x[i] * x[i];
        m.sumlx += wi * x[i] * static_cast<float>(l);
        m.suml2 += wi * static_cast<float>(l) * static_cast<float>(l);
    }
    return m;
}

void symmetric_levels(int n, int nmax, const float * x, float iscale, int8_t * L) {
    for (int i = 0; i < n; ++i) {
        L[i] = static_cast<int8_t>(nmax + clamp_level(round_nearest(iscale * x[i]), -nmax, nmax - 1));
    }
}

} // namespace

float fit_symmetric(int n, int nmax, const float * x, const float * weights, int8_t * L) {
    const Extreme ext = largest_magnitude(n, x);
    if (ext.magnitude < kGroupMaxEps) {
        std::fill(L, L + n, int8_t{0});
        return 0.0f;
    }
    float   iscale = -static_cast<float>(nmax) / ext.value;
    Moments m      = symmetric_moments(n, nmax, x, weights, iscale);
    symmetric_levels(n, nmax, x, iscale, L);
    float scale = m.suml2 != 0.0f ? m.sumlx / m.suml2 : 0.0f;
    float best  = scale * m.sumlx; // the weighted energy this fit explains
    for (int is = -9; is <= 9; ++is) {
        if (is == 0) {
            continue;
        }
        iscale            = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(is)) / ext.value;
        const Moments mis = symmetric_moments(n, nmax, x, weights, iscale);
        if (mis.suml2 > 0 && mis.sumlx * mis.sumlx > best * mis.suml2) {
            symmetric_levels(n, nmax, x, iscale, L);
            scale = mis.sumlx / mis.suml2;
            best  = scale * mis.sumlx;
        }
    }
    return scale;
}

float fit_symmetric_refine(int n, int nmax, const float * x, int8_t * L) {
    const Extreme ext = largest_magnitude(n, x);
    if (ext.magnitude < kGroupMaxEps) {
        std::fill(L, L + n, int8_t{0});
        return 0.0f;
    }
    const float iscale = -static_cast<float>(nmax) / ext.value;
    float       sumlx = 0.0f, suml2 = 0.0f;
    for (int i = 0; i < n; ++i) {
        const int l = clamp_level(round_nearest(iscale * x[i]), -nmax, nmax - 1);
        L[i]        = static_cast<int8_t>(l);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * static_cast<float>(l);
        suml2 += w * static_cast<float>(l) * static_cast<float>(l);
    }
    for (int sweep = 0; sweep < 5; ++sweep) {
        int changed = 0;
        for (int i = 0; i < n; ++i) {
            const float w   = x[i] * x[i];
            float       slx = sumlx - w * x[i] * static_cast<float>(L[i]);
            if (slx <= 0) {
                continue;
            }
            float     sl2   = suml2 - w * static_cast<float>(L[i]) * static_cast<float>(L[i]);
            const int new_l = clamp_level(round_nearest(x[i] * sl2 / slx), -nmax, nmax - 1);
            if (new_l == L[i]) {
                continue;
            }
            slx += w * x[i] * static_cast<float>(new_l);
            sl2 += w * static_cast<float>(new_l) * static_cast<float>(new_l);
            if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
                L[i]  = static_cast<int8_t>(new_l);
                sumlx = slx;
                suml2 = sl2;
                ++changed;
            }
        }
        if (changed == 0) {
            break;
        }
    }
    for (int i = 0; i < n; ++i) {
        L[i] = static_cast<int8_t>(L[i] + nmax);
    }
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

namespace {

float affine_error(int n, const float * x, const float * w, const uint8_t * L, float scale, float min,
                   bool use_mad) {
    float err = 0.0f;
    for (int i = 0; i < n; ++i) {
        float diff = scale * static_cast<float>(L[i]) + min - x[i];
        diff       = use_mad ? std::fabs(diff) : diff * diff;
        err += w[i] * diff;
    }
    return err;
}

} // namespace

float fit_affine(int n, int nmax, const float * x, const float * weights, uint8_t * L, float & the_min,
                 const AffineSearch & search) {
    float min = x[0], max = x[0];
    float sum_w = weights[0], sum_x = weights[0] * x[0];
    for (int i = 1; i < n; ++i) {
        min = std::min(min, x[i]);
        max = std::max(max, x[i]);
        sum_w += weights[i];
        sum_x += weights[i] * x[i];
    }
    min = std::min(min, 0.0f);
    if (max <= min) {
        std::fill(L, L + n, uint8_t{0});
        the_min = -min;
        return 0.0f;
    }
    float iscale = static_cast<float>(nmax) / (max - min);
    float scale  = 1.0f / iscale;
    for (int i = 0; i < n; ++i) {
        L[i] = static_cast<uint8_t>(clamp_level(round_nearest(iscale * (x[i] - min)), 0, nmax));
    }
    float   best_error = affine_error(n, x, weights, L, scale, min, search.use_mad);
    uint8_t Laux[256];
    for (int is = 0; is <= search.nstep; ++is) {
        iscale = (search.rmin + search.rdelta * static_cast<float>(is) + static_cast<float>(nmax)) / (max - min);
        float sum_l = 0.0f, sum_l2 = 0.0f, sum_xl = 0.0f;
        for (int i = 0; i < n; ++i) {
            const int l = clamp_level(round_nearest(iscale * (x[i] - min)), 0, nmax);
            Laux[i]     = static_cast<uint8_t>(l);
            const float fl = static_cast<float>(l);
            sum_l += weights[i] * fl;
            sum_l2 += weights[i] * fl * fl;
            sum_xl += weights[i] * fl * x[i];
        }
        const float det = sum_w * sum_l2 - sum_l * sum_l;
        if (det <= 0) {
            continue;
        }
        float this_scale = (sum_w * sum_xl - sum_x * sum_l) / det;
        float this_min   = (sum_l2 * sum_x - sum_l * sum_xl) / det;
        if (this_min > 0) { // the offset may only lower values: refit the scale alone
            this_min   = 0;
            this_scale = sum_xl / sum_l2;
        }
        const float err = affine_error(n, x, weights, Laux, this_scale, this_min, search.use_mad);
        if (err < best_error) {
            std::copy(Laux, Laux + n, L);
            best_error = err;
            scale      = this_scale;
            min        = this_min;
        }
    }
    the_min = -min;
    return scale;
}

namespace {

float unsigned_error(int n, int nmax, const float * x, const float * w, float iscale) {
    const float scale = 1.0f / iscale;
    float       err   = 0.0f;
    for (int i = 0; i < n; ++i) {
        const int   l    = std::min(nmax, round_nearest(iscale * x[i]));
        const float diff = x[i] - scale * static_cast<float>(l);
        err += w[i] * diff * diff;
    }
    return err;
}

} // namespace

float fit_unsigned(int n, int nmax, const float * x, const float * weights, uint8_t * L) {
    float max = 0.0f;
    for (int i = 0; i < n; ++i) {
        max = std::max(max, x[i]);
    }
    if (max < kGroupMaxEps) {
        std::fill(L, L + n, uint8_t{0});
        return 0.0f;
    }
    float iscale   = static_cast<float>(nmax) / max;
    float best_err = unsigned_error(n, nmax, x, weights, iscale);
    for (int is = -4; is <= 4; ++is) {
        if (is == 0) {
            continue;
        }
        const float iscale_is = (0.1f * static_cast<float>(is) + static_cast<float>(nmax)) / max;
        const float err       = unsigned_error(n, nmax, x, weights, iscale_is);
        if (err < best_err) {
            best_err = err;
            iscale   = iscale_is;
        }
    }
    float sumlx = 0.0f, suml2 = 0.0f;
    for (int i = 0; i < n; ++i) {
        const int l = std::min(nmax, round_nearest(iscale * x[i]));
        L[i]        = static_cast<uint8_t>(l);
        sumlx += weights[i] * x[i] * static_cast<float>(l);
        suml2 += weights[i] * static_cast<float>(l) * static_cast<float>(l);
    }
    for (int sweep = 0; sweep < 5; ++sweep) {
        int changed = 0;
        for (int i = 0; i < n; ++i) {
            const float w   = weights[i];
            float       slx = sumlx - w * x[i] * static_cast<float>(L[i]);
            float       sl2 = suml2 - w * static_cast<float>(L[i]) * static_cast<float>(L[i]);
            if (!(slx > 0 && sl2 > 0)) {
                continue;
            }
            const int new_l = std::min(nmax, round_nearest(x[i] * sl2 / slx));
            if (new_l == L[i]) {
                continue;
            }
            slx += w * x[i] * static_cast<float>(new_l);
            sl2 += w * static_cast<float>(new_l) * static_cast<float>(new_l);
            if (slx * slx * suml2 > sumlx * sumlx * sl2) {
                L[i]  = static_cast<uint8_t>(new_l);
                sumlx = slx;
                suml2 = sl2;
                ++changed;
            }
        }
        if (changed == 0) {
            break;
        }
    }
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

} // namespace switchyard::quant
