/* A C11 program built against the installed package (find_package(ggml) and pkg-config ggml). It includes only
 * ggml.h and exercises the core API: contexts, tensors and strides, views, names, flags, op constructors, graph
 * building, node accessors, DOT export and the type table. Every check compares with a value written out by
 * hand; failed checks are listed on stderr and make the exit status 1.
 *
 * Usage: ggml_consumer [path of the DOT file to write]
 */
#include "ggml.h"

#include <stdio.h>
#include <string.h>

static int g_failures = 0;

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            ++g_failures;                                                         \
        }                                                                         \
    } while (0)

/* Log capture: the last error message the library logged. */
static char g_last_error[1024];

static void capture_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    if (level == GGML_LOG_LEVEL_ERROR) {
        snprintf(g_last_error, sizeof(g_last_error), "%s", text);
    }
}

static int same_ne(const struct ggml_tensor * t, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    return t->ne[0] == ne0 && t->ne[1] == ne1 && t->ne[2] == ne2 && t->ne[3] == ne3;
}

static int same_nb(const struct ggml_tensor * t, size_t nb0, size_t nb1, size_t nb2, size_t nb3) {
    return t->nb[0] == nb0 && t->nb[1] == nb1 && t->nb[2] == nb2 && t->nb[3] == nb3;
}

static void check_types(void) {
    CHECK(ggml_type_size(GGML_TYPE_F32) == 4);
    CHECK(ggml_type_size(GGML_TYPE_F16) == 2);
    CHECK(ggml_blck_size(GGML_TYPE_Q4_0) == 32 && ggml_type_size(GGML_TYPE_Q4_0) == 18);
    CHECK(ggml_blck_size(GGML_TYPE_Q4_K) == 256 && ggml_type_size(GGML_TYPE_Q4_K) == 144);
    CHECK(ggml_row_size(GGML_TYPE_Q8_0, 4096) == 4352);
    CHECK(ggml_row_size(GGML_TYPE_Q6_K, 512) == 420);
    CHECK(strcmp(ggml_type_name(GGML_TYPE_Q8_0), "q8_0") == 0);
    CHECK(strcmp(ggml_type_name(GGML_TYPE_BF16), "bf16") == 0);
    CHECK(ggml_is_quantized(GGML_TYPE_IQ4_XS) && !ggml_is_quantized(GGML_TYPE_I32));
    const struct ggml_type_traits * traits = ggml_get_type_traits(GGML_TYPE_MXFP4);
    CHECK(traits != NULL && traits->blck_size == 32 && traits->type_size == 17 && traits->is_quantized);
    CHECK(ggml_fp32_to_fp16(1.0f) == 0x3C00);
    CHECK(ggml_fp16_to_fp32(0xC000) == -2.0f);
    CHECK(ggml_bf16_to_fp32(ggml_fp32_to_bf16(1.5f)) == 1.5f);
    CHECK(GGML_TYPE_COUNT == 43 && GGML_OP_NONE == 0);
}

static void check_context_limits(void) {
    ggml_log_set(capture_log, NULL);
    struct ggml_init_params params = {ggml_tensor_overhead() + 64, NULL, false};
    struct ggml_context *   ctx    = ggml_init(params);
    CHECK(ctx != NULL);
    CHECK(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16) != NULL); /* exactly fits */
    g_last_error[0] = '\0';
    CHECK(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1) == NULL); /* full: NULL and a message, no abort */
    CHECK(strstr(g_last_error, "ggml_new_tensor_1d") != NULL);
    ggml_free(ctx);
    ggml_log_set(NULL, NULL);

    /* a no_alloc context sized with the overhead functions holds exactly what they promise */
    params.mem_size   = 3 * ggml_tensor_overhead() + ggml_graph_overhead_custom(8, false);
    params.no_alloc   = true;
    ctx               = ggml_init(params);
    CHECK(ctx != NULL);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1024, 1024);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1024, 1024);
    struct ggml_tensor * c = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1024, 1024);
    CHECK(a && b && c && a->data == NULL);
    CHECK(ggml_new_graph_custom(ctx, 8, false) != NULL);
    CHECK(ggml_used_mem(ctx) == ggml_get_mem_size(ctx));
    ggml_free(ctx);
}

