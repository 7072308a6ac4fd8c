// switchyard-run's checks of a model file at load (tools/run/model.h, hparams.h): the vocabulary against the
// embedding's rows, rms_epsilon and rope.freq_base, non-finite norm weights, weight types no backend multiplies,
// a model path that is not a regular file; and at run time, the node that first produces a non-finite value
// when a weight matrix holds a NaN (diagnose.h). Bad files are rewritten from a good tiny model (test_models.h).
#include "context.h"
#include "devices.h"
#include "diagnose.h"
#include "model.h"

#include "test_models.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sys/stat.h>

namespace switchyard::run {
namespace {

using namespace testing_models;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::string with_float_key(const std::string & name, const char * key, float value) {
    return rewrite_model(name, {[&](gguf_context * g) { gguf_set_val_f32(g, key, value); }, {}, {}});
}

TEST(ModelCheck, VocabularyMustMatchTheEmbeddingRows) {
    for (size_t n : {320u, 100u}) {
        const std::string path = rewrite_model("vocab_" + std::to_string(n) + ".gguf", {[n](gguf_context * g) {
            std::vector<std::string>  tokens(n, "t");
            std::vector<const char *> ptrs;
            for (const std::string & t : tokens) {
                ptrs.push_back(t.c_str());
            }
            gguf_set_arr_str(g, "tokenizer.ggml.tokens", ptrs.data(), ptrs.size());
        }, {}, {}});
        EXPECT_EQ(open_error(path), path + ": token_embd.weight has 300 rows, but the vocabulary " +
                                        "(tokenizer.ggml.tokens) has " + std::to_string(n) + " tokens");
    }
}

TEST(ModelCheck, RmsEpsilonMustBeFiniteAndNotNegative) {
    for (float eps : {kNaN, -1e-5f, std::numeric_limits<float>::infinity()}) {
        const std::string error = open_error(with_float_key("eps.gguf", "llama.attention.layer_norm_rms_epsilon", eps));
        EXPECT_NE(error.find("invalid llama.attention.layer_norm_rms_epsilon"), std::string::npos) << error;
    }
}

TEST(ModelCheck, RopeFreqBaseMustBeFiniteAndPositive) {
    for (float base : {0.0f, -10000.0f, kNaN}) {
        const std::string error = open_error(with_float_key("rope.gguf", "llama.rope.freq_base", base));
        EXPECT_NE(error.find("invalid llama.rope.freq_base"), std::string::npos) << error;
    }
    const std::string path =
        rewrite_model("rope_str.gguf", {[](gguf_context * g) { gguf_set_val_str(g, "llama.rope.freq_base", "1e4"); }, {}, {}});
    EXPECT_NE(open_error(path).find("llama.rope.freq_base is not a floating-point number"), std::string::npos);
}

TEST(ModelCheck, NormWeightsMustBeFinite) {
    const std::string path = rewrite_model("nan_norm.gguf", {{}, {}, [](const std::string & name, float * v, int64_t) {
        if (name == "blk.1.ffn_norm.weight") {
            v[5] = kNaN;
        }
    }});
    EXPECT_NE(open_error(path).find("tensor blk.1.ffn_norm.weight holds nan at element 5"), std::string::npos)
        << open_error(path);
}

bool is_matrix(const std::string & name) {
    return name.find("norm") == std::string::npos;
}

TEST(ModelCheck, UnsupportedWeightTypesAreNamedInOneMessage) {
    const std::string all_i8 = rewrite_model("i8.gguf", {{}, [](const std::string & name, ggml_type t) {
        return is_matrix(name) ? GGML_TYPE_I8 : t;
    }, {}});
    // 16 matrices: token_embd, output, and 7 in each of the 2 layers
    EXPECT_EQ(open_error(all_i8), all_i8 + ": unsupported weight types: token_embd.weight is i8 (and 15 more: "
                                           "output.weight is i8, ...); weight matrices must be f32, f16, bf16 or a "
                                           "quantized type");
    for (ggml_type type : {GGML_TYPE_I32, GGML_TYPE_F64}) {
        const std::string one = rewrite_model("one.gguf", {{}, [type](const std::string & name, ggml_type t) {
            return name == "blk.1.ffn_up.weight" ? type : t;
        }, {}});
        EXPECT_EQ(open_error(one), one + ": unsupported weight type: blk.1.ffn_up.weight is " + ggml_type_name(type) +
                                       "; weight matrices must be f32, f16, bf16 or a quantized type");
    }
}

TEST(ModelCheck, AModelPathMustBeARegularFile) {
    const std::string fifo = (temp_dir() / "model.fifo").string();
    ::unlink(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(open_error(fifo), "'" + fifo + "' is not a regular file (a model is memory-mapped)"); // and no hang
    EXPECT_NE(open_error(temp_dir().string()).find("is not a regular file"), std::string::npos);
    ::unlink(fifo.c_str());
}

TEST(ModelCheck, TheFirstNodeWithANonFiniteValueIsFound) {
    const std::string path = rewrite_model("nan_matrix.gguf", {{}, {}, [](const std::string & name, float * v, int64_t) {
        if (name == "blk.1.ffn_up.weight") {
            v[0] = kNaN; // row 0: the first FFN unit of layer 1
        }
    }});
    std::string   error;
    auto          model = Model::open(path, error); // matrices are not scanned at load
    ASSERT_NE(model, nullptr) << error;
    DeviceOptions options;
    options.names     = {"CPU"};
    options.n_threads = 2;
    auto devices      = Devices::create(options, error);
    ASSERT_NE(devices, nullptr) << error;
    std::vector<std::string> notes;
    ASSERT_TRUE(model->place(devices->place(model->hparams(), [&](const std::string & n) { return model->type_of(n); }, notes),
                             error));
    auto ctx = Context::create(*model, *devices, {16, 16}, error);
    ASSERT_NE(ctx, nullptr) << error;
    std::vector<float> logits;
    ASSERT_TRUE(ctx->decode({1, 2, 3}, false, logits, error)) << error;
    EXPECT_GE(first_non_finite(logits), 0);
    EXPECT_EQ(find_non_finite_node(*ctx, {1, 2, 3}),
              "node 'ffn_up-1' (MUL_MAT of 'blk.1.ffn_up.weight' and 'ffn_norm-1') holds nan at element 0");
    // the callback is gone afterwards: the same tokens run to the end again
    EXPECT_TRUE(ctx->decode({4}, false, logits, error)) << error;
}

TEST(ModelCheck, FirstNonFinite) {
    EXPECT_EQ(first_non_finite({1.0f, 2.0f}), -1);
    EXPECT_EQ(first_non_finite({1.0f, std::numeric_limits<float>::infinity(), kNaN}), 1);
}

} // namespace
} // namespace switchyard::run
