// Malformed input beyond the corpus: a valid file cut at every length is refused (nothing crashes, nothing
// leaks, *ctx comes back NULL); sources that lie about their size (a callback claiming terabytes, a callback
// that returns short or too much) are refused before anything large is allocated; bad arguments to the
// gguf_init_* functions are logged.
#include "gguf_test_util.h"

namespace {

using namespace gguf_test;

// a valid file with key-value pairs of several kinds and three tensors with data
std::vector<uint8_t> sample_file() {
    ggml_context * gctx = ggml_init({3 * ggml_tensor_overhead() + 4096, nullptr, false});
    gguf_context * ctx  = gguf_init_empty();
    gguf_set_val_str(ctx, "general.name", "sample");
    gguf_set_val_u32(ctx, "n", 7);
    const char * toks[] = {"a", "bb", "ccc"};
    gguf_set_arr_str(ctx, "tokens", toks, 3);
    const float scores[] = {1, 2, 3};
    gguf_set_arr_data(ctx, "scores", GGUF_TYPE_FLOAT32, scores, 3);
    ggml_tensor * t[] = {ggml_new_tensor_1d(gctx, GGML_TYPE_F32, 5), ggml_new_tensor_2d(gctx, GGML_TYPE_Q4_0, 32, 2),
                         ggml_new_tensor_2d(gctx, GGML_TYPE_F16, 3, 3)};
    const char *  names[] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
        ggml_set_name(t[i], names[i]);
        std::memset(t[i]->data, 0x11 * (i + 1), ggml_nbytes(t[i]));
        gguf_add_tensor(ctx, t[i]);
    }
    std::vector<uint8_t> bytes = written(ctx);
    gguf_free(ctx);
    ggml_free(gctx);
    return bytes;
}

TEST(GgufMalformed, EveryTruncationIsRefused) {
    const std::vector<uint8_t> bytes = sample_file();
    gguf_context *             whole = from_bytes(bytes);
    ASSERT_NE(whole, nullptr);
    const size_t meta_end = gguf_get_data_offset(whole); // the metadata, padding included
    const size_t data_end = meta_end + gguf_get_tensor_offset(whole, 2) + gguf_get_tensor_size(whole, 2);
    gguf_free(whole);

    LogCapture log;
    for (size_t len = 0; len < data_end; ++len) {
        const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(len));
        ggml_context *             gctx = nullptr;
        gguf_context *             ctx  = from_bytes(cut, false, &gctx);
        EXPECT_EQ(ctx, nullptr) << "cut at " << len;
        EXPECT_EQ(gctx, nullptr);
        // without the data, a cut inside the data section loads: then its ggml context comes back too
        gguf_context * meta = from_bytes(cut, true, &gctx);
        EXPECT_EQ(meta == nullptr, gctx == nullptr) << "cut at " << len;
        EXPECT_TRUE(meta != nullptr || len < meta_end) << "cut at " << len;
        gguf_free(meta);
        ggml_free(gctx);
    }
    EXPECT_NE(log.text().find("truncated"), std::string::npos);
    // the padding after the last tensor may be missing
    for (size_t len = data_end; len <= bytes.size(); ++len) {
        const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(len));
        ggml_context *             gctx = nullptr;
        gguf_context *             ctx  = from_bytes(cut, false, &gctx);
        EXPECT_NE(ctx, nullptr) << "cut at " << len;
        gguf_free(ctx);
        ggml_free(gctx);
    }
}

TEST(GgufMalformed, TruncatedMetadataIsRefusedEvenWithoutData) {
    const std::vector<uint8_t> bytes = sample_file();
    gguf_context *             whole = from_bytes(bytes);
    ASSERT_NE(whole, nullptr);
    const size_t data_offset = gguf_get_data_offset(whole); // the metadata and the padding after it
    gguf_free(whole);
    LogCapture log;
    // as upstream: a cut anywhere before the data section (in the tensor infos or in the alignment padding after
    // them) is refused also when no data is read, with ctx NULL or a no_alloc context: a loader would map the file
    // from the data offset, past its end
    for (size_t len = 0; len < data_offset; ++len) {
        const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(len));
        gguf_context *             ctx = from_bytes(cut, true);
        EXPECT_EQ(ctx, nullptr) << "cut at " << len;
        gguf_free(ctx);
        ggml_context * gctx = nullptr;
        ctx                 = from_bytes(cut, true, &gctx);
        EXPECT_EQ(ctx, nullptr) << "cut at " << len;
        EXPECT_EQ(gctx, nullptr) << "cut at " << len;
        gguf_free(ctx);
    }
    EXPECT_TRUE(log.has("the file ends inside the alignment padding before the data section")) << log.text();
    // the metadata with its padding and no data: loads without the data
    const std::vector<uint8_t> meta(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(data_offset));
    gguf_context *             ctx = from_bytes(meta, true);
    EXPECT_NE(ctx, nullptr);
    gguf_free(ctx);
}

struct Claim {
    std::vector<uint8_t> bytes;     // what the callback really has
    size_t               max_ask  = 0;
    size_t               calls    = 0;
    bool                 too_much = false; // answer more than asked
};

