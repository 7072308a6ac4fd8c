// Argument checks shared by the C functions of gguf.h (api_*.cpp): each logs "[caller] ..." and returns
// nullptr / false for a wrong argument, so that the shims stay one line of check and one of work.
#pragma once

#include "gguf/context.h"

#include "base/log.h"

#include <cinttypes>

namespace switchyard::gguf {

inline bool check_ctx(const gguf_context * ctx, const char * caller) {
    if (ctx == nullptr) {
        log_error("[%s] the context is NULL\n", caller);
        return false;
    }
    return true;
}

inline bool check_name(const char * name, const char * what, const char * caller) {
    if (name == nullptr) {
        log_error("[%s] the %s is NULL\n", caller, what);
        return false;
    }
    return true;
}

// the pair with id key_id, or nullptr (logged) when ctx is NULL or the id out of range
inline const KeyValue * key_at(const gguf_context * ctx, int64_t key_id, const char * caller) {
    if (!check_ctx(ctx, caller)) {
        return nullptr;
    }
    const int64_t n = static_cast<int64_t>(ctx->kv().size());
    if (key_id < 0 || key_id >= n) {
        log_error("[%s] key id %" PRId64 " is out of range (the context has %" PRId64 " keys)\n", caller, key_id, n);
        return nullptr;
    }
    return &ctx->kv()[static_cast<size_t>(key_id)];
}

// the tensor info with id tensor_id, or nullptr (logged)
inline const TensorInfo * tensor_at(const gguf_context * ctx, int64_t tensor_id, const char * caller) {
    if (!check_ctx(ctx, caller)) {
        return nullptr;
    }
    const int64_t n = static_cast<int64_t>(ctx->tensors().size());
    if (tensor_id < 0 || tensor_id >= n) {
        log_error("[%s] tensor id %" PRId64 " is out of range (the context has %" PRId64 " tensors)\n", caller,
                  tensor_id, n);
        return nullptr;
    }
    return &ctx->tensors()[static_cast<size_t>(tensor_id)];
}

} // namespace switchyard::gguf
