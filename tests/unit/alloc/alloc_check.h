// An independent oracle for graph allocations. Constructed before ggml_gallocr_alloc_graph, it records which
// tensors the allocator must place and when each one's memory is in use (written out again here from the
// allocator's contract, not taken from its code). After the allocation, verify() checks that
//   - every such tensor lies inside a buffer of the expected type, at an aligned offset, with room for its
//     alloc size; views point into their source;
//   - two tensors whose lifetimes meet never share bytes, except a node that reused its dying src[0] in place;
//     INPUT tensors (and the tensor an INPUT view aliases) are alive from before the first node to their last
//     reader (the caller writes them before the compute), after which their memory may be reused;
//   - in-place reuse happened exactly where the rules allow it.
#pragma once

#include "core/graph.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace switchyard::alloc_test {

inline bool oracle_inplace_op(ggml_op op) {
    static const std::set<ggml_op> ops = {
        GGML_OP_FILL, GGML_OP_SCALE, GGML_OP_DIAG_MASK_ZERO, GGML_OP_DIAG_MASK_INF, GGML_OP_ADD, GGML_OP_ADD_ID,
        GGML_OP_ADD1, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV, GGML_OP_SQR, GGML_OP_SQRT, GGML_OP_LOG, GGML_OP_UNARY,
        GGML_OP_ROPE, GGML_OP_ROPE_BACK, GGML_OP_SILU_BACK, GGML_OP_RMS_NORM, GGML_OP_RMS_NORM_BACK,
        GGML_OP_SOFT_MAX, GGML_OP_SOFT_MAX_BACK};
    return ops.count(op) != 0;
}

inline bool oracle_same_layout(const ggml_tensor * a, const ggml_tensor * b) {
    if (a->type != b->type) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        if (a->ne[i] != b->ne[i] || a->nb[i] != b->nb[i]) {
            return false;
        }
    }
    return true;
}

class AllocCheck {
public:
    struct Entry {
        ggml_tensor * t     = nullptr;
        int           start = 0;
        int           end   = 0;
    };

    AllocCheck(ggml_cgraph * graph, ggml_backend_buffer_type_t buft) : graph_(graph), buft_(buft) {
        for (int i = 0; i < graph->n_leafs; ++i) {
            note(graph->leafs[i]);
        }
        for (int i = 0; i < graph->n_nodes; ++i) {
            for (ggml_tensor * s : graph->nodes[i]->src) {
                if (s) {
                    note(s);
                    consumed_.insert(s);
                }
            }
            note(graph->nodes[i]);
            node_time_.emplace(graph->nodes[i], i + 1); // a node listed twice is written at its first place
        }
        lifetimes();
        expected_inplace();
    }

    // Number of node/source pairs that share memory in place.
    int inplace_pairs() const { return static_cast<int>(expected_.size()); }

    void verify() const {
        for (const auto & [t, e] : owned_) {
            check_placement(t);
        }
        for (ggml_tensor * v : views_) {
            if (v->view_src->buffer != nullptr && owned_.count(root(v))) {
                EXPECT_EQ(v->data, static_cast<char *>(v->view_src->data) + v->view_offs) << v->name;
            }
        }
        std::vector<const Entry *> list;
        for (const auto & [t, e] : owned_) {
            list.push_back(&e);
        }
        for (size_t i = 0; i < list.size(); ++i) {
            for (size_t j = i + 1; j < list.size(); ++j) {
                check_pair(*list[i], *list[j]);
            }
        }
        for (const auto & [node, parent] : expected_) {
            EXPECT_EQ(node->data, parent->data) << node->name << " should reuse " << parent->name << " in place";
        }
    }

    const std::map<ggml_tensor *, Entry> & owned() const { return owned_; }

private:
    static ggml_tensor * root(ggml_tensor * t) {
        while (t->view_src) {
            t = t->view_src;
        }
        return t;
    }

    void note(ggml_tensor * t) {
        if (t->view_src) {
            views_.insert(t);
            note(t->view_src);
            return;
        }
        if (t->data == nullptr && t->buffer == nullptr) {
            owned_.emplace(t, Entry{t, 0, 0});
        }
    }

