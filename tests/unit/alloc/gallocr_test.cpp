// The graph allocator on constructed graphs: in-place reuse where allowed and not elsewhere, views, inputs and
// outputs, tensors allocated beforehand, alignment and alloc sizes, zero-size tensors.
#include "alloc_check.h"
#include "random_graph.h"
#include "test_buft.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <gtest/gtest.h>

#include <vector>

namespace switchyard::alloc_test {
namespace {

class Gallocr : public ::testing::Test {
protected:
    void SetUp() override { make({32, SIZE_MAX, 0}); }

    void make(const TestBuftConfig & config) {
        release();
        buft_   = init_test_buft(test_, config);
        ctx_    = ggml_init({ggml_tensor_overhead() * 256 + ggml_graph_overhead(), nullptr, true});
        ops_    = ManualOps{ctx_};
        galloc_ = ggml_gallocr_new(buft_);
    }

    void TearDown() override {
        release();
        EXPECT_EQ(test_.live_buffers, 0);
    }

    void release() {
        ggml_gallocr_free(galloc_);
        galloc_ = nullptr;
        if (ctx_ != nullptr) {
            ggml_free(ctx_);
            ctx_ = nullptr;
        }
    }

    ggml_cgraph * graph(std::initializer_list<ggml_tensor *> results) {
        ggml_cgraph * g = ggml_new_graph(ctx_);
        for (ggml_tensor * t : results) {
            ggml_build_forward_expand(g, t);
        }
        return g;
    }

    // Allocates g and runs the oracle on it.
    void alloc_and_check(ggml_cgraph * g) {
        AllocCheck check(g, buft_);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc_, g));
        check.verify();
    }

    ggml_tensor * input(int64_t ne0, int64_t ne1) {
        ggml_tensor * t = ops_.leaf(ne0, ne1);
        ggml_set_input(t);
        return t;
    }

    TestBuft                   test_;
    ggml_backend_buffer_type_t buft_   = nullptr;
    ggml_context *             ctx_    = nullptr;
    ManualOps                  ops_{nullptr};
    ggml_gallocr_t             galloc_ = nullptr;
};

TEST_F(Gallocr, InPlaceChainSharesOneBlock) {
    ggml_tensor * x   = input(64, 8);
    ggml_tensor * w   = ops_.leaf(64, 64);
    ggml_tensor * h   = ops_.mul_mat(w, x);
    ggml_tensor * a   = ops_.unary(h);
    ggml_tensor * b   = ops_.scale(a);
    ggml_tensor * out = ops_.add(b, ops_.leaf(64, 8));
    alloc_and_check(graph({out}));
    EXPECT_EQ(a->data, h->data);
    EXPECT_EQ(b->data, h->data);
    EXPECT_EQ(out->data, h->data);
    EXPECT_NE(h->data, x->data);
    // x, w, the bias and the chain are alive together at the last node: 2 KiB + 16 KiB + 2 KiB + 2 KiB
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc_, 0), 2048u + 16384u + 2048u + 2048u);
}

TEST_F(Gallocr, NoInPlaceWhenTheSourceIsUsedLater) {
    ggml_tensor * h = ops_.unary(input(16, 4));
    ggml_tensor * a = ops_.unary(h);
    ggml_tensor * c = ops_.add(a, h);
    alloc_and_check(graph({c}));
    EXPECT_NE(a->data, h->data);
    EXPECT_EQ(c->data, a->data); // a dies at c, h does not own src[0]
}

// An output's memory is never taken over in place; an input's is, by its last reader (upstream 0.25.1's
// test-alloc expects it: a scale of a 16-byte input allocates 16 bytes in all).
TEST_F(Gallocr, NoInPlaceFromOutputsInputsTakenOverByTheirLastReader) {
    ggml_tensor * x = input(16, 4);
    ggml_tensor * a = ops_.unary(x);
    ggml_set_output(a);
    ggml_tensor * b = ops_.unary(a);
    ggml_tensor * c = ops_.unary(b);
    alloc_and_check(graph({c}));
    EXPECT_EQ(a->data, x->data); // x is an input read only by a
    EXPECT_NE(b->data, a->data); // a is an output
    EXPECT_EQ(c->data, b->data);
}

