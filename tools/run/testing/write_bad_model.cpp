// switchyard-run-bad-model KIND FILE: writes a small model with one defect, for switchyard-run's command tests
// (tools/run/CMakeLists.txt). The model is the f32 one of unit_run's tests (64 wide, 2 layers, 4 / 2 heads, 300
// tokens), written by the model writer (tools/model_writer/), then rewritten (model_rewrite.h) as KIND says:
//   nan-matrix    blk.1.ffn_up.weight[0] = NaN (found only at run time, by the logits)
//   nan-norm      blk.1.ffn_norm.weight[5] = NaN
//   i8            every weight matrix stored as i8
//   vocab-320     tokenizer.ggml.tokens of 320 entries for the embedding's 300 rows
//   rms-eps-nan   llama.attention.layer_norm_rms_epsilon = NaN
//   rope-base-0   llama.rope.freq_base = 0
// Exit status 0 written, 1 an error, 2 a usage error. Built with the tests only.
#include "model_rewrite.h"

#include "model_writer/weights.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <vector>

using namespace switchyard;
using switchyard::run::testing_models::Rewrite;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

const std::map<std::string, Rewrite> & kinds() {
    static const std::map<std::string, Rewrite> table = {
        {"nan-matrix", {{}, {}, [](const std::string & name, float * v, int64_t) {
             if (name == "blk.1.ffn_up.weight") {
                 v[0] = kNaN;
             }
         }}},
        {"nan-norm", {{}, {}, [](const std::string & name, float * v, int64_t) {
             if (name == "blk.1.ffn_norm.weight") {
                 v[5] = kNaN;
             }
         }}},
        {"i8", {{}, [](const std::string & name, ggml_type t) {
             return name.find("norm") == std::string::npos ? GGML_TYPE_I8 : t;
         }, {}}},
        {"vocab-320", {[](gguf_context * g) {
             std::vector<const char *> tokens(320, "t");
             gguf_set_arr_str(g, "tokenizer.ggml.tokens", tokens.data(), tokens.size());
         }, {}, {}}},
        {"rms-eps-nan", {[](gguf_context * g) { gguf_set_val_f32(g, "llama.attention.layer_norm_rms_epsilon", kNaN); }, {}, {}}},
        {"rope-base-0", {[](gguf_context * g) { gguf_set_val_f32(g, "llama.rope.freq_base", 0.0f); }, {}, {}}},
    };
    return table;
}

} // namespace

int main(int argc, char ** argv) {
    if (argc != 3 || kinds().count(argv[1]) == 0) {
        std::fprintf(stderr, "usage: switchyard-run-bad-model nan-matrix|nan-norm|i8|vocab-320|rms-eps-nan|rope-base-0 FILE\n");
        return 2;
    }
    model_writer::Shape shape;
    shape.preset      = "test";
    shape.n_embd      = 64;
    shape.n_layer     = 2;
    shape.n_ff        = 128;
    shape.n_head      = 4;
    shape.n_head_kv   = 2;
    shape.n_vocab     = 300;
    shape.n_ctx       = 128;
    shape.weight_type = "f32";
    shape.seed        = 7;
    std::string               error;
    const model_writer::Plan    plan = model_writer::plan_tensors(shape, error);
    const std::string         good = std::string(argv[2]) + ".good";
    model_writer::Summary       summary;
    const bool ok = error.empty() && model_writer::write_model(good, shape, plan, 1, summary, error) &&
                    run::testing_models::rewrite_gguf(good, argv[2], kinds().at(argv[1]), error);
    std::remove(good.c_str());
    if (!ok) {
        std::fprintf(stderr, "switchyard-run-bad-model: %s\n", error.c_str());
        return 1;
    }
    return 0;
}
