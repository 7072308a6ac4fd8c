#include "core/ops/op_common.h"

#include "base/abort.h"
#include "base/log.h"
#include "quant/types.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <optional>

namespace switchyard::ops {

namespace {

// Appends to a ShapeText without printf: shape() runs for every shape_check of every constructor (its text is an
// argument whether the check fails or not), so it must cost little next to building the tensor.
class TextWriter {
public:
    explicit TextWriter(ShapeText & s) : s_(s) {}
    void put(const char * text) {
        while (*text != '\0' && n_ + 1 < sizeof(s_.text)) {
            s_.text[n_++] = *text++;
        }
        s_.text[n_] = '\0';
    }
    void put(uint64_t v, bool negative = false) {
        char digits[24];
        int  k = 0;
        do {
            digits[k++] = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v != 0);
        if (negative) {
            digits[k++] = '-';
        }
        char text[24];
        for (int i = 0; i < k; ++i) {
            text[i] = digits[k - 1 - i];
        }
        text[k] = '\0';
        put(text);
    }
    void put_signed(int64_t v) { put(v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v), v < 0); }

private:
    ShapeText & s_;
    size_t      n_ = 0;
};

template <class T, class Put>
ShapeText four(const char * prefix, const T * v, Put put) {
    ShapeText  s{};
    TextWriter w(s);
    w.put(prefix);
    w.put("[");
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        put(w, v[i]);
        w.put(i + 1 < GGML_MAX_DIMS ? ", " : "]");
    }
    return s;
}

void put_extent(TextWriter & w, int64_t v) { w.put_signed(v); }
void put_stride(TextWriter & w, size_t v) { w.put(static_cast<uint64_t>(v)); }

} // namespace

ShapeText shape_text(const ggml_tensor * t) {
    if (!t) {
        ShapeText  s{};
        TextWriter w(s);
        w.put("(null)");
        return s;
    }
    char type_name[40];
    std::strncpy(type_name, is_valid_type(t->type) ? type_info(t->type).name : "?", sizeof(type_name) - 2);
    type_name[sizeof(type_name) - 2] = '\0';
    std::strcat(type_name, " ");
    return four(type_name, t->ne, put_extent);
}

ShapeText dims_text(const int64_t * ne) { return four("", ne, put_extent); }

ShapeText strides_text(const size_t * nb) { return four("", nb, put_stride); }

std::optional<PackedSize> checked_size(ggml_type type, const int64_t * ne, const char * op) {
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        shape_check(ne[i] >= 0, op, "negative extent ne[%d] = %lld", i, static_cast<long long>(ne[i]));
    }
    const TypeInfo & info = type_info(type);
    shape_check(ne[0] % info.blck_size == 0, op, "ne[0] = %lld is not a whole number of %s blocks",
                static_cast<long long>(ne[0]), info.name);
    const std::optional<PackedSize> size = packed_size(type, GGML_MAX_DIMS, ne);
    if (!size) {
        log_size_overflow(op, type, ne);
    }
    return size;
}

void check_strided_range(ggml_type type, const int64_t * ne, const size_t * nb, size_t offset, size_t memory_bytes,
                         const char * what, const ggml_tensor * of, const char * op) {
    const std::optional<size_t> extent = strided_extent(type, ne, nb);
    if (extent && offset <= memory_bytes && *extent <= memory_bytes - offset) {
        return; // the common case: no message to format
    }
    shape_check(extent.has_value(), op, "extents %s with strides %s span more than %zu bytes", dims_text(ne).text,
                strides_text(nb).text, kMaxTensorBytes);
    shape_check(false, op, "extents %s with strides %s span %zu bytes at offset %zu, past the %zu bytes of %s%s%s%s",
                dims_text(ne).text, strides_text(nb).text, *extent, offset, memory_bytes, what, of ? " (a " : "",
                of ? shape_text(of).text : "", of ? ")" : "");
}

bool inputs_ok(const char * op, std::initializer_list<const ggml_tensor *> inputs) {
    int i = 0;
    for (const ggml_tensor * t : inputs) {
        if (!t) {
            log_error("[%s] input %d is NULL (an earlier constructor failed); returning NULL\n", op, i);
            return false;
        }
        ++i;
    }
    return true;
}

void shape_fail(const char * op, const char * fmt, ...) {
    char    message[1024];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(message, sizeof(message), fmt, args);
    va_end(args);
    fatal("[%s] %s", op, message);
}

ggml_tensor * new_result(ggml_context * ctx, ggml_type type, const Ne & ne, const char * op) {
    return new_tensor_impl(ctx, type, GGML_MAX_DIMS, ne.data(), nullptr, 0, op);
}

ggml_tensor * like(ggml_context * ctx, ggml_tensor * a, bool inplace, const char * op) {
    if (inplace) {
        return view_of(ctx, a, op);
    }
    return new_tensor_impl(ctx, a->type, GGML_MAX_DIMS, a->ne, nullptr, 0, op);
}

ggml_tensor * set_op(ggml_tensor * t, ggml_op op, std::initializer_list<ggml_tensor *> srcs) {
    if (!t) {
        return nullptr;
    }
    t->op = op;
    int i = 0;
    for (ggml_tensor * s : srcs) {
        t->src[i++] = s;
    }
    return t;
}

ggml_tensor * with_i32(ggml_tensor * t, std::initializer_list<int32_t> values) {
    if (!t) {
        return nullptr;
    }
    int i = 0;
    for (int32_t v : values) {
        set_op_param_i32(t, i++, v);
    }
    return t;
}

ggml_tensor * with_f32(ggml_tensor * t, std::initializer_list<float> values) {
    if (!t) {
        return nullptr;
    }
    int i = 0;
    for (float v : values) {
        set_op_param_f32(t, i++, v);
    }
    return t;
}

bool is_padded_1d(const ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type) && t->nb[2] == t->nb[1] * static_cast<size_t>(t->ne[1]) &&
           t->nb[3] == t->nb[2] * static_cast<size_t>(t->ne[2]);
}

bool can_repeat_rows(const ggml_tensor * t0, const ggml_tensor * t1) {
    return t0->ne[0] == t1->ne[0] && ggml_can_repeat(t0, t1);
}

} // namespace switchyard::ops
