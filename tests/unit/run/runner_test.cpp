// switchyard-run's model, context and sampler (tools/run) on a tiny model written by switchyard-make-model's
// code into a temporary directory (64 wide, 2 layers, 4 query / 2 KV heads, 300 tokens). The logits of the
// same tokens must agree, within max |a - b| <= 1e-3 * max |logit| of the CPU alone, whatever the devices and
// splits (CPU; CPU + the test device with the layers split; the meta device over two CPUs with the layers
// split by heads), and whatever the order of evaluation (a batch, batches of 3, token by token through the KV
// cache). Weights repacked for the CPU (CPU_REPACK, the default where the CPU offers it) give the logits of the
// same weights mapped from the file (-nr). Bad files are errors with a message, never crashes.
#include "cli.h"
#include "context.h"
#include "cpu_repack.h"
#include "devices.h"
#include "model.h"
#include "sampler.h"

#include "test_models.h"

#include "model_writer/weights.h"
#include "test_device.h"

#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cstring>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace switchyard::run {
namespace {

using namespace testing_models;

// the test device, registered once so that Devices finds it by name
void register_test_device() {
    static ggml_backend_dev_t dev = [] {
        testing::TestDeviceConfig config;
        ggml_backend_dev_t        d = testing::test_device_create(config);
        ggml_backend_device_register(d);
        return d;
    }();
    (void) dev;
}

struct Loaded { // destroyed in reverse: the context, the model, then the devices
    std::unique_ptr<Devices> devices;
    std::unique_ptr<Model>   model;
    std::unique_ptr<Context> ctx;
};

Loaded load(const std::string & path, const DeviceOptions & options, int64_t n_batch = 512,
           std::vector<std::string> * notes_out = nullptr, int64_t n_ctx = 64) {
    Loaded       s;
    std::string error;
    s.model = Model::open(path, error);
    EXPECT_NE(s.model, nullptr) << error;
    s.devices = Devices::create(options, error);
    EXPECT_NE(s.devices, nullptr) << error;
    if (!s.model || !s.devices) {
        return s;
    }
    std::vector<std::string> notes;
    const Model &            m = *s.model;
    const Placement p = s.devices->place(m.hparams(), [&](const std::string & n) { return m.type_of(n); }, notes);
    EXPECT_TRUE(s.model->place(p, error)) << error;
    s.ctx = Context::create(*s.model, *s.devices, {n_ctx, n_batch}, error);
    EXPECT_NE(s.ctx, nullptr) << error;
    if (notes_out != nullptr) {
        *notes_out = notes;
    }
    return s;
}

DeviceOptions cpu_only() {
    DeviceOptions o;
    o.names     = {"CPU"};
    o.n_threads = 2;
    return o;
}

const std::vector<int32_t> kPrompt = {1, 17, 260, 5, 299, 42, 100};

std::vector<float> all_logits(Loaded & s, const std::vector<int32_t> & tokens) {
    std::vector<float> logits;
    std::string        error;
    EXPECT_TRUE(s.ctx->decode(tokens, true, logits, error)) << error;
    return logits;
}

// max |a - b| <= 1e-3 * max |want|
void expect_close(const std::vector<float> & got, const std::vector<float> & want) {
    ASSERT_EQ(got.size(), want.size());
    float scale = 0.0f, diff = 0.0f;
    for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_TRUE(std::isfinite(got[i])) << "at " << i;
        scale = std::max(scale, std::fabs(want[i]));
        diff  = std::max(diff, std::fabs(got[i] - want[i]));
    }
    ASSERT_GT(scale, 0.0f);
    EXPECT_LE(diff, 1e-3f * scale) << "max |logit| " << scale;
}

class RunnerTest : public ::testing::TestWithParam<std::string> {
protected:
    std::string path() const { return write_model("tiny_" + GetParam() + ".gguf", tiny_shape(GetParam())); }
};

