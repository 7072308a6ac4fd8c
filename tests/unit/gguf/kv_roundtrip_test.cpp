// Every value type, single and as an array (strings and an empty array included), survives set -> write -> read
// through each reader (file, FILE*, buffer, callback), with the getters' types and counts; setting a key again
// replaces it and moves it last; gguf_set_kv copies everything; gguf_remove_key returns the old id.
#include "gguf_test_util.h"

#include <cmath>
#include <limits>

namespace {

using namespace gguf_test;

void set_all_scalars(gguf_context * ctx) {
    gguf_set_val_u8(ctx, "u8", 250);
    gguf_set_val_i8(ctx, "i8", -120);
    gguf_set_val_u16(ctx, "u16", 65000);
    gguf_set_val_i16(ctx, "i16", -32000);
    gguf_set_val_u32(ctx, "u32", 4000000000u);
    gguf_set_val_i32(ctx, "i32", -2000000000);
    gguf_set_val_f32(ctx, "f32", -1.25f);
    gguf_set_val_u64(ctx, "u64", std::numeric_limits<uint64_t>::max() - 1);
    gguf_set_val_i64(ctx, "i64", std::numeric_limits<int64_t>::min() + 1);
    gguf_set_val_f64(ctx, "f64", 3.0e300);
    gguf_set_val_bool(ctx, "bool", true);
    gguf_set_val_str(ctx, "str", "h\xc3\xa9llo");
    gguf_set_val_str(ctx, "str_empty", "");
}

const uint16_t kU16[]  = {0, 1, 65535};
const int64_t  kI64[]  = {std::numeric_limits<int64_t>::min(), 0, 7};
const float    kF32[]  = {0.5f, -0.0f, std::numeric_limits<float>::infinity()};
const double   kF64[]  = {1e-300, -2.5};
const bool     kBool[] = {true, false, true, true};
const char *   kStr[]  = {"a", "", "long string with spaces", "\xe2\x96\x81tok"};

void set_all_arrays(gguf_context * ctx) {
    const uint8_t  u8[]  = {1, 2, 255};
    const int8_t   i8[]  = {-128, 127};
    const int16_t  i16[] = {-1, 1};
    const uint32_t u32[] = {10, 20, 30, 40};
    const int32_t  i32[] = {-5};
    const uint64_t u64[] = {std::numeric_limits<uint64_t>::max()};
    gguf_set_arr_data(ctx, "a.u8", GGUF_TYPE_UINT8, u8, 3);
    gguf_set_arr_data(ctx, "a.i8", GGUF_TYPE_INT8, i8, 2);
    gguf_set_arr_data(ctx, "a.u16", GGUF_TYPE_UINT16, kU16, 3);
    gguf_set_arr_data(ctx, "a.i16", GGUF_TYPE_INT16, i16, 2);
    gguf_set_arr_data(ctx, "a.u32", GGUF_TYPE_UINT32, u32, 4);
    gguf_set_arr_data(ctx, "a.i32", GGUF_TYPE_INT32, i32, 1);
    gguf_set_arr_data(ctx, "a.f32", GGUF_TYPE_FLOAT32, kF32, 3);
    gguf_set_arr_data(ctx, "a.u64", GGUF_TYPE_UINT64, u64, 1);
    gguf_set_arr_data(ctx, "a.i64", GGUF_TYPE_INT64, kI64, 3);
    gguf_set_arr_data(ctx, "a.f64", GGUF_TYPE_FLOAT64, kF64, 2);
    gguf_set_arr_data(ctx, "a.bool", GGUF_TYPE_BOOL, kBool, 4);
    gguf_set_arr_str(ctx, "a.str", kStr, 4);
    gguf_set_arr_data(ctx, "a.empty", GGUF_TYPE_UINT32, nullptr, 0);
    gguf_set_arr_str(ctx, "a.empty_str", nullptr, 0);
}

int64_t key(const gguf_context * ctx, const char * k) {
    const int64_t id = gguf_find_key(ctx, k);
    EXPECT_GE(id, 0) << k;
    return id;
}

void expect_scalars(const gguf_context * ctx) {
    EXPECT_EQ(gguf_get_val_u8(ctx, key(ctx, "u8")), 250);
    EXPECT_EQ(gguf_get_val_i8(ctx, key(ctx, "i8")), -120);
    EXPECT_EQ(gguf_get_val_u16(ctx, key(ctx, "u16")), 65000);
    EXPECT_EQ(gguf_get_val_i16(ctx, key(ctx, "i16")), -32000);
    EXPECT_EQ(gguf_get_val_u32(ctx, key(ctx, "u32")), 4000000000u);
    EXPECT_EQ(gguf_get_val_i32(ctx, key(ctx, "i32")), -2000000000);
    EXPECT_EQ(gguf_get_val_f32(ctx, key(ctx, "f32")), -1.25f);
    EXPECT_EQ(gguf_get_val_u64(ctx, key(ctx, "u64")), std::numeric_limits<uint64_t>::max() - 1);
    EXPECT_EQ(gguf_get_val_i64(ctx, key(ctx, "i64")), std::numeric_limits<int64_t>::min() + 1);
    EXPECT_EQ(gguf_get_val_f64(ctx, key(ctx, "f64")), 3.0e300);
    EXPECT_TRUE(gguf_get_val_bool(ctx, key(ctx, "bool")));
    EXPECT_STREQ(gguf_get_val_str(ctx, key(ctx, "str")), "h\xc3\xa9llo");
    EXPECT_STREQ(gguf_get_val_str(ctx, key(ctx, "str_empty")), "");
    const gguf_type types[] = {GGUF_TYPE_UINT8, GGUF_TYPE_INT8,  GGUF_TYPE_UINT16,  GGUF_TYPE_INT16, GGUF_TYPE_UINT32,
                               GGUF_TYPE_INT32, GGUF_TYPE_FLOAT32, GGUF_TYPE_UINT64, GGUF_TYPE_INT64, GGUF_TYPE_FLOAT64,
                               GGUF_TYPE_BOOL,  GGUF_TYPE_STRING};
    for (int i = 0; i < 12; ++i) {
        EXPECT_EQ(gguf_get_kv_type(ctx, i), types[i]) << gguf_get_key(ctx, i);
        EXPECT_EQ(gguf_get_arr_n(ctx, i), 1u);
    }
    const auto * u32 = static_cast<const uint32_t *>(gguf_get_val_data(ctx, key(ctx, "u32")));
    ASSERT_NE(u32, nullptr);
    EXPECT_EQ(*u32, 4000000000u);
}

template <class T> void expect_array(const gguf_context * ctx, const char * k, gguf_type type, const T * want, size_t n) {
    const int64_t id = key(ctx, k);
    EXPECT_EQ(gguf_get_kv_type(ctx, id), GGUF_TYPE_ARRAY) << k;
    EXPECT_EQ(gguf_get_arr_type(ctx, id), type) << k;
    ASSERT_EQ(gguf_get_arr_n(ctx, id), n) << k;
    const auto * got = static_cast<const T *>(gguf_get_arr_data(ctx, id));
    for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << k << "[" << i << "]";
    }
}

