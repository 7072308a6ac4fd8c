// Shared fixture of the op constructor tests: a context with data, tensors by shape, and shape errors turned
// into exceptions (through the abort callback) so a test can check that a constructor rejects its arguments
// and what the message says.
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

namespace switchyard::testing {

// Whether the CPU device computes `node` (the constructors take some calls that no kernel runs, as upstream's do).
inline bool cpu_supports(const ggml_tensor * node) {
    return node != nullptr && ggml_backend_dev_supports_op(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU), node);
}

struct FatalError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class OpFixture : public ::testing::Test {
  protected:
    void SetUp() override {
        ctx_ = ggml_init(ggml_init_params{4 << 20, nullptr, false});
        ASSERT_NE(ctx_, nullptr);
        previous_ = ggml_set_abort_callback(&OpFixture::throw_fatal);
    }
    void TearDown() override {
        ggml_set_abort_callback(previous_);
        ggml_free(ctx_);
    }

    ggml_tensor * t(ggml_type type, int64_t ne0, int64_t ne1 = 1, int64_t ne2 = 1, int64_t ne3 = 1) {
        return ggml_new_tensor_4d(ctx_, type, ne0, ne1, ne2, ne3);
    }

    // The message of the fatal error f raises; a test failure if it raises none.
    static std::string fatal_message(const std::function<void()> & f) {
        try {
            f();
        } catch (const FatalError & e) {
            return e.what();
        }
        ADD_FAILURE() << "expected a fatal error";
        return {};
    }

    static void throw_fatal(const char * message) { throw FatalError(message); }

    ggml_context *        ctx_      = nullptr;
    ggml_abort_callback_t previous_ = nullptr;
};

inline void expect_layout(const ggml_tensor * r, ggml_type type, std::array<int64_t, 4> ne, std::array<size_t, 4> nb) {
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->type, type);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(r->ne[i], ne[i]) << "ne[" << i << "]";
        EXPECT_EQ(r->nb[i], nb[i]) << "nb[" << i << "]";
    }
}

inline float param_f32(const ggml_tensor * t, int i) {
    float v;
    std::memcpy(&v, &t->op_params[i], sizeof(v));
    return v;
}

} // namespace switchyard::testing
