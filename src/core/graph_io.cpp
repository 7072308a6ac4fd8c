// Human-readable output of graphs: ggml_graph_print (through the log) and ggml_graph_dump_dot (Graphviz).
#include "core/graph.h"

#include "base/log.h"

#include <cstdio>

using namespace switchyard;

namespace {

// One letter per flag: Input, Output, Param, Loss, Compute ('-' when clear).
void flags_text(const ggml_tensor * t, char (&out)[6]) {
    static constexpr struct {
        int  flag;
        char letter;
    } kFlags[] = {{GGML_TENSOR_FLAG_INPUT, 'I'}, {GGML_TENSOR_FLAG_OUTPUT, 'O'}, {GGML_TENSOR_FLAG_PARAM, 'P'},
                  {GGML_TENSOR_FLAG_LOSS, 'L'},  {GGML_TENSOR_FLAG_COMPUTE, 'C'}};
    for (size_t i = 0; i < 5; ++i) {
        out[i] = (t->flags & kFlags[i].flag) ? kFlags[i].letter : '-';
    }
    out[5] = '\0';
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

// A record: "name (type) | index [ne0, ne1, ne2, ne3] | op".
void write_tensor(std::FILE * f, const ggml_tensor * t, int index, const char * color, bool leaf) {
    std::fprintf(f, "  \"%p\" [ style = filled; fillcolor = %s; shape = record; label=\"",
                 static_cast<const void *>(t), color);
    write_escaped(f, t->name);
    std::fprintf(f, " (%s)|%s%d [%lld, %lld, %lld, %lld]|", ggml_type_name(t->type), leaf ? "CONST " : "#", index,
                 static_cast<long long>(t->ne[0]), static_cast<long long>(t->ne[1]),
                 static_cast<long long>(t->ne[2]), static_cast<long long>(t->ne[3]));
    write_escaped(f, leaf ? ggml_op_name(t->op) : ggml_op_desc(t));
    std::fprintf(f, "\"; ]\n");
}

void write_edges(std::FILE * f, const ggml_tensor * t) {
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        if (t->src[j]) {
            std::fprintf(f, "  \"%p\" -> \"%p\" [ label = \"src %d\"; ]\n", static_cast<const void *>(t->src[j]),
                         static_cast<const void *>(t), j);
        }
    }
}

bool in_graph(const ggml_cgraph * g, const ggml_tensor * t) {
    return hash_contains(&g->visited_hash_set, t);
}

} // namespace

extern "C" {

void ggml_graph_print(const struct ggml_cgraph * cgraph) {
    char flags[6];
    log_info("=== GRAPH ===\n");
    log_info("n_nodes = %d\n", cgraph->n_nodes);
    for (int i = 0; i < cgraph->n_nodes; ++i) {
        const ggml_tensor * n = cgraph->nodes[i];
        flags_text(n, flags);
        log_info(" - %3d: [ %5lld, %5lld, %5lld, %5lld] %16s %s %s\n", i, static_cast<long long>(n->ne[0]),
                 static_cast<long long>(n->ne[1]), static_cast<long long>(n->ne[2]),
                 static_cast<long long>(n->ne[3]), ggml_op_desc(n), flags, n->name);
    }
    log_info("n_leafs = %d\n", cgraph->n_leafs);
    for (int i = 0; i < cgraph->n_leafs; ++i) {
        const ggml_tensor * l = cgraph->leafs[i];
        flags_text(l, flags);
        log_info(" - %3d: [ %5lld, %5lld, %5lld, %5lld] %16s %s %s\n", i, static_cast<long long>(l->ne[0]),
                 static_cast<long long>(l->ne[1]), static_cast<long long>(l->ne[2]),
                 static_cast<long long>(l->ne[3]), ggml_op_name(l->op), flags, l->name);
    }
    log_info("========================================\n");
}

// gb is the graph written; gf (optional) is its forward part: nodes of gb that gf lacks (backward nodes) are
// drawn in another colour. Trainable parameters are yellow, leafs pink.
void ggml_graph_dump_dot(const struct ggml_cgraph * gb, const struct ggml_cgraph * gf, const char * filename) {
    if (!gb) {
        gb = gf;
        gf = nullptr;
    }
    if (!gb || !filename) {
        log_error("[ggml_graph_dump_dot] %s is NULL\n", gb ? "filename" : "graph");
        return;
    }
    std::FILE * f = ggml_fopen(filename, "w");
    if (!f) {
        log_error("[ggml_graph_dump_dot] cannot open '%s' for writing\n", filename);
        return;
    }
    std::fprintf(f, "digraph G {\n  newrank = true;\n  rankdir = TB;\n");
    for (int i = 0; i < gb->n_nodes; ++i) {
        const ggml_tensor * n     = gb->nodes[i];
        const char *        color = (n->flags & GGML_TENSOR_FLAG_PARAM) ? "yellow"
                                    : (gf && !in_graph(gf, n))         ? "lightblue"
                                                                       : "white";
        write_tensor(f, n, i, color, false);
    }
    for (int i = 0; i < gb->n_leafs; ++i) {
        write_tensor(f, gb->leafs[i], i, "pink", true);
    }
    for (int i = 0; i < gb->n_nodes; ++i) {
        write_edges(f, gb->nodes[i]);
    }
    std::fprintf(f, "}\n");
    const bool ok = std::fclose(f) == 0;
    if (!ok) {
        log_error("[ggml_graph_dump_dot] error while writing '%s'\n", filename);
        return;
    }
    log_info("[ggml_graph_dump_dot] wrote %s (render with: dot -Tpng %s -o %s.png)\n", filename, filename, filename);
}

} // extern "C"
