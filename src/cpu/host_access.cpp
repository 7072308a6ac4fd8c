// Element accessors for tensors in host memory (ggml-cpu.h): ggml_new_i32/f32, ggml_set_i32/f32 (fill), and
// get/set of one element by flat index (_1d) or coordinates (_nd), converting between the tensor's type and
// int32/float. Types: I8, I16, I32, F16, BF16, F32. Strides are honoured everywhere, so views and permuted
// tensors work; a flat index counts elements in storage order of the dimensions (ne[0] fastest).
//
// Errors (NULL tensor, no data, an unsupported type, an index out of range) are logged naming the function;
// getters then return 0 and setters change nothing.
#include "ggml-cpu.h"

#include "base/fp16.h"
#include "base/log.h"

#include <cstring>

using namespace switchyard;

namespace {

bool accessible_type(ggml_type type) {
    switch (type) {
        case GGML_TYPE_I8:
        case GGML_TYPE_I16:
        case GGML_TYPE_I32:
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:
        case GGML_TYPE_F32: return true;
        default:            return false;
    }
}

bool check_tensor(const ggml_tensor * t, const char * caller) {
    if (t == nullptr) {
        log_error("[%s] tensor is NULL\n", caller);
        return false;
    }
    if (t->data == nullptr) {
        log_error("[%s] tensor '%s' has no data in host memory\n", caller, t->name);
        return false;
    }
    if (!accessible_type(t->type)) {
        log_error("[%s] tensor '%s' has type %s; supported are i8, i16, i32, f16, bf16 and f32\n", caller, t->name,
                  ggml_type_name(t->type));
        return false;
    }
    return true;
}

// Address of element (i0, i1, i2, i3), or nullptr (logged) when the tensor or the coordinates are invalid.
char * element(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, const char * caller) {
    if (!check_tensor(t, caller)) {
        return nullptr;
    }
    const int64_t idx[4] = {i0, i1, i2, i3};
    for (int d = 0; d < 4; ++d) {
        if (idx[d] < 0 || idx[d] >= t->ne[d]) {
            log_error("[%s] index %lld of dimension %d is out of range for tensor '%s' (ne = %lld, %lld, %lld, "
                      "%lld)\n", caller, static_cast<long long>(idx[d]), d, t->name, static_cast<long long>(t->ne[0]),
                      static_cast<long long>(t->ne[1]), static_cast<long long>(t->ne[2]),
                      static_cast<long long>(t->ne[3]));
            return nullptr;
        }
    }
    return static_cast<char *>(t->data) + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

// Address of the element with flat index i (ne[0] fastest), or nullptr (logged).
char * element_1d(const ggml_tensor * t, int64_t i, const char * caller) {
    if (!check_tensor(t, caller)) {
        return nullptr;
    }
    if (i < 0 || i >= ggml_nelements(t)) {
        log_error("[%s] index %lld is out of range for tensor '%s' of %lld elements\n", caller,
                  static_cast<long long>(i), t->name, static_cast<long long>(ggml_nelements(t)));
        return nullptr;
    }
    int64_t i0 = 0, i1 = 0, i2 = 0, i3 = 0;
    ggml_unravel_index(t, i, &i0, &i1, &i2, &i3);
    return element(t, i0, i1, i2, i3, caller);
}

template <typename T> T load(const char * p) {
    T v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

template <typename T> void store(char * p, T v) { std::memcpy(p, &v, sizeof(v)); }

// float to int32 as C converts (toward zero), with NaN and out-of-range values giving INT32_MIN
int32_t to_i32(float x) {
    if (!(x > -2147483904.0f && x < 2147483648.0f)) {
        return INT32_MIN;
    }
    return static_cast<int32_t>(x);
}

float read_f32(ggml_type type, const char * p) {
    switch (type) {
        case GGML_TYPE_I8:   return static_cast<float>(load<int8_t>(p));
        case GGML_TYPE_I16:  return static_cast<float>(load<int16_t>(p));
        case GGML_TYPE_I32:  return static_cast<float>(load<int32_t>(p));
        case GGML_TYPE_F16:  return fp16_to_fp32(load<uint16_t>(p));
        case GGML_TYPE_BF16: return bf16_to_fp32(load<uint16_t>(p));
        default:             return load<float>(p);
    }
}

int32_t read_i32(ggml_type type, const char * p) {
    switch (type) {
        case GGML_TYPE_I8:  return load<int8_t>(p);
        case GGML_TYPE_I16: return load<int16_t>(p);
        case GGML_TYPE_I32: return load<int32_t>(p);
        default:            return to_i32(read_f32(type, p));
    }
}

// Integer types take the value modulo their width, as a C cast does.
void write_i32(ggml_type type, char * p, int32_t v) {
    switch (type) {
        case GGML_TYPE_I8:   store(p, static_cast<int8_t>(v)); break;
        case GGML_TYPE_I16:  store(p, static_cast<int16_t>(v)); break;
        case GGML_TYPE_I32:  store(p, v); break;
        case GGML_TYPE_F16:  store(p, fp32_to_fp16(static_cast<float>(v))); break;
        case GGML_TYPE_BF16: store(p, fp32_to_bf16(static_cast<float>(v))); break;
        default:             store(p, static_cast<float>(v)); break;
    }
}

void write_f32(ggml_type type, char * p, float v) {
    switch (type) {
        case GGML_TYPE_I8:   store(p, static_cast<int8_t>(to_i32(v))); break;
        case GGML_TYPE_I16:  store(p, static_cast<int16_t>(to_i32(v))); break;
        case GGML_TYPE_I32:  store(p, to_i32(v)); break;
        case GGML_TYPE_F16:  store(p, fp32_to_fp16(v)); break;
        case GGML_TYPE_BF16: store(p, fp32_to_bf16(v)); break;
        default:             store(p, v); break;
    }
}

// Writes the element bytes in `value` (one element of t's type) to every element of t.
void fill(ggml_tensor * t, const char * value) {
    const size_t size = ggml_type_size(t->type);
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3) {
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2) {
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1) {
                char * row = static_cast<char *>(t->data) + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
                for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) {
                    std::memcpy(row + i0 * t->nb[0], value, size);
                }
            }
        }
    }
}

