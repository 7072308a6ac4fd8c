// include/ggml-cpp.h: each owner frees its handle when it goes out of scope (the leak checks of the sanitizer
// build see a missing free), the names are upstream's, and an owner can be reset and moved like any unique_ptr.
#include "ggml-cpp.h"
#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <type_traits>
#include <utility>

namespace {

static_assert(std::is_same_v<ggml_context_ptr::element_type, ggml_context>);
static_assert(std::is_same_v<gguf_context_ptr::element_type, gguf_context>);
static_assert(std::is_same_v<ggml_gallocr_ptr::pointer, ggml_gallocr_t>);
static_assert(std::is_same_v<ggml_backend_ptr::pointer, ggml_backend_t>);
static_assert(std::is_same_v<ggml_backend_buffer_ptr::pointer, ggml_backend_buffer_t>);
static_assert(std::is_same_v<ggml_backend_event_ptr::pointer, ggml_backend_event_t>);
static_assert(std::is_same_v<ggml_backend_sched_ptr::pointer, ggml_backend_sched_t>);

TEST(GgmlCpp, OwnersHoldAndFreeEveryKindOfHandle) {
    ggml_context_ptr ctx(ggml_init({1 << 16, nullptr, true}));
    ASSERT_TRUE(ctx);
    ggml_tensor * t = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
    ASSERT_NE(t, nullptr);

    gguf_context_ptr gguf(gguf_init_empty());
    ASSERT_TRUE(gguf);
    gguf_set_val_u32(gguf.get(), "answer", 42);
    EXPECT_EQ(gguf_get_n_kv(gguf.get()), 1);

    ggml_backend_ptr backend(ggml_backend_cpu_init());
    ASSERT_TRUE(backend);
    ggml_backend_buffer_ptr buffer(ggml_backend_alloc_ctx_tensors(ctx.get(), backend.get()));
    ASSERT_TRUE(buffer);
    EXPECT_EQ(t->buffer, buffer.get());

    ggml_gallocr_ptr galloc(ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend.get())));
    ASSERT_TRUE(galloc);

    ggml_backend_t          backends[] = {backend.get()};
    ggml_backend_sched_ptr  sched(ggml_backend_sched_new(backends, nullptr, 1, 64, false, true));
    ASSERT_TRUE(sched);

    // the CPU device may offer no events; the owner must accept either
    ggml_backend_event_ptr event(ggml_backend_event_new(ggml_backend_get_device(backend.get())));

    // moved owners free once; reset frees early and in any order (the scheduler before the backend it uses)
    ggml_backend_sched_ptr moved = std::move(sched);
    EXPECT_FALSE(sched);
    moved.reset();
    buffer.reset();
    EXPECT_FALSE(buffer);
}

TEST(GgmlCpp, Sme2IsAnArmFeature) {
#if defined(__x86_64__)
    EXPECT_EQ(ggml_cpu_has_sme2(), 0);
#else
    EXPECT_GE(ggml_cpu_has_sme2(), 0);
#endif
}

} // namespace