void expect_arrays(const gguf_context * ctx) {
    const uint8_t u8[] = {1, 2, 255};
    expect_array(ctx, "a.u8", GGUF_TYPE_UINT8, u8, 3);
    const int8_t i8[] = {-128, 127};
    expect_array(ctx, "a.i8", GGUF_TYPE_INT8, i8, 2);
    expect_array(ctx, "a.u16", GGUF_TYPE_UINT16, kU16, 3);
    const int16_t i16[] = {-1, 1};
    expect_array(ctx, "a.i16", GGUF_TYPE_INT16, i16, 2);
    const uint32_t u32[] = {10, 20, 30, 40};
    expect_array(ctx, "a.u32", GGUF_TYPE_UINT32, u32, 4);
    const int32_t i32[] = {-5};
    expect_array(ctx, "a.i32", GGUF_TYPE_INT32, i32, 1);
    expect_array(ctx, "a.f32", GGUF_TYPE_FLOAT32, kF32, 3);
    const uint64_t u64[] = {std::numeric_limits<uint64_t>::max()};
    expect_array(ctx, "a.u64", GGUF_TYPE_UINT64, u64, 1);
    expect_array(ctx, "a.i64", GGUF_TYPE_INT64, kI64, 3);
    expect_array(ctx, "a.f64", GGUF_TYPE_FLOAT64, kF64, 2);
    const uint8_t bools[] = {1, 0, 1, 1}; // one byte each
    expect_array(ctx, "a.bool", GGUF_TYPE_BOOL, bools, 4);
    const int64_t s = key(ctx, "a.str");
    EXPECT_EQ(gguf_get_arr_type(ctx, s), GGUF_TYPE_STRING);
    ASSERT_EQ(gguf_get_arr_n(ctx, s), 4u);
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_STREQ(gguf_get_arr_str(ctx, s, i), kStr[i]);
    }
    EXPECT_EQ(gguf_get_arr_n(ctx, key(ctx, "a.empty")), 0u);
    EXPECT_EQ(gguf_get_arr_type(ctx, key(ctx, "a.empty")), GGUF_TYPE_UINT32);
    EXPECT_EQ(gguf_get_arr_n(ctx, key(ctx, "a.empty_str")), 0u);
    EXPECT_EQ(gguf_get_arr_type(ctx, key(ctx, "a.empty_str")), GGUF_TYPE_STRING);
}