TEST_P(RunnerTest, TestDeviceLayerSplitMatchesCpu) {
    register_test_device();
    const std::string p = path();
    Loaded             cpu = load(p, cpu_only());
    ASSERT_TRUE(cpu.ctx);
    const std::vector<float> want = all_logits(cpu, kPrompt);
    for (int ngl : {1, 2, 3}) { // the last layer, both layers, both layers and the output
        DeviceOptions o = cpu_only();
        o.names         = {"TEST"};
        o.n_gpu_layers  = ngl;
        Loaded s         = load(p, o);
        ASSERT_TRUE(s.ctx);
        SCOPED_TRACE("ngl " + std::to_string(ngl));
        expect_close(all_logits(s, kPrompt), want);
    }
}

// A Vulkan device where the registry has one (CTest shows lavapipe to this binary: GGML_VK_VISIBLE_DEVICES): all
// layers and the output on it, the ops it lacks run on the CPU through the scheduler.
TEST_P(RunnerTest, VulkanMatchesCpuWherePresent) {
    if (ggml_backend_dev_by_name("Vulkan0") == nullptr) {
        GTEST_SKIP() << "no Vulkan device (GGML_VK_VISIBLE_DEVICES shows CPU-type devices such as lavapipe)";
    }
    const std::string p   = path();
    Loaded             cpu = load(p, cpu_only());
    ASSERT_TRUE(cpu.ctx);
    const std::vector<float> want = all_logits(cpu, kPrompt);
    DeviceOptions            o    = cpu_only();
    o.names                       = {"Vulkan0"};
    o.n_gpu_layers                = 99;
    Loaded s                      = load(p, o);
    ASSERT_TRUE(s.ctx);
    expect_close(all_logits(s, kPrompt), want);
}

TEST_P(RunnerTest, MetaTensorSplitOverTwoCpusMatchesCpu) {
    const std::string p   = path();
    Loaded             cpu = load(p, cpu_only());
    ASSERT_TRUE(cpu.ctx);
    const std::vector<float> want = all_logits(cpu, kPrompt);
    DeviceOptions            o    = cpu_only();
    o.names                       = {"CPU", "CPU"};
    o.mode                        = SplitMode::Tensor;
    std::vector<std::string> notes;
    Loaded                    s = load(p, o, 512, &notes);
    ASSERT_TRUE(s.ctx);
    EXPECT_TRUE(notes.empty()) << notes.front(); // every layer really split
    expect_close(all_logits(s, kPrompt), want);
}

TEST_P(RunnerTest, KvCacheMatchesRecompute) {
    Loaded s = load(path(), cpu_only());
    ASSERT_TRUE(s.ctx);
    const int64_t        V      = s.model->hparams().n_vocab;
    std::vector<int32_t> tokens = kPrompt;
    std::vector<float>   logits, steps;
    std::string          error;
    ASSERT_TRUE(s.ctx->decode(tokens, false, logits, error)) << error;
    for (int i = 0; i < 5; ++i) { // greedy generation, token by token through the cache
        const int32_t id = Sampler({0.0f, 0, 1.0f, 1}).sample(logits.data(), static_cast<int32_t>(V));
        tokens.push_back(id);
        ASSERT_TRUE(s.ctx->decode({id}, false, logits, error)) << error;
        steps.insert(steps.end(), logits.begin(), logits.end());
    }
    s.ctx->clear();
    const std::vector<float> whole = all_logits(s, tokens);
    const size_t             first = kPrompt.size() * static_cast<size_t>(V); // logits after the first new token
    expect_close(steps, std::vector<float>(whole.begin() + static_cast<std::ptrdiff_t>(first), whole.end()));
}

TEST_P(RunnerTest, BatchMatchesTokenByToken) {
    const std::string p = path();
    Loaded             one = load(p, cpu_only(), 1);
    Loaded             three = load(p, cpu_only(), 3);
    Loaded             whole = load(p, cpu_only());
    ASSERT_TRUE(one.ctx && three.ctx && whole.ctx);
    const std::vector<float> want = all_logits(whole, kPrompt);
    expect_close(all_logits(three, kPrompt), want);
    std::vector<float> by_token;
    for (int32_t id : kPrompt) {
        const std::vector<float> l = all_logits(one, {id});
        by_token.insert(by_token.end(), l.begin(), l.end());
    }
    expect_close(by_token, want);
}

