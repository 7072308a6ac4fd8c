#include "gguf_fuzz_common.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gguf_fuzz {

namespace {

// a broken invariant: says which line, then traps (libFuzzer saves the input). (__builtin_LINE: clang 14's
// library lacks std::source_location.)
void check(bool ok, int line = __builtin_LINE()) {
    if (!ok) {
        std::fprintf(stderr, "gguf fuzz: invariant broken at gguf_fuzz_common.cpp:%d\n", line);
        __builtin_trap();
    }
}

void query_keys(const gguf_context * ctx) {
    const int64_t n = gguf_get_n_kv(ctx);
    for (int64_t i = 0; i < n; ++i) {
        const char * key = gguf_get_key(ctx, i);
        check(key != nullptr && gguf_find_key(ctx, key) == i);
        const gguf_type type = gguf_get_kv_type(ctx, i);
        const size_t    count = gguf_get_arr_n(ctx, i);
        if (type == GGUF_TYPE_ARRAY) {
            const gguf_type elem = gguf_get_arr_type(ctx, i);
            if (elem == GGUF_TYPE_STRING) {
                for (size_t j = 0; j < count; ++j) {
                    check(gguf_get_arr_str(ctx, i, j) != nullptr);
                }
            } else if (count > 0) {
                volatile uint8_t sink = static_cast<const uint8_t *>(gguf_get_arr_data(ctx, i))[0];
                (void) sink;
            }
            continue;
        }
        check(count == 1);
        switch (type) {
            case GGUF_TYPE_UINT8:   (void) gguf_get_val_u8(ctx, i); break;
            case GGUF_TYPE_INT8:    (void) gguf_get_val_i8(ctx, i); break;
            case GGUF_TYPE_UINT16:  (void) gguf_get_val_u16(ctx, i); break;
            case GGUF_TYPE_INT16:   (void) gguf_get_val_i16(ctx, i); break;
            case GGUF_TYPE_UINT32:  (void) gguf_get_val_u32(ctx, i); break;
            case GGUF_TYPE_INT32:   (void) gguf_get_val_i32(ctx, i); break;
            case GGUF_TYPE_FLOAT32: (void) gguf_get_val_f32(ctx, i); break;
            case GGUF_TYPE_UINT64:  (void) gguf_get_val_u64(ctx, i); break;
            case GGUF_TYPE_INT64:   (void) gguf_get_val_i64(ctx, i); break;
            case GGUF_TYPE_FLOAT64: (void) gguf_get_val_f64(ctx, i); break;
            case GGUF_TYPE_BOOL:    (void) gguf_get_val_bool(ctx, i); break;
            case GGUF_TYPE_STRING:  check(gguf_get_val_str(ctx, i) != nullptr); break;
            default:                check(false);
        }
        if (type != GGUF_TYPE_STRING) {
            check(gguf_get_val_data(ctx, i) != nullptr);
        }
        // a getter of another type is an error value, never a crash
        (void) gguf_get_val_u32(ctx, i);
        (void) gguf_get_val_str(ctx, i);
    }
}

void query_tensors(const gguf_context * ctx, ggml_context * gctx) {
    const int64_t n = gguf_get_n_tensors(ctx);
    for (int64_t i = 0; i < n; ++i) {
        const char * name = gguf_get_tensor_name(ctx, i);
        check(name != nullptr && gguf_find_tensor(ctx, name) == i);
        check(gguf_get_tensor_offset(ctx, i) % gguf_get_alignment(ctx) == 0);
        const size_t size = gguf_get_tensor_size(ctx, i);
        if (gctx != nullptr) {
            const ggml_tensor * t = ggml_get_tensor(gctx, name);
            check(t != nullptr && ggml_nbytes(t) == size && t->type == gguf_get_tensor_type(ctx, i));
            if (t->data != nullptr && size > 0) {
                volatile uint8_t last = static_cast<const uint8_t *>(t->data)[size - 1];
                (void) last;
            }
        }
    }
}

// the whole file (or only its metadata) as our writer writes it
std::vector<uint8_t> write(const gguf_context * ctx, bool only_meta) {
    char * buf  = nullptr;
    size_t size = 0;
    FILE * f    = open_memstream(&buf, &size);
    check(f != nullptr);
    const bool ok = gguf_write_to_file_ptr(ctx, f, only_meta);
    std::fclose(f);
    std::vector<uint8_t> bytes(buf, buf + (ok ? size : 0));
    std::free(buf);
    check(ok);
    return bytes;
}

} // namespace

void quiet() {
    ggml_log_set([](ggml_log_level, const char *, void *) {}, nullptr);
}

void exercise(const gguf_context * ctx, ggml_context * gctx) {
    query_keys(ctx);
    query_tensors(ctx, gctx);
    (void) gguf_get_key(ctx, gguf_get_n_kv(ctx));
    (void) gguf_get_tensor_name(ctx, -1);

    // the data can be written when it was read (a ggml context with data), else only the metadata
    const bool only_meta = gctx == nullptr || ggml_get_no_alloc(gctx);
    const std::vector<uint8_t> out  = write(ctx, only_meta);
    const size_t               meta = gguf_get_meta_size(ctx);
    check(out.size() >= meta);
    std::vector<uint8_t> meta_bytes(meta);
    gguf_get_meta_data(ctx, meta_bytes.data());
    check(std::memcmp(meta_bytes.data(), out.data(), meta) == 0);

    ggml_context * gctx2 = nullptr;
    gguf_context * back  = gguf_init_from_buffer(out.data(), out.size(), {only_meta, &gctx2});
    check(back != nullptr && gguf_get_n_kv(back) == gguf_get_n_kv(ctx) &&
          gguf_get_n_tensors(back) == gguf_get_n_tensors(ctx));
    check(write(back, only_meta) == out);
    gguf_free(back);
    ggml_free(gctx2);
}

namespace {

struct Memory {
    const uint8_t * data;
    size_t          size;
};

size_t read_memory(void * userdata, void * output, uint64_t offset, size_t len) {
    const auto * m = static_cast<const Memory *>(userdata);
    if (offset >= m->size) {
        return 0;
    }
    const size_t n = len < m->size - offset ? len : static_cast<size_t>(m->size - offset);
    std::memcpy(output, m->data + offset, n);
    return n;
}

} // namespace

void read_buffer(const uint8_t * data, size_t size) {
    for (bool no_alloc : {false, true}) {
        ggml_context * gctx = nullptr;
        gguf_context * ctx  = gguf_init_from_buffer(data, size, {no_alloc, &gctx});
        check((ctx == nullptr) == (gctx == nullptr));
        if (ctx != nullptr) {
            exercise(ctx, gctx);
        }
        gguf_free(ctx);
        ggml_free(gctx);
    }
    Memory         m{data, size};
    gguf_context * ctx = gguf_init_from_callback(read_memory, &m, 7, size, {true, nullptr});
    if (ctx != nullptr) {
        exercise(ctx, nullptr);
    }
    gguf_free(ctx);
}

} // namespace gguf_fuzz
