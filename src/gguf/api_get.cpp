// gguf.h: queries. Where upstream aborts (an id out of range, a getter of another type than the key's), these
// log and return 0 / NULL / GGUF_TYPE_COUNT / GGML_TYPE_COUNT. Pointers returned point into the context and stay
// valid until that key or tensor is changed or removed, or the context is freed.
#include "gguf/api_checks.h"

#include <cstring>
#include <string>

using namespace switchyard;
using namespace switchyard::gguf;

namespace {

// "u32" or "an array of u32" (for messages)
std::string describe(const Value & v) {
    const char * name = type_traits(v.type()).name;
    return v.is_array() ? std::string("an array of ") + name : std::string(name);
}

// the pair with id key_id when it holds exactly one value of type `type` (an array of one counts, as upstream)
const KeyValue * single(const gguf_context * ctx, int64_t key_id, gguf_type type, const char * caller) {
    const KeyValue * kv = key_at(ctx, key_id, caller);
    if (kv == nullptr) {
        return nullptr;
    }
    if (kv->value.type() != type || kv->value.count() != 1) {
        log_error("[%s] key '%s' holds %s of %zu element(s), not one %s\n", caller, kv->key.c_str(),
                  describe(kv->value).c_str(), kv->value.count(), type_traits(type).name);
        return nullptr;
    }
    return kv;
}

template <gguf_type T> typename Element<T>::type get(const gguf_context * ctx, int64_t key_id, const char * caller) {
    using E                 = typename Element<T>::type;
    const KeyValue * kv     = single(ctx, key_id, T, caller);
    return kv != nullptr ? kv->value.element<E>(0) : E{};
}

} // namespace

