/* A C11 program built against the installed package (find_package(ggml) and pkg-config ggml). It includes only
 * ggml.h (and C standard headers) and exercises the core API without computing anything (computation needs
 * ggml-cpu.h): errors and timing, logging, contexts (owned and user-provided arenas, no_alloc, used memory),
 * tensors, strides and views, names, flags, the layout predicates, the type table, fp16/bf16 conversions, graph
 * building and the graph API, DOT export, and the shape/type/op of every op constructor of the core op set.
 * Every check compares with a value worked out by hand from upstream ggml's documented semantics; failed checks
 * are listed on stderr (naming the check) and make the exit status 1.
 *
 * One file on purpose (about 1650 lines): the installed-package test compiles this single source twice, through a
 * find_package(ggml) project and as `cc main.c $(pkg-config --cflags --libs ggml)`, so the program must stand
 * alone. The sections below follow the areas of the API, one function per area.
 *
 * Usage: ggml_consumer [path of the DOT file to write]
 */
#include "ggml.h"

#include <math.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

// ggml_mul_mat_set_prec and ggml_flash_attn_ext_set_prec are deprecated in ggml 0.25.1 (ggml_prec_set_acc
// replaces them); they still exist and are tested here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int g_failures = 0;

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            ++g_failures;                                                         \
        }                                                                         \
    } while (0)

/* A message naming the check that failed, with printf-style details. */
#define CHECK_MSG(cond, ...)                                                      \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s:%d: check failed: ", __FILE__, __LINE__);         \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
            ++g_failures;                                                         \
        }                                                                         \
    } while (0)

/* Log capture: counts per level, the last error message and (the start of) everything logged at INFO. */
struct log_capture {
    int  n_error;
    int  n_info;
    char last_error[1024];
    char info[8192];
};

static struct log_capture g_log;

static void capture_log(enum ggml_log_level level, const char * text, void * user_data) {
    struct log_capture * c = (struct log_capture *) user_data;
    if (c == NULL) {
        return;
    }
    if (level == GGML_LOG_LEVEL_ERROR) {
        ++c->n_error;
        snprintf(c->last_error, sizeof(c->last_error), "%s", text);
    } else if (level == GGML_LOG_LEVEL_INFO || level == GGML_LOG_LEVEL_CONT) {
        ++c->n_info;
        const size_t used = strlen(c->info);
        snprintf(c->info + used, sizeof(c->info) - used, "%s", text);
    }
}

static void start_log_capture(void) {
    memset(&g_log, 0, sizeof(g_log));
    ggml_log_set(capture_log, &g_log);
}

static void stop_log_capture(void) { ggml_log_set(NULL, NULL); }

/* ggml_log_get returns what ggml_log_set installed (and a default callback when nothing is) */
static void check_log_get(void) {
    ggml_log_callback def = NULL, cb = NULL;
    void *            data = NULL;
    ggml_log_set(NULL, NULL);
    ggml_log_get(&def, &data);
    CHECK_MSG(def != NULL && data == NULL, "ggml_log_get: a default callback when none is set");
    start_log_capture();
    ggml_log_get(&cb, &data);
    CHECK_MSG(cb == capture_log && data == &g_log, "ggml_log_get: the callback and user data that were set");
    stop_log_capture();
    ggml_log_get(&cb, NULL);
    CHECK_MSG(cb == def, "ggml_log_get: ggml_log_set(NULL) restores the default");
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
    start_log_capture();
    struct ggml_init_params params = {ggml_tensor_overhead() + 64, NULL, false};
    struct ggml_context *   ctx    = ggml_init(params);
    CHECK(ctx != NULL);
    CHECK(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16) != NULL); /* exactly fits */
    CHECK(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1) == NULL); /* full: NULL and a message, no abort */
    CHECK(g_log.n_error >= 1 && strstr(g_log.last_error, "ggml_new_tensor_1d") != NULL);
    const int64_t ne_big[2] = {8, 8};
    g_log.last_error[0] = '\0';
    const int n_error_before = g_log.n_error;
    CHECK(ggml_new_tensor(ctx, GGML_TYPE_F32, 2, ne_big) == NULL); /* the generic constructor fails the same way */
    CHECK(g_log.n_error > n_error_before && strstr(g_log.last_error, "ggml_new_tensor") != NULL);
    ggml_free(ctx);
    stop_log_capture();

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

/*
 * Errors and timing
 */

/* The abort callback used to test a shape error in C: it records the message and jumps back to the test. This
 * is sound because the frames between the op constructor and the callback hold no objects with destructors and
 * no locks (the callback runs after the message has been logged), which is also what upstream's C code gives. */
static jmp_buf      g_abort_jmp;
static volatile int g_abort_armed = 0;
static char         g_abort_message[2048];

static void longjmp_on_abort(const char * message) {
    snprintf(g_abort_message, sizeof(g_abort_message), "%s", message);
    if (g_abort_armed) {
        g_abort_armed = 0;
        longjmp(g_abort_jmp, 1);
    }
}

static void unused_abort_callback(const char * message) { (void) message; }

static void check_errors_and_timing(void) {
    /* set and restore: the setter returns the previous callback */
    ggml_abort_callback_t previous = ggml_set_abort_callback(unused_abort_callback);
    CHECK_MSG(previous == NULL, "abort callback: none is installed by default");
    CHECK_MSG(ggml_set_abort_callback(longjmp_on_abort) == unused_abort_callback,
              "abort callback: the setter returns the callback it replaces");

    /* a shape error in an op constructor is logged (with the function name) and goes through the callback */
    struct ggml_init_params params = {8 * ggml_tensor_overhead(), NULL, true};
    struct ggml_context *   ctx    = ggml_init(params);
    CHECK(ctx != NULL);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 2); /* ne[0] differs: no mul_mat */
    start_log_capture();
    g_abort_message[0]           = '\0';
    static volatile int returned = 0;
    if (setjmp(g_abort_jmp) == 0) {
        g_abort_armed = 1;
        (void) ggml_mul_mat(ctx, a, b);
        returned = 1; /* not reached: the callback jumps back */
    }
    g_abort_armed = 0;
    stop_log_capture();
    CHECK_MSG(!returned, "shape error: ggml_mul_mat must not return for mismatched shapes");
    CHECK_MSG(strstr(g_abort_message, "ggml_mul_mat") != NULL,
              "shape error: the abort message names ggml_mul_mat (got \"%s\")", g_abort_message);
    CHECK_MSG(g_log.n_error >= 1 && strstr(g_log.last_error, "ggml_mul_mat") != NULL,
              "shape error: the error log names ggml_mul_mat (got \"%s\")", g_log.last_error);
    /* the context is still usable after the jump */
    struct ggml_tensor * ok = ggml_mul_mat(ctx, a, a);
    CHECK_MSG(ok != NULL && same_ne(ok, 3, 3, 1, 1), "shape error: the context works after the failed call");
    ggml_free(ctx);

    CHECK_MSG(ggml_set_abort_callback(previous) == longjmp_on_abort, "abort callback: restoring the original");

    /* timing: monotonic clocks that agree with each other */
    ggml_time_init();
    const int64_t ms0 = ggml_time_ms();
    const int64_t us0 = ggml_time_us();
    const int64_t cy0 = ggml_cycles();
    int64_t       us1 = us0;
    for (long spin = 0; spin < 200000000L && us1 < us0 + 3000; ++spin) {
        us1 = ggml_time_us();
    }
    const int64_t ms1 = ggml_time_ms();
    const int64_t cy1 = ggml_cycles();
    CHECK_MSG(ms0 >= 0 && us0 >= 0, "timing: non-negative (ms %lld, us %lld)", (long long) ms0, (long long) us0);
    CHECK_MSG(us1 >= us0 + 3000, "timing: ggml_time_us advances (%lld -> %lld)", (long long) us0, (long long) us1);
    CHECK_MSG(ms1 >= ms0 + 2, "timing: ggml_time_ms advances with ggml_time_us (%lld -> %lld)", (long long) ms0,
              (long long) ms1);
    CHECK_MSG(cy1 >= cy0, "timing: ggml_cycles is monotonic (%lld -> %lld)", (long long) cy0, (long long) cy1);
    CHECK_MSG(ggml_cycles_per_ms() > 0, "timing: ggml_cycles_per_ms > 0");
}

/*
 * Contexts
 */

static _Alignas(64) unsigned char g_arena[64 * 1024];

static void check_contexts(void) {
    /* a caller-owned arena: tensors (metadata and data) live inside it; ggml_free leaves it alone */
    struct ggml_init_params params = {sizeof(g_arena), g_arena, false};
    struct ggml_context *   ctx    = ggml_init(params);
    CHECK(ctx != NULL);
    CHECK_MSG(ggml_get_mem_buffer(ctx) == g_arena, "user arena: ggml_get_mem_buffer returns the caller's buffer");
    CHECK_MSG(ggml_get_mem_size(ctx) == sizeof(g_arena), "user arena: ggml_get_mem_size == %zu (got %zu)",
              sizeof(g_arena), ggml_get_mem_size(ctx));
    CHECK_MSG(!ggml_get_no_alloc(ctx), "user arena: no_alloc is false");
    CHECK_MSG(ggml_used_mem(ctx) == 0, "user arena: nothing used yet");
    CHECK_MSG(ggml_get_first_tensor(ctx) == NULL, "user arena: no tensors yet");
    CHECK_MSG(ggml_get_max_tensor_size(ctx) == 0, "user arena: max tensor size 0 without tensors");

    struct ggml_tensor * t16 = ggml_set_name(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16), "t16"); /* 64 bytes */
    CHECK_MSG(ggml_used_mem(ctx) == ggml_tensor_overhead() + 64, "used_mem after one 64-byte tensor: %zu (got %zu)",
              ggml_tensor_overhead() + 64, ggml_used_mem(ctx));
    struct ggml_tensor * t12 = ggml_set_name(ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3), "t12"); /* 48 bytes */
    CHECK_MSG(ggml_used_mem(ctx) == 2 * ggml_tensor_overhead() + 64 + 48,
              "used_mem after a second 48-byte tensor: %zu (got %zu)", 2 * ggml_tensor_overhead() + 64 + 48,
              ggml_used_mem(ctx));
    const int64_t        ne3[3] = {2, 3, 5};
    struct ggml_tensor * t30    = ggml_set_name(ggml_new_tensor(ctx, GGML_TYPE_I16, 3, ne3), "t30"); /* 60 bytes */
    CHECK_MSG(same_ne(t30, 2, 3, 5, 1) && same_nb(t30, 2, 4, 12, 60) && ggml_n_dims(t30) == 3,
              "ggml_new_tensor with n_dims = 3: ne [2,3,5,1], nb [2,4,12,60]");
    CHECK_MSG(ggml_used_mem(ctx) == 3 * ggml_tensor_overhead() + 64 + 48 + 64, /* 60 rounded up to 16 */
              "used_mem after a 60-byte tensor (padded to 64): got %zu", ggml_used_mem(ctx));
    CHECK_MSG(ggml_get_max_tensor_size(ctx) == 64, "ggml_get_max_tensor_size == 64 (got %zu)",
              ggml_get_max_tensor_size(ctx));
    const unsigned char * lo = g_arena;
    const unsigned char * hi = g_arena + sizeof(g_arena);
    CHECK_MSG((const unsigned char *) t16 >= lo && (const unsigned char *) t16 < hi, "user arena: metadata inside");
    CHECK_MSG((const unsigned char *) t12->data >= lo && (const unsigned char *) t12->data + 48 <= hi,
              "user arena: data inside");
    CHECK_MSG(((uintptr_t) t16->data) % GGML_MEM_ALIGN == 0, "user arena: data aligned to GGML_MEM_ALIGN");

    /* iteration in creation order, lookup by name */
    struct ggml_tensor * it = ggml_get_first_tensor(ctx);
    CHECK_MSG(it == t16, "iteration: first tensor");
    it = it ? ggml_get_next_tensor(ctx, it) : NULL;
    CHECK_MSG(it == t12, "iteration: second tensor");
    it = it ? ggml_get_next_tensor(ctx, it) : NULL;
    CHECK_MSG(it == t30, "iteration: third tensor");
    CHECK_MSG(it == NULL || ggml_get_next_tensor(ctx, it) == NULL, "iteration: ends after the third tensor");
    CHECK_MSG(ggml_get_tensor(ctx, "t12") == t12 && ggml_get_tensor(ctx, "t30") == t30, "ggml_get_tensor by name");
    CHECK_MSG(ggml_get_tensor(ctx, "missing") == NULL, "ggml_get_tensor of an unknown name is NULL");

    /* switching to no_alloc: metadata only from now on */
    ggml_set_no_alloc(ctx, true);
    CHECK(ggml_get_no_alloc(ctx));
    const size_t         before = ggml_used_mem(ctx);
    struct ggml_tensor * meta   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1024, 1024); /* 4 MiB: no room, no need */
    CHECK_MSG(meta != NULL && meta->data == NULL, "no_alloc: a tensor without data");
    CHECK_MSG(ggml_used_mem(ctx) == before + ggml_tensor_overhead(), "no_alloc: only the overhead is used");
    CHECK_MSG(ggml_get_max_tensor_size(ctx) == 4u * 1024 * 1024, "max tensor size counts no_alloc tensors too");
    ggml_set_no_alloc(ctx, false);

    /* ggml_new_buffer: raw bytes from the arena in a work-buffer object (an object header, no tensor) */
    const size_t used_before_buffer = ggml_used_mem(ctx);
    void *       raw                = ggml_new_buffer(ctx, 100);
    CHECK_MSG(raw != NULL && (const unsigned char *) raw >= g_arena &&
                  (const unsigned char *) raw + 100 <= g_arena + sizeof(g_arena),
              "ggml_new_buffer: 100 bytes inside the arena");
    CHECK_MSG(ggml_used_mem(ctx) == used_before_buffer + (ggml_tensor_overhead() - GGML_TENSOR_SIZE) + 112,
              "ggml_new_buffer(100) uses one object header + 112 bytes (got %zu)",
              ggml_used_mem(ctx) - used_before_buffer);
    int n_tensors = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        ++n_tensors;
    }
    CHECK_MSG(n_tensors == 4, "ggml_new_buffer: the buffer is not a tensor (4 tensors, got %d)", n_tensors);

    /* reset forgets every tensor but keeps the arena */
    ggml_reset(ctx);
    CHECK_MSG(ggml_used_mem(ctx) == 0 && ggml_get_first_tensor(ctx) == NULL, "ggml_reset empties the context");
    CHECK_MSG(ggml_get_tensor(ctx, "t12") == NULL, "ggml_reset: names are gone");
    struct ggml_tensor * again = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    CHECK_MSG(again != NULL && (void *) again == (void *) t16, "ggml_reset: the arena is reused from the start");
    ggml_free(ctx);
    g_arena[0] = 1; /* still ours after ggml_free */
}

