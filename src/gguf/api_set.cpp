// gguf.h: changing a context (keys, tensor infos). Where upstream aborts (a bad "general.alignment", a
// duplicate tensor name, an unknown tensor), these log and leave the context as it was. Everything that
// allocates runs under guard().
#include "gguf/api_checks.h"

#include "base/guard.h"

#include <string>
#include <vector>

using namespace switchyard;
using namespace switchyard::gguf;

namespace {

void set_value(gguf_context * ctx, const char * key, const char * caller, Value (*make)(const void *),
               const void * arg) {
    if (!check_ctx(ctx, caller)) {
        return;
    }
    guard_void(caller, [&] { ctx->set(caller, key, make(arg)); });
}

template <gguf_type T> void set_scalar(gguf_context * ctx, const char * key, typename Element<T>::type v,
                                       const char * caller) {
    set_value(ctx, key, caller, [](const void * p) { return Value::scalar(T, p); }, &v);
}

// the id of the tensor called name, or -1 (logged)
int64_t tensor_id(const gguf_context * ctx, const char * name, const char * caller) {
    if (!check_ctx(ctx, caller) || !check_name(name, "tensor name", caller)) {
        return -1;
    }
    const int64_t id = ctx->find_tensor(name);
    if (id < 0) {
        log_error("[%s] no tensor named '%s'\n", caller, name);
    }
    return id;
}

} // namespace