extern "C" {

uint32_t gguf_get_version(const struct gguf_context * ctx) {
    return check_ctx(ctx, "gguf_get_version") ? ctx->version() : 0;
}

size_t gguf_get_alignment(const struct gguf_context * ctx) {
    return check_ctx(ctx, "gguf_get_alignment") ? ctx->alignment() : 0;
}

size_t gguf_get_data_offset(const struct gguf_context * ctx) {
    return check_ctx(ctx, "gguf_get_data_offset") ? ctx->data_offset() : 0;
}

int64_t gguf_get_n_kv(const struct gguf_context * ctx) {
    return check_ctx(ctx, "gguf_get_n_kv") ? static_cast<int64_t>(ctx->kv().size()) : 0;
}

int64_t gguf_find_key(const struct gguf_context * ctx, const char * key) {
    if (!check_ctx(ctx, "gguf_find_key") || !check_name(key, "key", "gguf_find_key")) {
        return -1;
    }
    return ctx->find_key(key);
}

const char * gguf_get_key(const struct gguf_context * ctx, int64_t key_id) {
    const KeyValue * kv = key_at(ctx, key_id, "gguf_get_key");
    return kv != nullptr ? kv->key.c_str() : nullptr;
}

enum gguf_type gguf_get_kv_type(const struct gguf_context * ctx, int64_t key_id) {
    const KeyValue * kv = key_at(ctx, key_id, "gguf_get_kv_type");
    if (kv == nullptr) {
        return GGUF_TYPE_COUNT;
    }
    return kv->value.is_array() ? GGUF_TYPE_ARRAY : kv->value.type();
}

enum gguf_type gguf_get_arr_type(const struct gguf_context * ctx, int64_t key_id) {
    const KeyValue * kv = key_at(ctx, key_id, "gguf_get_arr_type");
    if (kv == nullptr) {
        return GGUF_TYPE_COUNT;
    }
    if (!kv->value.is_array()) {
        log_error("[gguf_get_arr_type] key '%s' holds a single %s, not an array\n", kv->key.c_str(),
                  type_traits(kv->value.type()).name);
        return GGUF_TYPE_COUNT;
    }
    return kv->value.type();
}

uint8_t gguf_get_val_u8(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_UINT8>(ctx, key_id, "gguf_get_val_u8");
}

int8_t gguf_get_val_i8(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_INT8>(ctx, key_id, "gguf_get_val_i8");
}

uint16_t gguf_get_val_u16(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_UINT16>(ctx, key_id, "gguf_get_val_u16");
}

int16_t gguf_get_val_i16(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_INT16>(ctx, key_id, "gguf_get_val_i16");
}

uint32_t gguf_get_val_u32(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_UINT32>(ctx, key_id, "gguf_get_val_u32");
}

int32_t gguf_get_val_i32(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_INT32>(ctx, key_id, "gguf_get_val_i32");
}

float gguf_get_val_f32(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_FLOAT32>(ctx, key_id, "gguf_get_val_f32");
}

uint64_t gguf_get_val_u64(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_UINT64>(ctx, key_id, "gguf_get_val_u64");
}

int64_t gguf_get_val_i64(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_INT64>(ctx, key_id, "gguf_get_val_i64");
}

double gguf_get_val_f64(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_FLOAT64>(ctx, key_id, "gguf_get_val_f64");
}

bool gguf_get_val_bool(const struct gguf_context * ctx, int64_t key_id) {
    return get<GGUF_TYPE_BOOL>(ctx, key_id, "gguf_get_val_bool") != 0;
}

const char * gguf_get_val_str(const struct gguf_context * ctx, int64_t key_id) {
    const KeyValue * kv = single(ctx, key_id, GGUF_TYPE_STRING, "gguf_get_val_str");
    return kv != nullptr ? kv->value.strings()[0].c_str() : nullptr;
}

const void * gguf_get_val_data(const struct gguf_context * ctx, int64_t key_id) {
    const KeyValue * kv = key_at(ctx, key_id, "gguf_get_val_data");
    if (kv == nullptr) {
        return nullptr;
    }
    if (kv->value.type() == GGUF_TYPE_STRING || kv->value.count() != 1) {
        log_error("[gguf_get_val_data] key '%s' holds %s of %zu element(s), not one value of a fixed-size type\n",
                  kv->key.c_str(), describe(kv->value).c_str(), kv->value.count());
        return nullptr;
    }
    return kv->value.bytes().data();
}

size_t gguf_get_arr_n(const struct gguf_context * ctx, int64_t key_id) {
    const KeyValue * kv = key_at(ctx, key_id, "gguf_get_arr_n");
    return kv != nullptr ? kv->value.count() : 0;
}

const void * gguf_get_arr_data(const struct gguf_context * ctx, int64_t key_id) {
    const KeyValue * kv = key_at(ctx, key_id, "gguf_get_arr_data");
    if (kv == nullptr) {
        return nullptr;
    }
    if (kv->value.type() == GGUF_TYPE_STRING) {
        log_error("[gguf_get_arr_data] key '%s' holds %s: use gguf_get_arr_str\n", kv->key.c_str(),
                  describe(kv->value).c_str());
        return nullptr;
    }
    return kv->value.bytes().data();
}

const char * gguf_get_arr_str(const struct gguf_context * ctx, int64_t key_id, size_t i) {
    const KeyValue * kv = key_at(ctx, key_id, "gguf_get_arr_str");
    if (kv == nullptr) {
        return nullptr;
    }
    if (kv->value.type() != GGUF_TYPE_STRING) {
        log_error("[gguf_get_arr_str] key '%s' holds %s, not strings\n", kv->key.c_str(), describe(kv->value).c_str());
        return nullptr;
    }
    if (i >= kv->value.count()) {
        log_error("[gguf_get_arr_str] index %zu is out of range: key '%s' holds %zu strings\n", i, kv->key.c_str(),
                  kv->value.count());
        return nullptr;
    }
    return kv->value.strings()[i].c_str();
}

int64_t gguf_get_n_tensors(const struct gguf_context * ctx) {
    return check_ctx(ctx, "gguf_get_n_tensors") ? static_cast<int64_t>(ctx->tensors().size()) : 0;
}

int64_t gguf_find_tensor(const struct gguf_context * ctx, const char * name) {
    if (!check_ctx(ctx, "gguf_find_tensor") || !check_name(name, "tensor name", "gguf_find_tensor")) {
        return -1;
    }
    return ctx->find_tensor(name);
}

size_t gguf_get_tensor_offset(const struct gguf_context * ctx, int64_t tensor_id) {
    const TensorInfo * info = tensor_at(ctx, tensor_id, "gguf_get_tensor_offset");
    return info != nullptr ? static_cast<size_t>(info->offset) : 0;
}

const char * gguf_get_tensor_name(const struct gguf_context * ctx, int64_t tensor_id) {
    const TensorInfo * info = tensor_at(ctx, tensor_id, "gguf_get_tensor_name");
    return info != nullptr ? info->t.name : nullptr;
}

const int64_t * gguf_get_tensor_ne(const struct gguf_context * ctx, int64_t tensor_id) {
    const TensorInfo * info = tensor_at(ctx, tensor_id, "gguf_get_tensor_ne");
    return info != nullptr ? info->t.ne : nullptr;
}

enum ggml_type gguf_get_tensor_type(const struct gguf_context * ctx, int64_t tensor_id) {
    const TensorInfo * info = tensor_at(ctx, tensor_id, "gguf_get_tensor_type");
    return info != nullptr ? info->t.type : GGML_TYPE_COUNT;
}

size_t gguf_get_tensor_size(const struct gguf_context * ctx, int64_t tensor_id) {
    const TensorInfo * info = tensor_at(ctx, tensor_id, "gguf_get_tensor_size");
    return info != nullptr ? info->size : 0;
}

} // extern "C"