/* a no_alloc context from the start */
static void check_no_alloc_context(void) {
    struct ggml_init_params meta_params = {4 * ggml_tensor_overhead(), NULL, true};
    struct ggml_context *   ctx         = ggml_init(meta_params);
    CHECK(ctx != NULL && ggml_get_no_alloc(ctx));
    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 4096, 4096);
    CHECK_MSG(w != NULL && w->data == NULL && ggml_nbytes(w) == 4096u * 4096 / 32 * 18,
              "no_alloc: a q4_0 [4096, 4096] tensor of %zu bytes without data", (size_t) 4096 * 4096 / 32 * 18);
    CHECK_MSG(ggml_used_mem(ctx) == ggml_tensor_overhead(), "no_alloc context: used_mem is one overhead");
    ggml_free(ctx);
}


/*
 * Tensor queries: flags, layout predicates, names, the type table
 */

/* tensor flags */
static void check_flags(struct ggml_context * ctx) {
    struct ggml_tensor * p = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * l = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    CHECK(p->flags == 0 && l->flags == 0);
    ggml_set_param(p);
    CHECK_MSG(p->flags == GGML_TENSOR_FLAG_PARAM && GGML_TENSOR_FLAG_PARAM == 4, "ggml_set_param sets flag 4");
    ggml_set_loss(l);
    CHECK_MSG(l->flags == GGML_TENSOR_FLAG_LOSS && GGML_TENSOR_FLAG_LOSS == 8, "ggml_set_loss sets flag 8");
    ggml_set_input(p);
    ggml_set_output(l);
    CHECK_MSG(p->flags == (GGML_TENSOR_FLAG_PARAM | GGML_TENSOR_FLAG_INPUT) && GGML_TENSOR_FLAG_INPUT == 1,
              "ggml_set_input adds flag 1");
    CHECK_MSG(l->flags == (GGML_TENSOR_FLAG_LOSS | GGML_TENSOR_FLAG_OUTPUT) && GGML_TENSOR_FLAG_OUTPUT == 2,
              "ggml_set_output adds flag 2");
    CHECK_MSG(GGML_TENSOR_FLAG_COMPUTE == 16, "GGML_TENSOR_FLAG_COMPUTE == 16");
}

/* layout predicates on a contiguous tensor, views with gaps, transposed and permuted views; shape relations */
static void check_layout_predicates(struct ggml_context * ctx) {
    struct ggml_tensor * c = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 3, 2); /* nb 4, 16, 48, 96 */
    CHECK_MSG(ggml_is_contiguous(c) && ggml_is_contiguous_0(c) && ggml_is_contiguous_1(c) && ggml_is_contiguous_2(c),
              "contiguous tensor: is_contiguous, _0, _1, _2");
    CHECK_MSG(ggml_is_contiguous_rows(c) && !ggml_is_contiguous_channels(c) && !ggml_is_transposed(c) &&
                  !ggml_is_permuted(c),
              "contiguous tensor: rows contiguous, not channels-contiguous, not transposed, not permuted");
    CHECK_MSG(ggml_is_contiguously_allocated(c), "contiguous tensor: contiguously allocated");

    /* columns 0..1 of each row: rows have gaps between them */
    struct ggml_tensor * cols = ggml_view_3d(ctx, c, 2, 3, 2, c->nb[1], c->nb[2], 0);
    CHECK_MSG(!ggml_is_contiguous(cols) && !ggml_is_contiguous_0(cols), "row-gap view: not contiguous / _0");
    CHECK_MSG(ggml_is_contiguous_1(cols) && ggml_is_contiguous_2(cols), "row-gap view: contiguous_1 and _2");
    CHECK_MSG(ggml_is_contiguous_rows(cols), "row-gap view: rows are contiguous");
    CHECK_MSG(ggml_nbytes(cols) == 4 + 1 * 4 + 2 * 16 + 1 * 48, "row-gap view: nbytes 88 (got %zu)",
              ggml_nbytes(cols));
    CHECK_MSG(!ggml_is_contiguously_allocated(cols), "row-gap view: not contiguously allocated");

    /* planes 0..1 of 3 but only rows 0..2 of 4: gaps between planes */
    struct ggml_tensor * big    = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 4, 2); /* nb 4, 16, 64 */
    struct ggml_tensor * planes = ggml_view_3d(ctx, big, 4, 3, 2, big->nb[1], big->nb[2], 0);
    CHECK_MSG(!ggml_is_contiguous_0(planes) && !ggml_is_contiguous_1(planes) && ggml_is_contiguous_2(planes),
              "plane-gap view: only contiguous_2");
    /* the inner dimensions: below n packed, whatever comes after */
    CHECK_MSG(ggml_is_contiguous_to_1(planes) && ggml_is_contiguous_to_2(planes) && !ggml_is_contiguous_to_3(planes),
              "plane-gap view: contiguous_to_1 and _to_2, not _to_3");
    CHECK_MSG(ggml_is_contiguous_to_1(cols) && !ggml_is_contiguous_to_2(cols), "row-gap view: only contiguous_to_1");
    CHECK_MSG(ggml_is_view(cols) && !ggml_is_view(c), "ggml_is_view: a view yes, a fresh tensor no");

    struct ggml_tensor * tr = ggml_transpose(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3));
    CHECK_MSG(ggml_is_transposed(tr) && ggml_is_permuted(tr) && !ggml_is_contiguous_rows(tr),
              "transposed view: transposed, permuted, rows not contiguous");

    /* permute(0, 2, 1, 3) of [4, 3, 2]: ne [4, 2, 3, 1], nb [4, 48, 16, 96] */
    struct ggml_tensor * pm = ggml_permute(ctx, c, 0, 2, 1, 3);
    CHECK_MSG(!ggml_is_contiguous(pm) && !ggml_is_contiguous_1(pm) && ggml_is_contiguous_2(pm),
              "permuted (0,2,1,3): contiguous only from dim 2");
    CHECK_MSG(ggml_is_permuted(pm) && !ggml_is_transposed(pm) && ggml_is_contiguous_rows(pm),
              "permuted (0,2,1,3): permuted, not transposed, rows contiguous");
    CHECK_MSG(ggml_is_contiguously_allocated(pm), "permuted (0,2,1,3): still contiguously allocated");

    /* stored as C x W x H, viewed as W x H x C: channels-contiguous */
    struct ggml_tensor * cwh = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 3, 4, 5, 1); /* C=3, W=4, H=5 */
    struct ggml_tensor * whc = ggml_permute(ctx, cwh, 2, 0, 1, 3);
    CHECK_MSG(same_ne(whc, 4, 5, 3, 1) && same_nb(whc, 12, 48, 4, 240),
              "permute(2,0,1,3): ne [4,5,3,1], nb [12,48,4,240]");
    CHECK_MSG(ggml_is_contiguous_channels(whc) && !ggml_is_contiguous(whc), "permute(2,0,1,3): channels-contiguous");

    /* shapes */
    struct ggml_tensor * s0 = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 1, 2);
    struct ggml_tensor * s1 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 3, 2, 5);
    struct ggml_tensor * s2 = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 4, 1, 2);
    struct ggml_tensor * s3 = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 3);
    CHECK_MSG(ggml_are_same_shape(s0, s2) && !ggml_are_same_shape(s0, s1), "ggml_are_same_shape ignores the type");
    CHECK_MSG(!ggml_are_same_stride(s0, s2), "ggml_are_same_stride: f32 and f16 strides differ");
    CHECK_MSG(ggml_can_repeat(s0, s1) && !ggml_can_repeat(s1, s0) && !ggml_can_repeat(s3, s1),
              "ggml_can_repeat: [4,1,2] into [8,3,2,5] yes; the reverse and [3] no");
    struct ggml_tensor * e0 = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 0);
    struct ggml_tensor * e1 = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 0, 7);
    CHECK_MSG(ggml_is_empty(e0) && ggml_nbytes(e0) == 0 && ggml_nelements(e1) == 0, "empty tensors: 0 bytes");
    CHECK_MSG(ggml_can_repeat(e0, e1) && !ggml_can_repeat(e0, s0), "ggml_can_repeat: empty only into empty");
    CHECK_MSG(ggml_is_vector(s3) && !ggml_is_vector(s0) && ggml_is_matrix(tr) && ggml_is_3d(s0) && !ggml_is_3d(s1),
              "is_vector / is_matrix / is_3d");
}

/* op names, symbols, descriptions */
static void check_op_names(struct ggml_context * ctx) {
    struct ggml_tensor * leaf = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * tr   = ggml_transpose(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3));
    CHECK_MSG(strcmp(ggml_op_name(GGML_OP_MUL_MAT), "MUL_MAT") == 0, "ggml_op_name(MUL_MAT)");
    CHECK_MSG(strcmp(ggml_op_name(GGML_OP_FLASH_ATTN_EXT), "FLASH_ATTN_EXT") == 0, "ggml_op_name(FLASH_ATTN_EXT)");
    CHECK_MSG(strcmp(ggml_op_symbol(GGML_OP_NONE), "none") == 0, "ggml_op_symbol(NONE) == \"none\" (got \"%s\")",
              ggml_op_symbol(GGML_OP_NONE));
    static const struct {
        enum ggml_op op;
        const char * symbol;
    } symbols[] = {
        {GGML_OP_DUP, "x"},
        {GGML_OP_ADD, "x+y"},
        {GGML_OP_ADD_ID, "x[i]+y"},
        {GGML_OP_ADD1, "x+y"},
        {GGML_OP_SUB, "x-y"},
        {GGML_OP_MUL, "x*y"},
        {GGML_OP_DIV, "x/y"},
        {GGML_OP_SQR, "x^2"},
        {GGML_OP_SUM, "\xce\xa3x"},       /* "Σx" */
        {GGML_OP_SUM_ROWS, "\xce\xa3x_k"}, /* "Σx_k" */
        {GGML_OP_MEAN, "\xce\xa3x/n"},    /* "Σx/n" */
        {GGML_OP_MUL_MAT, "X*Y"},
        {GGML_OP_MUL_MAT_ID, "X[i]*Y"},
        {GGML_OP_OUT_PROD, "X*Y"},
        {GGML_OP_SCALE, "x*v"},
        {GGML_OP_SET, "y-\\>view(x)"},
        {GGML_OP_CPY, "x-\\>y"},
        {GGML_OP_CONT, "cont(x)"},
        {GGML_OP_RESHAPE, "reshape(x)"},
        {GGML_OP_SOFT_MAX, "soft_max(x)"},
        {GGML_OP_ROPE, "rope(x)"},
        {GGML_OP_FLASH_ATTN_EXT, "flash_attn_ext(x)"},
        {GGML_OP_ARANGE, "arange(start, stop, step)"},
        {GGML_OP_UNARY, "unary(x)"},
        {GGML_OP_GLU, "glu(x)"},
    };
    for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); ++i) {
        const char * got = ggml_op_symbol(symbols[i].op);
        CHECK_MSG(got != NULL && strcmp(got, symbols[i].symbol) == 0, "ggml_op_symbol(%s) == \"%s\" (got \"%s\")",
                  ggml_op_name(symbols[i].op), symbols[i].symbol, got ? got : "(null)");
    }
    CHECK_MSG(strcmp(ggml_op_desc(leaf), "NONE") == 0, "ggml_op_desc of a leaf is NONE");
    CHECK_MSG(strcmp(ggml_op_desc(tr), "TRANSPOSE") == 0, "ggml_op_desc of a transpose");
    struct ggml_tensor * sw = ggml_swiglu(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 2));
    CHECK_MSG(strcmp(ggml_op_desc(sw), "SWIGLU") == 0 && ggml_get_glu_op(sw) == GGML_GLU_OP_SWIGLU,
              "ggml_op_desc of a GLU node names the GLU op");
    CHECK_MSG(strcmp(ggml_glu_op_name(GGML_GLU_OP_GEGLU_QUICK), "GEGLU_QUICK") == 0, "ggml_glu_op_name");
    CHECK_MSG(strcmp(ggml_unary_op_name(GGML_UNARY_OP_GELU_ERF), "GELU_ERF") == 0, "ggml_unary_op_name");
}