extern "C" {

int64_t gguf_remove_key(struct gguf_context * ctx, const char * key) {
    if (!check_ctx(ctx, "gguf_remove_key") || !check_name(key, "key", "gguf_remove_key")) {
        return -1;
    }
    return ctx->remove_key(key);
}

void gguf_set_val_u8(struct gguf_context * ctx, const char * key, uint8_t val) {
    set_scalar<GGUF_TYPE_UINT8>(ctx, key, val, "gguf_set_val_u8");
}

void gguf_set_val_i8(struct gguf_context * ctx, const char * key, int8_t val) {
    set_scalar<GGUF_TYPE_INT8>(ctx, key, val, "gguf_set_val_i8");
}

void gguf_set_val_u16(struct gguf_context * ctx, const char * key, uint16_t val) {
    set_scalar<GGUF_TYPE_UINT16>(ctx, key, val, "gguf_set_val_u16");
}

void gguf_set_val_i16(struct gguf_context * ctx, const char * key, int16_t val) {
    set_scalar<GGUF_TYPE_INT16>(ctx, key, val, "gguf_set_val_i16");
}

void gguf_set_val_u32(struct gguf_context * ctx, const char * key, uint32_t val) {
    set_scalar<GGUF_TYPE_UINT32>(ctx, key, val, "gguf_set_val_u32");
}

void gguf_set_val_i32(struct gguf_context * ctx, const char * key, int32_t val) {
    set_scalar<GGUF_TYPE_INT32>(ctx, key, val, "gguf_set_val_i32");
}

void gguf_set_val_f32(struct gguf_context * ctx, const char * key, float val) {
    set_scalar<GGUF_TYPE_FLOAT32>(ctx, key, val, "gguf_set_val_f32");
}

void gguf_set_val_u64(struct gguf_context * ctx, const char * key, uint64_t val) {
    set_scalar<GGUF_TYPE_UINT64>(ctx, key, val, "gguf_set_val_u64");
}

void gguf_set_val_i64(struct gguf_context * ctx, const char * key, int64_t val) {
    set_scalar<GGUF_TYPE_INT64>(ctx, key, val, "gguf_set_val_i64");
}

void gguf_set_val_f64(struct gguf_context * ctx, const char * key, double val) {
    set_scalar<GGUF_TYPE_FLOAT64>(ctx, key, val, "gguf_set_val_f64");
}

void gguf_set_val_bool(struct gguf_context * ctx, const char * key, bool val) {
    set_scalar<GGUF_TYPE_BOOL>(ctx, key, val ? 1 : 0, "gguf_set_val_bool");
}

void gguf_set_val_str(struct gguf_context * ctx, const char * key, const char * val) {
    if (!check_name(val, "string value", "gguf_set_val_str")) {
        return;
    }
    set_value(ctx, key, "gguf_set_val_str", [](const void * p) { return Value::string(static_cast<const char *>(p)); },
              val);
}

void gguf_set_arr_data(struct gguf_context * ctx, const char * key, enum gguf_type type, const void * data, size_t n) {
    constexpr const char * caller = "gguf_set_arr_data";
    if (!check_ctx(ctx, caller)) {
        return;
    }
    const int          t      = raw_enum(type);
    const TypeTraits & traits = type_traits(t);
    const char *       name   = key != nullptr ? key : "(null)";
    size_t             bytes  = 0;
    if (traits.size == 0) {
        log_error("[%s] key '%s': arrays of type %d (%s) cannot be set from raw data%s\n", caller, name, t,
                  traits.name != nullptr ? traits.name : "not a type",
                  t == GGUF_TYPE_STRING ? ": use gguf_set_arr_str" : "");
        return;
    }
    if (__builtin_mul_overflow(n, traits.size, &bytes) || (data == nullptr && n > 0)) {
        log_error("[%s] key '%s': %zu elements of %s at %p cannot be read\n", caller, name, n, traits.name, data);
        return;
    }
    guard_void(caller, [&] { ctx->set(caller, key, Value::array(static_cast<gguf_type>(t), data, n)); });
}

void gguf_set_arr_str(struct gguf_context * ctx, const char * key, const char ** data, size_t n) {
    constexpr const char * caller = "gguf_set_arr_str";
    if (!check_ctx(ctx, caller)) {
        return;
    }
    if (data == nullptr && n > 0) {
        log_error("[%s] key '%s': the array of %zu strings is NULL\n", caller, key != nullptr ? key : "(null)", n);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        if (data[i] == nullptr) {
            log_error("[%s] key '%s': string %zu is NULL\n", caller, key != nullptr ? key : "(null)", i);
            return;
        }
    }
    guard_void(caller, [&] { ctx->set(caller, key, Value::string_array(std::vector<std::string>(data, data + n))); });
}

void gguf_set_kv(struct gguf_context * ctx, const struct gguf_context * src) {
    constexpr const char * caller = "gguf_set_kv";
    if (!check_ctx(ctx, caller) || !check_ctx(src, caller)) {
        return;
    }
    guard_void(caller, [&] {
        // a copy: ctx may be src, whose pairs move while they are set
        const std::vector<KeyValue> pairs = src->kv();
        for (const KeyValue & kv : pairs) {
            ctx->set(caller, kv.key.c_str(), kv.value);
        }
    });
}

void gguf_add_tensor(struct gguf_context * ctx, const struct ggml_tensor * tensor) {
    constexpr const char * caller = "gguf_add_tensor";
    if (!check_ctx(ctx, caller)) {
        return;
    }
    if (tensor == nullptr) {
        log_error("[%s] the tensor is NULL\n", caller);
        return;
    }
    guard_void(caller, [&] { ctx->add_tensor(caller, *tensor); });
}

void gguf_set_tensor_type(struct gguf_context * ctx, const char * name, enum ggml_type type) {
    constexpr const char * caller = "gguf_set_tensor_type";
    const int64_t          id     = tensor_id(ctx, name, caller);
    if (id >= 0) {
        guard_void(caller, [&] { ctx->set_tensor_type(caller, id, raw_enum(type)); });
    }
}

void gguf_set_tensor_data(struct gguf_context * ctx, const char * name, const void * data) {
    const int64_t id = tensor_id(ctx, name, "gguf_set_tensor_data");
    if (id >= 0) {
        ctx->set_tensor_data(id, data);
    }
}

} // extern "C"
