// Tensor infos: offsets laid out as tensors are added, retyped or realigned; the ggml_context the readers make
// (with and without data); a context read from a file, changed and written back (upstream crashes there, its
// reader leaving the tensor infos' data pointers uninitialised); tensors whose data lives in a device buffer.
#include "gguf_test_util.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "test_device.h"

namespace {

using namespace gguf_test;

struct Tensors {
    ggml_context * gctx = ggml_init({8 * ggml_tensor_overhead() + 8192, nullptr, false});
    ~Tensors() { ggml_free(gctx); }

    ggml_tensor * make(const char * name, ggml_type type, int64_t ne0, int64_t ne1 = 1, uint8_t fill = 0) {
        ggml_tensor * t = ggml_new_tensor_2d(gctx, type, ne0, ne1);
        ggml_set_name(t, name);
        std::memset(t->data, fill, ggml_nbytes(t));
        return t;
    }
};

TEST(GgufTensors, OffsetsFollowSizesAndAlignment) {
    Tensors        ts;
    gguf_context * ctx = gguf_init_empty();
    gguf_add_tensor(ctx, ts.make("a", GGML_TYPE_F32, 5));         // 20 bytes
    gguf_add_tensor(ctx, ts.make("b", GGML_TYPE_Q8_0, 64));       // 68 bytes
    gguf_add_tensor(ctx, ts.make("c", GGML_TYPE_F16, 16));        // 32 bytes
    EXPECT_EQ(gguf_get_n_tensors(ctx), 3);
    EXPECT_EQ(gguf_get_tensor_offset(ctx, 0), 0u);
    EXPECT_EQ(gguf_get_tensor_offset(ctx, 1), 32u);
    EXPECT_EQ(gguf_get_tensor_offset(ctx, 2), 128u);
    EXPECT_EQ(gguf_find_tensor(ctx, "c"), 2);
    EXPECT_EQ(gguf_find_tensor(ctx, "d"), -1);
    EXPECT_STREQ(gguf_get_tensor_name(ctx, 1), "b");
    EXPECT_EQ(gguf_get_tensor_type(ctx, 1), GGML_TYPE_Q8_0);
    // ne: GGML_MAX_DIMS extents, 1 past the tensor's own dims
    const int64_t * ne = gguf_get_tensor_ne(ctx, 1);
    ASSERT_NE(ne, nullptr);
    EXPECT_EQ(ne[0], 64);
    EXPECT_EQ(ne[1], 1);
    EXPECT_EQ(ne[2], 1);
    EXPECT_EQ(ne[3], 1);

    gguf_set_val_u32(ctx, GGUF_KEY_GENERAL_ALIGNMENT, 128);
    EXPECT_EQ(gguf_get_tensor_offset(ctx, 1), 128u);
    EXPECT_EQ(gguf_get_tensor_offset(ctx, 2), 256u);
    gguf_remove_key(ctx, GGUF_KEY_GENERAL_ALIGNMENT);
    EXPECT_EQ(gguf_get_tensor_offset(ctx, 2), 128u);

    // b becomes q4_0 (36 bytes): c moves down; a tensor that cannot take the type is refused
    gguf_set_tensor_type(ctx, "b", GGML_TYPE_Q4_0);
    EXPECT_EQ(gguf_get_tensor_size(ctx, 1), 36u);
    EXPECT_EQ(gguf_get_tensor_offset(ctx, 2), 96u);
    {
        LogCapture log;
        gguf_set_tensor_type(ctx, "a", GGML_TYPE_Q4_0);
        EXPECT_TRUE(log.has("[gguf_set_tensor_type] tensor 'a' of 5 elements per row cannot have type 2 (q4_0)"))
            << log.text();
        gguf_set_tensor_type(ctx, "nope", GGML_TYPE_F32);
        EXPECT_TRUE(log.has("[gguf_set_tensor_type] no tensor named 'nope'")) << log.text();
        gguf_add_tensor(ctx, ts.make("a", GGML_TYPE_F32, 1));
        EXPECT_TRUE(log.has("[gguf_add_tensor] duplicate tensor name 'a'")) << log.text();
    }
    EXPECT_EQ(gguf_get_n_tensors(ctx), 3);
    EXPECT_EQ(gguf_get_tensor_type(ctx, 0), GGML_TYPE_F32);
    gguf_free(ctx);
}

TEST(GgufTensors, RetypedTensorNeedsNewData) {
    Tensors        ts;
    gguf_context * ctx = gguf_init_empty();
    gguf_add_tensor(ctx, ts.make("w", GGML_TYPE_F32, 32, 2, 0x3c));
    EXPECT_EQ(gguf_get_tensor_ne(ctx, 0)[0], 32);
    EXPECT_EQ(gguf_get_tensor_ne(ctx, 0)[1], 2);
    EXPECT_EQ(gguf_get_tensor_ne(ctx, 0)[2], 1);
    gguf_set_tensor_type(ctx, "w", GGML_TYPE_F16); // 256 -> 128 bytes: the f32 data no longer fits the tensor
    TempFile   f("retyped.gguf");
    LogCapture log;
    EXPECT_FALSE(gguf_write_to_file(ctx, f.path(), false));
    EXPECT_TRUE(log.has("[gguf_write_to_file] tensor 'w' has no data to write")) << log.text();
    EXPECT_FALSE(std::filesystem::exists(f.path())) << "nothing is written when data is missing";
    EXPECT_TRUE(gguf_write_to_file(ctx, f.path(), true)) << "the metadata needs no data";

    std::vector<uint8_t> f16(128, 0x7b);
    gguf_set_tensor_data(ctx, "w", f16.data());
    const std::vector<uint8_t> bytes = written(ctx);
    const size_t               meta  = gguf_get_meta_size(ctx);
    ASSERT_EQ(bytes.size(), meta + 128);
    EXPECT_TRUE(std::equal(f16.begin(), f16.end(), bytes.begin() + static_cast<ptrdiff_t>(meta)));
    gguf_free(ctx);
}

TEST(GgufTensors, ReaderMakesTheGgmlContext) {
    Tensors        ts;
    gguf_context * ctx = gguf_init_empty();
    gguf_add_tensor(ctx, ts.make("a", GGML_TYPE_F32, 3, 2, 0x01));
    gguf_add_tensor(ctx, ts.make("b", GGML_TYPE_Q4_0, 32, 1, 0x02));
    const std::vector<uint8_t> bytes = written(ctx);
    gguf_free(ctx);

    ggml_context * gctx = nullptr;
    ctx                 = from_bytes(bytes, false, &gctx);
    ASSERT_NE(ctx, nullptr);
    ASSERT_NE(gctx, nullptr);
    ggml_tensor * blob = ggml_get_first_tensor(gctx);
    EXPECT_STREQ(blob->name, "GGUF tensor data binary blob");
    EXPECT_EQ(ggml_nbytes(blob), 64u); // 24 bytes padded to 32, 18 padded to 32
    ggml_tensor * a = ggml_get_tensor(gctx, "a");
    ggml_tensor * b = ggml_get_tensor(gctx, "b");
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->ne[0], 3);
    EXPECT_EQ(a->ne[1], 2);
    EXPECT_EQ(b->type, GGML_TYPE_Q4_0);
    EXPECT_EQ(static_cast<uint8_t *>(a->data)[5], 0x01);
    EXPECT_EQ(static_cast<uint8_t *>(b->data), static_cast<uint8_t *>(blob->data) + 32);
    EXPECT_EQ(static_cast<uint8_t *>(b->data)[17], 0x02);
    EXPECT_EQ(gguf_get_data_offset(ctx), gguf_get_meta_size(ctx));
    gguf_free(ctx);
    ggml_free(gctx);