/* the type table for block types, the tensor struct layout, small helpers */
static void check_type_table_and_helpers(struct ggml_context * ctx) {
    CHECK_MSG(strcmp(ggml_type_name(GGML_TYPE_Q4_K), "q4_K") == 0, "type_name(Q4_K) == \"q4_K\" (got \"%s\")",
              ggml_type_name(GGML_TYPE_Q4_K));
    CHECK_MSG(strcmp(ggml_type_name(GGML_TYPE_Q5_0), "q5_0") == 0 && ggml_blck_size(GGML_TYPE_Q5_0) == 32 &&
                  ggml_type_size(GGML_TYPE_Q5_0) == 22 && ggml_row_size(GGML_TYPE_Q5_0, 64) == 44,
              "q5_0: block 32, 22 bytes, row of 64 = 44 bytes");
    CHECK_MSG(ggml_blck_size(GGML_TYPE_IQ2_XXS) == 256 && ggml_type_size(GGML_TYPE_IQ2_XXS) == 66 &&
                  ggml_row_size(GGML_TYPE_IQ2_XXS, 1024) == 264,
              "iq2_xxs: block 256, 66 bytes, row of 1024 = 264 bytes");
    CHECK_MSG(ggml_blck_size(GGML_TYPE_NVFP4) == 64 && ggml_type_size(GGML_TYPE_NVFP4) == 36 &&
                  ggml_row_size(GGML_TYPE_NVFP4, 128) == 72,
              "nvfp4: block 64, 36 bytes");
    CHECK_MSG(ggml_blck_size(GGML_TYPE_Q1_0) == 128 && ggml_type_size(GGML_TYPE_Q1_0) == 18,
              "q1_0: block 128, 18 bytes");
    CHECK_MSG(ggml_blck_size(GGML_TYPE_TQ1_0) == 256 && ggml_type_size(GGML_TYPE_TQ1_0) == 54, "tq1_0: 256, 54 bytes");
    struct ggml_tensor * q5 = ggml_new_tensor_3d(ctx, GGML_TYPE_Q5_0, 64, 3, 2);
    CHECK_MSG(same_nb(q5, 22, 44, 132, 264) && ggml_nbytes(q5) == 264 && ggml_nrows(q5) == 6 &&
                  ggml_nelements(q5) == 384 && ggml_element_size(q5) == 22,
              "q5_0 [64,3,2]: nb [22,44,132,264], 264 bytes, 6 rows");
    CHECK_MSG(ggml_nbytes_pad(q5) == 272, "ggml_nbytes_pad rounds 264 up to 272 (got %zu)", ggml_nbytes_pad(q5));

    /* struct ggml_tensor has upstream's layout (LP64 offsets) */
    if (sizeof(void *) == 8) {
        CHECK_MSG(sizeof(struct ggml_tensor) == 336 && GGML_TENSOR_SIZE == 336, "sizeof(struct ggml_tensor) == 336");
        CHECK_MSG(offsetof(struct ggml_tensor, ne) == 16 && offsetof(struct ggml_tensor, nb) == 48 &&
                      offsetof(struct ggml_tensor, op) == 80 && offsetof(struct ggml_tensor, op_params) == 84 &&
                      offsetof(struct ggml_tensor, flags) == 148 && offsetof(struct ggml_tensor, src) == 152 &&
                      offsetof(struct ggml_tensor, view_src) == 232 && offsetof(struct ggml_tensor, data) == 248 &&
                      offsetof(struct ggml_tensor, name) == 256 && offsetof(struct ggml_tensor, extra) == 320,
                  "struct ggml_tensor field offsets");
    }

    /* small helpers */
    struct ggml_tensor * u = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 3, 2, 2, 2);
    int64_t              i0 = -1, i1 = -1, i2 = -1, i3 = -1;
    ggml_unravel_index(u, 23, &i0, &i1, &i2, &i3);
    CHECK_MSG(i0 == 2 && i1 == 1 && i2 == 1 && i3 == 1, "ggml_unravel_index(23) == (2, 1, 1, 1)");
    ggml_unravel_index(u, 10, &i0, &i1, &i2, &i3);
    CHECK_MSG(i0 == 1 && i1 == 1 && i2 == 1 && i3 == 0, "ggml_unravel_index(10) == (1, 1, 1, 0)");
    CHECK_MSG(ggml_get_data(u) == u->data && ggml_get_data_f32(u) == (float *) u->data, "ggml_get_data");
    CHECK_MSG(ggml_ftype_to_ggml_type(GGML_FTYPE_MOSTLY_Q4_K) == GGML_TYPE_Q4_K &&
                  ggml_ftype_to_ggml_type(GGML_FTYPE_MOSTLY_BF16) == GGML_TYPE_BF16 &&
                  ggml_ftype_to_ggml_type(GGML_FTYPE_ALL_F32) == GGML_TYPE_F32,
              "ggml_ftype_to_ggml_type");
    CHECK_MSG(strcmp(ggml_status_to_string(GGML_STATUS_SUCCESS), "GGML status: success") == 0,
              "ggml_status_to_string(SUCCESS)");
    /* YaRN, n_dims 128, n_ctx_orig 4096, base 10000: beta_fast 32 -> 20.94 (floor 20), beta_slow 1 -> 45.03 (ceil
     * 46) */
    float dims[2] = {-1.0f, -1.0f};
    ggml_rope_yarn_corr_dims(128, 4096, 10000.0f, 32.0f, 1.0f, dims);
    CHECK_MSG(dims[0] == 20.0f && dims[1] == 46.0f, "ggml_rope_yarn_corr_dims == {20, 46} (got {%g, %g})",
              (double) dims[0], (double) dims[1]);
}

/* names: format, truncation to GGML_MAX_NAME - 1 characters */
static void check_names(struct ggml_context * ctx) {
    struct ggml_tensor * n = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    ggml_format_name(n, "blk.%d.%s_%03d", 12, "attn_q", 7);
    CHECK_MSG(strcmp(ggml_get_name(n), "blk.12.attn_q_007") == 0, "ggml_format_name (got \"%s\")", n->name);
    char long_name[100];
    memset(long_name, 'x', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    ggml_set_name(n, long_name);
    CHECK_MSG(strlen(n->name) == GGML_MAX_NAME - 1, "ggml_set_name truncates to %d characters (got %zu)",
              GGML_MAX_NAME - 1, strlen(n->name));
    ggml_format_name(n, "%s", long_name);
    CHECK_MSG(strlen(n->name) == GGML_MAX_NAME - 1, "ggml_format_name truncates to %d characters (got %zu)",
              GGML_MAX_NAME - 1, strlen(n->name));
}

static void check_tensor_queries(struct ggml_context * ctx) {
    check_flags(ctx);
    check_layout_predicates(ctx);
    check_op_names(ctx);
    check_type_table_and_helpers(ctx);
    check_names(ctx);
}

/*
 * Views 1d-4d and their strides
 */

static void check_views_nd(struct ggml_context * ctx) {
    struct ggml_tensor * q = ggml_set_name(ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 3, 2, 2, 2), "q"); /* nb 4,12,24,48 */
    float *              x = ggml_get_data_f32(q);
    for (int i = 0; i < 24; ++i) {
        x[i] = (float) i;
    }

    struct ggml_tensor * v1 = ggml_view_1d(ctx, q, 5, 2 * sizeof(float));
    CHECK_MSG(v1->op == GGML_OP_VIEW && same_ne(v1, 5, 1, 1, 1) && same_nb(v1, 4, 20, 20, 20),
              "view_1d: ne [5,1,1,1], nb [4,20,20,20]");
    CHECK_MSG(v1->view_src == q && v1->view_offs == 8 && v1->data == (char *) q->data + 8, "view_1d: offset 8");
    size_t offs = 0;
    memcpy(&offs, v1->op_params, sizeof(offs));
    CHECK_MSG(offs == 8, "view_1d: op_params hold the offset");
    CHECK_MSG(strcmp(v1->name, "q (view)") == 0, "view_1d: named \"q (view)\" (got \"%s\")", v1->name);
    CHECK_MSG(ggml_get_data_f32(v1)[4] == 6.0f, "view_1d: element 4 is q[6]");

    struct ggml_tensor * v2 = ggml_view_2d(ctx, q, 2, 4, q->nb[1], 1 * sizeof(float));
    CHECK_MSG(same_ne(v2, 2, 4, 1, 1) && same_nb(v2, 4, 12, 48, 48), "view_2d: ne [2,4,1,1], nb [4,12,48,48]");
    CHECK_MSG(ggml_nbytes(v2) == 4 + 4 + 3 * 12, "view_2d: nbytes 44 (got %zu)", ggml_nbytes(v2));
    CHECK_MSG(*(float *) ((char *) v2->data + 3 * v2->nb[1] + v2->nb[0]) == 11.0f, "view_2d: element (1,3) is q[11]");

    struct ggml_tensor * v3 = ggml_view_3d(ctx, q, 2, 2, 3, q->nb[1], q->nb[2], 3 * sizeof(float));
    CHECK_MSG(same_ne(v3, 2, 2, 3, 1) && same_nb(v3, 4, 12, 24, 72), "view_3d: ne [2,2,3,1], nb [4,12,24,72]");
    CHECK_MSG(v3->view_offs == 12 && ggml_get_data_f32(v3)[0] == 3.0f, "view_3d: offset 12");

    struct ggml_tensor * v4 = ggml_view_4d(ctx, q, 1, 2, 2, 2, q->nb[1], q->nb[2], q->nb[3], 2 * sizeof(float));
    CHECK_MSG(same_ne(v4, 1, 2, 2, 2) && same_nb(v4, 4, 12, 24, 48), "view_4d: ne [1,2,2,2], nb [4,12,24,48]");
    CHECK_MSG(ggml_nbytes(v4) == 4 + 12 + 24 + 48 && ggml_nelements(v4) == 8 && ggml_nrows(v4) == 8,
              "view_4d: 88 bytes, 8 elements in 8 rows (got %zu bytes)", ggml_nbytes(v4));
    CHECK_MSG(*(float *) ((char *) v4->data + v4->nb[1] + v4->nb[2] + v4->nb[3]) == 23.0f,
              "view_4d: element (0,1,1,1) is q[23]");
    CHECK_MSG(!ggml_is_contiguous(v4) && ggml_is_contiguous_1(v4) && ggml_is_contiguous_rows(v4),
              "view_4d of one column: contiguous_1 and rows, not contiguous");

    /* a view of a view still aliases the original tensor */
    struct ggml_tensor * vv = ggml_view_1d(ctx, v1, 2, 1 * sizeof(float));
    CHECK_MSG(vv->view_src == q && vv->view_offs == 12 && ggml_get_data_f32(vv)[0] == 3.0f,
              "view of a view: view_src is the base tensor, offsets add up");
}

