// A graph rebuilt for every step in the same context memory, as engines do: the scheduler then keeps its
// numbering of the graph's tensors (BackendIds, GraphIndex) instead of hashing them again. These tests rebuild
// the block step after step at unchanged addresses -- the same graph, a graph with another edge, a graph whose
// node the user pins to a backend between reset and alloc -- and check every result against the CPU reference
// and the assignment against what a fresh scheduler chooses.
#include "sched_fixture.h"

#include "backend/sched/sched.h"

#include <cstring>

#include <regex>
#include <vector>

namespace switchyard::testing {
namespace {

// The fixture's block with one more node, s = scale(u), built into memory that outlives it, so every rebuild
// puts each tensor where the previous build had it. a = silu(u), or with other_edge silu(s): the same tensors
// at the same positions, one source pointer apart. The tests run SCALE on the CPU only, so the two graphs
// split differently.
// The op of the block's node s (same tensor, same source u): what the kept-assignment tests change between steps.
enum class ScaleNode { kHalf, kQuarter, kSqr, kSqrt };

struct RebuiltBlock {
    std::vector<char> memory = std::vector<char>(64 * ggml_tensor_overhead() + ggml_graph_overhead());
    ggml_context *    ctx    = nullptr;
    ggml_cgraph *     graph  = nullptr;
    ggml_tensor *     x = nullptr, *a = nullptr, *out = nullptr;

    ggml_cgraph * build(const PlacedWeights & w, bool other_edge = false, ScaleNode s_node = ScaleNode::kHalf) {
        ggml_free(ctx);
        ctx = ggml_init({memory.size(), memory.data(), true});
        x   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, kEmbd, kTokens);
        ggml_set_name(x, "x");
        ggml_set_input(x);
        ggml_tensor * h  = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), w.norm);
        ggml_tensor * u  = ggml_mul_mat(ctx, w.up, h);
        ggml_tensor * sc = s_node == ScaleNode::kSqr    ? ggml_sqr(ctx, u)
                           : s_node == ScaleNode::kSqrt ? ggml_sqrt(ctx, u)
                                                        : ggml_scale(ctx, u, s_node == ScaleNode::kHalf ? 0.5f : 0.25f);
        a                = ggml_silu(ctx, other_edge ? sc : u);
        ggml_tensor * d  = ggml_mul_mat(ctx, w.down, a);
        out              = ggml_soft_max(ctx, ggml_add(ctx, d, x));
        ggml_set_output(out);
        graph = ggml_new_graph(ctx);
        ggml_build_forward_expand(graph, sc); // in the graph (same position) when a does not read it
        ggml_build_forward_expand(graph, out);
        return graph;
    }
    ~RebuiltBlock() { ggml_free(ctx); }
};

// The plan without the compute buffer sizes (a scheduler that ran bigger graphs before keeps bigger buffers).
std::string assignment_of(ggml_backend_sched_t sched) {
    return std::regex_replace(plan_of(sched), std::regex(R"("compute_buffer_bytes": [0-9]+)"), "");
}

class SchedRebuild : public SchedTest {
protected:
    void SetUp() override {
        SchedTest::SetUp();
        test_device_set_supports_op(dev, [](const ggml_tensor * op) { return op->op != GGML_OP_SCALE; });
    }

    // Computes the rebuilt block with sched for input `seed` and returns out.
    std::vector<float> step(ggml_backend_sched_t sched, RebuiltBlock & b, const PlacedWeights & pw, bool other_edge,
                            uint32_t seed, ggml_backend_t pin_a = nullptr, ScaleNode s_node = ScaleNode::kHalf) {
        ggml_backend_sched_reset(sched);
        ggml_cgraph * g = b.build(pw, other_edge, s_node);
        if (pin_a != nullptr) {
            ggml_backend_sched_set_tensor_backend(sched, b.a, pin_a);
        }
        EXPECT_TRUE(ggml_backend_sched_alloc_graph(sched, g));
        const std::vector<float> input = make_input(seed);
        ggml_backend_tensor_set(b.x, input.data(), 0, input.size() * sizeof(float));
        EXPECT_EQ(ggml_backend_sched_graph_compute(sched, g), GGML_STATUS_SUCCESS);
        return read_tensor(b.out);
    }

