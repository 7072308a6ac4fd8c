// Random DAGs for the allocator's property tests: element-wise, unary, row-wise, matmul, copy, view, reshape
// and transpose ops over small F32 matrices, with random INPUT/OUTPUT flags and some weights already
// allocated elsewhere.
//
// The generator is written against an `Ops` policy so the same graphs can be built from hand-made nodes
// (ManualOps: op and sources set directly, enough for planning) or from the real op constructors (for
// computing them).
#pragma once

#include "core/tensor.h"
#include "ggml.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace switchyard::alloc_test {

// Nodes made by hand: the op and sources the real constructors would set, contiguous results.
struct ManualOps {
    ggml_context * ctx;

    ggml_tensor * leaf(int64_t ne0, int64_t ne1) { return ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1); }

    ggml_tensor * node(ggml_op op, ggml_tensor * a, ggml_tensor * b, int64_t ne0, int64_t ne1) {
        ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1);
        t->op           = op;
        t->src[0]       = a;
        t->src[1]       = b;
        return t;
    }
    ggml_tensor * same(ggml_op op, ggml_tensor * a, ggml_tensor * b = nullptr) {
        return node(op, a, b, a->ne[0], a->ne[1]);
    }

    ggml_tensor * unary(ggml_tensor * a) { return same(GGML_OP_UNARY, a); }
    ggml_tensor * scale(ggml_tensor * a) { return same(GGML_OP_SCALE, a); }
    ggml_tensor * sqr(ggml_tensor * a) { return same(GGML_OP_SQR, a); }
    ggml_tensor * soft_max(ggml_tensor * a) { return same(GGML_OP_SOFT_MAX, a); }
    ggml_tensor * rms_norm(ggml_tensor * a) { return same(GGML_OP_RMS_NORM, a); }
    ggml_tensor * cont(ggml_tensor * a) { return same(GGML_OP_CONT, a); }
    ggml_tensor * add(ggml_tensor * a, ggml_tensor * b) { return same(GGML_OP_ADD, a, b); }
    ggml_tensor * mul(ggml_tensor * a, ggml_tensor * b) { return same(GGML_OP_MUL, a, b); }
    ggml_tensor * mul_mat(ggml_tensor * w, ggml_tensor * a) { return node(GGML_OP_MUL_MAT, w, a, w->ne[1], a->ne[1]); }

    ggml_tensor * view_rows(ggml_tensor * a, int64_t row0, int64_t rows) {
        int64_t       ne[2] = {a->ne[0], rows};
        ggml_tensor * v     = new_tensor_impl(ctx, a->type, 2, ne, a, static_cast<size_t>(row0) * a->nb[1], "test");
        v->nb[1]            = a->nb[1];
        v->nb[2] = v->nb[3] = a->nb[1] * static_cast<size_t>(rows);
        v->op               = GGML_OP_VIEW;
        v->src[0]           = a;
        return v;
    }
    ggml_tensor * reshape(ggml_tensor * a, int64_t ne0, int64_t ne1) {
        int64_t       ne[2] = {ne0, ne1};
        ggml_tensor * v     = new_tensor_impl(ctx, a->type, 2, ne, a, 0, "test");
        v->op               = GGML_OP_RESHAPE;
        v->src[0]           = a;
        return v;
    }
    ggml_tensor * transpose(ggml_tensor * a) {
        int64_t       ne[2] = {a->ne[1], a->ne[0]};
        ggml_tensor * v     = new_tensor_impl(ctx, a->type, 2, ne, a, 0, "test");
        v->nb[0]            = a->nb[1];
        v->nb[1]            = a->nb[0];
        v->op               = GGML_OP_TRANSPOSE;
        v->src[0]           = a;
        return v;
    }
};

struct RandomGraph {
    std::vector<ggml_tensor *> leafs;    // created leafs (weights and inputs)
    std::vector<ggml_tensor *> results;  // tensors the graph was expanded from
    ggml_cgraph *              graph = nullptr;
};

namespace detail {

template <class Ops>
class Generator {
public:
    Generator(Ops & ops, std::mt19937 & rng, std::vector<ggml_tensor *> & preallocated)
        : ops_(ops), rng_(rng), preallocated_(preallocated) {}