static void check_tensors(struct ggml_context * ctx) {
    struct ggml_tensor * t4 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 3, 5, 7, 2);
    CHECK(same_ne(t4, 3, 5, 7, 2) && same_nb(t4, 4, 12, 60, 420));
    CHECK(ggml_nelements(t4) == 210 && ggml_nrows(t4) == 70 && ggml_nbytes(t4) == 840);
    CHECK(ggml_n_dims(t4) == 4 && ggml_is_contiguous(t4));

    struct ggml_tensor * q = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 3);
    CHECK(same_nb(q, 18, 36, 108, 108) && ggml_nbytes(q) == 108);

    struct ggml_tensor * s = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
    CHECK(ggml_is_scalar(s) && ggml_element_size(s) == 4);

    ggml_set_name(t4, "t4");
    CHECK(strcmp(ggml_get_name(t4), "t4") == 0);
    ggml_format_name(s, "scalar_%d", 7);
    CHECK(strcmp(s->name, "scalar_7") == 0);
    CHECK(ggml_get_tensor(ctx, "scalar_7") == s);

    ggml_set_input(t4);
    ggml_set_output(t4);
    CHECK(t4->flags == (GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT));

    struct ggml_tensor * d = ggml_dup_tensor(ctx, t4);
    CHECK(same_ne(d, 3, 5, 7, 2) && d->data != t4->data && d->flags == 0);

    float * x = ggml_get_data_f32(t4);
    CHECK(x != NULL);
    for (int i = 0; i < 210; ++i) {
        x[i] = (float) i;
    }
    struct ggml_tensor * v = ggml_view_tensor(ctx, t4);
    CHECK(v->view_src == t4 && v->data == t4->data && ggml_get_data_f32(v)[209] == 209.0f);
    ggml_set_zero(t4);
    CHECK(x[0] == 0.0f && x[209] == 0.0f);

    int count = 0;
    for (struct ggml_tensor * it = ggml_get_first_tensor(ctx); it; it = ggml_get_next_tensor(ctx, it)) {
        ++count;
    }
    CHECK(count == 5);
}

static void check_views(struct ggml_context * ctx) {
    struct ggml_tensor * m = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    for (int i = 0; i < 12; ++i) {
        ggml_get_data_f32(m)[i] = (float) i;
    }
    struct ggml_tensor * row1 = ggml_view_1d(ctx, m, 4, 4 * sizeof(float));
    CHECK(row1->op == GGML_OP_VIEW && row1->view_src == m && row1->view_offs == 16);
    CHECK(ggml_get_data_f32(row1)[0] == 4.0f);

    struct ggml_tensor * cols = ggml_view_2d(ctx, m, 2, 3, m->nb[1], 2 * sizeof(float));
    CHECK(same_ne(cols, 2, 3, 1, 1) && cols->nb[1] == 16 && !ggml_is_contiguous(cols));
    CHECK(ggml_get_data_f32(cols)[0] == 2.0f);

    struct ggml_tensor * t = ggml_transpose(ctx, m);
    CHECK(t->op == GGML_OP_TRANSPOSE && same_ne(t, 3, 4, 1, 1) && t->nb[0] == 16 && t->nb[1] == 4);
    CHECK(ggml_is_transposed(t) && !ggml_is_contiguous(t));

    struct ggml_tensor * c3 = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 3, 2);
    struct ggml_tensor * p  = ggml_permute(ctx, c3, 0, 2, 1, 3);
    CHECK(p->op == GGML_OP_PERMUTE && same_ne(p, 4, 2, 3, 1) && same_nb(p, 4, 48, 16, 96));
    CHECK(ggml_is_permuted(p) && !ggml_is_transposed(p));

    struct ggml_tensor * r = ggml_reshape_1d(ctx, m, 12);
    CHECK(r->op == GGML_OP_RESHAPE && same_ne(r, 12, 1, 1, 1) && r->data == m->data);
}