// Batch invariance (up to 32 tokens per graph, where every MUL_MAT takes the matrix-vector kernels, whatever the
// weight type): a token's logits are the same bits whether the prompt is fed token by token, 3 at a time or as one
// batch of 7.
TEST_P(RunnerTest, BatchesOfUpTo32TokensGiveTheBitsOfTokenByToken) {
    const std::string p     = path();
    Loaded            one   = load(p, cpu_only(), 1);
    Loaded            three = load(p, cpu_only(), 3);
    Loaded            whole = load(p, cpu_only());
    ASSERT_TRUE(one.ctx && three.ctx && whole.ctx);
    std::vector<float> by_token;
    for (int32_t id : kPrompt) {
        const std::vector<float> l = all_logits(one, {id});
        by_token.insert(by_token.end(), l.begin(), l.end());
    }
    for (Loaded * s : {&three, &whole}) {
        const std::vector<float> got = all_logits(*s, kPrompt);
        ASSERT_EQ(got.size(), by_token.size());
        size_t first = got.size();
        for (size_t i = 0; i < got.size() && first == got.size(); ++i) {
            if (std::memcmp(&got[i], &by_token[i], sizeof(float)) != 0) {
                first = i;
            }
        }
        EXPECT_EQ(first, got.size()) << (s == &three ? "3 per batch" : "one batch") << ": logit " << first
                                     << " differs from token by token";
    }
}

INSTANTIATE_TEST_SUITE_P(Types, RunnerTest, ::testing::Values("f32", "f16", "q8_0"));

// CPU_REPACK (the default) against the weights mapped from the file (-nr), 1, 3 and all 7 tokens per batch: the
// matrices only MUL_MAT reads are repacked; an untied token embedding (only GET_ROWS reads it) and the norms stay
// mapped.
ggml_backend_buffer_type_t buft_of(const ggml_tensor * t) { return ggml_backend_buffer_get_type(t->buffer); }

class RunnerRepackTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RunnerRepackTest, RepackedMatchesMapped) {
    const std::string p = write_model("repack_" + GetParam() + ".gguf", tiny_shape(GetParam()));
    DeviceOptions     mapped_options = cpu_only();
    mapped_options.repack            = false;
    Loaded mapped = load(p, mapped_options);
    ASSERT_TRUE(mapped.ctx);
    EXPECT_EQ(mapped.model->n_repacked(), 0);
    const std::vector<float> want = all_logits(mapped, kPrompt);
    ggml_backend_buffer_type_t buft = cpu_repack_buffer_type(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU));
    if (buft == nullptr) {
        GTEST_SKIP() << "the CPU device offers no CPU_REPACK buffer type on this machine";
    }
    for (int64_t n_batch : {1, 3, 512}) {
        SCOPED_TRACE("n_batch " + std::to_string(n_batch));
        Loaded s = load(p, cpu_only(), n_batch);
        ASSERT_TRUE(s.ctx);
        const Model & m = *s.model;
        EXPECT_EQ(m.n_repacked(), 2 * 7 + 1); // every layer's 7 matrices and the output
        EXPECT_GE(m.repacked_bytes(), ggml_nbytes(m.layers[0].wq));
        EXPECT_EQ(buft_of(m.layers[1].ffn_down), buft);
        EXPECT_EQ(buft_of(m.output), buft);
        EXPECT_NE(buft_of(m.token_embd), buft);
        EXPECT_NE(buft_of(m.layers[0].attn_norm), buft);
        expect_close(all_logits(s, kPrompt), want); // decode runs n_batch tokens per graph
    }
}

INSTANTIATE_TEST_SUITE_P(Types, RunnerRepackTest, ::testing::Values("q4_0", "q8_0"));

