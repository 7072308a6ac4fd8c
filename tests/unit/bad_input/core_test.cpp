// Bad input to the core: contexts and tensor constructors. Sizes that overflow and full contexts are user
// errors (NULL and a message); a view that reaches past its source is a shape rule (the abort callback), run
// in a child process because the callback ends it.
#include "bad_input.h"

#include <cstdint>

namespace switchyard::bad_input {
namespace {

size_t tensors_in(ggml_context * ctx) {
    size_t n = 0;
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
        ++n;
    }
    return n;
}

// ---- size overflow (fix 2) ----

TEST(CoreBadInput, NewTensorWhoseSizeOverflowsReturnsNull) {
    ContextPtr ctx = meta_context();
    LogCapture log;
    // 3 floats times 2^62 + 1 rows: 12 * (2^62 + 1) bytes wraps around size_t to 12
    ggml_tensor * t = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 3, (int64_t{1} << 62) + 1);
    EXPECT_EQ(t, nullptr);
    EXPECT_TRUE(log.has_error("ggml_new_tensor_2d")) << logged(log);
    EXPECT_EQ(tensors_in(ctx.get()), t == nullptr ? 0u : 1u) << "a refused tensor must not be left in the context";
    // the context is still usable
    ggml_tensor * ok = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 3, 4);
    ASSERT_NE(ok, nullptr);
    EXPECT_EQ(ggml_nbytes(ok), 48u);
}

TEST(CoreBadInput, NewTensor4dWhoseElementCountOverflowsReturnsNull) {
    ContextPtr    ctx = meta_context();
    LogCapture    log;
    const int64_t big = int64_t{1} << 20; // 2^80 elements
    ggml_tensor * t   = ggml_new_tensor_4d(ctx.get(), GGML_TYPE_F32, big, big, big, big);
    EXPECT_EQ(t, nullptr);
    EXPECT_TRUE(log.has_error("ggml_new_tensor_4d")) << logged(log);
}

TEST(CoreBadInput, NewQuantizedTensorWhoseSizeOverflowsReturnsNull) {
    ContextPtr ctx = meta_context();
    LogCapture log;
    // Q8_0: 34 bytes per 32 values; rows of 2^62 values (34 * 2^57 bytes) times 4 rows overflow size_t
    ggml_tensor * t = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_Q8_0, int64_t{1} << 62, 4);
    EXPECT_EQ(t, nullptr);
    EXPECT_TRUE(log.has_error("ggml_new_tensor_2d")) << logged(log);
}

TEST(CoreBadInput, NewTensorWhoseSizeOverflowsInAnAllocatingContextReturnsNull) {
    ggml_init_params params = {1 << 20, nullptr, false};
    ContextPtr       ctx(ggml_init(params));
    ASSERT_NE(ctx, nullptr);
    LogCapture    log;
    ggml_tensor * t = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 3, (int64_t{1} << 62) + 1);
    EXPECT_EQ(t, nullptr) << "the wrapped size must not be allocated from the context";
    EXPECT_TRUE(log.has_error("ggml_new_tensor_2d")) << logged(log);
    if (t == nullptr) {
        EXPECT_EQ(ggml_used_mem(ctx.get()), 0u) << "a refused tensor must not take memory from the context";
    }
}

TEST(CoreBadInput, ViewWhoseSizeOverflowsReturnsNull) {
    const ChildResult r = run_in_child([] {
        std::string report;
        ContextPtr  ctx = meta_context();
        ggml_tensor * a = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
        LogCapture  log;
        // rows of 16 bytes, 2^62 + 1 of them: the packed size wraps to 16 bytes, which would fit the source
        ggml_tensor * v = ggml_view_2d(ctx.get(), a, 4, (int64_t{1} << 62) + 1, 16, 0);
        check(report, v == nullptr, "ggml_view_2d returned a tensor");
        check(report, log.has_error("ggml_view_2d"), "no error naming ggml_view_2d;" + logged(log));
        return report;
    });
    EXPECT_TRUE(r.passed()) << r.describe();
}

// ---- views past their source (fix 1: a shape rule, through the abort callback) ----

TEST(CoreBadInput, StridedViewPastItsSourceAborts) {
    const ChildResult r = run_in_child([] {
        ContextPtr    ctx = meta_context();
        ggml_tensor * a   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16); // 64 bytes
        // 4 rows of 4 floats, 64 bytes apart: the last row starts at byte 192
        ggml_view_2d(ctx.get(), a, 4, 4, 64, 0);
        return std::string("ggml_view_2d accepted 4 rows 64 bytes apart over a 64-byte tensor");
    });
    EXPECT_TRUE(r.aborted()) << r.describe();
    EXPECT_NE(r.report.find("ggml_view_2d"), std::string::npos) << r.describe();
}

TEST(CoreBadInput, StridedViewWithOffsetPastItsSourceAborts) {
    const ChildResult r = run_in_child([] {
        ContextPtr    ctx = meta_context();
        ggml_tensor * a   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
        // 2 rows 32 bytes apart from byte 32: the second row ends at byte 80
        ggml_view_2d(ctx.get(), a, 4, 2, 32, 32);
        return std::string("ggml_view_2d accepted a view ending at byte 80 of a 64-byte tensor");
    });
    EXPECT_TRUE(r.aborted()) << r.describe();
    EXPECT_NE(r.report.find("ggml_view_2d"), std::string::npos) << r.describe();
}

