// switchyard-run's tests: bad model files made from good ones. A GGUF file is read whole (gguf.h, with its data)
// and written again with key-value pairs changed, tensors stored in other types (their data then zeros) or f32
// values changed in place. Used by unit_run (tests/unit/run/test_models.h) and by the command tests' writer
// (write_bad_model.cpp). Header-only, for tests: not part of switchyard-run.
#pragma once

#include "ggml.h"
#include "gguf.h"

#include <cstring>
#include <functional>
#include <string>

namespace switchyard::run::testing_models {

// what a rewrite may change: the key-value pairs (on the copy), each tensor's type (its data then zeros) or the
// values of f32 tensors (in place)
struct Rewrite {
    std::function<void(gguf_context *)>                        keys;
    std::function<ggml_type(const std::string &, ggml_type)>   type;
    std::function<void(const std::string &, float *, int64_t)> values;
};

// Writes src, changed as r says, to dst; false with a message when a file cannot be read or written.
inline bool rewrite_gguf(const std::string & src, const std::string & dst, const Rewrite & r, std::string & error) {
    ggml_context * data = nullptr;
    gguf_context * in   = gguf_init_from_file(src.c_str(), {false, &data});
    if (in == nullptr) {
        error = "cannot read " + src;
        return false;
    }
    gguf_context * out = gguf_init_empty();
    gguf_set_kv(out, in);
    if (r.keys) {
        r.keys(out);
    }
    // room for every tensor in f64, the widest type a rewrite may ask for
    ggml_context * ctx = ggml_init({ggml_get_mem_size(data) * 2 + 1024 * ggml_tensor_overhead(), nullptr, false});
    for (int64_t i = 0; i < gguf_get_n_tensors(in); ++i) {
        const std::string   name = gguf_get_tensor_name(in, i);
        const ggml_tensor * t    = ggml_get_tensor(data, name.c_str());
        const ggml_type     type = r.type ? r.type(name, t->type) : t->type;
        ggml_tensor *       copy = ggml_new_tensor(ctx, type, ggml_n_dims(t), t->ne);
        ggml_set_name(copy, name.c_str());
        if (type == t->type) {
            std::memcpy(copy->data, t->data, ggml_nbytes(t));
            if (r.values && type == GGML_TYPE_F32) {
                r.values(name, static_cast<float *>(copy->data), ggml_nelements(copy));
            }
        } else {
            std::memset(copy->data, 0, ggml_nbytes(copy));
        }
        gguf_add_tensor(out, copy);
    }
    const bool ok = gguf_write_to_file(out, dst.c_str(), false);
    if (!ok) {
        error = "cannot write " + dst;
    }
    gguf_free(out);
    gguf_free(in);
    ggml_free(ctx);
    ggml_free(data);
    return ok;
}

} // namespace switchyard::run::testing_models