/*
 * fp16 / bf16 conversions on exact values
 */

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static float bits_float(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* row converters: 37 values, enough for vector bodies and a tail */
static void check_row_conversions(void) {
    enum { N = 37 };
    static const float vals[5]   = {1.0f, -2.5f, 65504.0f, 0.5f, -0.0f};
    static const uint16_t h16[5] = {0x3C00, 0xC100, 0x7BFF, 0x3800, 0x8000};
    static const uint16_t hbf[5] = {0x3F80, 0xC020, 0x4780, 0x3F00, 0x8000};
    float                 src[N], back[N];
    ggml_fp16_t           h[N];
    ggml_bf16_t           bb[N];
    for (int i = 0; i < N; ++i) {
        src[i] = vals[i % 5];
    }
    ggml_fp32_to_fp16_row(src, h, N);
    int bad = -1;
    for (int i = 0; i < N && bad < 0; ++i) {
        if (h[i] != h16[i % 5]) {
            bad = i;
        }
    }
    CHECK_MSG(bad < 0, "ggml_fp32_to_fp16_row: element %d is 0x%04X, expected 0x%04X", bad, bad < 0 ? 0 : h[bad],
              bad < 0 ? 0 : h16[bad % 5]);
    ggml_fp16_to_fp32_row(h, back, N);
    bad = -1;
    for (int i = 0; i < N && bad < 0; ++i) {
        if (float_bits(back[i]) != float_bits(vals[i % 5])) {
            bad = i;
        }
    }
    CHECK_MSG(bad < 0, "ggml_fp16_to_fp32_row: element %d is %.9g, expected %.9g", bad,
              bad < 0 ? 0.0 : (double) back[bad], bad < 0 ? 0.0 : (double) vals[bad % 5]);

    ggml_fp32_to_bf16_row(src, bb, N);
    bad = -1;
    for (int i = 0; i < N && bad < 0; ++i) {
        if (bb[i].bits != hbf[i % 5]) {
            bad = i;
        }
    }
    CHECK_MSG(bad < 0, "ggml_fp32_to_bf16_row: element %d is 0x%04X, expected 0x%04X", bad,
              bad < 0 ? 0 : bb[bad].bits, bad < 0 ? 0 : hbf[bad % 5]);
    ggml_fp32_to_bf16_row_ref(src, bb, N);
    bad = -1;
    for (int i = 0; i < N && bad < 0; ++i) {
        if (bb[i].bits != hbf[i % 5]) {
            bad = i;
        }
    }
    CHECK_MSG(bad < 0, "ggml_fp32_to_bf16_row_ref: element %d differs", bad);
    ggml_bf16_to_fp32_row(bb, back, N);
    static const float bf_back[5] = {1.0f, -2.5f, 65536.0f, 0.5f, -0.0f};
    bad                           = -1;
    for (int i = 0; i < N && bad < 0; ++i) {
        if (float_bits(back[i]) != float_bits(bf_back[i % 5])) {
            bad = i;
        }
    }
    CHECK_MSG(bad < 0, "ggml_bf16_to_fp32_row: element %d is %.9g, expected %.9g", bad,
              bad < 0 ? 0.0 : (double) back[bad], bad < 0 ? 0.0 : (double) bf_back[bad % 5]);
}

static void check_conversions(void) {
    static const struct {
        float       f;
        ggml_fp16_t h;
    } fp16[] = {
        {1.0f, 0x3C00},       {-2.5f, 0xC100},      {65504.0f, 0x7BFF},     {0.5f, 0x3800},
        {0.0f, 0x0000},       {-0.0f, 0x8000},      {-65504.0f, 0xFBFF},    {5.9604644775390625e-08f, 0x0001},
        {6.103515625e-05f, 0x0400}, /* smallest normal */ {0.333251953125f, 0x3555},
    };
    const size_t n16 = sizeof(fp16) / sizeof(fp16[0]);
    for (size_t i = 0; i < n16; ++i) {
        const ggml_fp16_t h = ggml_fp32_to_fp16(fp16[i].f);
        CHECK_MSG(h == fp16[i].h, "ggml_fp32_to_fp16(%.9g) == 0x%04X (got 0x%04X)", (double) fp16[i].f,
                  (unsigned) fp16[i].h, (unsigned) h);
        const float f = ggml_fp16_to_fp32(fp16[i].h);
        CHECK_MSG(float_bits(f) == float_bits(fp16[i].f), "ggml_fp16_to_fp32(0x%04X) == %.9g (got %.9g)",
                  (unsigned) fp16[i].h, (double) fp16[i].f, (double) f);
    }
    /* round to nearest, ties to even; overflow to infinity */
    CHECK_MSG(ggml_fp32_to_fp16(1.0f + 0x1p-11f) == 0x3C00, "fp16: a tie rounds to even (down)");
    CHECK_MSG(ggml_fp32_to_fp16(1.0f + 0x3p-11f) == 0x3C02, "fp16: a tie rounds to even (up)");
    CHECK_MSG(ggml_fp32_to_fp16(65520.0f) == 0x7C00, "fp16: 65520 rounds to +inf");
    CHECK_MSG(ggml_fp16_to_fp32(0x7C00) == INFINITY && ggml_fp16_to_fp32(0xFC00) == -INFINITY, "fp16: infinities");
    CHECK_MSG(isnan(ggml_fp16_to_fp32(0x7E00)), "fp16: 0x7E00 is NaN");

    static const struct {
        float    f;
        uint16_t b;
    } bf16[] = {
        {1.0f, 0x3F80}, {-2.5f, 0xC020}, {0.5f, 0x3F00}, {0.0f, 0x0000}, {-0.0f, 0x8000}, {65536.0f, 0x4780},
    };
    const size_t nb16 = sizeof(bf16) / sizeof(bf16[0]);
    for (size_t i = 0; i < nb16; ++i) {
        const ggml_bf16_t b = ggml_fp32_to_bf16(bf16[i].f);
        CHECK_MSG(b.bits == bf16[i].b, "ggml_fp32_to_bf16(%.9g) == 0x%04X (got 0x%04X)", (double) bf16[i].f,
                  (unsigned) bf16[i].b, (unsigned) b.bits);
    }
    ggml_bf16_t b = {0xC020};
    CHECK_MSG(ggml_bf16_to_fp32(b) == -2.5f, "ggml_bf16_to_fp32(0xC020) == -2.5");
    CHECK_MSG(ggml_fp32_to_bf16(65504.0f).bits == 0x4780, "bf16: 65504 (0x477FE000) rounds up to 65536 (0x4780)");
    CHECK_MSG(ggml_fp32_to_bf16(1.0f + 0x1p-8f).bits == 0x3F80, "bf16: a tie rounds to even (down)");
    CHECK_MSG(ggml_fp32_to_bf16(1.0f + 0x3p-8f).bits == 0x3F82, "bf16: a tie rounds to even (up)");
    CHECK_MSG(ggml_fp32_to_bf16(bits_float(0x7F800001u)).bits == 0x7FC0, "bf16: a signalling NaN becomes quiet");
    b.bits = 0x7F80;
    CHECK_MSG(ggml_bf16_to_fp32(b) == INFINITY, "bf16: 0x7F80 is +inf");
}

/*
 * The graph API
 */

/* The file's size (-1 when it cannot be read) and whether it starts with `prefix`. */
static long file_size_and_prefix(const char * path, const char * prefix, int * starts_with) {
    *starts_with = 0;
    FILE * f     = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    char         head[64] = {0};
    const size_t n        = fread(head, 1, sizeof(head) - 1, f);
    long         size     = (long) n;
    if (n == sizeof(head) - 1) {
        fseek(f, 0, SEEK_END);
        size = ftell(f);
    }
    fclose(f);
    *starts_with = strncmp(head, prefix, strlen(prefix)) == 0;
    return size;
}

/* copy, clear and rebuild, add_node, DOT export, on the graph built by check_graph_api */
static void check_graph_copy_and_export(struct ggml_context * ctx, struct ggml_cgraph * g, const char * dot_path) {
    struct ggml_tensor * b = ggml_graph_get_tensor(g, "gb");
    struct ggml_tensor * d = ggml_graph_get_tensor(g, "gd");
    CHECK(b != NULL && d != NULL);
    if (!b || !d) {
        return;
    }

    /* copy, clear, rebuild */
    struct ggml_cgraph * g2 = ggml_new_graph_custom(ctx, 32, true);
    ggml_graph_cpy(g, g2);
    int same = ggml_graph_n_nodes(g2) == 4;
    for (int i = 0; same && i < 4; ++i) {
        same = ggml_graph_node(g2, i) == ggml_graph_node(g, i);
    }
    CHECK_MSG(same, "ggml_graph_cpy copies the nodes in order");
    CHECK_MSG(ggml_graph_get_tensor(g2, "gb") == b, "ggml_graph_cpy copies the leafs");
    ggml_graph_clear(g2);
    CHECK_MSG(ggml_graph_n_nodes(g2) == 0 && ggml_graph_get_tensor(g2, "gb") == NULL,
              "ggml_graph_clear forgets nodes and leafs");
    CHECK_MSG(ggml_graph_n_nodes(g) == 4, "ggml_graph_clear of the copy leaves the original alone");
    ggml_build_forward_expand(g2, d);
    CHECK_MSG(ggml_graph_n_nodes(g2) == 3 && ggml_graph_node(g2, -1) == d, "a cleared graph can be built again");

    /* add_node appends as is, without walking sources or setting COMPUTE */
    struct ggml_cgraph * g3 = ggml_new_graph_custom(ctx, 4, false);
    struct ggml_tensor * f  = ggml_scale(ctx, b, 2.0f);
    ggml_graph_add_node(g3, f);
    ggml_graph_add_node(g3, d);
    CHECK_MSG(ggml_graph_n_nodes(g3) == 2 && ggml_graph_node(g3, 0) == f && ggml_graph_node(g3, -1) == d,
              "ggml_graph_add_node appends");
    CHECK_MSG(!(f->flags & GGML_TENSOR_FLAG_COMPUTE), "ggml_graph_add_node does not set COMPUTE");

    /* DOT export */
    char path[1024];
    snprintf(path, sizeof(path), "%s.api.dot", dot_path);
    ggml_graph_dump_dot(g, g2, path);
    int        starts = 0;
    const long size   = file_size_and_prefix(path, "digraph", &starts);
    CHECK_MSG(size > 0 && starts, "ggml_graph_dump_dot writes a non-empty file starting with \"digraph\" (%ld bytes)",
              size);
    remove(path);
}

static void check_graph_api(struct ggml_context * ctx, const char * dot_path) {
    struct ggml_tensor * a = ggml_set_name(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4), "ga");
    struct ggml_tensor * b = ggml_set_name(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4), "gb");
    ggml_set_param(a);
    struct ggml_tensor * c = ggml_set_name(ggml_add(ctx, a, b), "gc");
    struct ggml_tensor * d = ggml_set_name(ggml_mul(ctx, c, b), "gd");
    struct ggml_tensor * e = ggml_set_name(ggml_sum(ctx, d), "ge");
    CHECK_MSG(e->op == GGML_OP_SUM && same_ne(e, 1, 1, 1, 1) && e->type == GGML_TYPE_F32, "ggml_sum: f32 scalar");
    ggml_set_loss(e);

    const size_t         before = ggml_used_mem(ctx);
    struct ggml_cgraph * g      = ggml_new_graph_custom(ctx, 16, true);
    CHECK_MSG(g != NULL && ggml_graph_size(g) == 16, "ggml_new_graph_custom(16): size 16");
    CHECK_MSG(ggml_used_mem(ctx) - before == ggml_graph_overhead_custom(16, true),
              "ggml_new_graph_custom takes exactly ggml_graph_overhead_custom(16, true) = %zu bytes (took %zu)",
              ggml_graph_overhead_custom(16, true), ggml_used_mem(ctx) - before);
    CHECK_MSG(ggml_graph_overhead() == ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false),
              "ggml_graph_overhead is the default size without gradients");
    CHECK_MSG(ggml_graph_n_nodes(g) == 0, "a new graph is empty");

    ggml_build_forward_expand(g, e);
    /* a trainable parameter is a node, not a leaf: nodes ga gc gd ge, leaf gb */
    CHECK_MSG(ggml_graph_n_nodes(g) == 4, "graph: 4 nodes (got %d)", ggml_graph_n_nodes(g));
    CHECK_MSG(ggml_graph_node(g, 0) == a && ggml_graph_node(g, 1) == c && ggml_graph_node(g, 2) == d &&
                  ggml_graph_node(g, 3) == e,
              "graph: nodes in topological order ga gc gd ge");
    CHECK_MSG(ggml_graph_node(g, -1) == e && ggml_graph_node(g, -4) == a, "ggml_graph_node with negative index");
    CHECK_MSG(ggml_graph_nodes(g)[2] == d, "ggml_graph_nodes");
    CHECK_MSG(ggml_graph_get_tensor(g, "gb") == b && ggml_graph_get_tensor(g, "gd") == d,
              "ggml_graph_get_tensor finds leafs and nodes by name");
    CHECK_MSG(ggml_graph_get_tensor(g, "missing") == NULL, "ggml_graph_get_tensor of an unknown name is NULL");
    CHECK_MSG(ggml_graph_get_grad(g, e) == NULL && ggml_graph_get_grad_acc(g, a) == NULL,
              "no gradients before a backward pass is built");
    CHECK_MSG((c->flags & GGML_TENSOR_FLAG_COMPUTE) && !(b->flags & GGML_TENSOR_FLAG_COMPUTE),
              "COMPUTE flag on nodes, not on leafs");

    ggml_graph_reset(g); /* gradients are not built: nothing to reset, the graph is unchanged */
    CHECK_MSG(ggml_graph_n_nodes(g) == 4 && ggml_graph_node(g, -1) == e, "ggml_graph_reset keeps the nodes");

    /* printing goes through the log at INFO level */
    start_log_capture();
    ggml_graph_print(g);
    stop_log_capture();
    CHECK_MSG(g_log.n_info > 0 && strstr(g_log.info, "n_nodes = 4") != NULL &&
                  strstr(g_log.info, "n_leafs = 1") != NULL,
              "ggml_graph_print logs \"n_nodes = 4\" and \"n_leafs = 1\" (got \"%.200s\")", g_log.info);
    CHECK_MSG(strstr(g_log.info, "SUM") != NULL && strstr(g_log.info, "gd") != NULL,
              "ggml_graph_print lists the ops and names");

    check_graph_copy_and_export(ctx, g, dot_path);
}

/*
 * Op constructors: one graph in a no_alloc context, every result checked for op, type and shape
 */

#define MAX_RESULTS 256
static struct ggml_tensor * g_results[MAX_RESULTS];
static int                  g_n_results = 0;

static struct ggml_tensor * expect_op(const char * what, struct ggml_tensor * t, enum ggml_op op, enum ggml_type type,
                                      int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    if (t == NULL) {
        CHECK_MSG(0, "%s: the constructor returned NULL", what);
        return NULL;
    }
    CHECK_MSG(t->op == op, "%s: op %s (%d), expected %s (%d)", what, ggml_op_name(t->op), (int) t->op,
              ggml_op_name(op), (int) op);
    CHECK_MSG(t->type == type, "%s: type %s, expected %s", what, ggml_type_name(t->type), ggml_type_name(type));
    CHECK_MSG(same_ne(t, ne0, ne1, ne2, ne3), "%s: ne [%lld, %lld, %lld, %lld], expected [%lld, %lld, %lld, %lld]",
              what, (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3],
              (long long) ne0, (long long) ne1, (long long) ne2, (long long) ne3);
    CHECK_MSG(t->data == NULL || t->view_src != NULL, "%s: no data in a no_alloc context", what);
    if (g_n_results < MAX_RESULTS) {
        g_results[g_n_results++] = t;
    } else {
        CHECK_MSG(0, "too many results for MAX_RESULTS");
    }
    return t;
}

static int32_t op_i32(const struct ggml_tensor * t, int i) { return t->op_params[i]; }

static float op_f32(const struct ggml_tensor * t, int i) {
    float f;
    memcpy(&f, &t->op_params[i], sizeof(f));
    return f;
}

