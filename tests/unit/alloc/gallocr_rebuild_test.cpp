// A graph rebuilt every step in the same context memory (as engines do): its tensors are the same objects at
// the same addresses, so the allocator keeps its numbering of the graph. These tests change what a rebuild can
// change -- an edge, a view's source, a shape, a tensor given memory by the caller -- with every tensor at its
// old address, and check that the allocation still follows the new graph (AllocCheck, written from the
// allocator's contract) and that an unchanged rebuild gets the same addresses.
#include "alloc_check.h"
#include "random_graph.h"
#include "test_buft.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <gtest/gtest.h>

#include <vector>

namespace switchyard::alloc_test {
namespace {

// Weights have memory of their own. x (input) -> h = rms_norm -> up = unary(mul_mat) -> down = mul_mat(up) -> e1 = mul_mat(down)
// -> s = add(e1, view of h) -> out = unary(mul_mat(s)) (output). Every activation has the same size, so a
// stale plan would fit every variant by size; only the lifetimes tell them apart.
enum class Variant {
    Base,
    OtherEdge,    // `down` reads x instead of up: up is consumed by nobody, so it must survive the graph
    OtherViewSrc, // the view's view_src is up (its src[0] still h): up must live until s
    Bigger,       // x has twice the tokens
};

struct Step {
    std::vector<char>  memory; // the context's memory, reused by every rebuild
    std::vector<float> weights = std::vector<float>(16 * 16);
    ggml_context *    ctx  = nullptr;
    ggml_cgraph *     g    = nullptr;
    ggml_tensor *     x    = nullptr;
    ggml_tensor *     h    = nullptr;
    ggml_tensor *     up   = nullptr;
    ggml_tensor *     out  = nullptr;

    Step() : memory(ggml_tensor_overhead() * 64 + ggml_graph_overhead()) {}
    ~Step() { ggml_free(ctx); }

    // Frees the previous graph and builds the variant in the same memory (same tensor addresses).
    ggml_cgraph * build(Variant v) {
        ggml_free(ctx);
        ctx = ggml_init({memory.size(), memory.data(), true});
        ManualOps     ops{ctx};
        const int64_t n_embd = 16, n_tokens = v == Variant::Bigger ? 8 : 4;
        auto          weight = [&] { // memory of its own: only the activations are planned
            ggml_tensor * w = ops.leaf(n_embd, n_embd);
            w->data         = weights.data();
            return w;
        };
        x = ops.leaf(n_embd, n_tokens);
        ggml_set_input(x);
        h  = ops.rms_norm(x);
        up = ops.unary(ops.mul_mat(weight(), h));
        ggml_tensor * down = ops.mul_mat(weight(), v == Variant::OtherEdge ? x : up);
        ggml_tensor * e1   = ops.mul_mat(weight(), down);
        ggml_tensor * view = ops.view_rows(h, 0, n_tokens);
        if (v == Variant::OtherViewSrc) {
            view->view_src = up; // same shape and type as h
        }
        ggml_tensor * s = ops.add(e1, view);
        out             = ops.unary(ops.mul_mat(weight(), s));
        ggml_set_output(out);
        g = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, up); // in the graph (same positions) even where no node reads it
        ggml_build_forward_expand(g, out);
        return g;
    }
};

class GallocrRebuild : public ::testing::Test {
protected:
    void SetUp() override {
        buft   = init_test_buft(test, {});
        galloc = ggml_gallocr_new(buft);
    }
    void TearDown() override { ggml_gallocr_free(galloc); }

    // Allocates `variant` rebuilt in the step's memory, checked by the oracle.
    void alloc_checked(Variant variant) {
        ggml_cgraph * g = step.build(variant);
        AllocCheck    check(g, buft);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g));
        check.verify();
    }

    TestBuft                   test;
    ggml_backend_buffer_type_t buft   = nullptr;
    ggml_gallocr_t             galloc = nullptr;
    Step                       step;
};

TEST_F(GallocrRebuild, UnchangedRebuildGetsTheSameAddresses) {
    alloc_checked(Variant::Base);
    ggml_tensor * out      = step.out;
    void *        out_data = step.out->data;
    void *        h_data   = step.h->data;
    alloc_checked(Variant::Base);
    EXPECT_EQ(step.out, out); // the rebuild did reuse the addresses
    EXPECT_EQ(step.out->data, out_data);
    EXPECT_EQ(step.h->data, h_data);
}

TEST_F(GallocrRebuild, ChangedEdgeAtTheSameAddressesIsPlannedAgain) {
    alloc_checked(Variant::Base);
    alloc_checked(Variant::OtherEdge);
    alloc_checked(Variant::Base);
}

TEST_F(GallocrRebuild, ChangedViewSourceAtTheSameAddressesIsPlannedAgain) {
    // planned as Base, up is free after its reader down, and e1 takes its memory. Replaying that plan on
    // OtherViewSrc (the view aliases up, which must then live until s) would overwrite up.
    alloc_checked(Variant::Base);
    alloc_checked(Variant::OtherViewSrc);
    alloc_checked(Variant::Base);
}

TEST_F(GallocrRebuild, BiggerTensorsAtTheSameAddressesGrowTheBuffer) {
    alloc_checked(Variant::Base);
    const size_t before = ggml_gallocr_get_buffer_size(galloc, 0);
    alloc_checked(Variant::Bigger);
    EXPECT_GT(ggml_gallocr_get_buffer_size(galloc, 0), before);
}

TEST_F(GallocrRebuild, TensorGivenMemoryByTheCallerIsLeftAlone) {
    alloc_checked(Variant::Base);
    ggml_cgraph *    g = step.build(Variant::Base);
    std::vector<float> own(static_cast<size_t>(ggml_nelements(step.up)));
    step.up->data = own.data(); // e.g. a tensor the caller placed in memory of its own
    AllocCheck check(g, buft);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc, g));
    check.verify();
    EXPECT_EQ(step.up->data, own.data());
}

} // namespace
} // namespace switchyard::alloc_test