size_t answer(void * userdata, void * output, uint64_t offset, size_t len) {
    auto & c = *static_cast<Claim *>(userdata);
    ++c.calls;
    c.max_ask = std::max(c.max_ask, len);
    if (offset >= c.bytes.size()) {
        return 0;
    }
    const size_t n = std::min<size_t>(len, c.bytes.size() - offset);
    std::memcpy(output, c.bytes.data() + offset, n);
    return c.too_much ? len + 1 : n;
}

// A header that declares a 4 TiB tensor from a source that claims to hold 8 TiB: the reader reads the last byte
// of the data before allocating for it, and refuses. (Upstream allocates the context in ggml_init and aborts.)
TEST(GgufMalformed, FourTebibyteTensorFromACallbackIsRefusedBeforeAllocating) {
    Bytes b;
    b.header(1, 0).tensor_info("huge", {int64_t{1} << 40}, GGML_TYPE_F32, 0).pad(32).zeros(64);
    Claim          claim{b.b};
    LogCapture     log;
    ggml_context * gctx = nullptr;
    gguf_context * ctx  = gguf_init_from_callback(answer, &claim, 0, uint64_t{8} << 40, {false, &gctx});
    EXPECT_EQ(ctx, nullptr);
    EXPECT_EQ(gctx, nullptr);
    EXPECT_TRUE(log.has("[gguf_init_from_callback] <callback>: offset 4398046511167: cannot read the last byte of the "
                        "tensor data"))
        << log.text();

    // without the data it is only metadata, which is fine
    ctx = gguf_init_from_callback(answer, &claim, 0, uint64_t{8} << 40, {true, &gctx});
    ASSERT_NE(ctx, nullptr);
    EXPECT_EQ(gguf_get_tensor_size(ctx, 0), size_t{4} << 40);
    ASSERT_NE(gctx, nullptr);
    EXPECT_EQ(ggml_nbytes(ggml_get_tensor(gctx, "huge")), size_t{4} << 40);
    gguf_free(ctx);
    ggml_free(gctx);
}

TEST(GgufMalformed, CallbackChunksAndShortReads) {
    const std::vector<uint8_t> bytes = sample_file();
    Claim                      claim{bytes};
    ggml_context *             gctx = nullptr;
    gguf_context *             ctx  = gguf_init_from_callback(answer, &claim, 5, bytes.size(), {false, &gctx});
    ASSERT_NE(ctx, nullptr);
    EXPECT_LE(claim.max_ask, 5u);
    gguf_free(ctx);
    ggml_free(gctx);

    // a source that claims more than it has: the header is read, the truncated part fails
    Claim short_claim{std::vector<uint8_t>(bytes.begin(), bytes.begin() + 100)};
    LogCapture log;
    EXPECT_EQ(gguf_init_from_callback(answer, &short_claim, 0, bytes.size(), {true, nullptr}), nullptr);
    EXPECT_TRUE(log.has("read error or the source ended early")) << log.text();

    // a callback that answers more than it was asked is an error, not an overflow
    Claim liar{bytes};
    liar.too_much = true;
    EXPECT_EQ(gguf_init_from_callback(answer, &liar, 0, bytes.size(), {true, nullptr}), nullptr);

    // max_expected_size 0: nothing to read
    log.clear();
    EXPECT_EQ(gguf_init_from_callback(answer, &claim, 0, 0, {true, nullptr}), nullptr);
    EXPECT_TRUE(log.has("truncated: the magic needs 4 bytes, the file has 0 left")) << log.text();
}

TEST(GgufMalformed, BadArgumentsAreLogged) {
    LogCapture     log;
    ggml_context * gctx = reinterpret_cast<ggml_context *>(1);
    EXPECT_EQ(gguf_init_from_file(nullptr, {true, &gctx}), nullptr);
    EXPECT_EQ(gctx, nullptr);
    EXPECT_TRUE(log.has("[gguf_init_from_file] the file name is NULL"));
    EXPECT_EQ(gguf_init_from_file("/nonexistent/dir/x.gguf", {true, nullptr}), nullptr);
    EXPECT_TRUE(log.has("[gguf_init_from_file] cannot open '/nonexistent/dir/x.gguf'"));
    EXPECT_EQ(gguf_init_from_file_ptr(nullptr, {true, nullptr}), nullptr);
    EXPECT_TRUE(log.has("[gguf_init_from_file_ptr] the file is NULL"));
    EXPECT_EQ(gguf_init_from_buffer(nullptr, 10, {true, nullptr}), nullptr);
    EXPECT_TRUE(log.has("[gguf_init_from_buffer] the buffer is NULL but its size is 10"));
    EXPECT_EQ(gguf_init_from_buffer(nullptr, 0, {true, nullptr}), nullptr);
    EXPECT_EQ(gguf_init_from_callback(nullptr, nullptr, 0, 100, {true, nullptr}), nullptr);
    EXPECT_TRUE(log.has("[gguf_init_from_callback] the callback is NULL"));
    // a directory opens but is not a file
    EXPECT_EQ(gguf_init_from_file("/", {true, nullptr}), nullptr);
}

TEST(GgufMalformed, AFileThatIsNotSeekableIsRefused) {
    FILE * pipe = popen("printf GGUF", "r");
    ASSERT_NE(pipe, nullptr);
    LogCapture log;
    EXPECT_EQ(gguf_init_from_file_ptr(pipe, {true, nullptr}), nullptr);
    EXPECT_TRUE(log.has("the file must be seekable")) << log.text();
    pclose(pipe);
}

} // namespace