static void check_op_enum_values(void) {
    static const struct {
        enum ggml_op op;
        int          value;
        const char * name;
    } ops[] = {
        {GGML_OP_NONE, 0, "NONE"},
        {GGML_OP_DUP, 1, "DUP"},
        {GGML_OP_ADD, 2, "ADD"},
        {GGML_OP_ADD_ID, 3, "ADD_ID"},
        {GGML_OP_ADD1, 4, "ADD1"},
        {GGML_OP_ACC, 5, "ACC"},
        {GGML_OP_SUB, 6, "SUB"},
        {GGML_OP_MUL, 7, "MUL"},
        {GGML_OP_DIV, 8, "DIV"},
        {GGML_OP_SQR, 9, "SQR"},
        {GGML_OP_SQRT, 10, "SQRT"},
        {GGML_OP_LOG, 11, "LOG"},
        {GGML_OP_SIN, 12, "SIN"},
        {GGML_OP_COS, 13, "COS"},
        {GGML_OP_SUM, 14, "SUM"},
        {GGML_OP_SUM_ROWS, 15, "SUM_ROWS"},
        {GGML_OP_MEAN, 17, "MEAN"},
        {GGML_OP_ARGMAX, 18, "ARGMAX"},
        {GGML_OP_REPEAT, 20, "REPEAT"},
        {GGML_OP_CONCAT, 22, "CONCAT"},
        {GGML_OP_NORM, 24, "NORM"},
        {GGML_OP_RMS_NORM, 25, "RMS_NORM"},
        {GGML_OP_GROUP_NORM, 27, "GROUP_NORM"},
        {GGML_OP_L2_NORM, 28, "L2_NORM"},
        {GGML_OP_MUL_MAT, 29, "MUL_MAT"},
        {GGML_OP_MUL_MAT_ID, 30, "MUL_MAT_ID"},
        {GGML_OP_OUT_PROD, 31, "OUT_PROD"},
        {GGML_OP_SCALE, 32, "SCALE"},
        {GGML_OP_SET, 33, "SET"},
        {GGML_OP_CPY, 34, "CPY"},
        {GGML_OP_CONT, 35, "CONT"},
        {GGML_OP_RESHAPE, 36, "RESHAPE"},
        {GGML_OP_VIEW, 37, "VIEW"},
        {GGML_OP_PERMUTE, 38, "PERMUTE"},
        {GGML_OP_TRANSPOSE, 39, "TRANSPOSE"},
        {GGML_OP_GET_ROWS, 40, "GET_ROWS"},
        {GGML_OP_SET_ROWS, 42, "SET_ROWS"},
        {GGML_OP_DIAG_MASK_INF, 44, "DIAG_MASK_INF"},
        {GGML_OP_SOFT_MAX, 46, "SOFT_MAX"},
        {GGML_OP_ROPE, 48, "ROPE"},
        {GGML_OP_CLAMP, 50, "CLAMP"},
        {GGML_OP_IM2COL, 52, "IM2COL"},
        {GGML_OP_POOL_1D, 60, "POOL_1D"},
        {GGML_OP_POOL_2D, 61, "POOL_2D"},
        {GGML_OP_PAD, 64, "PAD"},
        {GGML_OP_ARANGE, 67, "ARANGE"},
        {GGML_OP_TIMESTEP_EMBEDDING, 68, "TIMESTEP_EMBEDDING"},
        {GGML_OP_ARGSORT, 69, "ARGSORT"},
        {GGML_OP_TOP_K, 70, "TOP_K"},
        {GGML_OP_LEAKY_RELU, 71, "LEAKY_RELU"},
        {GGML_OP_FLASH_ATTN_EXT, 74, "FLASH_ATTN_EXT"},
        {GGML_OP_UNARY, 91, "UNARY"},
        {GGML_OP_GLU, 100, "GLU"},
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i) {
        CHECK_MSG((int) ops[i].op == ops[i].value, "enum value of GGML_OP_%s: %d, expected %d", ops[i].name,
                  (int) ops[i].op, ops[i].value);
        CHECK_MSG(strcmp(ggml_op_name(ops[i].op), ops[i].name) == 0, "ggml_op_name(%d) == \"%s\" (got \"%s\")",
                  ops[i].value, ops[i].name, ggml_op_name(ops[i].op));
    }
    CHECK_MSG(GGML_OP_COUNT == 101, "GGML_OP_COUNT == 101 (got %d)", (int) GGML_OP_COUNT);
    CHECK_MSG(GGML_UNARY_OP_COUNT == 22 && GGML_GLU_OP_COUNT == 7, "unary and glu op counts 22 and 7");
    CHECK_MSG(GGML_OP_POOL_MAX == 0 && GGML_OP_POOL_AVG == 1 && GGML_SORT_ORDER_DESC == 1, "pool and sort enums");
    CHECK_MSG(GGML_PREC_F32 == 10 && GGML_ROPE_TYPE_NEOX == 2, "prec and rope mode values");
}

typedef struct ggml_tensor * (*unary_fn)(struct ggml_context *, struct ggml_tensor *);

/* element-wise ops with broadcasting, reductions, repeat and concat */
static void check_elementwise_ops(struct ggml_context * ctx, struct ggml_tensor * x, struct ggml_tensor * x16) {
    struct ggml_tensor * r;
    /* element-wise ops with broadcasting */
    struct ggml_tensor * row = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    struct ggml_tensor * col = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 1, 7, 1);
    struct ggml_tensor * one = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    expect_op("add (row broadcast)", ggml_add(ctx, x, row), GGML_OP_ADD, GGML_TYPE_F32, 16, 7, 2, 1);
    r = expect_op("add_inplace", ggml_add_inplace(ctx, x, row), GGML_OP_ADD, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && r->view_src == x, "add_inplace: a view of a");
    expect_op("add_cast f16 -> f32", ggml_add_cast(ctx, x16, row, GGML_TYPE_F32), GGML_OP_ADD, GGML_TYPE_F32, 16, 7, 2,
              1);
    expect_op("sub", ggml_sub(ctx, x, x), GGML_OP_SUB, GGML_TYPE_F32, 16, 7, 2, 1);
    expect_op("mul (column broadcast)", ggml_mul(ctx, x, col), GGML_OP_MUL, GGML_TYPE_F32, 16, 7, 2, 1);
    expect_op("div", ggml_div(ctx, x, row), GGML_OP_DIV, GGML_TYPE_F32, 16, 7, 2, 1);
    expect_op("add1", ggml_add1(ctx, x, one), GGML_OP_ADD1, GGML_TYPE_F32, 16, 7, 2, 1);
    expect_op("dup", ggml_dup(ctx, x16), GGML_OP_DUP, GGML_TYPE_F16, 16, 7, 2, 1);
    expect_op("sqr", ggml_sqr(ctx, x), GGML_OP_SQR, GGML_TYPE_F32, 16, 7, 2, 1);
    expect_op("sqrt", ggml_sqrt(ctx, x), GGML_OP_SQRT, GGML_TYPE_F32, 16, 7, 2, 1);
    expect_op("log", ggml_log(ctx, x), GGML_OP_LOG, GGML_TYPE_F32, 16, 7, 2, 1);
    expect_op("sin", ggml_sin(ctx, x), GGML_OP_SIN, GGML_TYPE_F32, 16, 7, 2, 1);
    expect_op("cos", ggml_cos(ctx, x), GGML_OP_COS, GGML_TYPE_F32, 16, 7, 2, 1);

    /* reductions */
    expect_op("sum", ggml_sum(ctx, x), GGML_OP_SUM, GGML_TYPE_F32, 1, 1, 1, 1);
    expect_op("sum_rows", ggml_sum_rows(ctx, x), GGML_OP_SUM_ROWS, GGML_TYPE_F32, 1, 7, 2, 1);
    expect_op("sum_rows f16 keeps the type", ggml_sum_rows(ctx, x16), GGML_OP_SUM_ROWS, GGML_TYPE_F16, 1, 7, 2, 1);
    expect_op("mean", ggml_mean(ctx, x), GGML_OP_MEAN, GGML_TYPE_F32, 1, 7, 2, 1);
    struct ggml_tensor * logits = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 10, 3);
    expect_op("argmax", ggml_argmax(ctx, logits), GGML_OP_ARGMAX, GGML_TYPE_I32, 3, 1, 1, 1);

    /* repeat, concat */
    struct ggml_tensor * rp   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 1, 2);
    struct ggml_tensor * tmpl = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 8, 3, 2, 5);
    expect_op("repeat (type of a, shape of b)", ggml_repeat(ctx, rp, tmpl), GGML_OP_REPEAT, GGML_TYPE_F32, 8, 3, 2, 5);
    expect_op("repeat_4d", ggml_repeat_4d(ctx, rp, 4, 2, 4, 3), GGML_OP_REPEAT, GGML_TYPE_F32, 4, 2, 4, 3);
    struct ggml_tensor * ca = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 3, 2);
    struct ggml_tensor * cb = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 5, 2);
    r = expect_op("concat dim 1", ggml_concat(ctx, ca, cb, 1), GGML_OP_CONCAT, GGML_TYPE_F32, 4, 8, 2, 1);
    CHECK_MSG(r && op_i32(r, 0) == 1, "concat: op_params[0] is the dimension");
    expect_op("concat dim 3", ggml_concat(ctx, ca, ca, 3), GGML_OP_CONCAT, GGML_TYPE_F32, 4, 3, 2, 2);
}

/* normalisation */
static void check_norm_and_matmul_ops(struct ggml_context * ctx, struct ggml_tensor * x) {
    struct ggml_tensor * r;
    r = expect_op("norm", ggml_norm(ctx, x, 1e-5f), GGML_OP_NORM, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && op_f32(r, 0) == 1e-5f, "norm: eps in op_params[0]");
    r = expect_op("rms_norm", ggml_rms_norm(ctx, x, 1e-6f), GGML_OP_RMS_NORM, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && op_f32(r, 0) == 1e-6f, "rms_norm: eps in op_params[0]");
    r = expect_op("rms_norm_inplace", ggml_rms_norm_inplace(ctx, x, 1e-6f), GGML_OP_RMS_NORM, GGML_TYPE_F32, 16, 7, 2,
                  1);
    CHECK_MSG(r && r->view_src == x, "rms_norm_inplace: a view of a");
    r = expect_op("l2_norm", ggml_l2_norm(ctx, x, 1e-12f), GGML_OP_L2_NORM, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && op_f32(r, 0) == 1e-12f, "l2_norm: eps in op_params[0]");
    struct ggml_tensor * gn_in = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 8, 6, 1);
    r = expect_op("group_norm", ggml_group_norm(ctx, gn_in, 3, 1e-6f), GGML_OP_GROUP_NORM, GGML_TYPE_F32, 8, 8, 6, 1);
    CHECK_MSG(r && op_i32(r, 0) == 3 && op_f32(r, 1) == 1e-6f, "group_norm: op_params {n_groups, eps}");

    /* matrix products */
    struct ggml_tensor * w  = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 16, 32, 2, 1);
    struct ggml_tensor * xb = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 16, 5, 6, 3);
    r = expect_op("mul_mat (broadcast over dims 2, 3)", ggml_mul_mat(ctx, w, xb), GGML_OP_MUL_MAT, GGML_TYPE_F32, 32, 5,
                  6, 3);
    if (r) {
        ggml_mul_mat_set_prec(r, GGML_PREC_F32);
        CHECK_MSG(op_i32(r, 0) == GGML_PREC_F32, "mul_mat_set_prec: op_params[0] == 10");
        CHECK_MSG(r->src[0] == w && r->src[1] == xb, "mul_mat: src[0] = a, src[1] = b");
    }
    struct ggml_tensor * wq  = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 10);
    struct ggml_tensor * act = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 3);
    expect_op("mul_mat (q4_0 weights)", ggml_mul_mat(ctx, wq, act), GGML_OP_MUL_MAT, GGML_TYPE_F32, 10, 3, 1, 1);
    struct ggml_tensor * experts = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 24, 8);
    struct ggml_tensor * tokens  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 1, 5);
    struct ggml_tensor * sel     = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 5);
    r = expect_op("mul_mat_id", ggml_mul_mat_id(ctx, experts, tokens, sel), GGML_OP_MUL_MAT_ID, GGML_TYPE_F32, 24, 2, 5,
                  1);
    CHECK_MSG(r && r->src[0] == experts && r->src[1] == tokens && r->src[2] == sel, "mul_mat_id: sources as, b, ids");
    struct ggml_tensor * opa = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 6, 4);
    struct ggml_tensor * opb = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 5, 4, 3);
    expect_op("out_prod", ggml_out_prod(ctx, opa, opb), GGML_OP_OUT_PROD, GGML_TYPE_F32, 6, 5, 3, 1);
}