    void lifetimes() {
        for (auto & [t, e] : owned_) {
            bool node = node_time_.count(t) && !(t->flags & GGML_TENSOR_FLAG_INPUT);
            e.start = e.end = node ? node_time_.at(t) : 0;
        }
        auto use = [&](ggml_tensor * t, int time) {
            auto it = owned_.find(root(t));
            if (it != owned_.end()) {
                it->second.end = std::max(it->second.end, time);
            }
        };
        for (int i = 0; i < graph_->n_nodes; ++i) {
            for (ggml_tensor * s : graph_->nodes[i]->src) {
                if (s) {
                    use(s, i + 1);
                }
            }
            if (graph_->nodes[i]->view_src) {
                use(graph_->nodes[i], i + 1);
            }
        }
        const int      end = graph_->n_nodes + 1;
        std::set<ggml_tensor *> viewed;
        for (ggml_tensor * v : views_) {
            viewed.insert(root(v));
            if (!owned_.count(root(v))) {
                continue;
            }
            Entry & e     = owned_.at(root(v));
            bool    keeps = (v->flags & GGML_TENSOR_FLAG_OUTPUT) || (!consumed_.count(v) && v->op != GGML_OP_NONE);
            if (keeps) {
                e.end = end;
            }
            if (v->flags & GGML_TENSOR_FLAG_INPUT) { // the caller writes the aliased memory before the compute
                e.start = 0;
            }
        }
        for (auto & [t, e] : owned_) {
            if ((t->flags & GGML_TENSOR_FLAG_OUTPUT) || (!consumed_.count(t) && !viewed.count(t))) {
                e.end = end;
            }
            if (t->flags & GGML_TENSOR_FLAG_INPUT) { // set before the compute: alive from the start to its last reader
                e.start = 0;
            }
        }
    }

    size_t alloc_size(const ggml_tensor * t) const {
        size_t align = ggml_backend_buft_get_alignment(buft_);
        return (ggml_backend_buft_get_alloc_size(buft_, t) + align - 1) / align * align;
    }

    // The in-place rule: an in-place op whose src[0] (the tensor or an offset-0 view of it) dies exactly at the
    // node, is not an output (an input may be taken over by its last reader, as upstream 0.25.1's allocator does),
    // has the node's layout, is at least as large, and is referenced once by the node.
    void expected_inplace() {
        const int flags = GGML_TENSOR_FLAG_OUTPUT;
        for (int i = 0; i < graph_->n_nodes; ++i) {
            ggml_tensor * n = graph_->nodes[i];
            ggml_tensor * s = n->src[0];
            if (!owned_.count(n) || (n->flags & GGML_TENSOR_FLAG_INPUT) || !oracle_inplace_op(n->op) || !s) {
                continue;
            }
            ggml_tensor * p = root(s);
            if (!owned_.count(p) || owned_.at(p).end != i + 1 || (p->flags & flags) || (s->flags & flags)) {
                continue;
            }
            if (s != p && (s->view_src != p || s->view_offs != 0)) {
                continue;
            }
            int refs = 0;
            for (ggml_tensor * o : n->src) {
                refs += o && root(o) == p ? 1 : 0;
            }
            if (refs == 1 && oracle_same_layout(n, s) && alloc_size(n) <= alloc_size(p)) {
                expected_[n] = p;
            }
        }
    }

    void check_placement(ggml_tensor * t) const {
        ASSERT_NE(t->buffer, nullptr) << t->name << " was not allocated";
        EXPECT_EQ(ggml_backend_buffer_get_type(t->buffer), buft_) << t->name;
        char * base = static_cast<char *>(ggml_backend_buffer_get_base(t->buffer));
        size_t size = ggml_backend_buffer_get_size(t->buffer);
        if (base == nullptr) {
            EXPECT_EQ(ggml_backend_buft_get_alloc_size(buft_, t), 0u) << t->name;
            return;
        }
        char * data = static_cast<char *>(t->data);
        ASSERT_GE(data, base) << t->name;
        size_t offset = static_cast<size_t>(data - base);
        EXPECT_EQ(offset % ggml_backend_buft_get_alignment(buft_), 0u) << t->name;
        EXPECT_LE(offset + ggml_backend_buft_get_alloc_size(buft_, t), size) << t->name << " exceeds its buffer";
    }

    void check_pair(const Entry & a, const Entry & b) const {
        if (a.start > b.end || b.start > a.end || a.t->buffer != b.t->buffer) {
            return;
        }
        size_t sa = ggml_backend_buft_get_alloc_size(buft_, a.t);
        size_t sb = ggml_backend_buft_get_alloc_size(buft_, b.t);
        char * da = static_cast<char *>(a.t->data);
        char * db = static_cast<char *>(b.t->data);
        if (sa == 0 || sb == 0 || da + sa <= db || db + sb <= da) {
            return;
        }
        auto inplace = [&](ggml_tensor * n, ggml_tensor * p) {
            auto it = expected_.find(n);
            return it != expected_.end() && it->second == p;
        };
        EXPECT_TRUE(inplace(a.t, b.t) || inplace(b.t, a.t))
            << a.t->name << " [" << a.start << "," << a.end << "] and " << b.t->name << " [" << b.start << ","
            << b.end << "] are alive together and overlap in memory";
    }

    ggml_cgraph *                  graph_;
    ggml_backend_buffer_type_t     buft_;
    std::map<ggml_tensor *, Entry> owned_;
    std::set<ggml_tensor *>        views_;
    std::set<ggml_tensor *>        consumed_;
    std::map<ggml_tensor *, int>   node_time_;
    std::map<ggml_tensor *, ggml_tensor *> expected_; // node -> tensor whose memory it reuses
};

} // namespace switchyard::alloc_test