// Batch invariance with the weights repacked (the default where the CPU offers CPU_REPACK): a 1,050-token prompt fed
// token by token, 7 tokens per graph and 512 per graph (on 2 threads, and 512 on 1 and 3 threads) gives the same
// logits, bit for bit, for every token. The repacked products reduce each output in one order whatever columns share
// the call and whichever thread computes it, and FLASH_ATTN_EXT each query row (flash_attn.cpp), past one chunk of
// keys (1,024). "<type> tied": the output matrix is the token embedding, repacked too. Not on AMX, whose tile takes
// the products past 32 columns and sums in another order, nor for weights that are not repacked (their matrix-vector
// and GEMM paths round differently: f32 / f16 / bf16 where the CPU has no float tile, any weight mapped with -nr).
class RunnerInvarianceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RunnerInvarianceTest, BatchesOf1_7And512AndOneThreadGiveTheSameBits) {
    if (cpu_repack_buffer_type(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)) == nullptr) {
        GTEST_SKIP() << "the CPU device offers no CPU_REPACK buffer type on this machine";
    }
    if (ggml_cpu_has_amx_int8()) {
        GTEST_SKIP() << "AMX: batches past 32 tokens take the AMX tile, which sums in another order";
    }
    const std::string   type  = GetParam().substr(0, GetParam().find(' '));
    model_writer::Shape shape = tiny_shape(type); // the grid i-quants and iq1: random blocks (model_writer/weights.h)
    shape.tied_output         = GetParam().ends_with(" tied"); // the output matrix is the token embedding
    shape.n_embd              = 256; // whole q4_K blocks
    shape.n_ff                = 512;
    shape.n_ctx               = 1100;
    const std::string p       = write_model("invariance_" + type + (shape.tied_output ? "_tied" : "") + ".gguf", shape);
    std::vector<int32_t> prompt;
    for (int32_t i = 0; i < 1050; ++i) {
        prompt.push_back((i * 37 + 11) % 300);
    }
    std::vector<std::vector<float>> logits;
    // (tokens per graph, threads): 1, 7 and 512 tokens on 2 threads, and 512 on one and on three (other work splits:
    // three threads also split the panels and the keys unevenly)
    const std::pair<int64_t, int> runs[] = {{1, 2}, {7, 2}, {512, 2}, {512, 1}, {512, 3}};
    for (const auto & [n_batch, n_threads] : runs) {
        DeviceOptions options = cpu_only();
        options.n_threads     = n_threads;
        Loaded s              = load(p, options, n_batch, nullptr, 1100);
        ASSERT_TRUE(s.ctx);
        if (s.model->n_repacked() == 0 && !ggml_is_quantized(s.model->output->type)) {
            GTEST_SKIP() << "no repacked tile for " << GetParam() << " on this CPU"; // bf16 without AVX-512 BF16
        }
        ASSERT_EQ(s.model->n_repacked(), 2 * 7 + 1);
        logits.push_back(all_logits(s, prompt));
    }
    ASSERT_TRUE(std::all_of(logits[0].begin(), logits[0].end(), [](float l) { return std::isfinite(l); }));
    ASSERT_GT(*std::max_element(logits[0].begin(), logits[0].end()), *std::min_element(logits[0].begin(), logits[0].end()));
    for (size_t b = 1; b < logits.size(); ++b) {
        ASSERT_EQ(logits[b].size(), logits[0].size());
        size_t first = logits[0].size();
        for (size_t i = 0; i < logits[0].size() && first == logits[0].size(); ++i) {
            if (std::memcmp(&logits[b][i], &logits[0][i], sizeof(float)) != 0) {
                first = i;
            }
        }
        EXPECT_EQ(first, logits[0].size()) << runs[b].first << " tokens per graph on " << runs[b].second
                                           << " threads: logit " << first % 300 << " of token " << first / 300
                                           << " differs from token by token";
    }
}

INSTANTIATE_TEST_SUITE_P(Types, RunnerInvarianceTest,
                         ::testing::Values("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_K", "q3_K", "q4_K", "q5_K",
                                           "q6_K", "iq4_nl", "iq4_xs", "mxfp4", "tq1_0", "tq2_0", "iq2_xxs", "iq2_xs",
                                           "iq2_s", "iq3_xxs", "iq3_s", "iq1_s", "iq1_m", "f32", "f16", "bf16",
                                           "q8_0 tied", "q6_K tied", "f16 tied", "iq2_xxs tied"));