    // The GPU-like device refuses SCALE by 0.5 (and SQRT with and_sqrt) and runs everything else.
    void refuse_half_scale_on_gpu(bool and_sqrt) {
        test_device_set_supports_op(dev, [and_sqrt](const ggml_tensor * op) {
            float scale = 0;
            std::memcpy(&scale, op->op_params, sizeof(scale));
            return (op->op != GGML_OP_SCALE || scale != 0.5f) && !(and_sqrt && op->op == GGML_OP_SQRT);
        });
    }

    // The same step on a fresh scheduler and a freshly placed graph: what the rebuilt one must equal.
    std::vector<float> fresh(const PlacedWeights & pw, bool other_edge, uint32_t seed, std::string * plan,
                             ggml_backend_t pin_a = nullptr, ScaleNode s_node = ScaleNode::kHalf) {
        ggml_backend_sched_t sched = make_sched();
        RebuiltBlock         b;
        std::vector<float>   result = step(sched, b, pw, other_edge, seed, pin_a, s_node);
        *plan                       = assignment_of(sched);
        ggml_backend_sched_free(sched);
        return result;
    }
};

TEST_F(SchedRebuild, SameAddressesEveryStepMatchAFreshScheduler) {
    const Weights        w(21);
    PlacedWeights        pw(w, gpu, cpu);
    ggml_backend_sched_t sched = make_sched();
    RebuiltBlock         b;
    // same graph twice, another edge, back, and again: each step as a fresh scheduler would do it
    const bool edges[] = {false, false, true, true, false, false};
    for (uint32_t s = 0; s < 6; ++s) {
        std::string              want_plan;
        const std::vector<float> want = fresh(pw, edges[s], 100 + s, &want_plan);
        expect_close(step(sched, b, pw, edges[s], 100 + s), want);
        EXPECT_EQ(assignment_of(sched), want_plan) << "step " << s;
    }
    ggml_backend_sched_free(sched);
}

TEST_F(SchedRebuild, CpuOnlyRebuildsMatchTheReference) {
    const Weights  w(22);
    ggml_backend_t backends[1] = {cpu};
    PlacedWeights  pw(w, cpu, cpu);
    auto *         sched = ggml_backend_sched_new(backends, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, true);
    RebuiltBlock   b;
    for (uint32_t s = 0; s < 4; ++s) {
        const std::vector<float> input = make_input(200 + s);
        expect_close(step(sched, b, pw, false, 200 + s), cpu_reference(w, input));
    }
    ggml_backend_sched_free(sched);
}

TEST_F(SchedRebuild, PinningBetweenResetAndAllocIsHonoured) {
    const Weights        w(23);
    PlacedWeights        pw(w, gpu, cpu);
    ggml_backend_sched_t sched = make_sched();
    RebuiltBlock         b;
    for (uint32_t s = 0; s < 4; ++s) {
        ggml_backend_t           pin = s % 2 == 1 ? cpu : nullptr;
        std::string              want_plan;
        const std::vector<float> want = fresh(pw, false, 300 + s, &want_plan, pin);
        expect_close(step(sched, b, pw, false, 300 + s, pin), want);
        EXPECT_EQ(assignment_of(sched), want_plan) << "step " << s;
        if (pin != nullptr) {
            EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b.a), cpu);
        }
    }
    ggml_backend_sched_free(sched);
}

