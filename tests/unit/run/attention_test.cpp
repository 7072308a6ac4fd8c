// switchyard-run's two attention paths (graph.h, -fa on|off): FLASH_ATTN_EXT and soft_max(K·Q)·V build different
// graphs and give the same greedy tokens on the embedded default model (24 steps), with logits within 1e-4 of
// the largest;
// and --trace's recorder (trace_recorder.h) keeps every computation of a run.
#include "context.h"
#include "default_model.h"
#include "devices.h"
#include "model.h"
#include "sampler.h"
#include "trace_recorder.h"

#include "test_models.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace switchyard::run {
namespace {

using namespace testing_models;

struct Loaded { // destroyed in reverse: the context, the model, then the devices
    std::unique_ptr<Devices> devices;
    std::unique_ptr<Model>   model;
    std::unique_ptr<Context> ctx;
};

Loaded load(const std::string & path, bool flash_attn, int64_t n_ctx = 64) {
    Loaded           r;
    std::string   error;
    DeviceOptions options;
    options.names     = {"CPU"};
    options.n_threads = 2;
    r.devices         = Devices::create(options, error);
    r.model           = Model::open(path, error);
    EXPECT_TRUE(r.devices && r.model) << error;
    if (!r.devices || !r.model) {
        return r;
    }
    std::vector<std::string> notes;
    const Model &            m = *r.model;
    EXPECT_TRUE(r.model->place(r.devices->place(m.hparams(), [&](const std::string & n) { return m.type_of(n); }, notes),
                               error));
    r.ctx = Context::create(*r.model, *r.devices, {n_ctx, 512, 0, flash_attn}, error);
    EXPECT_NE(r.ctx, nullptr) << error;
    return r;
}

std::string default_model() {
    std::string path, error;
    bool        wrote = false;
    EXPECT_TRUE(ensure_default_model(path, wrote, error)) << error;
    return path;
}

// the ops of the graph a context builds for n tokens
std::vector<ggml_op> graph_ops(const Loaded & r, bool flash_attn) {
    std::vector<uint8_t> mem(graph_size(r.model->hparams()) * ggml_tensor_overhead() +
                             ggml_graph_overhead_custom(graph_size(r.model->hparams()), false));
    ggml_context *       ctx = ggml_init({mem.size(), mem.data(), true});
    GraphInputs          in;
    ggml_cgraph *        gf = build_graph(ctx, *r.model, r.ctx->cache(), 3, 0, false, flash_attn, in);
    std::vector<ggml_op> ops;
    for (int i = 0; i < ggml_graph_n_nodes(gf); ++i) {
        ops.push_back(ggml_graph_node(gf, i)->op);
    }
    ggml_free(ctx);
    return ops;
}

TEST(Attention, PlainAndFlashBuildDifferentGraphs) {
    Loaded r = load(default_model(), true);
    ASSERT_TRUE(r.ctx);
    const auto count = [](const std::vector<ggml_op> & ops, ggml_op op) { return std::count(ops.begin(), ops.end(), op); };
    const std::vector<ggml_op> flash = graph_ops(r, true), plain = graph_ops(r, false);
    const auto                 layers = static_cast<long>(r.model->hparams().n_layer);
    EXPECT_EQ(count(flash, GGML_OP_FLASH_ATTN_EXT), layers);
    EXPECT_EQ(count(flash, GGML_OP_SOFT_MAX), 0);
    EXPECT_EQ(count(plain, GGML_OP_FLASH_ATTN_EXT), 0);
    EXPECT_EQ(count(plain, GGML_OP_SOFT_MAX), layers);
}

// The two attention paths compute the same function; the logits differ by their float rounding only. With f32
// weights that stays below 1e-4 of the largest logit. With quantized weights the activations are rounded to q8
// levels before each product, so a rounding difference can move a level (a step of about 1/127 of a block's
// largest value) and, over many steps, a near tie between two tokens: there only the prompt's logits are compared,
// with a tolerance for such a step, and its greedy token.
TEST(Attention, PlainAndFlashGiveTheSameGreedyTokens) {
    const std::string f32_model = write_model("attention_f32.gguf", tiny_shape("f32"));
    struct Case {
        std::string path;
        float       tolerance;
        int         steps;
    };
    for (const Case & c : {Case{f32_model, 1e-4f, 24}, Case{default_model(), 5e-2f, 1}}) {
        const std::string & path = c.path;
        SCOPED_TRACE(path);
        Loaded flash = load(path, true), plain = load(path, false);
        ASSERT_TRUE(flash.ctx && plain.ctx);
        const int32_t        V = static_cast<int32_t>(flash.model->hparams().n_vocab);
        std::vector<int32_t> tokens_f = {1, 17, 260, 5, 99}, tokens_p = tokens_f;
        std::vector<float>   logits_f, logits_p;
        std::string          error;
        ASSERT_TRUE(flash.ctx->decode(tokens_f, false, logits_f, error)) << error;
        ASSERT_TRUE(plain.ctx->decode(tokens_p, false, logits_p, error)) << error;
        for (int step = 0; step < c.steps; ++step) {
            float scale = 0.0f, diff = 0.0f;
            for (size_t i = 0; i < logits_f.size(); ++i) {
                scale = std::max(scale, std::fabs(logits_f[i]));
                diff  = std::max(diff, std::fabs(logits_f[i] - logits_p[i]));
            }
            ASSERT_LE(diff, c.tolerance * scale) << "step " << step;
            const int32_t id_f = Sampler({0.0f, 0, 1.0f, 1}).sample(logits_f.data(), V);
            const int32_t id_p = Sampler({0.0f, 0, 1.0f, 1}).sample(logits_p.data(), V);
            ASSERT_EQ(id_f, id_p) << "step " << step;
            ASSERT_TRUE(flash.ctx->decode({id_f}, false, logits_f, error)) << error;
            ASSERT_TRUE(plain.ctx->decode({id_p}, false, logits_p, error)) << error;
        }
    }
}

TEST(TraceRecorder, KeepsEveryComputation) {
    Loaded r = load(default_model(), true);
    ASSERT_TRUE(r.ctx);
    const std::string path = (temp_dir() / "trace.json").string();
    TraceRecorder     trace;
    std::string       error;
    ASSERT_TRUE(trace.open(path, error)) << error;
    trace.attach(r.ctx->sched());
    r.ctx->set_trace(&trace);
    std::vector<float> logits;
    ASSERT_TRUE(r.ctx->decode({1, 2, 3}, false, logits, error)) << error;
    ASSERT_TRUE(r.ctx->decode({4}, false, logits, error)) << error;
    ASSERT_TRUE(r.ctx->decode({5}, false, logits, error)) << error;
    trace.detach();
    r.ctx->set_trace(nullptr);
    ASSERT_TRUE(trace.finish(error)) << error;
    EXPECT_EQ(trace.n_computes(), 3);
    std::ifstream     in(path);
    std::stringstream text;
    text << in.rdbuf();
    const std::string json = text.str();
    EXPECT_EQ(json.rfind("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", 0), 0u);
    EXPECT_NE(json.find("\"name\": \"compute 0: 3 tokens after 0\", \"cat\": \"graph\""), std::string::npos);
    EXPECT_NE(json.find("\"name\": \"compute 1: 1 tokens after 3\", \"cat\": \"graph\""), std::string::npos);
    EXPECT_NE(json.find("\"name\": \"compute 2: 1 tokens after 4\", \"cat\": \"graph\""), std::string::npos);
    EXPECT_NE(json.find("\"args\": {\"compute\": 2, \"bytes\": "), std::string::npos); // a split of the last
    EXPECT_NE(json.find("\"tid\": 0, \"args\": {\"name\": \"CPU\"}"), std::string::npos);
    EXPECT_EQ(json.substr(json.size() - 4), "\n]}\n");
}

TEST(TraceRecorder, AnUnwritablePathFailsAtOpen) {
    TraceRecorder trace;
    std::string   error;
    EXPECT_FALSE(trace.open("/nonexistent/t.json", error));
    EXPECT_EQ(error, "cannot write the trace to '/nonexistent/t.json': No such file or directory");
}

} // namespace
} // namespace switchyard::run
