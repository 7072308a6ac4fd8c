#pragma once

// Switchyard: GGUF files, the container format of ggml models (source-compatible with upstream ggml's gguf.h).
//
// Layout on disk (GGUF v3, every number little endian):
//
//   magic        "GGUF" (4 bytes)
//   version      uint32_t (3)
//   n_tensors    int64_t
//   n_kv         int64_t
//   n_kv times   key (string), value type (int32_t gguf_type), value:
//                  scalar: its bytes (bool as one byte, 0 or 1)
//                  string: uint64_t length, then the bytes (no terminating NUL)
//                  array:  int32_t element type, uint64_t element count, the elements one after another
//   n_tensors    name (string), n_dims (uint32_t, 1..4), ne (n_dims int64_t), type (int32_t ggml_type),
//     times      offset (uint64_t, from the start of the data section, a multiple of the alignment)
//   padding      zero bytes up to a multiple of the alignment
//   data         each tensor's bytes at its offset, each padded with zeros to a multiple of the alignment
//
// The alignment is the value of the key "general.alignment" (uint32_t, a power of 2; this library accepts up to
// 1 MiB), GGUF_DEFAULT_ALIGNMENT when the key is absent. Tensors are laid out one after another, in the order of
// their infos.
//
// Errors: a file that is not well formed (truncated anywhere, wrong magic or version, counts or lengths larger
// than the file, unknown types, bad shapes, overlapping or misaligned tensor data, duplicate keys or names, a bad
// alignment) makes the gguf_init_* functions return NULL after logging (ggml_log_set) a message that names the
// file, the byte offset and what was wrong. A wrong argument to any other function (an id out of range, a getter
// for another type than the key's, a duplicate tensor name) is logged and the function returns 0 / NULL /
// false / GGUF_TYPE_COUNT / GGML_TYPE_COUNT and changes nothing. Nothing here aborts the process.

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define GGUF_MAGIC   "GGUF"
#define GGUF_VERSION 3

#define GGUF_KEY_GENERAL_ALIGNMENT "general.alignment"

#define GGUF_DEFAULT_ALIGNMENT 32

