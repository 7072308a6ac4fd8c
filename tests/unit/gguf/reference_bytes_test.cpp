// Files written by us equal bytes built by hand from the format description (include/gguf.h, upstream's
// gguf.h and docs/gguf.md): header, every value kind, tensor infos, padding of the metadata and of each
// tensor's data, a non-default alignment, only_meta, gguf_get_meta_size / _data, and writing at a FILE's
// current position. Expected bytes come from gguf_test::Bytes, never from the code under test.
#include "gguf_test_util.h"

namespace {

using namespace gguf_test;

TEST(GgufBytes, EmptyContextIsAHeaderPaddedToTheAlignment) {
    gguf_context * ctx = gguf_init_empty();
    Bytes          want;
    want.header(0, 0).pad(32);
    ASSERT_EQ(want.b.size(), 32u);
    EXPECT_EQ(written(ctx), want.b);
    EXPECT_EQ(gguf_get_meta_size(ctx), 32u);
    gguf_free(ctx);
}

TEST(GgufBytes, EveryScalarKind) {
    gguf_context * ctx = gguf_init_empty();
    gguf_set_val_u8(ctx, "u8", 0xAB);
    gguf_set_val_i8(ctx, "i8", -2);
    gguf_set_val_u16(ctx, "u16", 0x1234);
    gguf_set_val_i16(ctx, "i16", -3);
    gguf_set_val_u32(ctx, "u32", 0xDEADBEEF);
    gguf_set_val_i32(ctx, "i32", -4);
    gguf_set_val_f32(ctx, "f32", 2.5f);
    gguf_set_val_bool(ctx, "bool", true);
    gguf_set_val_str(ctx, "str", "abc");
    gguf_set_val_u64(ctx, "u64", 0x0102030405060708ull);
    gguf_set_val_i64(ctx, "i64", -5);
    gguf_set_val_f64(ctx, "f64", -0.5);

    Bytes want;
    want.header(0, 12);
    want.str("u8").i32(0).u8(0xAB);
    want.str("i8").i32(1).u8(0xFE);
    want.str("u16").i32(2).u8(0x34).u8(0x12);
    want.str("i16").i32(3).u8(0xFD).u8(0xFF);
    want.str("u32").i32(4).u8(0xEF).u8(0xBE).u8(0xAD).u8(0xDE);
    want.str("i32").i32(5).i32(-4);
    want.str("f32").i32(6).u8(0x00).u8(0x00).u8(0x20).u8(0x40); // 2.5f = 0x40200000
    want.str("bool").i32(7).u8(1);
    want.str("str").i32(8).u64(3).raw("abc", 3);
    want.str("u64").i32(10).u8(8).u8(7).u8(6).u8(5).u8(4).u8(3).u8(2).u8(1);
    want.str("i64").i32(11).i64(-5);
    want.str("f64").i32(12).u64(0xBFE0000000000000ull); // -0.5
    want.pad(32);
    EXPECT_EQ(written(ctx), want.b);
    gguf_free(ctx);
}

TEST(GgufBytes, ArraysOfEveryKind) {
    gguf_context * ctx     = gguf_init_empty();
    const int16_t  i16[]   = {1, -1};
    const bool     bools[] = {false, true};
    const char *   strs[]  = {"x", ""};
    gguf_set_arr_data(ctx, "i16", GGUF_TYPE_INT16, i16, 2);
    gguf_set_arr_data(ctx, "bool", GGUF_TYPE_BOOL, bools, 2);
    gguf_set_arr_str(ctx, "str", strs, 2);
    gguf_set_arr_data(ctx, "empty", GGUF_TYPE_FLOAT64, nullptr, 0);

    Bytes want;
    want.header(0, 4);
    want.str("i16").i32(9).i32(3).u64(2).u8(0x01).u8(0x00).u8(0xFF).u8(0xFF);
    want.str("bool").i32(9).i32(7).u64(2).u8(0).u8(1);
    want.str("str").i32(9).i32(8).u64(2).str("x").str("");
    want.str("empty").i32(9).i32(12).u64(0);
    want.pad(32);
    EXPECT_EQ(written(ctx), want.b);
    gguf_free(ctx);
}

// A context with an f32 [3] tensor and a q8_0 [32, 2] tensor with known data.
struct TwoTensors {
    ggml_context *       gctx;
    gguf_context *       ctx;
    std::vector<uint8_t> a, b;

