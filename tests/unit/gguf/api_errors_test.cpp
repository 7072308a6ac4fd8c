// Wrong arguments to the query and change functions: where upstream aborts, each call here logs a message
// naming the function and returns its error value (0 / NULL / -1 / false / GGUF_TYPE_COUNT / GGML_TYPE_COUNT),
// leaving the context unchanged.
#include "gguf_test_util.h"

namespace {

using namespace gguf_test;

TEST(GgufApiErrors, NullContext) {
    LogCapture log;
    EXPECT_EQ(gguf_get_version(nullptr), 0u);
    EXPECT_EQ(gguf_get_alignment(nullptr), 0u);
    EXPECT_EQ(gguf_get_data_offset(nullptr), 0u);
    EXPECT_EQ(gguf_get_n_kv(nullptr), 0);
    EXPECT_EQ(gguf_find_key(nullptr, "k"), -1);
    EXPECT_EQ(gguf_get_key(nullptr, 0), nullptr);
    EXPECT_EQ(gguf_get_n_tensors(nullptr), 0);
    EXPECT_EQ(gguf_find_tensor(nullptr, "t"), -1);
    EXPECT_EQ(gguf_remove_key(nullptr, "k"), -1);
    gguf_set_val_u32(nullptr, "k", 1);
    gguf_set_kv(nullptr, nullptr);
    gguf_add_tensor(nullptr, nullptr);
    EXPECT_FALSE(gguf_write_to_file(nullptr, "/tmp/never.gguf", false));
    EXPECT_FALSE(gguf_write_to_file_ptr(nullptr, stdout, false));
    EXPECT_EQ(gguf_get_meta_size(nullptr), 0u);
    gguf_free(nullptr);
    EXPECT_TRUE(log.has("[gguf_get_version] the context is NULL"));
    EXPECT_TRUE(log.has("[gguf_set_val_u32] the context is NULL"));
    EXPECT_TRUE(log.has("[gguf_write_to_file] the context is NULL"));
}

TEST(GgufApiErrors, IdsOutOfRange) {
    gguf_context * ctx = gguf_init_empty();
    gguf_set_val_u32(ctx, "k", 5);
    LogCapture log;
    EXPECT_EQ(gguf_get_key(ctx, 1), nullptr);
    EXPECT_EQ(gguf_get_key(ctx, -1), nullptr);
    EXPECT_EQ(gguf_get_kv_type(ctx, 7), GGUF_TYPE_COUNT);
    EXPECT_EQ(gguf_get_val_u32(ctx, 1), 0u);
    EXPECT_EQ(gguf_get_arr_n(ctx, 1), 0u);
    EXPECT_EQ(gguf_get_tensor_name(ctx, 0), nullptr);
    EXPECT_EQ(gguf_get_tensor_type(ctx, 0), GGML_TYPE_COUNT);
    EXPECT_EQ(gguf_get_tensor_ne(ctx, 0), nullptr);
    EXPECT_EQ(gguf_get_tensor_offset(ctx, 0), 0u);
    EXPECT_EQ(gguf_get_tensor_size(ctx, -3), 0u);
    EXPECT_TRUE(log.has("[gguf_get_key] key id 1 is out of range (the context has 1 keys)")) << log.text();
    EXPECT_TRUE(log.has("[gguf_get_tensor_size] tensor id -3 is out of range (the context has 0 tensors)"));
    gguf_free(ctx);
}

TEST(GgufApiErrors, GettersOfTheWrongType) {
    gguf_context * ctx = gguf_init_empty();
    gguf_set_val_u32(ctx, "u32", 5);
    gguf_set_val_str(ctx, "str", "s");
    const int32_t two[] = {1, 2};
    gguf_set_arr_data(ctx, "arr", GGUF_TYPE_INT32, two, 2);
    LogCapture log;
    EXPECT_EQ(gguf_get_val_i32(ctx, 0), 0);
    EXPECT_TRUE(log.has("[gguf_get_val_i32] key 'u32' holds u32 of 1 element(s), not one i32")) << log.text();
    EXPECT_EQ(gguf_get_val_str(ctx, 0), nullptr);
    EXPECT_EQ(gguf_get_val_u32(ctx, 1), 0u);
    EXPECT_EQ(gguf_get_val_i32(ctx, 2), 0);
    EXPECT_TRUE(log.has("key 'arr' holds an array of i32 of 2 element(s), not one i32")) << log.text();
    EXPECT_EQ(gguf_get_val_data(ctx, 1), nullptr);
    EXPECT_EQ(gguf_get_arr_type(ctx, 0), GGUF_TYPE_COUNT);
    EXPECT_TRUE(log.has("[gguf_get_arr_type] key 'u32' holds a single u32, not an array"));
    EXPECT_EQ(gguf_get_arr_data(ctx, 1), nullptr);
    EXPECT_EQ(gguf_get_arr_str(ctx, 0, 0), nullptr);
    EXPECT_EQ(gguf_get_arr_str(ctx, 1, 1), nullptr);
    EXPECT_TRUE(log.has("[gguf_get_arr_str] index 1 is out of range: key 'str' holds 1 strings"));
    // what does work, as upstream: a single value through the array getters
    EXPECT_EQ(gguf_get_arr_n(ctx, 0), 1u);
    EXPECT_STREQ(gguf_get_arr_str(ctx, 1, 0), "s");
    EXPECT_EQ(*static_cast<const uint32_t *>(gguf_get_arr_data(ctx, 0)), 5u);
    gguf_free(ctx);
}

TEST(GgufApiErrors, BadSets) {
    gguf_context * ctx = gguf_init_empty();
    LogCapture     log;
    gguf_set_val_u8(ctx, nullptr, 1);
    gguf_set_val_u8(ctx, "", 1);
    gguf_set_val_str(ctx, "s", nullptr);
    gguf_set_arr_data(ctx, "a", GGUF_TYPE_STRING, "x", 1);
    gguf_set_arr_data(ctx, "a", GGUF_TYPE_ARRAY, "x", 1);
    gguf_set_arr_data(ctx, "a", static_cast<gguf_type>(99), "x", 1);
    gguf_set_arr_data(ctx, "a", GGUF_TYPE_UINT8, nullptr, 3);
    gguf_set_arr_data(ctx, "a", GGUF_TYPE_UINT64, "x", SIZE_MAX / 4);
    const char * strs[] = {"ok", nullptr};
    gguf_set_arr_str(ctx, "a", strs, 2);
    gguf_set_arr_str(ctx, "a", nullptr, 2);
    gguf_add_tensor(ctx, nullptr);
    gguf_set_tensor_data(ctx, "none", nullptr);
    gguf_set_tensor_type(ctx, nullptr, GGML_TYPE_F32);
    EXPECT_EQ(gguf_get_n_kv(ctx), 0);
    EXPECT_EQ(gguf_get_n_tensors(ctx), 0);
    EXPECT_TRUE(log.has("[gguf_set_val_u8] the key is NULL"));
    EXPECT_TRUE(log.has("[gguf_set_val_u8] the key is empty"));
    EXPECT_TRUE(log.has("[gguf_set_val_str] the string value is NULL"));
    EXPECT_TRUE(log.has("[gguf_set_arr_data] key 'a': arrays of type 8 (str) cannot be set from raw data: use "
                        "gguf_set_arr_str"))
        << log.text();
    EXPECT_TRUE(log.has("[gguf_set_arr_str] key 'a': string 1 is NULL"));
    EXPECT_TRUE(log.has("[gguf_add_tensor] the tensor is NULL"));
    EXPECT_TRUE(log.has("[gguf_set_tensor_data] no tensor named 'none'"));
    EXPECT_TRUE(log.has("[gguf_set_tensor_type] the tensor name is NULL"));

    ggml_context * gctx = ggml_init({ggml_tensor_overhead(), nullptr, true});
    ggml_tensor *  t    = ggml_new_tensor_1d(gctx, GGML_TYPE_F32, 4);
    ggml_set_name(t, "t");
    t->type = static_cast<ggml_type>(4); // a removed type
    gguf_add_tensor(ctx, t);
    t->type  = GGML_TYPE_F32;
    t->ne[1] = -2;
    gguf_add_tensor(ctx, t);
    EXPECT_EQ(gguf_get_n_tensors(ctx), 0);
    EXPECT_TRUE(log.has("[gguf_add_tensor] tensor 't': invalid type 4")) << log.text();
    ggml_free(gctx);
    gguf_free(ctx);
}

TEST(GgufApiErrors, WriteFailures) {
    gguf_context * ctx = gguf_init_empty();
    LogCapture     log;
    EXPECT_FALSE(gguf_write_to_file(ctx, "/nonexistent/dir/out.gguf", false));
    EXPECT_TRUE(log.has("[gguf_write_to_file] cannot open '/nonexistent/dir/out.gguf' for writing")) << log.text();
    EXPECT_FALSE(gguf_write_to_file(ctx, nullptr, false));
    EXPECT_FALSE(gguf_write_to_file_ptr(ctx, nullptr, false));
    FILE * full = std::fopen("/dev/full", "wb");
    if (full != nullptr) {
        std::setvbuf(full, nullptr, _IONBF, 0);
        EXPECT_FALSE(gguf_write_to_file_ptr(ctx, full, false));
        EXPECT_TRUE(log.has("[gguf_write_to_file_ptr] write error")) << log.text();
        std::fclose(full);
    }
    gguf_get_meta_data(ctx, nullptr);
    EXPECT_TRUE(log.has("[gguf_get_meta_data] the destination is NULL"));
    gguf_free(ctx);
}

} // namespace