// The result of an in-place op on an offset-0 view of a larger dying tensor takes the whole tensor's memory (upstream
// test-alloc's test_reallocation: 24 + 16 bytes in all, not 24 + 16 + 16).
TEST_F(Gallocr, AResultSmallerThanItsViewsSourceTakesItInPlace) {
    ggml_tensor * x = input(16, 6);                  // 384 bytes
    ggml_tensor * y = input(16, 4);                  // 256 bytes
    ggml_tensor * v = ops_.view_rows(x, 0, 4);       // its first 256 bytes
    ggml_tensor * r = ops_.add(v, y);
    alloc_and_check(graph({r}));
    EXPECT_EQ(r->data, x->data);
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc_, 0), 384u + 256u);
}

TEST_F(Gallocr, InputReadTwiceIsNotTakenOver) {
    ggml_tensor * x = input(16, 4);
    ggml_tensor * a = ops_.unary(x);
    ggml_tensor * b = ops_.add(a, x); // x is read again after a
    alloc_and_check(graph({b}));
    EXPECT_NE(a->data, x->data);
}

// Whether the bytes of a and b (alloc sizes) intersect in the same buffer.
bool share_bytes(ggml_tensor * a, ggml_tensor * b) {
    if (a->buffer != b->buffer) {
        return false;
    }
    ggml_backend_buffer_type_t buft = ggml_backend_buffer_get_type(a->buffer);
    const char *               da   = static_cast<const char *>(a->data);
    const char *               db   = static_cast<const char *>(b->data);
    size_t                     sa   = ggml_backend_buft_get_alloc_size(buft, a);
    size_t                     sb   = ggml_backend_buft_get_alloc_size(buft, b);
    return sa > 0 && sb > 0 && da < db + sb && db < da + sa;
}

// A chain of copies of x: each link needs fresh memory while the one before is read, so the chain's third link
// onwards would naturally land on memory freed earlier, x's included once x has been read.
std::vector<ggml_tensor *> copy_chain(ManualOps & ops, ggml_tensor * x, int n) {
    std::vector<ggml_tensor *> chain = {ops.cont(x)};
    for (int i = 1; i < n; ++i) {
        chain.push_back(ops.cont(chain.back()));
    }
    return chain;
}

TEST_F(Gallocr, InputMemoryIsReusedOnlyAfterItsLastReader) {
    // control: a plain leaf's memory is reused once its only reader has run
    ggml_tensor *              w     = ops_.leaf(16, 4);
    std::vector<ggml_tensor *> plain = copy_chain(ops_, w, 6);
    alloc_and_check(graph({plain.back()}));
    bool reused = false;
    for (ggml_tensor * t : plain) {
        reused = reused || share_bytes(t, w);
    }
    EXPECT_TRUE(reused) << "the control graph should reuse the leaf's memory";
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc_, 0), 2u * 256u);

    // the same graph with the leaf marked INPUT: as upstream, its memory is free after its last reader (the
    // first link), never before (a copy does not work in place)
    ggml_tensor *              x     = input(16, 4);
    std::vector<ggml_tensor *> chain = copy_chain(ops_, x, 6);
    ggml_tensor *              last  = ops_.unary(chain.back()); // in place of the last link
    alloc_and_check(graph({last}));                              // the oracle: nothing overlaps x while it lives
    EXPECT_FALSE(share_bytes(chain[0], x)) << "the input's only reader overlaps it";
    reused = false;
    for (size_t i = 1; i < chain.size(); ++i) {
        reused = reused || share_bytes(chain[i], x);
    }
    EXPECT_TRUE(reused) << "the input's memory should serve a later link";
    EXPECT_EQ(last->data, chain.back()->data);
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc_, 0), 2u * 256u); // two blocks alive at every node
}

