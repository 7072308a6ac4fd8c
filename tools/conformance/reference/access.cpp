#include "conformance/reference/activations.h"
#include "conformance/reference/reference.h"
#include "conformance/reference/util.h"

#include <cstring>
#include <vector>

namespace switchyard::testing::reference {

namespace {

float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
    const int      exp  = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ff;
    float          v;
    if (exp == 0) {
        v = std::ldexp(static_cast<float>(mant), -24);
    } else if (exp == 31) {
        v = mant ? NAN : INFINITY;
    } else {
        v = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
    }
    return sign ? -v : v;
}

const char * element_ptr(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return static_cast<const char *>(t->data) + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

} // namespace

float get(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const int64_t blck = ggml_blck_size(t->type);
    if (blck > 1) {
        const char * row = static_cast<const char *>(t->data) + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
        const char * blk = row + (i0 / blck) * ggml_type_size(t->type);
        std::vector<float> vals(static_cast<size_t>(blck));
        if (const ggml_to_float_t to_float = ggml_get_type_traits(t->type)->to_float) {
            to_float(blk, vals.data(), blck);
        } else {
            decode_q8(t->type, reinterpret_cast<const uint8_t *>(blk), vals.data(), blck); // q8_1, q8_K
        }
        return vals[static_cast<size_t>(i0 % blck)];
    }
    const char * p = element_ptr(t, i0, i1, i2, i3);
    switch (t->type) {
        case GGML_TYPE_F32: { float v; std::memcpy(&v, p, 4); return v; }
        case GGML_TYPE_F64: { double v; std::memcpy(&v, p, 8); return static_cast<float>(v); }
        case GGML_TYPE_F16: { uint16_t h; std::memcpy(&h, p, 2); return half_to_float(h); }
        case GGML_TYPE_BF16: {
            uint16_t b;
            std::memcpy(&b, p, 2);
            const uint32_t u = static_cast<uint32_t>(b) << 16;
            float          v;
            std::memcpy(&v, &u, 4);
            return v;
        }
        case GGML_TYPE_I8:  return static_cast<float>(*reinterpret_cast<const int8_t *>(p));
        case GGML_TYPE_I16: { int16_t v; std::memcpy(&v, p, 2); return static_cast<float>(v); }
        case GGML_TYPE_I32: { int32_t v; std::memcpy(&v, p, 4); return static_cast<float>(v); }
        case GGML_TYPE_I64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<float>(v); }
        default: return NAN;
    }
}

int64_t get_index(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const char * p = element_ptr(t, i0, i1, i2, i3);
    if (t->type == GGML_TYPE_I64) {
        int64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

void set(ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v) {
    char * p = const_cast<char *>(element_ptr(t, i0, i1, i2, i3));
    switch (t->type) {
        case GGML_TYPE_F32: std::memcpy(p, &v, 4); break;
        case GGML_TYPE_F64: { const double d = v; std::memcpy(p, &d, 8); break; }
        case GGML_TYPE_F16: { const uint16_t h = ggml_fp32_to_fp16(v); std::memcpy(p, &h, 2); break; }
        case GGML_TYPE_BF16: { const ggml_bf16_t b = ggml_fp32_to_bf16(v); std::memcpy(p, &b, 2); break; }
        case GGML_TYPE_I8:  *reinterpret_cast<int8_t *>(p) = static_cast<int8_t>(v); break;
        case GGML_TYPE_I16: { const int16_t x = static_cast<int16_t>(v); std::memcpy(p, &x, 2); break; }
        case GGML_TYPE_I32: { const int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
        case GGML_TYPE_I64: { const int64_t x = static_cast<int64_t>(v); std::memcpy(p, &x, 8); break; }
        default: break; // block formats are written whole rows at a time (set_row)
    }
}

void set_row(ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3, const float * values) {
    if (ggml_blck_size(t->type) == 1) {
        for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) {
            set(t, i0, i1, i2, i3, values[i0]);
        }
        return;
    }
    char * row = static_cast<char *>(t->data) + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
    ggml_quantize_chunk(t->type, values, row, 0, 1, t->ne[0], nullptr);
}

} // namespace switchyard::testing::reference