    RandomGraph run(int n_ops) {
        for (int i = 0; i < 3; ++i) {
            // one draw per statement: argument evaluation order differs between compilers
            const int64_t rows  = 1 + static_cast<int64_t>(pick(6));
            const int64_t width = kWidths[pick(3)];
            pool_.push_back(add_leaf(width, rows));
        }
        for (int step = 0; step < n_ops; ++step) {
            ggml_tensor * r = random_op(pick_operand());
            if (rng_() % 8 == 0) {
                ggml_set_output(r);
            }
            pool_.push_back(r);
        }
        // expand from the last tensor and a few random others (some become results nobody consumes)
        g_.results.push_back(pool_.back());
        for (int k = 0; k < 3; ++k) {
            g_.results.push_back(pool_[pick(pool_.size())]);
        }
        g_.graph = ggml_new_graph_custom(ops_.ctx, 4096, false);
        for (ggml_tensor * t : g_.results) {
            ggml_build_forward_expand(g_.graph, t);
        }
        return g_;
    }

private:
    static constexpr int64_t kWidths[] = {8, 16, 32};

    size_t pick(size_t n) { return static_cast<size_t>(rng_() % n); }

    ggml_tensor * add_leaf(int64_t ne0, int64_t ne1) {
        ggml_tensor * t = ops_.leaf(ne0, ne1);
        int           r = static_cast<int>(rng_() % 4);
        if (r == 0) {
            ggml_set_input(t);
        } else if (r == 1) {
            preallocated_.push_back(t);
        }
        g_.leafs.push_back(t);
        return t;
    }

    // recent tensors mostly, so chains form, but reaching back sometimes to make long lifetimes
    ggml_tensor * pick_operand() {
        size_t back = std::min<size_t>(pool_.size(), rng_() % 3 == 0 ? pool_.size() : 3);
        return pool_[pool_.size() - 1 - pick(back)];
    }

    ggml_tensor * partner(ggml_tensor * a) {
        for (size_t k = 0; k < pool_.size(); ++k) {
            ggml_tensor * b = pool_[pick(pool_.size())];
            if (b != a && ggml_are_same_shape(a, b) && ggml_is_contiguous(b)) {
                return b;
            }
        }
        return add_leaf(a->ne[0], a->ne[1]);
    }

    ggml_tensor * random_op(ggml_tensor * a) {
        switch (rng_() % 12) {
            case 0: return ops_.unary(a);
            case 1: return ops_.scale(a);
            case 2: return ops_.sqr(a);
            case 3: return ops_.add(a, partner(a));
            case 4: return ops_.mul(a, partner(a));
            case 5: return ops_.mul_mat(add_leaf(a->ne[0], kWidths[pick(3)]), a);
            case 6: return ops_.soft_max(a);
            case 7: return ops_.rms_norm(a);
            case 8: return a->ne[1] > 1 ? ops_.view_rows(a, static_cast<int64_t>(pick(2)), a->ne[1] - 1) : ops_.cont(a);
            case 9:
                return ggml_is_contiguous(a) && a->ne[1] % 2 == 0 ? ops_.reshape(a, a->ne[0] * 2, a->ne[1] / 2)
                                                                  : ops_.unary(a);
            case 10: return ops_.cont(ops_.transpose(a));
            default: return ops_.add(ops_.unary(a), a);
        }
    }

    Ops &                        ops_;
    std::mt19937 &               rng_;
    std::vector<ggml_tensor *> & preallocated_;
    std::vector<ggml_tensor *>   pool_; // contiguous tensors available as operands
    RandomGraph                  g_;
};

} // namespace detail

// Builds a random graph of about n_ops ops in ops.ctx (a no_alloc context). `preallocated` receives leafs the
// caller should allocate before planning (weights living elsewhere).
template <class Ops>
RandomGraph build_random_graph(Ops & ops, std::mt19937 & rng, int n_ops, std::vector<ggml_tensor *> & preallocated) {
    return detail::Generator<Ops>(ops, rng, preallocated).run(n_ops);
}

} // namespace switchyard::alloc_test