TEST_F(Gallocr, InputReadLateKeepsItsMemoryUntilThen) {
    // x is set before the compute and read only by the last node: every tensor computed before must avoid it
    // (all are as large as x and short-lived, so an allocator treating x as born at its reader would overlap)
    ggml_tensor * x   = input(32, 8);
    ggml_tensor * cur = ops_.unary(ops_.leaf(32, 8));
    std::vector<ggml_tensor *> all = {cur};
    for (int i = 0; i < 12; ++i) {
        cur = ops_.add(ops_.cont(cur), ops_.leaf(32, 8));
        all.push_back(cur);
    }
    cur = ops_.add(cur, x);
    ggml_cgraph * g = graph({cur});
    alloc_and_check(g);
    for (ggml_tensor * t : all) {
        EXPECT_FALSE(share_bytes(t, x)) << t->name << " overlaps the input before its reader ran";
    }
    // reserving first and replaying the plan keeps the input apart too
    ASSERT_TRUE(ggml_gallocr_reserve(galloc_, g));
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc_, g));
    for (ggml_tensor * t : all) {
        EXPECT_FALSE(share_bytes(t, x)) << t->name << " overlaps the input after a reserve";
    }
}

TEST_F(Gallocr, NodeListedTwiceLivesFromItsFirstPlace) {
    // the scheduler lists a split input's copy (op NONE, written when a split starts) before every split that
    // reads it: c is written at position 0, read at 3, listed again at 4 and read at 5. Tensors computed in between
    // must not take its memory (gemma3n's attention mask copy was overwritten this way and the layer's attention
    // read garbage).
    ggml_tensor * c  = ops_.leaf(64, 4);
    ggml_tensor * a  = input(64, 4);
    ggml_tensor * t1 = ops_.scale(a);
    ggml_tensor * t2 = ops_.scale(t1);
    ggml_tensor * u  = ops_.add(t2, c);
    ggml_tensor * w  = ops_.add(u, c);
    ggml_set_output(w);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    for (ggml_tensor * t : {c, t1, t2, u, c, w}) {
        ggml_graph_add_node(g, t);
    }
    alloc_and_check(g);
    for (ggml_tensor * t : {t1, t2, u}) {
        EXPECT_FALSE(share_bytes(t, c)) << t->name << " takes c's memory before c's last reader";
    }
}

TEST_F(Gallocr, InputViewKeepsTheMemoryItAliasesUntilItsReader) {
    // the caller writes rows 0..1 of buf through an INPUT view before the compute; the view is read last
    ggml_tensor * buf = ops_.leaf(16, 4);
    ggml_tensor * v   = ops_.view_rows(buf, 0, 2);
    ggml_set_input(v);
    std::vector<ggml_tensor *> chain = copy_chain(ops_, ops_.leaf(16, 2), 6);
    ggml_tensor *              out   = ops_.add(chain.back(), v);
    alloc_and_check(graph({out}));
    EXPECT_EQ(v->data, buf->data);
    for (ggml_tensor * t : chain) {
        EXPECT_FALSE(share_bytes(t, buf)) << t->name << " was given the memory an INPUT view aliases";
    }
}

TEST_F(Gallocr, NoInPlaceForOtherOpsOrLayouts) {
    ggml_tensor * h  = ops_.unary(input(16, 4));
    ggml_tensor * c  = ops_.cont(h); // CONT is not an in-place op
    ggml_tensor * t  = ops_.transpose(c);
    ggml_tensor * d  = ops_.unary(t);  // t's strides differ from d's
    ggml_tensor * e  = ops_.unary(d);
    ggml_tensor * mm = ops_.mul_mat(ops_.leaf(4, 16), e);
    alloc_and_check(graph({mm}));
    EXPECT_NE(c->data, h->data);
    EXPECT_NE(d->data, c->data);
    EXPECT_EQ(e->data, d->data);
}

TEST_F(Gallocr, NoInPlaceWhenTheNodeReadsTheSourceTwice) {
    ggml_tensor * h = ops_.unary(input(16, 4));
    ggml_tensor * s = ops_.mul(h, h);
    alloc_and_check(graph({s}));
    EXPECT_NE(s->data, h->data);
}