    ctx = from_bytes(bytes, true, &gctx);
    ASSERT_NE(ctx, nullptr);
    EXPECT_TRUE(ggml_get_no_alloc(gctx));
    a = ggml_get_tensor(gctx, "a");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->data, nullptr);
    EXPECT_EQ(ggml_get_tensor(gctx, "GGUF tensor data binary blob"), nullptr);
    gguf_free(ctx);
    ggml_free(gctx);
}

// Upstream's reader leaves the tensor infos' data (and buffer) uninitialised, so writing a context it read
// crashes; here the infos point at the data read, and a read context can be changed and written back.
TEST(GgufTensors, ReadModifyWriteBack) {
    Tensors        ts;
    gguf_context * ctx = gguf_init_empty();
    gguf_set_val_str(ctx, "general.name", "original");
    gguf_set_val_u32(ctx, "drop.me", 1);
    gguf_add_tensor(ctx, ts.make("x", GGML_TYPE_F32, 8, 1, 0x40));
    gguf_add_tensor(ctx, ts.make("y", GGML_TYPE_F16, 8, 2, 0x3c));
    TempFile f("rmw.gguf");
    ASSERT_TRUE(gguf_write_to_file(ctx, f.path(), false));
    gguf_free(ctx);

    ggml_context * gctx = nullptr;
    ctx                 = gguf_init_from_file(f.path(), {false, &gctx});
    ASSERT_NE(ctx, nullptr);
    gguf_set_val_str(ctx, "general.name", "changed");
    gguf_remove_key(ctx, "drop.me");
    gguf_set_val_u32(ctx, GGUF_KEY_GENERAL_ALIGNMENT, 64);
    ggml_tensor * extra = ts.make("z", GGML_TYPE_I32, 3, 1, 0x05);
    gguf_add_tensor(ctx, extra);
    TempFile g("rmw2.gguf");
    ASSERT_TRUE(gguf_write_to_file(ctx, g.path(), false));
    gguf_free(ctx);
    ggml_free(gctx);

    ctx = gguf_init_from_file(g.path(), {false, &gctx});
    ASSERT_NE(ctx, nullptr);
    EXPECT_STREQ(gguf_get_val_str(ctx, gguf_find_key(ctx, "general.name")), "changed");
    EXPECT_EQ(gguf_find_key(ctx, "drop.me"), -1);
    EXPECT_EQ(gguf_get_alignment(ctx), 64u);
    EXPECT_EQ(gguf_get_n_tensors(ctx), 3);
    EXPECT_EQ(gguf_get_tensor_offset(ctx, 1), 64u);
    const uint8_t want[] = {0x40, 0x3c, 0x05};
    const char *  names[] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
        ggml_tensor * t = ggml_get_tensor(gctx, names[i]);
        ASSERT_NE(t, nullptr);
        const auto * p = static_cast<const uint8_t *>(t->data);
        EXPECT_TRUE(std::all_of(p, p + ggml_nbytes(t), [&](uint8_t v) { return v == want[i]; })) << names[i];
    }
    gguf_free(ctx);
    ggml_free(gctx);

    // read without data: the metadata writes back, the whole file is refused with a message
    ctx = gguf_init_from_file(f.path(), {true, nullptr});
    ASSERT_NE(ctx, nullptr);
    EXPECT_EQ(written(ctx, true).size(), gguf_get_meta_size(ctx));
    LogCapture log;
    EXPECT_FALSE(gguf_write_to_file(ctx, g.path(), false));
    EXPECT_TRUE(log.has("tensor 'x' has no data to write")) << log.text();
    gguf_free(ctx);
}