/* scale, set, acc, clamp, leaky_relu, diag_mask_inf */
static void check_scale_set_ops(struct ggml_context * ctx, struct ggml_tensor * x) {
    struct ggml_tensor * r;
    r = expect_op("scale", ggml_scale(ctx, x, 0.5f), GGML_OP_SCALE, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && op_f32(r, 0) == 0.5f && op_f32(r, 1) == 0.0f, "scale: op_params {s, 0}");
    r = expect_op("scale_bias", ggml_scale_bias(ctx, x, 2.0f, 1.0f), GGML_OP_SCALE, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && op_f32(r, 0) == 2.0f && op_f32(r, 1) == 1.0f, "scale_bias: op_params {s, b}");
    struct ggml_tensor * m43 = ggml_set_name(ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3), "m43"); /* nb 4,16,48,48 */
    struct ggml_tensor * v2  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2);
    struct ggml_tensor * m22 = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2, 2);
    r = expect_op("set", ggml_set(ctx, m43, v2, m43->nb[1], m43->nb[2], m43->nb[3], 4), GGML_OP_SET, GGML_TYPE_F32, 4,
                  3, 1, 1);
    CHECK_MSG(r && op_i32(r, 0) == 16 && op_i32(r, 1) == 48 && op_i32(r, 2) == 48 && op_i32(r, 3) == 4 &&
                  op_i32(r, 4) == 0 && r->view_src == NULL,
              "set: op_params {nb1, nb2, nb3, offset, inplace = 0}, a new tensor");
    r = expect_op("set_inplace", ggml_set_inplace(ctx, m43, v2, m43->nb[1], m43->nb[2], m43->nb[3], 0), GGML_OP_SET,
                  GGML_TYPE_F32, 4, 3, 1, 1);
    CHECK_MSG(r && op_i32(r, 4) == 1 && r->view_src == m43, "set_inplace: inplace flag, a view of a");
    r = expect_op("set_1d", ggml_set_1d(ctx, m43, v2, 8), GGML_OP_SET, GGML_TYPE_F32, 4, 3, 1, 1);
    CHECK_MSG(r && op_i32(r, 0) == 16 && op_i32(r, 3) == 8, "set_1d: a's strides, offset 8");
    r = expect_op("set_2d", ggml_set_2d(ctx, m43, m22, 16, 4), GGML_OP_SET, GGML_TYPE_F32, 4, 3, 1, 1);
    CHECK_MSG(r && op_i32(r, 0) == 16 && op_i32(r, 1) == 48 && op_i32(r, 3) == 4, "set_2d: nb1 16, offset 4");
    r = expect_op("acc", ggml_acc(ctx, m43, m22, m43->nb[1], m43->nb[2], m43->nb[3], 4), GGML_OP_ACC, GGML_TYPE_F32, 4,
                  3, 1, 1);
    CHECK_MSG(r && op_i32(r, 0) == 16 && op_i32(r, 3) == 4 && op_i32(r, 4) == 0, "acc: op_params {nb1,nb2,nb3,offs,0}");
    r = expect_op("clamp", ggml_clamp(ctx, x, -1.0f, 1.0f), GGML_OP_CLAMP, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && op_f32(r, 0) == -1.0f && op_f32(r, 1) == 1.0f, "clamp: op_params {min, max}");
    CHECK_MSG(r && r->view_src == NULL, "clamp: a new tensor (ggml 0.25.1)");
    r = expect_op("clamp_inplace", ggml_clamp_inplace(ctx, x, -1.0f, 1.0f), GGML_OP_CLAMP, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && r->view_src == x, "clamp_inplace: a view of a");
    r = expect_op("leaky_relu", ggml_leaky_relu(ctx, x, 0.125f, false), GGML_OP_LEAKY_RELU, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && op_f32(r, 0) == 0.125f && r->view_src == NULL, "leaky_relu: slope in op_params[0]");
    r = expect_op("leaky_relu inplace", ggml_leaky_relu(ctx, x, 0.125f, true), GGML_OP_LEAKY_RELU, GGML_TYPE_F32, 16, 7,
                  2, 1);
    CHECK_MSG(r && r->view_src == x, "leaky_relu inplace: a view of a");
    struct ggml_tensor * kq8 = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 8, 8, 2);
    r = expect_op("diag_mask_inf", ggml_diag_mask_inf(ctx, kq8, 3), GGML_OP_DIAG_MASK_INF, GGML_TYPE_F32, 8, 8, 2, 1);
    CHECK_MSG(r && op_i32(r, 0) == 3, "diag_mask_inf: n_past in op_params[0]");
}

/* copies, casts, contiguous copies, reshapes, permutes */
static void check_layout_ops(struct ggml_context * ctx) {
    struct ggml_tensor * r;
    struct ggml_tensor * m43 = ggml_set_name(ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3), "m43"); /* nb 4,16,48,48 */
    struct ggml_tensor * kv  = ggml_set_name(ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 12), "kv");
    r = expect_op("cpy f32 -> f16", ggml_cpy(ctx, m43, kv), GGML_OP_CPY, GGML_TYPE_F16, 12, 1, 1, 1);
    CHECK_MSG(r && r->view_src == kv && r->src[0] == m43 && r->src[1] == kv, "cpy: a view of b, sources a and b");
    CHECK_MSG(r && strcmp(r->name, "kv (copy of m43)") == 0, "cpy: named \"kv (copy of m43)\" (got \"%s\")",
              r ? r->name : "");
    r = expect_op("cast f32 -> f16", ggml_cast(ctx, m43, GGML_TYPE_F16), GGML_OP_CPY, GGML_TYPE_F16, 4, 3, 1, 1);
    CHECK_MSG(r && r->src[0] == m43 && r->src[1] == r && r->view_src == NULL, "cast: src[1] is the result itself");
    struct ggml_tensor * mt = ggml_transpose(ctx, m43);
    r = expect_op("transpose", mt, GGML_OP_TRANSPOSE, GGML_TYPE_F32, 3, 4, 1, 1);
    CHECK_MSG(r && same_nb(r, 16, 4, 48, 48) && r->view_src == m43, "transpose: nb [16, 4, 48, 48], a view");
    r = expect_op("cont", ggml_cont(ctx, mt), GGML_OP_CONT, GGML_TYPE_F32, 3, 4, 1, 1);
    CHECK_MSG(r && ggml_is_contiguous(r) && same_nb(r, 4, 12, 48, 48), "cont: contiguous");
    expect_op("cont_1d", ggml_cont_1d(ctx, mt, 12), GGML_OP_CONT, GGML_TYPE_F32, 12, 1, 1, 1);
    expect_op("cont_2d", ggml_cont_2d(ctx, mt, 6, 2), GGML_OP_CONT, GGML_TYPE_F32, 6, 2, 1, 1);
    expect_op("cont_3d", ggml_cont_3d(ctx, mt, 2, 2, 3), GGML_OP_CONT, GGML_TYPE_F32, 2, 2, 3, 1);
    expect_op("cont_4d", ggml_cont_4d(ctx, mt, 2, 3, 2, 1), GGML_OP_CONT, GGML_TYPE_F32, 2, 3, 2, 1);
    struct ggml_tensor * flat = ggml_set_name(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 24), "flat");
    r = expect_op("reshape_4d", ggml_reshape_4d(ctx, flat, 2, 3, 2, 2), GGML_OP_RESHAPE, GGML_TYPE_F32, 2, 3, 2, 2);
    CHECK_MSG(r && r->view_src == flat && same_nb(r, 4, 8, 24, 48), "reshape_4d: a view with contiguous strides");
    CHECK_MSG(r && strcmp(r->name, "flat (reshaped)") == 0, "reshape: named \"flat (reshaped)\" (got \"%s\")",
              r ? r->name : "");
    expect_op("reshape_3d", ggml_reshape_3d(ctx, flat, 4, 3, 2), GGML_OP_RESHAPE, GGML_TYPE_F32, 4, 3, 2, 1);
    expect_op("reshape_2d", ggml_reshape_2d(ctx, flat, 6, 4), GGML_OP_RESHAPE, GGML_TYPE_F32, 6, 4, 1, 1);
    struct ggml_tensor * like = ggml_new_tensor_3d(ctx, GGML_TYPE_I8, 4, 3, 2);
    expect_op("reshape (like b)", ggml_reshape(ctx, flat, like), GGML_OP_RESHAPE, GGML_TYPE_F32, 4, 3, 2, 1);
    struct ggml_tensor * p4 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 2, 3, 4, 5); /* nb 4, 8, 24, 96 */
    r = expect_op("permute(3,1,0,2)", ggml_permute(ctx, p4, 3, 1, 0, 2), GGML_OP_PERMUTE, GGML_TYPE_F32, 4, 3, 5, 2);
    CHECK_MSG(r && same_nb(r, 24, 8, 96, 4), "permute(3,1,0,2): nb [24, 8, 96, 4]");
    CHECK_MSG(r && op_i32(r, 0) == 3 && op_i32(r, 1) == 1 && op_i32(r, 2) == 0 && op_i32(r, 3) == 2,
              "permute: axes in op_params");
    r = expect_op("view_2d", ggml_view_2d(ctx, p4, 2, 6, p4->nb[1], 0), GGML_OP_VIEW, GGML_TYPE_F32, 2, 6, 1, 1);
}

/* rows */
static void check_row_ops(struct ggml_context * ctx) {
    struct ggml_tensor * r;
    struct ggml_tensor * emb  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 10);
    struct ggml_tensor * embq = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 32, 10);
    struct ggml_tensor * embi = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 4, 10);
    struct ggml_tensor * emb3 = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 10, 3);
    struct ggml_tensor * ids  = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 5);
    struct ggml_tensor * ids2 = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 5, 3);
    expect_op("get_rows", ggml_get_rows(ctx, emb, ids), GGML_OP_GET_ROWS, GGML_TYPE_F32, 16, 5, 1, 1);
    expect_op("get_rows (q8_0 -> f32)", ggml_get_rows(ctx, embq, ids), GGML_OP_GET_ROWS, GGML_TYPE_F32, 32, 5, 1, 1);
    expect_op("get_rows (i32 stays i32)", ggml_get_rows(ctx, embi, ids), GGML_OP_GET_ROWS, GGML_TYPE_I32, 4, 5, 1, 1);
    expect_op("get_rows (batched)", ggml_get_rows(ctx, emb3, ids2), GGML_OP_GET_ROWS, GGML_TYPE_F32, 16, 5, 3, 1);
    struct ggml_tensor * cache = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 16, 10);
    struct ggml_tensor * newr  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 3);
    struct ggml_tensor * at64  = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, 3);
    struct ggml_tensor * at32  = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
    r = expect_op("set_rows (i64)", ggml_set_rows(ctx, cache, newr, at64), GGML_OP_SET_ROWS, GGML_TYPE_F16, 16, 10, 1,
                  1);
    CHECK_MSG(r && r->view_src == cache && r->src[0] == newr && r->src[1] == at64 && r->src[2] == cache,
              "set_rows: a view of a, sources {b, c, a} as upstream");
    expect_op("set_rows (i32)", ggml_set_rows(ctx, cache, newr, at32), GGML_OP_SET_ROWS, GGML_TYPE_F16, 16, 10, 1, 1);
    struct ggml_tensor * cache3 = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 16, 10, 4);
    struct ggml_tensor * newr3  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 3, 4);
    struct ggml_tensor * at3    = ggml_new_tensor_2d(ctx, GGML_TYPE_I64, 3, 2);
    expect_op("set_rows (index broadcast)", ggml_set_rows(ctx, cache3, newr3, at3), GGML_OP_SET_ROWS, GGML_TYPE_F16, 16,
              10, 4, 1);
}

/* attention */
static void check_attention_ops(struct ggml_context * ctx) {
    struct ggml_tensor * r;
    struct ggml_tensor * kq    = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 32, 7, 4);
    struct ggml_tensor * kmask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 32, 8);
    struct ggml_tensor * sinks = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    r = expect_op("soft_max_ext", ggml_soft_max_ext(ctx, kq, kmask, 0.125f, 0.0f), GGML_OP_SOFT_MAX, GGML_TYPE_F32, 32,
                  7, 4, 1);
    if (r) {
        CHECK_MSG(r->src[0] == kq && r->src[1] == kmask && op_f32(r, 0) == 0.125f && op_f32(r, 1) == 0.0f,
                  "soft_max_ext: sources {a, mask}, op_params {scale, max_bias}");
        ggml_soft_max_add_sinks(r, sinks);
        CHECK_MSG(r->src[2] == sinks, "soft_max_add_sinks: src[2]");
    }
    struct ggml_tensor * kmask32 = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 32, 7, 1);
    r = expect_op("soft_max_ext (f32 mask, ALiBi)", ggml_soft_max_ext(ctx, kq, kmask32, 1.0f, 8.0f), GGML_OP_SOFT_MAX,
                  GGML_TYPE_F32, 32, 7, 4, 1);
    CHECK_MSG(r && op_f32(r, 1) == 8.0f, "soft_max_ext: max_bias in op_params[1]");
    r = expect_op("soft_max", ggml_soft_max(ctx, kq), GGML_OP_SOFT_MAX, GGML_TYPE_F32, 32, 7, 4, 1);
    CHECK_MSG(r && r->src[1] == NULL && op_f32(r, 0) == 1.0f, "soft_max: no mask, scale 1");

    struct ggml_tensor * cur = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 64, 4, 7);
    struct ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 7);
    struct ggml_tensor * ff  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 32);
    struct ggml_tensor * roped =
        ggml_rope_ext(ctx, cur, pos, ff, 64, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    r = expect_op("rope_ext (neox, freq factors)", roped, GGML_OP_ROPE, GGML_TYPE_F32, 64, 4, 7, 1);
    CHECK_MSG(r && r->src[1] == pos && r->src[2] == ff, "rope_ext: sources {a, positions, freq factors}");
    CHECK_MSG(r && op_i32(r, 1) == 64 && op_i32(r, 2) == GGML_ROPE_TYPE_NEOX && op_i32(r, 4) == 4096,
              "rope_ext: op_params n_dims [1], mode [2], n_ctx_orig [4]");
    CHECK_MSG(r && op_f32(r, 5) == 10000.0f && op_f32(r, 6) == 1.0f && op_f32(r, 7) == 0.0f && op_f32(r, 8) == 1.0f &&
                  op_f32(r, 9) == 32.0f && op_f32(r, 10) == 1.0f,
              "rope_ext: op_params freq_base [5] .. beta_slow [10]");
    r = expect_op("rope (normal)", ggml_rope(ctx, cur, pos, 32, GGML_ROPE_TYPE_NORMAL), GGML_OP_ROPE, GGML_TYPE_F32, 64,
                  4, 7, 1);
    CHECK_MSG(r && r->src[2] == NULL && op_i32(r, 1) == 32 && op_f32(r, 5) == 10000.0f, "rope: defaults");

    struct ggml_tensor * q     = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 64, 7, 8, 1);
    struct ggml_tensor * k     = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 64, 32, 2, 1);
    struct ggml_tensor * v     = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 48, 32, 2, 1);
    struct ggml_tensor * fmask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 32, GGML_KQ_MASK_PAD);
    struct ggml_tensor * fsink = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    r = expect_op("flash_attn_ext (GQA, dv != dk)", ggml_flash_attn_ext(ctx, q, k, v, fmask, 0.125f, 0.0f, 30.0f),
                  GGML_OP_FLASH_ATTN_EXT, GGML_TYPE_F32, 48, 8, 7, 1);
    if (r) {
        CHECK_MSG(r->src[0] == q && r->src[1] == k && r->src[2] == v && r->src[3] == fmask,
                  "flash_attn_ext: sources {q, k, v, mask}");
        CHECK_MSG(op_f32(r, 0) == 0.125f && op_f32(r, 1) == 0.0f && op_f32(r, 2) == 30.0f,
                  "flash_attn_ext: op_params {scale, max_bias, logit_softcap}");
        ggml_flash_attn_ext_set_prec(r, GGML_PREC_F32);
        CHECK_MSG(ggml_flash_attn_ext_get_prec(r) == GGML_PREC_F32 && op_i32(r, 3) == GGML_PREC_F32,
                  "flash_attn_ext precision in op_params[3]");
        ggml_flash_attn_ext_add_sinks(r, fsink);
        CHECK_MSG(r->src[4] == fsink, "flash_attn_ext_add_sinks: src[4]");
    }
    r = expect_op("flash_attn_ext (no mask)", ggml_flash_attn_ext(ctx, q, k, v, NULL, 1.0f, 0.0f, 0.0f),
                  GGML_OP_FLASH_ATTN_EXT, GGML_TYPE_F32, 48, 8, 7, 1);
    CHECK_MSG(r && r->src[3] == NULL, "flash_attn_ext: no mask");
}