// f16 matrices are repacked where the CPU has their tile (CPU_REPACK's float form) and does not take f16 on AMX. A
// tied output is the token embedding, which GET_ROWS reads as well: repacked once (GET_ROWS unpacks the rows it
// reads), and its logits are the mapped model's.
TEST(Runner, RepackTakesATiedOutputOnceAndLeavesOtherWeightsMapped) {
    Loaded f16 = load(write_model("tiny_f16.gguf", tiny_shape("f16")), cpu_only());
    ASSERT_TRUE(f16.ctx);
    if (cpu_repack_buffer_type(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)) == nullptr) {
        EXPECT_EQ(f16.model->n_repacked(), 0);
    } else if (!ggml_cpu_has_amx_int8()) {
        EXPECT_EQ(f16.model->n_repacked(), 2 * 7 + 1);
    }
    model_writer::Shape shape = tiny_shape("q8_0");
    shape.tied_output       = true;
    const std::string p     = write_model("tied_q8_0.gguf", shape);
    Loaded            tied  = load(p, cpu_only());
    ASSERT_TRUE(tied.ctx);
    EXPECT_EQ(tied.model->output, tied.model->token_embd);
    EXPECT_NE(std::string(ggml_backend_buffer_name(tied.model->output_norm->buffer)), "CPU_REPACK");
    if (cpu_repack_buffer_type(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)) != nullptr) {
        EXPECT_EQ(std::string(ggml_backend_buffer_name(tied.model->token_embd->buffer)), "CPU_REPACK");
        EXPECT_EQ(tied.model->n_repacked(), 2 * 7 + 1);
        DeviceOptions mapped_options = cpu_only();
        mapped_options.repack        = false;
        Loaded mapped                = load(p, mapped_options);
        ASSERT_TRUE(mapped.ctx);
        EXPECT_EQ(mapped.model->n_repacked(), 0);
        expect_close(all_logits(tied, kPrompt), all_logits(mapped, kPrompt));
    }
}

TEST(Runner, NoRepackFlagIsParsed) {
    const auto parse = [](std::vector<std::string> args) {
        args.insert(args.begin(), "switchyard-run");
        std::vector<char *> argv;
        for (std::string & a : args) {
            argv.push_back(a.data());
        }
        Options     o;
        std::string error;
        EXPECT_TRUE(parse_options(static_cast<int>(argv.size()), argv.data(), o, error)) << error;
        return o.devices.repack;
    };
    EXPECT_TRUE(parse({}));
    EXPECT_TRUE(parse({"--bench", "-t", "2"}));
    EXPECT_FALSE(parse({"-nr"}));
    EXPECT_FALSE(parse({"--no-repack", "--bench"}));
}

TEST(Runner, TiedOutputUsesTheEmbedding) {
    model_writer::Shape shape = tiny_shape("f32");
    shape.tied_output       = true;
    register_test_device();
    const std::string p   = write_model("tied.gguf", shape);
    Loaded             cpu = load(p, cpu_only());
    ASSERT_TRUE(cpu.ctx);
    EXPECT_EQ(cpu.model->output, cpu.model->token_embd);
    DeviceOptions o = cpu_only();
    o.names         = {"TEST"};
    Loaded dev       = load(p, o); // the output layer on the test device: a copy of the embedding
    ASSERT_TRUE(dev.ctx);
    expect_close(all_logits(dev, kPrompt), all_logits(cpu, kPrompt));
}

TEST(Runner, DecodeRejectsBadTokensAndAFullContext) {
    Loaded s = load(write_model("tiny_f32.gguf", tiny_shape("f32")), cpu_only());
    ASSERT_TRUE(s.ctx);
    std::vector<float> logits;
    std::string        error;
    EXPECT_FALSE(s.ctx->decode({1, 300}, false, logits, error));
    EXPECT_NE(error.find("outside the vocabulary"), std::string::npos) << error;
    EXPECT_FALSE(s.ctx->decode(std::vector<int32_t>(65, 1), false, logits, error));
    EXPECT_NE(error.find("context is full"), std::string::npos) << error;
    EXPECT_EQ(s.ctx->n_past(), 0);
}

