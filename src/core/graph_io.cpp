// Human-readable output of graphs: ggml_graph_print (through the log) and ggml_graph_dump_dot (Graphviz).
#include "core/graph.h"

#include "base/log.h"

#include <cstdio>

using namespace switchyard;

namespace {

const char * flags_text(const ggml_tensor * t) {
    if (t->flags & GGML_TENSOR_FLAG_PARAM) return "x";
    if (t->flags & GGML_TENSOR_FLAG_INPUT) return "i";
    if (t->flags & GGML_TENSOR_FLAG_OUTPUT) return "o";
    return " ";
}

// Graphviz record labels treat these characters specially.
void write_escaped(std::FILE * f, const char * s) {
    for (; *s; ++s) {
        if (*s == '{' || *s == '}' || *s == '<' || *s == '>' || *s == '|' || *s == '"' || *s == '\\') {
            std::fputc('\\', f);
        }
        std::fputc(*s, f);
    }
}

void write_node(std::FILE * f, const ggml_tensor * t, const char * color) {
    std::fprintf(f, "  \"%p\" [style = filled; fillcolor = %s; shape = record; label=\"", static_cast<const void *>(t), color);
    write_escaped(f, t->name);
    std::fprintf(f, " (%s)|{%lld x %lld x %lld x %lld}|", ggml_type_name(t->type), static_cast<long long>(t->ne[0]),
                 static_cast<long long>(t->ne[1]), static_cast<long long>(t->ne[2]), static_cast<long long>(t->ne[3]));
    write_escaped(f, ggml_op_desc(t));
    std::fprintf(f, "\"; ]\n");
}

bool in_graph(const ggml_cgraph * g, const ggml_tensor * t) {
    return g && hash_contains(&g->visited_hash_set, t);
}

} // namespace

extern "C" {

void ggml_graph_print(const struct ggml_cgraph * cgraph) {
    log_info("=== GRAPH ===\n");
    log_info("n_nodes = %d\n", cgraph->n_nodes);
    for (int i = 0; i < cgraph->n_nodes; ++i) {
        const ggml_tensor * n = cgraph->nodes[i];
        log_info(" - %3d: [ %5lld, %5lld, %5lld, %5lld] %16s %s %s\n", i, static_cast<long long>(n->ne[0]),
                 static_cast<long long>(n->ne[1]), static_cast<long long>(n->ne[2]), static_cast<long long>(n->ne[3]),
                 ggml_op_desc(n), flags_text(n), n->name);
    }
    log_info("n_leafs = %d\n", cgraph->n_leafs);
    for (int i = 0; i < cgraph->n_leafs; ++i) {
        const ggml_tensor * l = cgraph->leafs[i];
        log_info(" - %3d: [ %5lld, %5lld] %8s %16s\n", i, static_cast<long long>(l->ne[0]), static_cast<long long>(l->ne[1]),
                 ggml_op_name(l->op), l->name);
    }
    log_info("========================================\n");
}

void ggml_graph_dump_dot(const struct ggml_cgraph * gb, const struct ggml_cgraph * gf, const char * filename) {
    std::FILE * f = std::fopen(filename, "w");
    if (!f) {
        log_error("[ggml_graph_dump_dot] cannot open '%s' for writing\n", filename);
        return;
    }
    std::fprintf(f, "digraph G {\n  newrank = true;\n  rankdir = TB;\n");
    for (int i = 0; i < gb->n_nodes; ++i) {
        const ggml_tensor * n = gb->nodes[i];
        // nodes only gb has (e.g. backward nodes) stand out
        const char * color = (gf && !in_graph(gf, n)) ? "lightblue" : (n->flags & GGML_TENSOR_FLAG_PARAM) ? "yellow" : "white";
        write_node(f, n, color);
    }
    for (int i = 0; i < gb->n_leafs; ++i) {
        write_node(f, gb->leafs[i], "pink");
    }
    for (int i = 0; i < gb->n_nodes; ++i) {
        const ggml_tensor * n = gb->nodes[i];
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            if (n->src[j]) {
                std::fprintf(f, "  \"%p\" -> \"%p\" [ label = \"%c\"; ]\n", static_cast<const void *>(n->src[j]),
                             static_cast<const void *>(n), 'x' + j);
            }
        }
    }
    std::fprintf(f, "}\n");
    std::fclose(f);
    log_info("[ggml_graph_dump_dot] wrote %s (dot -Tpng %s -o %s.png)\n", filename, filename, filename);
}

} // extern "C"