gguf_context * everything() {
    gguf_context * ctx = gguf_init_empty();
    set_all_scalars(ctx);
    set_all_arrays(ctx);
    return ctx;
}

struct Memory {
    std::vector<uint8_t> bytes;
};

size_t read_memory(void * userdata, void * output, uint64_t offset, size_t len) {
    const auto & m = static_cast<Memory *>(userdata)->bytes;
    if (offset >= m.size()) {
        return 0;
    }
    const size_t n = std::min<size_t>(len, m.size() - offset);
    std::memcpy(output, m.data() + offset, n);
    return n;
}

TEST(GgufKv, EveryTypeInMemory) {
    gguf_context * ctx = everything();
    EXPECT_EQ(gguf_get_n_kv(ctx), 27);
    expect_scalars(ctx);
    expect_arrays(ctx);
    gguf_free(ctx);
}

TEST(GgufKv, EveryTypeThroughEachReader) {
    gguf_context *             ctx   = everything();
    const std::vector<uint8_t> bytes = written(ctx);
    gguf_free(ctx);

    TempFile f("kv.gguf");
    write_all(f.path(), bytes);
    Memory        memory{bytes};
    FILE *        file = std::fopen(f.path(), "rb");
    ASSERT_NE(file, nullptr);
    gguf_context * read[] = {
        gguf_init_from_file(f.path(), {true, nullptr}),
        gguf_init_from_file_ptr(file, {true, nullptr}),
        from_bytes(bytes),
        gguf_init_from_callback(read_memory, &memory, 7, bytes.size(), {false, nullptr}),
        gguf_init_from_callback(read_memory, &memory, 0, bytes.size(), {true, nullptr}),
    };
    std::fclose(file);
    for (gguf_context * r : read) {
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(gguf_get_version(r), 3u);
        EXPECT_EQ(gguf_get_n_kv(r), 27);
        EXPECT_EQ(gguf_get_n_tensors(r), 0);
        expect_scalars(r);
        expect_arrays(r);
        EXPECT_EQ(written(r), bytes) << "written back unchanged";
        gguf_free(r);
    }
}

TEST(GgufKv, SettingAgainReplacesAndMovesLast) {
    gguf_context * ctx = gguf_init_empty();
    gguf_set_val_u32(ctx, "a", 1);
    gguf_set_val_u32(ctx, "b", 2);
    gguf_set_val_str(ctx, "a", "now a string");
    ASSERT_EQ(gguf_get_n_kv(ctx), 2);
    EXPECT_STREQ(gguf_get_key(ctx, 0), "b");
    EXPECT_STREQ(gguf_get_key(ctx, 1), "a");
    EXPECT_EQ(gguf_get_kv_type(ctx, 1), GGUF_TYPE_STRING);
    EXPECT_STREQ(gguf_get_val_str(ctx, 1), "now a string");

    EXPECT_EQ(gguf_remove_key(ctx, "b"), 0);
    EXPECT_EQ(gguf_remove_key(ctx, "b"), -1);
    EXPECT_EQ(gguf_get_n_kv(ctx), 1);
    EXPECT_EQ(gguf_find_key(ctx, "a"), 0);
    EXPECT_EQ(gguf_find_key(ctx, "nope"), -1);
    gguf_free(ctx);
}