/* convolution front ends and pooling */
static void check_conv_and_pool_ops(struct ggml_context * ctx) {
    struct ggml_tensor * r;
    struct ggml_tensor * k1 = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 3, 4, 8);     /* K=3, IC=4, OC=8 */
    struct ggml_tensor * d1 = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 20, 4, 2);    /* L=20, IC=4, N=2 */
    struct ggml_tensor * k2 = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 3, 3, 4, 8);  /* KW, KH, IC, OC */
    struct ggml_tensor * d2 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 10, 9, 4, 2); /* W, H, IC, N */
    /* 1d: OW = (20 + 2*1 - 1*(3-1) - 1)/2 + 1 = 10 */
    r = expect_op("im2col 1d", ggml_im2col(ctx, k1, d1, 2, 0, 1, 0, 1, 0, false, GGML_TYPE_F16), GGML_OP_IM2COL,
                  GGML_TYPE_F16, 12, 10, 2, 1);
    CHECK_MSG(r && op_i32(r, 0) == 2 && op_i32(r, 2) == 1 && op_i32(r, 4) == 1 && op_i32(r, 6) == 0,
              "im2col 1d: op_params {s0, s1, p0, p1, d0, d1, is_2D}");
    /* 2d: OW = (10 + 2 - 2 - 1)/1 + 1 = 10, OH = (9 + 0 - 2 - 1)/2 + 1 = 4 */
    r = expect_op("im2col 2d", ggml_im2col(ctx, k2, d2, 1, 2, 1, 0, 1, 1, true, GGML_TYPE_F32), GGML_OP_IM2COL,
                  GGML_TYPE_F32, 36, 10, 4, 2);
    CHECK_MSG(r && op_i32(r, 0) == 1 && op_i32(r, 1) == 2 && op_i32(r, 2) == 1 && op_i32(r, 3) == 0 &&
                  op_i32(r, 4) == 1 && op_i32(r, 5) == 1 && op_i32(r, 6) == 1,
              "im2col 2d: op_params {1, 2, 1, 0, 1, 1, 1}");
    /* conv_1d = im2col + mul_mat + reshape: [OL, OC, N] */
    expect_op("conv_1d", ggml_conv_1d(ctx, k1, d1, 2, 1, 1), GGML_OP_RESHAPE, GGML_TYPE_F32, 10, 8, 2, 1);
    expect_op("conv_1d_ph", ggml_conv_1d_ph(ctx, k1, d1, 1, 1), GGML_OP_RESHAPE, GGML_TYPE_F32, 20, 8, 2, 1);
    /* conv_2d = im2col + mul_mat + reshape + permute + cont: [OW, OH, OC, N] */
    expect_op("conv_2d", ggml_conv_2d(ctx, k2, d2, 1, 2, 1, 0, 1, 1), GGML_OP_CONT, GGML_TYPE_F32, 10, 4, 8, 2);
    struct ggml_tensor * pa = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 20, 3);
    /* (20 + 2*1 - 3)/2 + 1 = 10 */
    r = expect_op("pool_1d", ggml_pool_1d(ctx, pa, GGML_OP_POOL_MAX, 3, 2, 1), GGML_OP_POOL_1D, GGML_TYPE_F32, 10, 3, 1,
                  1);
    CHECK_MSG(r && op_i32(r, 0) == GGML_OP_POOL_MAX && op_i32(r, 1) == 3 && op_i32(r, 2) == 2 && op_i32(r, 3) == 1,
              "pool_1d: op_params {op, k0, s0, p0}");
    struct ggml_tensor * pb = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 10, 9, 3, 2);
    /* (10 + 0 - 2)/2 + 1 = 5, (9 + 2 - 3)/3 + 1 = 3 */
    r = expect_op("pool_2d", ggml_pool_2d(ctx, pb, GGML_OP_POOL_AVG, 2, 3, 2, 3, 0.0f, 1.0f), GGML_OP_POOL_2D,
                  GGML_TYPE_F32, 5, 3, 3, 2);
    CHECK_MSG(r && op_i32(r, 0) == GGML_OP_POOL_AVG && op_i32(r, 1) == 2 && op_i32(r, 2) == 3 && op_i32(r, 3) == 2 &&
                  op_i32(r, 4) == 3 && op_i32(r, 5) == 0 && op_i32(r, 6) == 1,
              "pool_2d: op_params {op, k0, k1, s0, s1, p0, p1} as integers");
    struct ggml_tensor * pd = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 5, 3, 2);
    r = expect_op("pad", ggml_pad(ctx, pd, 1, 2, 0, 3), GGML_OP_PAD, GGML_TYPE_F32, 6, 5, 2, 4);
    CHECK_MSG(r && op_i32(r, 0) == 0 && op_i32(r, 1) == 1 && op_i32(r, 2) == 0 && op_i32(r, 3) == 2 &&
                  op_i32(r, 6) == 0 && op_i32(r, 7) == 3,
              "pad: op_params {lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3}");
    r = expect_op("pad_ext", ggml_pad_ext(ctx, pd, 1, 2, 0, 1, 0, 0, 0, 0), GGML_OP_PAD, GGML_TYPE_F32, 8, 4, 2, 1);
    CHECK_MSG(r && op_i32(r, 0) == 1 && op_i32(r, 1) == 2 && op_i32(r, 3) == 1, "pad_ext: op_params");
}

/* generators, sorting, MoE bias */
static void check_generator_ops(struct ggml_context * ctx) {
    struct ggml_tensor * r;
    struct ggml_tensor * logits = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 10, 3);
    r = expect_op("arange(0, 10, 3)", ggml_arange(ctx, 0.0f, 10.0f, 3.0f), GGML_OP_ARANGE, GGML_TYPE_F32, 4, 1, 1, 1);
    CHECK_MSG(r && op_f32(r, 0) == 0.0f && op_f32(r, 1) == 10.0f && op_f32(r, 2) == 3.0f && r->src[0] == NULL,
              "arange: op_params {start, stop, step}, no sources");
    expect_op("arange(1.5, 4, 0.5)", ggml_arange(ctx, 1.5f, 4.0f, 0.5f), GGML_OP_ARANGE, GGML_TYPE_F32, 5, 1, 1, 1);
    struct ggml_tensor * ts = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 6);
    r = expect_op("timestep_embedding", ggml_timestep_embedding(ctx, ts, 32, 10000), GGML_OP_TIMESTEP_EMBEDDING,
                  GGML_TYPE_F32, 32, 6, 1, 1);
    CHECK_MSG(r && op_i32(r, 0) == 32 && op_i32(r, 1) == 10000, "timestep_embedding: op_params {dim, max_period}");
    struct ggml_tensor * srt = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 10, 3, 2);
    r = expect_op("argsort", ggml_argsort(ctx, srt, GGML_SORT_ORDER_DESC), GGML_OP_ARGSORT, GGML_TYPE_I32, 10, 3, 2, 1);
    CHECK_MSG(r && op_i32(r, 0) == GGML_SORT_ORDER_DESC, "argsort: order in op_params[0]");
    expect_op("top_k", ggml_top_k(ctx, logits, 4), GGML_OP_TOP_K, GGML_TYPE_I32, 4, 3, 1, 1);

    /* MoE bias */
    struct ggml_tensor * ai  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 2, 5);
    struct ggml_tensor * bi  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 8);
    struct ggml_tensor * idi = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 5);
    r = expect_op("add_id", ggml_add_id(ctx, ai, bi, idi), GGML_OP_ADD_ID, GGML_TYPE_F32, 16, 2, 5, 1);
    CHECK_MSG(r && r->src[0] == ai && r->src[1] == bi && r->src[2] == idi, "add_id: sources {a, b, ids}");
}

/* the ops applications extend ggml with: custom functions, fill/tri/diag, roll, cumsum, argsort_top_k, xielu */
static void custom1_fn(struct ggml_tensor * dst, const struct ggml_tensor * a, int ith, int nth, void * userdata) {
    (void) dst, (void) a, (void) ith, (void) nth, (void) userdata;
}
static void custom_fn(struct ggml_tensor * dst, int ith, int nth, void * userdata) {
    (void) dst, (void) ith, (void) nth, (void) userdata;
}

/* upstream's ggml_map_custom1_op_params / ggml_custom_op_params: {fun, n_tasks, userdata} from op_params[0] */
struct custom_params {
    void (*fun)(void);
    int    n_tasks;
    void * userdata;
};

static struct custom_params custom_params_of(const struct ggml_tensor * t) {
    struct custom_params p;
    memcpy(&p, t->op_params, sizeof(p));
    return p;
}

static void check_extension_ops(struct ggml_context * ctx, struct ggml_tensor * x) {
    static int           user = 42;
    struct ggml_tensor * r;
    r = expect_op("map_custom1", ggml_map_custom1(ctx, x, custom1_fn, 2, &user), GGML_OP_MAP_CUSTOM1, GGML_TYPE_F32,
                  16, 7, 2, 1);
    CHECK_MSG(r && custom_params_of(r).n_tasks == 2 && custom_params_of(r).userdata == &user && r->src[0] == x,
              "map_custom1: op_params {fun, n_tasks, userdata}, src[0] = a");
    r = expect_op("map_custom1_inplace", ggml_map_custom1_inplace(ctx, x, custom1_fn, GGML_N_TASKS_MAX, NULL),
                  GGML_OP_MAP_CUSTOM1, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && r->view_src == x && ggml_is_view(r) && custom_params_of(r).n_tasks == -1,
              "map_custom1_inplace: a view of a, n_tasks GGML_N_TASKS_MAX = -1");
    struct ggml_tensor * args[2] = {x, x};
    r = expect_op("custom_4d", ggml_custom_4d(ctx, GGML_TYPE_I32, 3, 2, 1, 1, args, 2, custom_fn, 1, &user),
                  GGML_OP_CUSTOM, GGML_TYPE_I32, 3, 2, 1, 1);
    CHECK_MSG(r && r->src[0] == x && r->src[1] == x && r->src[2] == NULL && custom_params_of(r).userdata == &user,
              "custom_4d: sources args[0..n_args)");
    r = expect_op("custom_inplace", ggml_custom_inplace(ctx, x, args, 1, custom_fn, 1, NULL), GGML_OP_CUSTOM,
                  GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && r->view_src == x && r->src[0] == x && r->src[1] == x && r->src[2] == NULL,
              "custom_inplace: a view of a with sources {a, args...}");

    struct ggml_tensor * sq = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 5, 5, 2);
    r = expect_op("fill", ggml_fill(ctx, sq, 0.5f), GGML_OP_FILL, GGML_TYPE_F32, 5, 5, 2, 1);
    CHECK_MSG(r && op_f32(r, 0) == 0.5f, "fill: the constant in op_params[0]");
    r = expect_op("fill_inplace", ggml_fill_inplace(ctx, sq, 1.0f), GGML_OP_FILL, GGML_TYPE_F32, 5, 5, 2, 1);
    CHECK_MSG(r && r->view_src == sq, "fill_inplace: a view of a");
    r = expect_op("tri", ggml_tri(ctx, sq, GGML_TRI_TYPE_LOWER_DIAG), GGML_OP_TRI, GGML_TYPE_F32, 5, 5, 2, 1);
    CHECK_MSG(r && op_i32(r, 0) == 2, "tri: GGML_TRI_TYPE_LOWER_DIAG = 2 in op_params[0]");
    struct ggml_tensor * row = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 6, 1, 3);
    expect_op("diag", ggml_diag(ctx, row), GGML_OP_DIAG, GGML_TYPE_F32, 6, 6, 3, 1);
    r = expect_op("roll", ggml_roll(ctx, x, 3, -2, 1, 0), GGML_OP_ROLL, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && op_i32(r, 0) == 3 && op_i32(r, 1) == -2 && op_i32(r, 2) == 1 && op_i32(r, 3) == 0,
              "roll: op_params {shift0, shift1, shift2, shift3}");
    expect_op("cumsum", ggml_cumsum(ctx, x), GGML_OP_CUMSUM, GGML_TYPE_F32, 16, 7, 2, 1);
    r = expect_op("argsort_top_k", ggml_argsort_top_k(ctx, x, 4), GGML_OP_VIEW, GGML_TYPE_I32, 4, 7, 2, 1);
    CHECK_MSG(r && r->src[0] && r->src[0]->op == GGML_OP_ARGSORT && op_i32(r->src[0], 0) == GGML_SORT_ORDER_DESC &&
                  r->nb[1] == 16 * sizeof(int32_t),
              "argsort_top_k: a view of the first k columns of a descending argsort");
    /* softplus(0) = ln 2 = 0.6931472, so alpha_n' = beta + ln 2 and alpha_p' = ln 2 */
    r = expect_op("xielu", ggml_xielu(ctx, x, 0.0f, 0.0f, 0.5f, -1e-6f), GGML_OP_UNARY, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && op_i32(r, 0) == GGML_UNARY_OP_XIELU && fabsf(op_f32(r, 1) - 1.1931472f) < 1e-6f &&
                  fabsf(op_f32(r, 2) - 0.6931472f) < 1e-6f && op_f32(r, 3) == 0.5f && op_f32(r, 4) == -1e-6f,
              "xielu: op_params {XIELU, beta + softplus(alpha_n), softplus(alpha_p), beta, eps}");
    static const struct {
        struct ggml_tensor * (*fn)(struct ggml_context *, struct ggml_tensor *);
        const char * what;
        int          op;
    } rounding[] = {
        {ggml_expm1, "expm1", GGML_UNARY_OP_EXPM1}, {ggml_floor, "floor", GGML_UNARY_OP_FLOOR},
        {ggml_ceil, "ceil", GGML_UNARY_OP_CEIL},    {ggml_round, "round", GGML_UNARY_OP_ROUND},
        {ggml_trunc, "trunc", GGML_UNARY_OP_TRUNC},
    };
    for (size_t i = 0; i < sizeof(rounding) / sizeof(rounding[0]); ++i) {
        r = expect_op(rounding[i].what, rounding[i].fn(ctx, x), GGML_OP_UNARY, GGML_TYPE_F32, 16, 7, 2, 1);
        CHECK_MSG(r && op_i32(r, 0) == rounding[i].op, "%s: unary op %d", rounding[i].what, rounding[i].op);
    }
    r = expect_op("trunc_inplace", ggml_trunc_inplace(ctx, x), GGML_OP_UNARY, GGML_TYPE_F32, 16, 7, 2, 1);
    CHECK_MSG(r && r->view_src == x, "trunc_inplace: a view of a");
}

