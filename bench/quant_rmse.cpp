// quant_rmse: how much each storage format loses. For every format with a quantizer, rows of 4096 values
// drawn from a Gaussian and from a Student-t distribution with 3 degrees of freedom (heavy tails, like the
// outliers of real weight matrices) are quantized and dequantized again; the table gives the relative RMSE
// sqrt(sum (x - y)^2 / sum x^2), for the reference quantizer (ggml_get_type_traits()->from_float_ref) and for
// ggml_quantize_chunk without and with an importance matrix (the latter measured as weighted RMSE with those
// same weights, against the unweighted quantization: lower is better).
//
// usage: quant_rmse [rows]   (default 64 rows of 4096 values per distribution)
#include "ggml.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

constexpr int64_t kRowLength = 4096;

std::vector<float> make_data(bool heavy_tailed, int64_t n, uint32_t seed) {
    std::mt19937       rng(seed);
    std::vector<float> v(static_cast<size_t>(n));
    if (heavy_tailed) {
        std::student_t_distribution<float> dist(3.0f);
        for (float & x : v) x = dist(rng);
    } else {
        std::normal_distribution<float> dist(0.0f, 1.0f);
        for (float & x : v) x = dist(rng);
    }
    return v;
}

// Importance weights with a spread like real activation statistics: log-normal, a few columns much larger.
std::vector<float> make_imatrix(uint32_t seed) {
    std::mt19937                    rng(seed);
    std::lognormal_distribution<float> dist(0.0f, 1.5f);
    std::vector<float>              w(kRowLength);
    for (float & x : w) x = dist(rng);
    return w;
}

double weighted_rmse(const std::vector<float> & x, const std::vector<float> & y, const float * w) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double wi = w ? w[i % kRowLength] : 1.0;
        const double d  = static_cast<double>(x[i]) - y[i];
        num += wi * d * d;
        den += wi * static_cast<double>(x[i]) * x[i];
    }
    return std::sqrt(num / den);
}

std::vector<float> round_trip(ggml_type type, const std::vector<float> & x, bool use_chunk, const float * imatrix) {
    const int64_t              n     = static_cast<int64_t>(x.size());
    const ggml_type_traits *   tt    = ggml_get_type_traits(type);
    std::vector<unsigned char> q(ggml_row_size(type, n));
    if (use_chunk) {
        ggml_quantize_chunk(type, x.data(), q.data(), 0, n / kRowLength, kRowLength, imatrix);
    } else {
        tt->from_float_ref(x.data(), q.data(), n);
    }
    std::vector<float> y(x.size());
    tt->to_float(q.data(), y.data(), n);
    return y;
}

} // namespace

int main(int argc, char ** argv) {
    const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 64;
    if (rows <= 0) {
        std::fprintf(stderr, "usage: %s [rows]\n", argv[0]);
        return 1;
    }
    const ggml_type types[] = {GGML_TYPE_Q2_K,   GGML_TYPE_Q3_K,   GGML_TYPE_MXFP4, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1,
                               GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_Q4_K,  GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
                               GGML_TYPE_Q5_K,   GGML_TYPE_Q6_K,   GGML_TYPE_Q8_0,  GGML_TYPE_Q8_1, GGML_TYPE_Q8_K,
                               GGML_TYPE_BF16,   GGML_TYPE_F16};
    const auto gauss   = make_data(false, rows * kRowLength, 1);
    const auto heavy   = make_data(true, rows * kRowLength, 2);
    const auto imatrix = make_imatrix(3);

    std::printf("relative RMSE of quantize -> dequantize, %lld rows x %lld values\n", static_cast<long long>(rows),
                static_cast<long long>(kRowLength));
    std::printf("| format | bits/weight | gaussian ref | gaussian chunk | student-t3 ref | student-t3 chunk |"
                " gaussian weighted: no imatrix | with imatrix |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (ggml_type type : types) {
        const double bpw = 8.0 * static_cast<double>(ggml_type_size(type)) / static_cast<double>(ggml_blck_size(type));
        const double g_ref   = weighted_rmse(gauss, round_trip(type, gauss, false, nullptr), nullptr);
        const double g_chunk = weighted_rmse(gauss, round_trip(type, gauss, true, nullptr), nullptr);
        const double t_ref   = weighted_rmse(heavy, round_trip(type, heavy, false, nullptr), nullptr);
        const double t_chunk = weighted_rmse(heavy, round_trip(type, heavy, true, nullptr), nullptr);
        const double w_plain = weighted_rmse(gauss, round_trip(type, gauss, true, nullptr), imatrix.data());
        const double w_imat  = weighted_rmse(gauss, round_trip(type, gauss, true, imatrix.data()), imatrix.data());
        std::printf("| %s | %.4g | %.5f | %.5f | %.5f | %.5f | %.5f | %.5f |\n", ggml_type_name(type), bpw, g_ref,
                    g_chunk, t_ref, t_chunk, w_plain, w_imat);
    }
    return 0;
}