    explicit TwoTensors(uint32_t alignment = 0) {
        gctx = ggml_init({2 * ggml_tensor_overhead() + 1024, nullptr, false});
        ctx  = gguf_init_empty();
        if (alignment != 0) {
            gguf_set_val_u32(ctx, GGUF_KEY_GENERAL_ALIGNMENT, alignment);
        }
        ggml_tensor * ta = ggml_new_tensor_1d(gctx, GGML_TYPE_F32, 3);
        ggml_tensor * tb = ggml_new_tensor_2d(gctx, GGML_TYPE_Q8_0, 32, 2);
        ggml_set_name(ta, "first");
        ggml_set_name(tb, "blk.0.second");
        for (size_t i = 0; i < ggml_nbytes(ta); ++i) {
            a.push_back(static_cast<uint8_t>(i + 1));
        }
        for (size_t i = 0; i < ggml_nbytes(tb); ++i) {
            b.push_back(static_cast<uint8_t>(200 - i));
        }
        std::memcpy(ta->data, a.data(), a.size());
        std::memcpy(tb->data, b.data(), b.size());
        gguf_add_tensor(ctx, ta);
        gguf_add_tensor(ctx, tb);
    }
    ~TwoTensors() {
        gguf_free(ctx);
        ggml_free(gctx);
    }
};

TEST(GgufBytes, TensorInfosAndPaddedData) {
    TwoTensors t;
    ASSERT_EQ(t.a.size(), 12u);
    ASSERT_EQ(t.b.size(), 68u);
    EXPECT_EQ(gguf_get_tensor_offset(t.ctx, 0), 0u);
    EXPECT_EQ(gguf_get_tensor_offset(t.ctx, 1), 32u);
    EXPECT_EQ(gguf_get_tensor_size(t.ctx, 1), 68u);

    Bytes want;
    want.header(2, 0);
    want.tensor_info("first", {3}, GGML_TYPE_F32, 0);
    want.tensor_info("blk.0.second", {32, 2}, GGML_TYPE_Q8_0, 32);
    want.pad(32);
    const size_t meta = want.b.size();
    want.raw(t.a.data(), t.a.size()).pad(32);
    want.raw(t.b.data(), t.b.size()).pad(32);
    EXPECT_EQ(written(t.ctx), want.b);

    // only the metadata: with only_meta, and through gguf_get_meta_size / _data
    const std::vector<uint8_t> prefix(want.b.begin(), want.b.begin() + static_cast<ptrdiff_t>(meta));
    EXPECT_EQ(written(t.ctx, true), prefix);
    ASSERT_EQ(gguf_get_meta_size(t.ctx), meta);
    std::vector<uint8_t> got(meta);
    gguf_get_meta_data(t.ctx, got.data());
    EXPECT_EQ(got, prefix);
}

TEST(GgufBytes, NonDefaultAlignmentPadsEverything) {
    TwoTensors t(64);
    EXPECT_EQ(gguf_get_tensor_offset(t.ctx, 1), 64u);
    Bytes want;
    want.header(2, 1);
    want.kv<uint32_t>("general.alignment", GGUF_TYPE_UINT32, 64);
    want.tensor_info("first", {3}, GGML_TYPE_F32, 0);
    want.tensor_info("blk.0.second", {32, 2}, GGML_TYPE_Q8_0, 64);
    want.pad(64).raw(t.a.data(), t.a.size()).pad(64).raw(t.b.data(), t.b.size()).pad(64);
    EXPECT_EQ(written(t.ctx), want.b);
}

TEST(GgufBytes, ShapesWriteTheirDimensionsUpToTheLastNotOne) {
    ggml_context * gctx = ggml_init({4 * ggml_tensor_overhead(), nullptr, true});
    gguf_context * ctx  = gguf_init_empty();
    ggml_tensor *  t3   = ggml_new_tensor_3d(gctx, GGML_TYPE_F32, 4, 1, 2);
    ggml_tensor *  t1   = ggml_new_tensor_4d(gctx, GGML_TYPE_F16, 8, 1, 1, 1);
    ggml_set_name(t3, "t3");
    ggml_set_name(t1, "t1");
    gguf_add_tensor(ctx, t3);
    gguf_add_tensor(ctx, t1);
    Bytes want;
    want.header(2, 0).tensor_info("t3", {4, 1, 2}, GGML_TYPE_F32, 0).tensor_info("t1", {8}, GGML_TYPE_F16, 32).pad(32);
    EXPECT_EQ(written(ctx, true), want.b);
    gguf_free(ctx);
    ggml_free(gctx);
}

TEST(GgufBytes, WriteToFilePtrWritesAtThePosition) {
    TwoTensors t;
    TempFile   f("ptr.gguf");
    FILE *     file = std::fopen(f.path(), "wb");
    ASSERT_NE(file, nullptr);
    std::fwrite("prefix", 1, 6, file);
    ASSERT_TRUE(gguf_write_to_file_ptr(t.ctx, file, false));
    std::fclose(file);
    std::vector<uint8_t> want = {'p', 'r', 'e', 'f', 'i', 'x'};
    const auto           body = written(t.ctx);
    want.insert(want.end(), body.begin(), body.end());
    EXPECT_EQ(read_all(f.path()), want);

    // and reads back from there, the data offset counted from the file's start
    file = std::fopen(f.path(), "rb");
    ASSERT_NE(file, nullptr);
    std::fseek(file, 6, SEEK_SET);
    ggml_context * gctx = nullptr;
    gguf_context * back = gguf_init_from_file_ptr(file, {false, &gctx});
    std::fclose(file);
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(gguf_get_data_offset(back), 6 + gguf_get_meta_size(t.ctx));
    ggml_tensor * second = ggml_get_tensor(gctx, "blk.0.second");
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(std::memcmp(second->data, t.b.data(), t.b.size()), 0);
    gguf_free(back);
    ggml_free(gctx);
}

TEST(GgufBytes, AppendingDataAfterOnlyMetaMakesTheWholeFile) {
    TwoTensors t;
    TempFile   f("append.gguf");
    ASSERT_TRUE(gguf_write_to_file(t.ctx, f.path(), true));
    FILE * file = std::fopen(f.path(), "ab");
    ASSERT_NE(file, nullptr);
    std::vector<uint8_t> data = t.a;
    data.resize(32);
    data.insert(data.end(), t.b.begin(), t.b.end());
    data.resize(32 + 96);
    std::fwrite(data.data(), 1, data.size(), file);
    std::fclose(file);
    EXPECT_EQ(read_all(f.path()), written(t.ctx));
}

} // namespace