/* gated linear units: fused (half a row) and split */
static void check_glu_ops(struct ggml_context * ctx) {
    struct ggml_tensor * r;
    struct ggml_tensor * gl = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 7);
    struct ggml_tensor * ga = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 7);
    struct ggml_tensor * gb = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 7);
    static const struct {
        struct ggml_tensor * (*fn)(struct ggml_context *, struct ggml_tensor *);
        const char * what;
        int          op;
        int          swapped;
    } fused[] = {
        {ggml_reglu, "reglu", GGML_GLU_OP_REGLU, 0},
        {ggml_reglu_swapped, "reglu_swapped", GGML_GLU_OP_REGLU, 1},
        {ggml_geglu, "geglu", GGML_GLU_OP_GEGLU, 0},
        {ggml_geglu_swapped, "geglu_swapped", GGML_GLU_OP_GEGLU, 1},
        {ggml_swiglu, "swiglu", GGML_GLU_OP_SWIGLU, 0},
        {ggml_swiglu_swapped, "swiglu_swapped", GGML_GLU_OP_SWIGLU, 1},
        {ggml_geglu_erf, "geglu_erf", GGML_GLU_OP_GEGLU_ERF, 0},
        {ggml_geglu_erf_swapped, "geglu_erf_swapped", GGML_GLU_OP_GEGLU_ERF, 1},
        {ggml_geglu_quick, "geglu_quick", GGML_GLU_OP_GEGLU_QUICK, 0},
        {ggml_geglu_quick_swapped, "geglu_quick_swapped", GGML_GLU_OP_GEGLU_QUICK, 1},
    };
    for (size_t i = 0; i < sizeof(fused) / sizeof(fused[0]); ++i) {
        r = expect_op(fused[i].what, fused[i].fn(ctx, gl), GGML_OP_GLU, GGML_TYPE_F32, 16, 7, 1, 1);
        CHECK_MSG(r && op_i32(r, 0) == fused[i].op && op_i32(r, 1) == fused[i].swapped && r->src[1] == NULL,
                  "%s: op_params {glu op %d, swapped %d}, no second source", fused[i].what, fused[i].op,
                  fused[i].swapped);
        CHECK_MSG(r && strcmp(ggml_op_desc(r), ggml_glu_op_name((enum ggml_glu_op) fused[i].op)) == 0,
                  "%s: ggml_op_desc names the GLU op", fused[i].what);
    }
    CHECK_MSG(GGML_GLU_OP_REGLU == 0 && GGML_GLU_OP_GEGLU == 1 && GGML_GLU_OP_SWIGLU == 2 &&
                  GGML_GLU_OP_SWIGLU_OAI == 3 && GGML_GLU_OP_GEGLU_ERF == 4 && GGML_GLU_OP_GEGLU_QUICK == 5,
              "ggml_glu_op enum values");
    r = expect_op("glu(geglu, swapped)", ggml_glu(ctx, gl, GGML_GLU_OP_GEGLU, true), GGML_OP_GLU, GGML_TYPE_F32, 16, 7,
                  1, 1);
    CHECK_MSG(r && op_i32(r, 0) == GGML_GLU_OP_GEGLU && op_i32(r, 1) == 1, "glu: op and swapped in op_params");
    static const struct {
        struct ggml_tensor * (*fn)(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *);
        const char * what;
        int          op;
    } split[] = {
        {ggml_reglu_split, "reglu_split", GGML_GLU_OP_REGLU},
        {ggml_geglu_split, "geglu_split", GGML_GLU_OP_GEGLU},
        {ggml_swiglu_split, "swiglu_split", GGML_GLU_OP_SWIGLU},
        {ggml_geglu_erf_split, "geglu_erf_split", GGML_GLU_OP_GEGLU_ERF},
        {ggml_geglu_quick_split, "geglu_quick_split", GGML_GLU_OP_GEGLU_QUICK},
    };
    for (size_t i = 0; i < sizeof(split) / sizeof(split[0]); ++i) {
        r = expect_op(split[i].what, split[i].fn(ctx, ga, gb), GGML_OP_GLU, GGML_TYPE_F32, 16, 7, 1, 1);
        CHECK_MSG(r && op_i32(r, 0) == split[i].op && op_i32(r, 1) == 0 && r->src[0] == ga && r->src[1] == gb,
                  "%s: op_params {glu op %d, 0}, sources {a, b}", split[i].what, split[i].op);
    }
    r = expect_op("glu_split(swiglu)", ggml_glu_split(ctx, ga, gb, GGML_GLU_OP_SWIGLU), GGML_OP_GLU, GGML_TYPE_F32, 16,
                  7, 1, 1);
    r = expect_op("swiglu_oai", ggml_swiglu_oai(ctx, ga, gb, 1.5f, 7.0f), GGML_OP_GLU, GGML_TYPE_F32, 16, 7, 1, 1);
    CHECK_MSG(r && op_i32(r, 0) == GGML_GLU_OP_SWIGLU_OAI && op_f32(r, 2) == 1.5f && op_f32(r, 3) == 7.0f,
              "swiglu_oai: op_params {3, 0, alpha, limit}");
}

/* unary ops */
static void check_unary_ops(struct ggml_context * ctx, struct ggml_tensor * x, struct ggml_tensor * x16) {
    struct ggml_tensor * r;
    static const struct {
        unary_fn     fn;
        unary_fn     inplace;
        const char * name;
        int          op;
    } unary[] = {
        {ggml_abs, ggml_abs_inplace, "ABS", 0},
        {ggml_sgn, ggml_sgn_inplace, "SGN", 1},
        {ggml_neg, ggml_neg_inplace, "NEG", 2},
        {ggml_step, ggml_step_inplace, "STEP", 3},
        {ggml_tanh, ggml_tanh_inplace, "TANH", 4},
        {ggml_elu, ggml_elu_inplace, "ELU", 5},
        {ggml_relu, ggml_relu_inplace, "RELU", 6},
        {ggml_sigmoid, ggml_sigmoid_inplace, "SIGMOID", 7},
        {ggml_gelu, ggml_gelu_inplace, "GELU", 8},
        {ggml_gelu_quick, ggml_gelu_quick_inplace, "GELU_QUICK", 9},
        {ggml_silu, ggml_silu_inplace, "SILU", 10},
        {ggml_hardswish, NULL, "HARDSWISH", 11},
        {ggml_hardsigmoid, NULL, "HARDSIGMOID", 12},
        {ggml_exp, ggml_exp_inplace, "EXP", 13},
        {ggml_softplus, ggml_softplus_inplace, "SOFTPLUS", 15},
        {ggml_gelu_erf, ggml_gelu_erf_inplace, "GELU_ERF", 16},
    };
    for (size_t i = 0; i < sizeof(unary) / sizeof(unary[0]); ++i) {
        char what[64];
        snprintf(what, sizeof(what), "unary %s", unary[i].name);
        r = expect_op(what, unary[i].fn(ctx, x), GGML_OP_UNARY, GGML_TYPE_F32, 16, 7, 2, 1);
        if (r) {
            CHECK_MSG((int) ggml_get_unary_op(r) == unary[i].op && op_i32(r, 0) == unary[i].op,
                      "%s: ggml_get_unary_op == %d (got %d)", what, unary[i].op, (int) ggml_get_unary_op(r));
            CHECK_MSG(strcmp(ggml_op_desc(r), unary[i].name) == 0 &&
                          strcmp(ggml_unary_op_name((enum ggml_unary_op) unary[i].op), unary[i].name) == 0,
                      "%s: ggml_op_desc and ggml_unary_op_name (got \"%s\")", what, ggml_op_desc(r));
            CHECK_MSG(r->view_src == NULL && r->src[0] == x, "%s: a new tensor with source x", what);
        }
        if (unary[i].inplace) {
            snprintf(what, sizeof(what), "unary %s inplace", unary[i].name);
            r = expect_op(what, unary[i].inplace(ctx, x), GGML_OP_UNARY, GGML_TYPE_F32, 16, 7, 2, 1);
            CHECK_MSG(r && r->view_src == x && (int) ggml_get_unary_op(r) == unary[i].op, "%s: a view of x", what);
        }
    }
    r = expect_op("ggml_unary(EXPM1)", ggml_unary(ctx, x16, GGML_UNARY_OP_EXPM1), GGML_OP_UNARY, GGML_TYPE_F16, 16, 7,
                  2, 1);
    CHECK_MSG(r && ggml_get_unary_op(r) == GGML_UNARY_OP_EXPM1 && GGML_UNARY_OP_EXPM1 == 14, "ggml_unary: EXPM1 = 14");
}

/* everything goes into one graph: every result is a node with the COMPUTE flag, inputs are leafs */
static void check_op_graph(struct ggml_context * ctx, struct ggml_tensor * x) {
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 2048, false);
    CHECK(gf != NULL);
    if (gf) {
        for (int i = 0; i < g_n_results; ++i) {
            ggml_build_forward_expand(gf, g_results[i]);
        }
        const int n_nodes = ggml_graph_n_nodes(gf);
        CHECK_MSG(n_nodes >= g_n_results && n_nodes <= 2048,
                  "op graph: at least one node per result (%d nodes, %d results)", n_nodes, g_n_results);
        int missing = -1;
        for (int i = 0; i < g_n_results && missing < 0; ++i) {
            int found = 0;
            for (int j = 0; j < n_nodes && !found; ++j) {
                found = ggml_graph_node(gf, j) == g_results[i];
            }
            if (!found || !(g_results[i]->flags & GGML_TENSOR_FLAG_COMPUTE)) {
                missing = i;
            }
        }
        CHECK_MSG(missing < 0, "op graph: result %d (%s) is not a COMPUTE node", missing,
                  missing < 0 ? "" : ggml_op_desc(g_results[missing]));
        int leaf_in_nodes = 0;
        for (int j = 0; j < n_nodes; ++j) {
            leaf_in_nodes |= ggml_graph_node(gf, j) == x;
        }
        CHECK_MSG(!leaf_in_nodes && !(x->flags & GGML_TENSOR_FLAG_COMPUTE), "op graph: inputs are leafs");
        CHECK_MSG(ggml_graph_get_tensor(gf, "x") == x, "op graph: the input x is found by name");
        CHECK_MSG(ggml_graph_node(gf, -1) == g_results[g_n_results - 1], "op graph: the last result is the last node");
    }
}

static void check_op_constructors(void) {
    check_op_enum_values();

    struct ggml_init_params params = {1024 * ggml_tensor_overhead() + ggml_graph_overhead_custom(2048, false), NULL,
                                      true};
    struct ggml_context *   ctx    = ggml_init(params);
    CHECK(ctx != NULL);
    if (!ctx) {
        return;
    }
    g_n_results              = 0;
    struct ggml_tensor * x   = ggml_set_name(ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 7, 2), "x");
    struct ggml_tensor * x16 = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 16, 7, 2);
    check_elementwise_ops(ctx, x, x16);
    check_norm_and_matmul_ops(ctx, x);
    check_scale_set_ops(ctx, x);
    check_layout_ops(ctx);
    check_row_ops(ctx);
    check_attention_ops(ctx);
    check_conv_and_pool_ops(ctx);
    check_generator_ops(ctx);
    check_glu_ops(ctx);
    check_extension_ops(ctx, x);
    check_unary_ops(ctx, x, x16);
    check_op_graph(ctx, x);
    ggml_free(ctx);
}

int main(int argc, char ** argv) {
    const char * dot_path = argc > 1 ? argv[1] : "ggml_consumer_graph.dot";

    check_types();
    check_errors_and_timing();
    check_log_get();
    check_context_limits();
    check_contexts();
    check_no_alloc_context();
    check_conversions();
    check_row_conversions();
    check_op_constructors();

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
    check_views_nd(ctx);
    check_tensor_queries(ctx);
    check_graph(ctx, dot_path);
    check_graph_api(ctx, dot_path);
    ggml_free(ctx);

    if (g_failures == 0) {
        printf("ggml consumer: all checks passed\n");
    } else {
        fprintf(stderr, "ggml consumer: %d check(s) failed\n", g_failures);
    }
    return g_failures == 0 ? 0 : 1;
}