TEST(GgufTensors, DataInADeviceBufferIsReadThroughTheBuffer) {
    using namespace switchyard::testing;
    ggml_backend_dev_t dev  = test_device_create(TestDeviceConfig{});
    ggml_context *     gctx = ggml_init({2 * ggml_tensor_overhead(), nullptr, true});
    ggml_tensor *      a    = ggml_new_tensor_1d(gctx, GGML_TYPE_F32, 100);
    ggml_tensor *      b    = ggml_new_tensor_2d(gctx, GGML_TYPE_Q8_0, 64, 3);
    ggml_set_name(a, "a");
    ggml_set_name(b, "b");
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(gctx, ggml_backend_dev_buffer_type(dev));
    ASSERT_NE(buf, nullptr);
    std::vector<uint8_t> da(ggml_nbytes(a)), db(ggml_nbytes(b));
    for (size_t i = 0; i < da.size(); ++i) {
        da[i] = static_cast<uint8_t>(i * 3);
    }
    for (size_t i = 0; i < db.size(); ++i) {
        db[i] = static_cast<uint8_t>(i * 7 + 1);
    }
    ggml_backend_tensor_set(a, da.data(), 0, da.size());
    ggml_backend_tensor_set(b, db.data(), 0, db.size());

    gguf_context * ctx = gguf_init_empty();
    gguf_add_tensor(ctx, a);
    gguf_add_tensor(ctx, b);
    const std::vector<uint8_t> bytes = written(ctx);
    const size_t               meta  = gguf_get_meta_size(ctx);
    ASSERT_EQ(bytes.size(), meta + 416 + 224); // 400 -> 416, 204 -> 224
    EXPECT_TRUE(std::equal(da.begin(), da.end(), bytes.begin() + static_cast<ptrdiff_t>(meta)));
    EXPECT_TRUE(std::equal(db.begin(), db.end(), bytes.begin() + static_cast<ptrdiff_t>(meta + 416)));
    gguf_free(ctx);
    ggml_backend_buffer_free(buf);
    ggml_free(gctx);
    test_device_release(dev);
}

TEST(GgufTensors, NonContiguousTensorsAreRefusedWhenWritten) {
    Tensors        ts;
    ggml_tensor *  m   = ts.make("m", GGML_TYPE_F32, 4, 4, 1);
    ggml_tensor *  tr  = ggml_transpose(ts.gctx, m);
    gguf_context * ctx = gguf_init_empty();
    ggml_set_name(tr, "transposed");
    gguf_add_tensor(ctx, tr);
    EXPECT_EQ(gguf_get_tensor_size(ctx, 0), 64u);
    EXPECT_EQ(written(ctx, true).size(), gguf_get_meta_size(ctx));
    TempFile   f("noncontig.gguf");
    LogCapture log;
    EXPECT_FALSE(gguf_write_to_file(ctx, f.path(), false));
    EXPECT_TRUE(log.has("tensor 'transposed' is not contiguous")) << log.text();
    gguf_free(ctx);
}

} // namespace