// A graph that recurs -- same tensor objects, same links -- takes its kept assignment back (GraphIndex) only while
// every tensor's facts are those it was assigned from. Here the GPU refuses SCALE by 0.5 and SQRT only, so each
// change of node s's op or parameters at unchanged addresses moves it between the devices (SQR -> SQRT changes
// the op alone, SCALE 0.5 -> 0.25 the parameters alone); every step must match a fresh scheduler, and a repeated
// step must really take the kept assignment back.
TEST_F(SchedRebuild, KeptAssignmentFollowsOpAndParameterChanges) {
    refuse_half_scale_on_gpu(/*and_sqrt=*/true);
    const Weights        w(24);
    PlacedWeights        pw(w, gpu, cpu);
    ggml_backend_sched_t sched = make_sched();
    RebuiltBlock         b;
    const ScaleNode      ops[] = {ScaleNode::kHalf, ScaleNode::kHalf, ScaleNode::kHalf, ScaleNode::kQuarter,
                                  ScaleNode::kQuarter, ScaleNode::kHalf, ScaleNode::kSqr, ScaleNode::kSqr,
                                  ScaleNode::kSqr, ScaleNode::kSqrt, ScaleNode::kSqrt, ScaleNode::kSqrt,
                                  ScaleNode::kHalf, ScaleNode::kHalf};
    std::string          plans[4];
    for (uint32_t s = 0; s < std::size(ops); ++s) {
        std::string              want_plan;
        const std::vector<float> want = fresh(pw, true, 400 + s, &want_plan, nullptr, ops[s]);
        const bool repeat = s >= 2 && ops[s] == ops[s - 1] && ops[s - 1] == ops[s - 2];
        expect_close(step(sched, b, pw, true, 400 + s, nullptr, ops[s]), want);
        EXPECT_EQ(assignment_of(sched), want_plan) << "step " << s;
        if (repeat) { // kept at the step before (its numbering was taken back) and taken back here
            EXPECT_TRUE(sched->index.assignment_kept) << "step " << s;
        }
        plans[static_cast<int>(ops[s])] = want_plan;
    }
    // each change moves node s, so a kept assignment taken back across it would show
    EXPECT_NE(plans[0], plans[1]);
    EXPECT_NE(plans[0], plans[2]);
    EXPECT_NE(plans[2], plans[3]);
    ggml_backend_sched_free(sched);
}

// A graph whose facts change at every step stops paying for keeping assignments it never takes back, and takes
// one back again once it settles (GraphIndex::kept_misses): every step still as a fresh scheduler assigns it.
TEST_F(SchedRebuild, KeptAssignmentBacksOffWhileFactsChangeAndReturns) {
    refuse_half_scale_on_gpu(/*and_sqrt=*/false);
    const Weights        w(26);
    PlacedWeights        pw(w, gpu, cpu);
    ggml_backend_sched_t sched = make_sched();
    RebuiltBlock         b;
    const int            n_changing = 24, n_settled = sched::GraphIndex::kBackOffSteps + 4;
    bool                 backed_off = false;
    for (int s = 0; s < n_changing + n_settled; ++s) {
        const ScaleNode op = s < n_changing && s % 2 == 1 ? ScaleNode::kQuarter : ScaleNode::kHalf;
        std::string     want_plan;
        const auto      want = fresh(pw, true, 600 + static_cast<uint32_t>(s), &want_plan, nullptr, op);
        expect_close(step(sched, b, pw, true, 600 + static_cast<uint32_t>(s), nullptr, op), want);
        ASSERT_EQ(assignment_of(sched), want_plan) << "step " << s;
        backed_off = backed_off || (s >= 1 && s < n_changing && !sched->index.assignment_kept); // step 0: numbered
    }
    EXPECT_TRUE(backed_off) << "no step skipped keeping while the facts changed at every step";
    EXPECT_EQ(sched->index.kept_misses, 0) << "no kept assignment was taken back once the graph settled";
    ggml_backend_sched_free(sched);
}

// The same for a fact outside the graph's tensors' own fields: the usage of the buffer holding weights (ops on
// weights run where the weights are; on a buffer of any usage they follow their neighbours).
TEST_F(SchedRebuild, KeptAssignmentFollowsBufferUsage) {
    const Weights        w(25);
    PlacedWeights        pw(w, gpu, cpu);
    ggml_backend_sched_t sched = make_sched();
    RebuiltBlock         b;
    const bool           weights[] = {true, true, true, false, false, false, true, true};
    std::string          plans[2];
    for (uint32_t s = 0; s < std::size(weights); ++s) {
        ggml_backend_buffer_set_usage(pw.buf_b, weights[s] ? GGML_BACKEND_BUFFER_USAGE_WEIGHTS
                                                           : GGML_BACKEND_BUFFER_USAGE_ANY);
        std::string              want_plan;
        const std::vector<float> want = fresh(pw, false, 500 + s, &want_plan);
        expect_close(step(sched, b, pw, false, 500 + s), want);
        EXPECT_EQ(assignment_of(sched), want_plan) << "step " << s;
        plans[weights[s] ? 1 : 0] = want_plan;
    }
    EXPECT_NE(plans[0], plans[1]);
    ggml_backend_sched_free(sched);
}

} // namespace
} // namespace switchyard::testing