TEST(GgufKv, SetKvCopiesEveryPairAndKind) {
    gguf_context * src = everything();
    gguf_context * dst = gguf_init_empty();
    gguf_set_val_u8(dst, "u8", 1); // replaced, and moved to its place in src's order
    gguf_set_val_u8(dst, "own", 9);
    gguf_set_kv(dst, src);
    EXPECT_EQ(gguf_get_n_kv(dst), 28);
    EXPECT_STREQ(gguf_get_key(dst, 0), "own");
    expect_scalars(src);
    gguf_set_kv(dst, dst); // onto itself: unchanged content
    EXPECT_EQ(gguf_get_n_kv(dst), 28);
    EXPECT_EQ(gguf_get_val_u8(dst, gguf_find_key(dst, "u8")), 250);
    expect_arrays(dst);
    gguf_free(src);
    gguf_free(dst);
}

TEST(GgufKv, BoolsAreNormalisedToOneByte) {
    gguf_context * ctx     = gguf_init_empty();
    const uint8_t  raw[]   = {0, 2, 255};
    gguf_set_arr_data(ctx, "b", GGUF_TYPE_BOOL, raw, 3);
    const auto * got = static_cast<const uint8_t *>(gguf_get_arr_data(ctx, 0));
    EXPECT_EQ(got[0], 0);
    EXPECT_EQ(got[1], 1);
    EXPECT_EQ(got[2], 1);
    gguf_free(ctx);
}

TEST(GgufKv, AlignmentKeyChangesTheLayout) {
    gguf_context * ctx = gguf_init_empty();
    EXPECT_EQ(gguf_get_alignment(ctx), size_t{GGUF_DEFAULT_ALIGNMENT});
    gguf_set_val_u32(ctx, GGUF_KEY_GENERAL_ALIGNMENT, 64);
    EXPECT_EQ(gguf_get_alignment(ctx), 64u);
    EXPECT_EQ(written(ctx).size() % 64, 0u);
    {
        LogCapture log;
        gguf_set_val_u32(ctx, GGUF_KEY_GENERAL_ALIGNMENT, 48);
        EXPECT_TRUE(log.has("[gguf_set_val_u32] general.alignment must be a power of 2 up to 1048576, not 48"))
            << log.text();
        gguf_set_val_u32(ctx, GGUF_KEY_GENERAL_ALIGNMENT, 1u << 21);
        EXPECT_TRUE(log.has("must be a power of 2 up to 1048576, not 2097152")) << log.text();
        gguf_set_val_u64(ctx, GGUF_KEY_GENERAL_ALIGNMENT, 64);
        EXPECT_TRUE(log.has("[gguf_set_val_u64] general.alignment must be a single u32, not u64")) << log.text();
        const uint32_t arr[] = {64};
        gguf_set_arr_data(ctx, GGUF_KEY_GENERAL_ALIGNMENT, GGUF_TYPE_UINT32, arr, 1);
        EXPECT_TRUE(log.has("must be a single u32, not an array of u32")) << log.text();
    }
    EXPECT_EQ(gguf_get_alignment(ctx), 64u);
    EXPECT_EQ(gguf_get_val_u32(ctx, gguf_find_key(ctx, GGUF_KEY_GENERAL_ALIGNMENT)), 64u);
    gguf_remove_key(ctx, GGUF_KEY_GENERAL_ALIGNMENT);
    EXPECT_EQ(gguf_get_alignment(ctx), size_t{GGUF_DEFAULT_ALIGNMENT});
    gguf_free(ctx);
}

TEST(GgufKv, TypeNames) {
    const char * names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64"};
    for (int t = 0; t < GGUF_TYPE_COUNT; ++t) {
        EXPECT_STREQ(gguf_type_name(static_cast<gguf_type>(t)), names[t]);
    }
    EXPECT_EQ(gguf_type_name(GGUF_TYPE_COUNT), nullptr);
    EXPECT_EQ(gguf_type_name(static_cast<gguf_type>(-1)), nullptr);
}

} // namespace
