// Helpers shared by the quantization tests: building blocks byte by byte, running the public conversions,
// random data and error measures.
#pragma once

#include "ggml.h"
#include "quant/formats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace switchyard::quant_test {

// fp16 bit patterns of a few exactly representable values (IEEE binary16).
constexpr uint16_t kHalfQuarter = 0x3400; // 0.25
constexpr uint16_t kHalfHalf    = 0x3800; // 0.5
constexpr uint16_t kHalfOne     = 0x3c00; // 1
constexpr uint16_t kHalfTwo     = 0x4000; // 2
constexpr uint16_t kHalfMinus1  = 0xbc00; // -1
constexpr uint16_t kHalfEighth  = 0x3000; // 0.125
constexpr uint16_t kHalfNaN     = 0x7e00;
constexpr uint16_t kHalfInf     = 0x7c00;

// A block under construction: little-endian writes at byte offsets.
class Bytes {
  public:
    explicit Bytes(size_t n) : data_(n, 0) {}
    Bytes & u8(size_t off, uint8_t v) {
        data_.at(off) = v;
        return *this;
    }
    Bytes & u16(size_t off, uint16_t v) {
        data_.at(off)     = static_cast<uint8_t>(v & 0xff);
        data_.at(off + 1) = static_cast<uint8_t>(v >> 8);
        return *this;
    }
    Bytes & f32(size_t off, float v) {
        uint32_t u;
        std::memcpy(&u, &v, 4);
        for (int k = 0; k < 4; ++k) {
            data_.at(off + static_cast<size_t>(k)) = static_cast<uint8_t>(u >> (8 * k));
        }
        return *this;
    }
    Bytes & or8(size_t off, uint8_t v) {
        data_.at(off) = static_cast<uint8_t>(data_.at(off) | v);
        return *this;
    }
    const uint8_t *              data() const { return data_.data(); }
    uint8_t *                    data() { return data_.data(); }
    size_t                       size() const { return data_.size(); }
    const std::vector<uint8_t> & vec() const { return data_; }

  private:
    std::vector<uint8_t> data_;
};

inline std::vector<float> dequantize(ggml_type type, const void * data, int64_t n) {
    std::vector<float> y(static_cast<size_t>(n));
    switchyard::quant::to_float_fn(type)(data, y.data(), n);
    return y;
}

inline std::vector<uint8_t> quantize_ref(ggml_type type, const std::vector<float> & x) {
    std::vector<uint8_t> q(ggml_row_size(type, static_cast<int64_t>(x.size())));
    switchyard::quant::from_float_ref_fn(type)(x.data(), q.data(), static_cast<int64_t>(x.size()));
    return q;
}

inline std::vector<uint8_t> quantize_chunk(ggml_type type, const std::vector<float> & x, int64_t n_per_row,
                                           const float * imatrix = nullptr) {
    const int64_t        nrows = static_cast<int64_t>(x.size()) / n_per_row;
    std::vector<uint8_t> q(ggml_row_size(type, n_per_row) * static_cast<size_t>(nrows));
    const size_t         written = ggml_quantize_chunk(type, x.data(), q.data(), 0, nrows, n_per_row, imatrix);
    EXPECT_EQ(written, q.size()) << ggml_type_name(type);
    return q;
}

inline std::vector<float> gaussian(size_t n, uint32_t seed, float sigma = 1.0f) {
    std::mt19937                    rng(seed);
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float>              v(n);
    for (float & x : v) {
        x = dist(rng);
    }
    return v;
}

// Student-t with 3 degrees of freedom: heavy tails, like the outliers of real weight matrices.
inline std::vector<float> student_t3(size_t n, uint32_t seed) {
    std::mt19937                     rng(seed);
    std::student_t_distribution<float> dist(3.0f);
    std::vector<float>               v(n);
    for (float & x : v) {
        x = dist(rng);
    }
    return v;
}

// sqrt(sum (x - y)^2 / sum x^2)
inline double relative_rmse(const std::vector<float> & x, const std::vector<float> & y) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double d = static_cast<double>(x[i]) - static_cast<double>(y[i]);
        num += d * d;
        den += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    }
    return std::sqrt(num / den);
}

// Collects everything logged while alive; restores the default sink afterwards.
class LogCapture {
  public:
    LogCapture() { ggml_log_set(&LogCapture::callback, this); }
    ~LogCapture() { ggml_log_set(nullptr, nullptr); }
    LogCapture(const LogCapture &)             = delete;
    LogCapture & operator=(const LogCapture &) = delete;
    const std::string & text() const { return text_; }
    void                clear() { text_.clear(); }

  private:
    static void callback(ggml_log_level, const char * text, void * user_data) {
        static_cast<LogCapture *>(user_data)->text_ += text;
    }
    std::string text_;
};

} // namespace switchyard::quant_test