TEST(Runner, BadFilesAreErrors) {
    EXPECT_NE(open_error((temp_dir() / "missing.gguf").string()).find("cannot open"), std::string::npos);
    const std::string garbage = (temp_dir() / "garbage.gguf").string();
    std::ofstream(garbage) << "this is not a GGUF file at all";
    EXPECT_NE(open_error(garbage).find("not a valid GGUF"), std::string::npos);

    const std::string missing = write_model("missing_tensor.gguf", tiny_shape("f32"), [](model_writer::Plan & p) {
        p.tensors.erase(std::remove_if(p.tensors.begin(), p.tensors.end(),
                                       [](const model_writer::TensorPlan & t) { return t.name == "blk.1.ffn_up.weight"; }),
                        p.tensors.end());
    });
    EXPECT_NE(open_error(missing).find("missing tensor blk.1.ffn_up.weight"), std::string::npos);

    const std::string mismatch = write_model("shape.gguf", tiny_shape("f32"), [](model_writer::Plan & p) {
        for (model_writer::TensorPlan & t : p.tensors) {
            if (t.name == "blk.0.attn_k.weight") {
                t.ne1 = 64; // 2 KV heads of 16 make 32
            }
        }
    });
    EXPECT_NE(open_error(mismatch).find("blk.0.attn_k.weight has shape [64, 64, 1, 1], expected [64, 32]"),
              std::string::npos)
        << open_error(mismatch);
}

TEST(Runner, UnsupportedArchitectureIsAnError) {
    const std::string path = (temp_dir() / "arch.gguf").string();
    gguf_context *    g    = gguf_init_empty();
    gguf_set_val_str(g, "general.architecture", "mamba");
    ASSERT_TRUE(gguf_write_to_file(g, path.c_str(), false));
    gguf_free(g);
    EXPECT_NE(open_error(path).find("unsupported architecture 'mamba'"), std::string::npos);
}

TEST(Runner, UnknownDeviceAndBadSplitAreErrors) {
    std::string   error;
    DeviceOptions o;
    o.names = {"NO_SUCH_DEVICE"};
    EXPECT_EQ(Devices::create(o, error), nullptr);
    EXPECT_NE(error.find("unknown device 'NO_SUCH_DEVICE'"), std::string::npos) << error;
    o.names = {"CPU"};
    o.mode  = SplitMode::Tensor;
    EXPECT_EQ(Devices::create(o, error), nullptr);
    EXPECT_NE(error.find("two devices"), std::string::npos) << error;
}

TEST(Sampler, GreedyTopKAndSeeds) {
    const std::vector<float> logits = {0.1f, 2.0f, -1.0f, 1.9f, 0.0f};
    EXPECT_EQ(Sampler({0.0f, 40, 0.95f, 1}).sample(logits.data(), 5), 1);
    EXPECT_EQ(Sampler({1.0f, 1, 1.0f, 1}).sample(logits.data(), 5), 1); // top-k 1 is greedy
    const auto draw = [&](uint32_t seed) {
        Sampler              s({1.5f, 0, 1.0f, seed});
        std::vector<int32_t> ids;
        for (int i = 0; i < 50; ++i) {
            ids.push_back(s.sample(logits.data(), 5));
        }
        return ids;
    };
    EXPECT_EQ(draw(3), draw(3));
    EXPECT_NE(draw(3), draw(4));
    // top-p 0.5 keeps the two largest (close) logits only
    Sampler s({1.0f, 0, 0.5f, 9});
    for (int i = 0; i < 50; ++i) {
        const int32_t id = s.sample(logits.data(), 5);
        EXPECT_TRUE(id == 1 || id == 3) << id;
    }
}

} // namespace
} // namespace switchyard::run
