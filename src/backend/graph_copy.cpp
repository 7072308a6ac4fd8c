// Graph copies onto another backend (tensors and data) and node-by-node comparison of two backends.
#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-backend.h"

#include "base/guard.h"
#include "base/log.h"
#include "base/owners.h"
#include "core/graph.h"
#include "core/op_traits.h"

#include <cstring>
#include <unordered_map>

using namespace switchyard;

namespace {

using GraphCopy = struct ggml_backend_graph_copy; // the struct, not the function of the same name

struct CopyState {
    ContextPtr                                             ctx_allocated;
    ContextPtr                                             ctx_unallocated;
    std::unordered_map<const ggml_tensor *, ggml_tensor *> copies;
    std::unordered_map<const ggml_tensor *, bool>          initialized;
};

// Duplicates src (and, recursively, its sources and view source) into the copy contexts. NULL if a context is
// too small.
ggml_tensor * dup_tensor(CopyState & st, ggml_tensor * src) {
    if (auto it = st.copies.find(src); it != st.copies.end()) {
        return it->second;
    }
    ggml_context * ctx = (src->view_src ? st.ctx_unallocated : st.ctx_allocated).get();
    ggml_tensor *  dst = ggml_dup_tensor(ctx, src);
    if (!dst) {
        return nullptr;
    }
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        dst->nb[i] = src->nb[i];
    }
    if (src->view_src) {
        dst->view_src = dup_tensor(st, src->view_src);
        if (!dst->view_src) {
            return nullptr;
        }
        dst->view_offs = src->view_offs;
    }
    dst->op = src->op;
    std::memcpy(dst->op_params, src->op_params, sizeof(dst->op_params));
    dst->flags = src->flags;
    ggml_set_name(dst, src->name);
    st.copies[src] = dst;
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        if (src->src[j]) {
            dst->src[j] = dup_tensor(st, src->src[j]);
            if (!dst->src[j]) {
                return nullptr;
            }
        }
    }
    return dst;
}

// Gives views their memory and copies the data of tensors that have any.
bool init_tensor(CopyState & st, ggml_tensor * src) {
    if (st.initialized[src]) {
        return true;
    }
    st.initialized[src] = true;
    ggml_tensor * dst   = st.copies[src];
    if (src->view_src) {
        if (!init_tensor(st, src->view_src) || ggml_backend_view_init(dst) != GGML_STATUS_SUCCESS) {
            return false;
        }
    } else if (src->data && src->buffer) {
        ggml_backend_tensor_copy(src, dst);
    }
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        if (src->src[j] && !init_tensor(st, src->src[j])) {
            return false;
        }
    }
    return true;
}

struct ggml_backend_graph_copy copy_graph(ggml_backend_t backend, ggml_cgraph * graph, const char * caller) {
    const size_t n_tensors = static_cast<size_t>(graph->n_nodes + graph->n_leafs) * (GGML_MAX_SRC + 1) + 16;
    ggml_init_params params{n_tensors * ggml_tensor_overhead() + ggml_graph_overhead_custom(static_cast<size_t>(graph->size), false),
                            nullptr, true};
    CopyState st{ContextPtr(ggml_init(params)), ContextPtr(ggml_init(params)), {}, {}};
    if (!st.ctx_allocated || !st.ctx_unallocated) {
        log_error("[%s] failed to allocate the copy contexts\n", caller);
        return {};
    }
    for (int i = 0; i < graph->n_nodes; ++i) {
        if (!dup_tensor(st, graph->nodes[i])) {
            log_error("[%s] the copy contexts are too small\n", caller);
            return {};
        }
    }
    BufferPtr buffer(ggml_backend_alloc_ctx_tensors(st.ctx_allocated.get(), backend));
    if (!buffer) {
        log_error("[%s] failed to allocate the tensors on %s\n", caller, ggml_backend_name(backend));
        return {};
    }
    for (int i = 0; i < graph->n_nodes; ++i) {
        if (!init_tensor(st, graph->nodes[i])) {
            log_error("[%s] failed to initialise a view\n", caller);
            return {};
        }
    }
    ggml_cgraph * copy = ggml_new_graph_custom(st.ctx_allocated.get(), static_cast<size_t>(graph->size), false);
    if (!copy) {
        return {};
    }
    for (int i = 0; i < graph->n_nodes; ++i) {
        ggml_graph_add_node(copy, st.copies[graph->nodes[i]]);
    }
    return {buffer.release(), st.ctx_allocated.release(), st.ctx_unallocated.release(), copy};
}

} // namespace

extern "C" {

struct ggml_backend_graph_copy ggml_backend_graph_copy(ggml_backend_t backend, struct ggml_cgraph * graph) {
    constexpr const char * kCaller = "ggml_backend_graph_copy";
    if (backend == nullptr || graph == nullptr) {
        log_error("[%s] %s is NULL\n", kCaller, backend == nullptr ? "backend" : "graph");
        return {};
    }
    return guard(kCaller, GraphCopy{}, [&] { return copy_graph(backend, graph, kCaller); });
}

void ggml_backend_graph_copy_free(struct ggml_backend_graph_copy copy) {
    ggml_backend_buffer_free(copy.buffer);
    ggml_free(copy.ctx_allocated);
    ggml_free(copy.ctx_unallocated);
}

bool ggml_backend_compare_graph_backend(ggml_backend_t backend1, ggml_backend_t backend2, struct ggml_cgraph * graph,
                                        ggml_backend_eval_callback callback, void * user_data,
                                        const struct ggml_tensor * const * test_nodes, size_t num_test_nodes) {
    struct ggml_backend_graph_copy copy = ggml_backend_graph_copy(backend2, graph);
    if (!copy.graph) {
        return false;
    }
    ggml_cgraph * g1 = graph;
    ggml_cgraph * g2 = copy.graph;
    bool          ok = true;
    if (num_test_nodes == 0) {
        for (int i = 0; i < g1->n_nodes && ok; ++i) {
            ggml_cgraph v1 = graph_view(g1, i, i + 1);
            ggml_cgraph v2 = graph_view(g2, i, i + 1);
            if (ggml_backend_graph_compute(backend1, &v1) != GGML_STATUS_SUCCESS ||
                ggml_backend_graph_compute(backend2, &v2) != GGML_STATUS_SUCCESS) {
                log_error("[ggml_backend_compare_graph_backend] node %d (%s) failed to compute\n", i, g1->nodes[i]->name);
                ok = false;
                break;
            }
            if (op_is_view(g1->nodes[i]->op)) {
                continue;
            }
            if (!callback(i, g1->nodes[i], g2->nodes[i], user_data)) {
                break;
            }
        }
    } else {
        ok = ggml_backend_graph_compute(backend1, g1) == GGML_STATUS_SUCCESS &&
             ggml_backend_graph_compute(backend2, g2) == GGML_STATUS_SUCCESS;
        for (size_t k = 0; k < num_test_nodes && ok; ++k) {
            for (int i = 0; i < g1->n_nodes; ++i) {
                if (g1->nodes[i] == test_nodes[k]) {
                    if (!callback(i, g1->nodes[i], g2->nodes[i], user_data)) {
                        k = num_test_nodes;
                    }
                    break;
                }
            }
        }
    }
    ggml_backend_graph_copy_free(copy);
    return ok;
}

} // extern "C"