static int file_contains(const char * path, const char * needle) {
    static char buf[1 << 16];
    FILE *      f = fopen(path, "r");
    if (!f) {
        return 0;
    }
    const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

static void check_graph(struct ggml_context * ctx, const char * dot_path) {
    struct ggml_tensor * w = ggml_set_name(ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 5), "w");
    struct ggml_tensor * x = ggml_set_name(ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3), "x");
    struct ggml_tensor * b = ggml_set_name(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5), "b");
    ggml_set_input(x);

    struct ggml_tensor * y = ggml_mul_mat(ctx, w, x); /* [5, 3] */
    CHECK(y->op == GGML_OP_MUL_MAT && same_ne(y, 5, 3, 1, 1) && y->type == GGML_TYPE_F32);
    CHECK(y->src[0] == w && y->src[1] == x);
    struct ggml_tensor * z = ggml_add(ctx, y, b); /* b broadcast over the 3 columns */
    CHECK(z->op == GGML_OP_ADD && same_ne(z, 5, 3, 1, 1));
    struct ggml_tensor * s = ggml_scale(ctx, z, 0.5f);
    CHECK(s->op == GGML_OP_SCALE && s->src[0] == z);
    struct ggml_tensor * t = ggml_transpose(ctx, s); /* [3, 5] view */
    struct ggml_tensor * c = ggml_cont(ctx, t);
    CHECK(c->op == GGML_OP_CONT && same_ne(c, 3, 5, 1, 1) && ggml_is_contiguous(c));
    struct ggml_tensor * r   = ggml_reshape_1d(ctx, c, 15);
    struct ggml_tensor * sq  = ggml_mul(ctx, r, r);
    struct ggml_tensor * out = ggml_set_name(ggml_silu(ctx, sq), "out");
    CHECK(out->op == GGML_OP_UNARY && ggml_get_unary_op(out) == GGML_UNARY_OP_SILU);
    CHECK(strcmp(ggml_op_desc(out), "SILU") == 0 && strcmp(ggml_op_name(GGML_OP_ADD), "ADD") == 0);
    CHECK(strcmp(ggml_unary_op_name(GGML_UNARY_OP_SILU), "SILU") == 0);

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    CHECK(gf != NULL && ggml_graph_size(gf) == GGML_DEFAULT_GRAPH_SIZE);
    ggml_build_forward_expand(gf, out);
    CHECK(ggml_graph_n_nodes(gf) == 8); /* y z s t c r sq out */
    CHECK(ggml_graph_node(gf, 0) == y && ggml_graph_node(gf, 3) == t && ggml_graph_node(gf, -1) == out);
    CHECK(ggml_graph_nodes(gf)[6] == sq);
    CHECK(ggml_graph_get_tensor(gf, "w") == w && ggml_graph_get_tensor(gf, "out") == out);
    CHECK(ggml_graph_get_grad(gf, out) == NULL);
    for (int i = 0; i < ggml_graph_n_nodes(gf); ++i) {
        CHECK(ggml_graph_node(gf, i)->flags & GGML_TENSOR_FLAG_COMPUTE);
    }
    CHECK(!(w->flags & GGML_TENSOR_FLAG_COMPUTE) && !(x->flags & GGML_TENSOR_FLAG_COMPUTE));

    ggml_build_forward_expand(gf, out); /* already there: nothing added */
    CHECK(ggml_graph_n_nodes(gf) == 8);

    struct ggml_cgraph * copy = ggml_graph_dup(ctx, gf, false);
    CHECK(copy != NULL && ggml_graph_n_nodes(copy) == 8 && ggml_graph_node(copy, -1) == out);
    ggml_graph_clear(copy);
    CHECK(ggml_graph_n_nodes(copy) == 0 && ggml_graph_n_nodes(gf) == 8);

    ggml_graph_dump_dot(gf, NULL, dot_path);
    CHECK(file_contains(dot_path, "digraph"));
    CHECK(file_contains(dot_path, "out (f32)"));
    CHECK(file_contains(dot_path, "w (f32)"));
    CHECK(file_contains(dot_path, "->"));
    remove(dot_path);
}

int main(int argc, char ** argv) {
    const char * dot_path = argc > 1 ? argv[1] : "ggml_consumer_graph.dot";

    check_types();
    check_context_limits();

    struct ggml_init_params params = {16 * 1024 * 1024, NULL, false};
    struct ggml_context *   ctx    = ggml_init(params);
    if (!ctx) {
        fprintf(stderr, "ggml_init failed\n");
        return 1;
    }
    check_tensors(ctx);
    ggml_reset(ctx);
    CHECK(ggml_used_mem(ctx) == 0);
    check_views(ctx);
    check_graph(ctx, dot_path);
    ggml_free(ctx);

    if (g_failures == 0) {
        printf("ggml consumer: all checks passed\n");
    } else {
        fprintf(stderr, "ggml consumer: %d check(s) failed\n", g_failures);
    }
    return g_failures == 0 ? 0 : 1;
}