ggml_tensor * new_scalar(ggml_context * ctx, ggml_type type, const char * caller) {
    if (ctx == nullptr) {
        log_error("[%s] ctx is NULL\n", caller);
        return nullptr;
    }
    if (ggml_get_no_alloc(ctx)) {
        log_error("[%s] the context was made with no_alloc; its tensors have no memory to hold a value\n", caller);
        return nullptr;
    }
    return ggml_new_tensor_1d(ctx, type, 1);
}

} // namespace

extern "C" {

struct ggml_tensor * ggml_new_i32(struct ggml_context * ctx, int32_t value) {
    ggml_tensor * t = new_scalar(ctx, GGML_TYPE_I32, "ggml_new_i32");
    return t != nullptr ? ggml_set_i32(t, value) : nullptr;
}

struct ggml_tensor * ggml_new_f32(struct ggml_context * ctx, float value) {
    ggml_tensor * t = new_scalar(ctx, GGML_TYPE_F32, "ggml_new_f32");
    return t != nullptr ? ggml_set_f32(t, value) : nullptr;
}

struct ggml_tensor * ggml_set_i32(struct ggml_tensor * tensor, int32_t value) {
    if (check_tensor(tensor, "ggml_set_i32")) {
        char element_bytes[4];
        write_i32(tensor->type, element_bytes, value);
        fill(tensor, element_bytes);
    }
    return tensor;
}

struct ggml_tensor * ggml_set_f32(struct ggml_tensor * tensor, float value) {
    if (check_tensor(tensor, "ggml_set_f32")) {
        char element_bytes[4];
        write_f32(tensor->type, element_bytes, value);
        fill(tensor, element_bytes);
    }
    return tensor;
}

int32_t ggml_get_i32_1d(const struct ggml_tensor * tensor, int i) {
    const char * p = element_1d(tensor, i, "ggml_get_i32_1d");
    return p != nullptr ? read_i32(tensor->type, p) : 0;
}

void ggml_set_i32_1d(const struct ggml_tensor * tensor, int i, int32_t value) {
    if (char * p = element_1d(tensor, i, "ggml_set_i32_1d")) {
        write_i32(tensor->type, p, value);
    }
}

int32_t ggml_get_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3) {
    const char * p = element(tensor, i0, i1, i2, i3, "ggml_get_i32_nd");
    return p != nullptr ? read_i32(tensor->type, p) : 0;
}

void ggml_set_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, int32_t value) {
    if (char * p = element(tensor, i0, i1, i2, i3, "ggml_set_i32_nd")) {
        write_i32(tensor->type, p, value);
    }
}

float ggml_get_f32_1d(const struct ggml_tensor * tensor, int i) {
    const char * p = element_1d(tensor, i, "ggml_get_f32_1d");
    return p != nullptr ? read_f32(tensor->type, p) : 0.0f;
}

void ggml_set_f32_1d(const struct ggml_tensor * tensor, int i, float value) {
    if (char * p = element_1d(tensor, i, "ggml_set_f32_1d")) {
        write_f32(tensor->type, p, value);
    }
}

float ggml_get_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3) {
    const char * p = element(tensor, i0, i1, i2, i3, "ggml_get_f32_nd");
    return p != nullptr ? read_f32(tensor->type, p) : 0.0f;
}

void ggml_set_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, float value) {
    if (char * p = element(tensor, i0, i1, i2, i3, "ggml_set_f32_nd")) {
        write_f32(tensor->type, p, value);
    }
}

} // extern "C"