TEST(CoreBadInput, Strided3dViewPastItsSourceAborts) {
    const ChildResult r = run_in_child([] {
        ContextPtr    ctx = meta_context();
        ggml_tensor * a   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
        // 2 x 2 x 2 floats with planes 64 bytes apart: the second plane starts at the end of the source
        ggml_view_3d(ctx.get(), a, 2, 2, 2, 8, 64, 0);
        return std::string("ggml_view_3d accepted planes 64 bytes apart over a 64-byte tensor");
    });
    EXPECT_TRUE(r.aborted()) << r.describe();
    EXPECT_NE(r.report.find("ggml_view_3d"), std::string::npos) << r.describe();
}

TEST(CoreBadInput, StridedViewsInsideTheirSourceAreAccepted) {
    // the same constructors, in bounds: they must keep working (no abort) once the check is in
    const ChildResult r = run_in_child([] {
        std::string   report;
        ContextPtr    ctx = meta_context();
        ggml_tensor * a   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
        ggml_tensor * v1  = ggml_view_2d(ctx.get(), a, 4, 2, 32, 0);  // ends at byte 48
        ggml_tensor * v2  = ggml_view_2d(ctx.get(), a, 4, 2, 32, 16); // ends at byte 64
        ggml_tensor * v3  = ggml_view_3d(ctx.get(), a, 2, 2, 2, 16, 32, 0); // ends at byte 56
        ggml_tensor * v4  = ggml_view_2d(ctx.get(), a, 4, 4, 16, 0); // the whole tensor
        check(report, v1 && v2 && v3 && v4, "a view inside its source was refused");
        return report;
    });
    EXPECT_TRUE(r.passed()) << r.describe();
}

TEST(CoreBadInput, ContiguousViewPastItsSourceAborts) {
    const ChildResult r = run_in_child([] {
        ContextPtr    ctx = meta_context();
        ggml_tensor * a   = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
        ggml_view_1d(ctx.get(), a, 17, 0);
        return std::string("ggml_view_1d accepted 17 floats of a 16-float tensor");
    });
    EXPECT_TRUE(r.aborted()) << r.describe();
    EXPECT_NE(r.report.find("ggml_view_1d"), std::string::npos) << r.describe();
}

// ---- contexts ----

TEST(CoreBadInput, InitWithAHugePoolReturnsNull) {
    LogCapture       log;
    ggml_init_params params = {size_t{1} << 62, nullptr, false};
    ggml_context *   ctx    = ggml_init(params);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_TRUE(log.has_error("ggml_init")) << logged(log);
    ggml_free(ctx);
    // and a normal one still works
    ggml_init_params small = {1 << 16, nullptr, false};
    ContextPtr       ok(ggml_init(small));
    ASSERT_NE(ok, nullptr);
    EXPECT_NE(ggml_new_tensor_1d(ok.get(), GGML_TYPE_F32, 16), nullptr);
}

TEST(CoreBadInput, FullContextReturnsNullAndKeepsItsTensors) {
    ggml_init_params params = {3 * ggml_tensor_overhead(), nullptr, true};
    ContextPtr       ctx(ggml_init(params));
    ASSERT_NE(ctx, nullptr);
    std::vector<ggml_tensor *> made;
    LogCapture                 log;
    for (int i = 0; i < 4; ++i) {
        ggml_tensor * t = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 8);
        if (t == nullptr) {
            break;
        }
        ggml_format_name(t, "t%d", i);
        made.push_back(t);
    }
    EXPECT_EQ(made.size(), 3u);
    EXPECT_TRUE(log.has_error({"ggml_new_tensor_1d", "not enough space"})) << logged(log);
    ASSERT_EQ(tensors_in(ctx.get()), made.size());
    for (size_t i = 0; i < made.size(); ++i) {
        EXPECT_EQ(ggml_get_tensor(ctx.get(), ("t" + std::to_string(i)).c_str()), made[i]);
        EXPECT_EQ(made[i]->ne[0], 8);
    }
    // an op on a full context returns NULL too, and so does an op on that NULL
    ggml_tensor * sum = ggml_add(ctx.get(), made[0], made[1]);
    EXPECT_EQ(sum, nullptr);
    EXPECT_EQ(ggml_scale(ctx.get(), sum, 2.0f), nullptr);
    EXPECT_TRUE(log.has_error("ggml_scale")) << logged(log);
}

TEST(CoreBadInput, InvalidExtentsAndTypesReturnNull) {
    ContextPtr ctx = meta_context();
    LogCapture log;
    EXPECT_EQ(ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, -1), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_new_tensor_1d", "negative"})) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_new_tensor_1d(ctx.get(), static_cast<ggml_type>(999), 4), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_new_tensor_1d", "type"})) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_new_tensor_1d(ctx.get(), GGML_TYPE_Q4_0, 33), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_new_tensor_1d", "block"})) << logged(log);
    log.clear();
    const int64_t ne[5] = {1, 1, 1, 1, 1};
    EXPECT_EQ(ggml_new_tensor(ctx.get(), GGML_TYPE_F32, 5, ne), nullptr);
    EXPECT_TRUE(log.has_error("ggml_new_tensor")) << logged(log);
    EXPECT_EQ(tensors_in(ctx.get()), 0u);
}

} // namespace
} // namespace switchyard::bad_input