TEST_F(Gallocr, InPlaceThroughAnOffsetZeroView) {
    ggml_tensor * h = ops_.unary(input(16, 4));
    ggml_tensor * r = ops_.reshape(h, 32, 2);
    ggml_tensor * a = ops_.unary(r);
    alloc_and_check(graph({a}));
    EXPECT_EQ(a->data, h->data);
}

TEST_F(Gallocr, ViewsKeepTheirSourceAlive) {
    ggml_tensor * h = ops_.unary(input(16, 8));
    ggml_tensor * v = ops_.view_rows(h, 4, 4); // rows 4..7, used at the very end
    ggml_tensor * cur = ops_.mul_mat(ops_.leaf(16, 16), ops_.view_rows(h, 0, 4));
    for (int i = 0; i < 6; ++i) {
        cur = ops_.cont(cur); // fresh memory each time: tempting to reuse h's
    }
    ggml_tensor * out = ops_.add(cur, ops_.cont(v));
    alloc_and_check(graph({out}));
    EXPECT_EQ(v->data, static_cast<char *>(h->data) + 4 * h->nb[1]);
}

TEST_F(Gallocr, ResultsNobodyConsumesSurviveTheGraph) {
    ggml_tensor * x  = input(32, 4);
    ggml_tensor * r1 = ops_.cont(x); // expanded first, no consumer: must survive
    ggml_tensor * r2 = ops_.cont(ops_.cont(ops_.cont(x)));
    alloc_and_check(graph({r1, r2}));
    EXPECT_NE(r1->data, r2->data);
}

TEST_F(Gallocr, TensorsWithMemoryAreLeftAlone) {
    ggml_tensor *         w    = ops_.leaf(16, 16);
    ggml_backend_buffer_t wbuf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 2048);
    ggml_tallocr          ta   = ggml_tallocr_new(wbuf);
    ASSERT_EQ(ggml_tallocr_alloc(&ta, w), GGML_STATUS_SUCCESS);
    void *        wdata = w->data;
    ggml_tensor * out   = ops_.unary(ops_.mul_mat(w, input(16, 2)));
    alloc_and_check(graph({out}));
    EXPECT_EQ(w->data, wdata);
    EXPECT_EQ(w->buffer, wbuf);
    ggml_backend_buffer_free(wbuf);
}

TEST_F(Gallocr, AlignmentAndAllocSizeAreHonoured) {
    make({128, SIZE_MAX, 40}); // every tensor needs nbytes + 40, offsets multiple of 128
    ggml_tensor * x   = input(8, 1); // 32 bytes -> 72 -> 128
    ggml_tensor * a   = ops_.cont(x);
    ggml_tensor * b   = ops_.cont(a);
    ggml_tensor * out = ops_.add(ops_.cont(b), b);
    alloc_and_check(graph({out}));
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc_, 0) % 128, 0u);
    // two padded blocks alive at every node: x until cont(x) has run, then out reuses cont(b) in place
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc_, 0), 2u * 128u);
}

TEST_F(Gallocr, ZeroSizeTensorsAndAnEmptyBuffer) {
    ggml_tensor * z   = input(0, 4);
    ggml_tensor * out = ops_.unary(z);
    alloc_and_check(graph({out}));
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc_, 0), 0u);
    EXPECT_NE(out->buffer, nullptr);
    EXPECT_EQ(ggml_nbytes(out), 0u);
}

TEST_F(Gallocr, GraphOfOnlyAllocatedTensorsGetsAZeroSizeBuffer) {
    ggml_tensor *         w    = ops_.leaf(4, 4);
    ggml_backend_buffer_t wbuf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 256);
    ggml_tallocr          ta   = ggml_tallocr_new(wbuf);
    ASSERT_EQ(ggml_tallocr_alloc(&ta, w), GGML_STATUS_SUCCESS);
    ggml_tensor * v = ops_.view_rows(w, 1, 2);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(galloc_, graph({v})));
    EXPECT_EQ(ggml_gallocr_get_buffer_size(galloc_, 0), 0u);
    EXPECT_EQ(v->data, static_cast<char *>(w->data) + w->nb[1]);
    ggml_backend_buffer_free(wbuf);
}

} // namespace
} // namespace switchyard::alloc_test
