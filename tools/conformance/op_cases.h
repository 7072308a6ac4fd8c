// The one list of op test cases, shared by the conformance tests, the conformance tool (switchyard-ops) and the
// benchmarks. A case builds a small graph with op constructors from inputs it declares; the harness
// (op_harness.h) runs it on a backend and on the scalar reference and compares.
#pragma once

#include "ggml.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace switchyard::testing {

enum class InputKind {
    Uniform,  // uniform in [-1, 1]
    Positive, // uniform in [0.1, 2]
    Indices,  // integers in [0, limit)
    Distinct, // integers in [0, limit), distinct within each row (scatter targets)
    Mask,     // 0 or -inf (causal-like, never a whole row of -inf)
};

struct InputSpec {
    ggml_tensor * tensor;
    InputKind     kind;
    int64_t       limit; // for Indices
};

// Passed to a case's builder: creates the case's inputs in ctx and remembers how to fill them.
class CaseBuilder {
public:
    explicit CaseBuilder(ggml_context * ctx) : ctx_(ctx) {}

    ggml_tensor * input(ggml_type type, int64_t ne0, int64_t ne1 = 1, int64_t ne2 = 1, int64_t ne3 = 1,
                        InputKind kind = InputKind::Uniform, int64_t limit = 0);

    ggml_context *                 ctx() const { return ctx_; }
    const std::vector<InputSpec> & inputs() const { return inputs_; }

private:
    ggml_context *         ctx_;
    std::vector<InputSpec> inputs_;
};

struct OpCase {
    std::string                                 name;  // e.g. "MUL_MAT(type_a=q4_0,type_b=f32,m=16,n=1,k=256)"
    ggml_op                                     op;    // the op under test (the output's op)
    std::function<ggml_tensor *(CaseBuilder &)> build; // returns the output; may build helper nodes first
    double                                      max_nmse = 1e-7;
    bool                                        rows_unordered = false; // compare each row as a set (TOP_K)
    double                                      flops = 0; // for perf: floating point operations per run (0: memory-bound)
    // the case calls a function of the application on the host (custom ops): only CPU devices run it, others
    // must refuse it in supports_op
    bool                                        host_only = false;
};

// Every case, in a fixed order.
const std::vector<OpCase> & op_cases();

// Appends the cases of the vision encoders' ops (padding, resampling, SAM windows, depthwise and transposed
// convolution, rope offsets; op_cases_vision.cpp); called once by op_cases().
void add_vision_cases(std::vector<OpCase> & cases);
// Appends the cases of the training ops (gradient ops, multi-section rope, loss, optimizer steps;
// op_cases_train.cpp); called once by op_cases().
void add_train_cases(std::vector<OpCase> & cases);
// Appends the cases of the second convolution batch (im2col_back / _3d, col2im_1d, direct conv 2d / 3d, conv
// transpose 2d, pool_2d_back; op_cases_conv.cpp); called once by op_cases().
void add_conv_cases(std::vector<OpCase> & cases);
// Appends the cases of the state-space and linear-attention ops (op_cases_recurrent.cpp); called once by
// op_cases().
void add_recurrent_cases(std::vector<OpCase> & cases);

// Appends the cases of the DeepSeek V3.2 / V4 ops (lightning indexer, hyper-connections; op_cases_deepseek.cpp);
// called once by op_cases().
void add_deepseek_cases(std::vector<OpCase> & cases);

// Larger cases for throughput measurements (switchyard-ops perf): model-sized MUL_MAT at batch 1 and 512 for
// the common weight types, SOFT_MAX, RMS_NORM, ROPE and FLASH_ATTN_EXT.
const std::vector<OpCase> & perf_cases();

} // namespace switchyard::testing