#ifdef  __cplusplus
extern "C" {
#endif

    // the types a value can have
    enum gguf_type {
        GGUF_TYPE_UINT8   = 0,
        GGUF_TYPE_INT8    = 1,
        GGUF_TYPE_UINT16  = 2,
        GGUF_TYPE_INT16   = 3,
        GGUF_TYPE_UINT32  = 4,
        GGUF_TYPE_INT32   = 5,
        GGUF_TYPE_FLOAT32 = 6,
        GGUF_TYPE_BOOL    = 7,
        GGUF_TYPE_STRING  = 8,
        GGUF_TYPE_ARRAY   = 9,
        GGUF_TYPE_UINT64  = 10,
        GGUF_TYPE_INT64   = 11,
        GGUF_TYPE_FLOAT64 = 12,
        GGUF_TYPE_COUNT,       // not a type: the number of types
    };

    struct gguf_context;

    struct gguf_init_params {
        // with ctx: create the tensors without data (true) or read the tensor data into *ctx as well (false)
        bool no_alloc;

        // if not NULL, *ctx receives a new ggml_context (owned by the caller) holding one tensor per tensor info,
        // named and shaped as in the file; with no_alloc false, their data points into one tensor named
        // "GGUF tensor data binary blob" that holds the file's whole data section
        struct ggml_context ** ctx;
    };

    // reads up to `len` bytes at byte `offset` of the source into `output` and returns how many it read (0 at
    // the end of the source or on an error)
    typedef size_t (*gguf_reader_callback_t)(void * userdata, void * output, uint64_t offset, size_t len);

    // an empty context (version 3, default alignment), to be filled and written
    GGML_API struct gguf_context * gguf_init_empty(void);
    // reads from the file's current position; offsets (gguf_get_data_offset) count from the file's start
    GGML_API struct gguf_context * gguf_init_from_file_ptr(FILE * file, struct gguf_init_params params);
    GGML_API struct gguf_context * gguf_init_from_file(const char * fname, struct gguf_init_params params);
    // reads `size` bytes at `data`; the buffer is not referenced after the call
    GGML_API struct gguf_context * gguf_init_from_buffer(const void * data, size_t size, struct gguf_init_params params);
    // the source is the bytes [0, max_expected_size) that callback reads; max_chunk_read is the most bytes asked
    // of the callback at once (0: no limit)
    GGML_API struct gguf_context * gguf_init_from_callback(gguf_reader_callback_t callback, void * userdata,
            size_t max_chunk_read, uint64_t max_expected_size, struct gguf_init_params params);

    GGML_API void gguf_free(struct gguf_context * ctx);

    // "u8", "i8", ..., "arr"; NULL for a value that is not a type
    GGML_API const char * gguf_type_name(enum gguf_type type);

    GGML_API uint32_t gguf_get_version    (const struct gguf_context * ctx);
    GGML_API size_t   gguf_get_alignment  (const struct gguf_context * ctx);
    // byte offset of the data section in the file the context was read from (0 for a context made empty)
    GGML_API size_t   gguf_get_data_offset(const struct gguf_context * ctx);

    GGML_API int64_t      gguf_get_n_kv(const struct gguf_context * ctx);
    GGML_API int64_t      gguf_find_key(const struct gguf_context * ctx, const char * key); // -1 if not found
    GGML_API const char * gguf_get_key (const struct gguf_context * ctx, int64_t key_id);

    // GGUF_TYPE_ARRAY for arrays, whose element type is gguf_get_arr_type
    GGML_API enum gguf_type gguf_get_kv_type (const struct gguf_context * ctx, int64_t key_id);
    GGML_API enum gguf_type gguf_get_arr_type(const struct gguf_context * ctx, int64_t key_id);

    // the value of a key of exactly that type (a wrong type is logged and gives 0 / false / NULL); strings and
    // pointers stay valid until the key is changed or removed, or the context is freed
    GGML_API uint8_t      gguf_get_val_u8  (const struct gguf_context * ctx, int64_t key_id);
    GGML_API int8_t       gguf_get_val_i8  (const struct gguf_context * ctx, int64_t key_id);
    GGML_API uint16_t     gguf_get_val_u16 (const struct gguf_context * ctx, int64_t key_id);
    GGML_API int16_t      gguf_get_val_i16 (const struct gguf_context * ctx, int64_t key_id);
    GGML_API uint32_t     gguf_get_val_u32 (const struct gguf_context * ctx, int64_t key_id);
    GGML_API int32_t      gguf_get_val_i32 (const struct gguf_context * ctx, int64_t key_id);
    GGML_API float        gguf_get_val_f32 (const struct gguf_context * ctx, int64_t key_id);
    GGML_API uint64_t     gguf_get_val_u64 (const struct gguf_context * ctx, int64_t key_id);
    GGML_API int64_t      gguf_get_val_i64 (const struct gguf_context * ctx, int64_t key_id);
    GGML_API double       gguf_get_val_f64 (const struct gguf_context * ctx, int64_t key_id);
    GGML_API bool         gguf_get_val_bool(const struct gguf_context * ctx, int64_t key_id);
    GGML_API const char * gguf_get_val_str (const struct gguf_context * ctx, int64_t key_id);
    // the bytes of a single value that is not a string
    GGML_API const void * gguf_get_val_data(const struct gguf_context * ctx, int64_t key_id);
    // the number of elements (1 for a single value)
    GGML_API size_t       gguf_get_arr_n   (const struct gguf_context * ctx, int64_t key_id);

    // the first element of an array that is not of strings; bools are one byte each (0 or 1)
    GGML_API const void * gguf_get_arr_data(const struct gguf_context * ctx, int64_t key_id);

    // string i of an array of strings
    GGML_API const char * gguf_get_arr_str (const struct gguf_context * ctx, int64_t key_id, size_t i);

    GGML_API int64_t        gguf_get_n_tensors    (const struct gguf_context * ctx);
    GGML_API int64_t        gguf_find_tensor      (const struct gguf_context * ctx, const char * name); // -1 if not found
    // from the start of the data section
    GGML_API size_t         gguf_get_tensor_offset(const struct gguf_context * ctx, int64_t tensor_id);
    GGML_API const char *   gguf_get_tensor_name  (const struct gguf_context * ctx, int64_t tensor_id);
    // the tensor's extents: GGML_MAX_DIMS elements, 1 past its n_dims; owned by ctx (NULL for a bad tensor_id)
    GGML_API const int64_t * gguf_get_tensor_ne   (const struct gguf_context * ctx, int64_t tensor_id);
    GGML_API enum ggml_type gguf_get_tensor_type  (const struct gguf_context * ctx, int64_t tensor_id);
    GGML_API size_t         gguf_get_tensor_size  (const struct gguf_context * ctx, int64_t tensor_id);

    // removes the key if present; returns the id it had, -1 if it was absent
    GGML_API int64_t gguf_remove_key(struct gguf_context * ctx, const char * key);

    // sets a value: an existing key of that name is removed first, the new one goes last. "general.alignment"
    // accepts only a u32 power of 2 (up to 1 MiB), and setting (or removing) it moves the tensors' offsets to the new alignment
    GGML_API void gguf_set_val_u8  (struct gguf_context * ctx, const char * key, uint8_t      val);
    GGML_API void gguf_set_val_i8  (struct gguf_context * ctx, const char * key, int8_t       val);
    GGML_API void gguf_set_val_u16 (struct gguf_context * ctx, const char * key, uint16_t     val);
    GGML_API void gguf_set_val_i16 (struct gguf_context * ctx, const char * key, int16_t      val);
    GGML_API void gguf_set_val_u32 (struct gguf_context * ctx, const char * key, uint32_t     val);
    GGML_API void gguf_set_val_i32 (struct gguf_context * ctx, const char * key, int32_t      val);
    GGML_API void gguf_set_val_f32 (struct gguf_context * ctx, const char * key, float        val);
    GGML_API void gguf_set_val_u64 (struct gguf_context * ctx, const char * key, uint64_t     val);
    GGML_API void gguf_set_val_i64 (struct gguf_context * ctx, const char * key, int64_t      val);
    GGML_API void gguf_set_val_f64 (struct gguf_context * ctx, const char * key, double       val);
    GGML_API void gguf_set_val_bool(struct gguf_context * ctx, const char * key, bool         val);
    GGML_API void gguf_set_val_str (struct gguf_context * ctx, const char * key, const char * val);

    // an array of n elements of type (not string or array), copied from n * (element size) bytes at data
    GGML_API void gguf_set_arr_data(struct gguf_context * ctx, const char * key, enum gguf_type type, const void * data, size_t n);

    // an array of the n strings data[0..n), copied
    GGML_API void gguf_set_arr_str (struct gguf_context * ctx, const char * key, const char ** data, size_t n);

    // sets every key of src in ctx, as the gguf_set_* functions do
    GGML_API void gguf_set_kv(struct gguf_context * ctx, const struct gguf_context * src);

    // appends a tensor info with tensor's name (unique), type and shape, at the next aligned offset. The tensor's
    // data (host memory or a backend buffer) is read when the file is written, so it must live until then.
    GGML_API void gguf_add_tensor(struct gguf_context * ctx, const struct ggml_tensor * tensor);

    // changes a tensor's type; the offsets of the tensors after it move so that the data stays one block (with
    // padding). When the size in bytes changes, the tensor's data is forgotten: set it again (gguf_set_tensor_data).
    GGML_API void gguf_set_tensor_type(struct gguf_context * ctx, const char * name, enum ggml_type type);

    // the data written for the tensor: gguf_get_tensor_size bytes at data, read when the file is written
    GGML_API void gguf_set_tensor_data(struct gguf_context * ctx, const char * name, const void * data);

    // Three ways to write a file:
    //
    // - all at once:
    //     gguf_write_to_file(ctx, fname, /*only_meta =*/ false);
    //
    // - the metadata, then the tensor data appended by the application:
    //     gguf_write_to_file(ctx, fname, /*only_meta =*/ true);
    //     FILE * f = fopen(fname, "ab");
    //     fwrite(...); // each tensor's data, padded to the alignment
    //     fclose(f);
    //
    // - the tensor data first, after room left for the metadata, then the metadata:
    //     FILE * f = fopen(fname, "wb");
    //     const size_t size_meta = gguf_get_meta_size(ctx);
    //     fseek(f, size_meta, SEEK_SET);
    //     fwrite(...); // each tensor's data, padded to the alignment
    //     void * data = malloc(size_meta);
    //     gguf_get_meta_data(ctx, data);
    //     rewind(f);
    //     fwrite(data, 1, size_meta, f);
    //     free(data);
    //     fclose(f);

    // writes the context (with only_meta, everything up to the data section); false (logged) on an I/O error or
    // when a tensor has no data to write
    GGML_API bool gguf_write_to_file_ptr(const struct gguf_context * ctx, FILE * file, bool only_meta);
    GGML_API bool gguf_write_to_file(const struct gguf_context * ctx, const char * fname, bool only_meta);

    // the size in bytes of the metadata (header, key-value pairs, tensor infos and the padding after them)
    GGML_API size_t gguf_get_meta_size(const struct gguf_context * ctx);

    // writes the metadata (gguf_get_meta_size bytes) to data
    GGML_API void   gguf_get_meta_data(const struct gguf_context * ctx, void * data);

#ifdef  __cplusplus
}
#endif
