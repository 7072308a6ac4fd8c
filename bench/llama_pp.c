// Prompt processing through llama.cpp's own library (libllama), for bench/llama_cpp_pp.sh: the same program runs
// on the prebuilt llama.cpp (its own ggml) and on Switchyard's libraries in place of that ggml. Built against
// llama.h of the llama.cpp release whose libllama it runs; it uses only the public API.
//
//   llama_pp MODEL.gguf N_TOKENS REPEATS THREADS [--no-repack]
//
// One warm-up decode of N_TOKENS tokens as one batch, then REPEATS timed ones (the KV cache cleared before each),
// and prints "pp N_TOKENS: t/s of each run" and the median. Exit status 1 on any failure, with a message.
#define _POSIX_C_SOURCE 199309L // clock_gettime

#include "ggml-backend.h"
#include "llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void quiet_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    if (level == GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static int cmp_double(const void * a, const void * b) {
    const double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char ** argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s MODEL.gguf N_TOKENS REPEATS THREADS [--no-repack]\n", argv[0]);
        return 2;
    }
    const int n_tokens = atoi(argv[2]), repeats = atoi(argv[3]), threads = atoi(argv[4]);
    const int repack   = !(argc > 5 && strcmp(argv[5], "--no-repack") == 0);
    if (n_tokens < 1 || repeats < 1 || repeats > 64 || threads < 1) {
        fprintf(stderr, "llama_pp: bad arguments\n");
        return 2;
    }
    llama_log_set(quiet_log, NULL);
    ggml_backend_load_all(); // the prebuilt ggml keeps its CPU backends as modules beside this program
    llama_backend_init();

    struct llama_model_params mparams = llama_model_default_params();
    mparams.use_extra_bufts           = repack;
    mparams.n_gpu_layers              = 0;
    struct llama_model * model        = llama_model_load_from_file(argv[1], mparams);
    if (model == NULL) {
        fprintf(stderr, "llama_pp: cannot load %s\n", argv[1]);
        return 1;
    }
    struct llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx                       = (uint32_t) n_tokens;
    cparams.n_batch                     = (uint32_t) n_tokens;
    cparams.n_ubatch                    = (uint32_t) n_tokens;
    cparams.n_threads                   = threads;
    cparams.n_threads_batch             = threads;
    struct llama_context * ctx          = llama_init_from_model(model, cparams);
    if (ctx == NULL) {
        fprintf(stderr, "llama_pp: cannot create a context\n");
        return 1;
    }
    const int     n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    llama_token * tokens  = malloc(sizeof(llama_token) * (size_t) n_tokens);
    for (int i = 0; i < n_tokens; ++i) {
        tokens[i] = (llama_token) (1 + (i * 7919) % (n_vocab - 1));
    }
    double t[64];
    for (int r = -1; r < repeats; ++r) {
        llama_memory_clear(llama_get_memory(ctx), true);
        const double t0 = now_s();
        if (llama_decode(ctx, llama_batch_get_one(tokens, n_tokens)) != 0) {
            fprintf(stderr, "llama_pp: decode failed\n");
            return 1;
        }
        llama_synchronize(ctx);
        if (r >= 0) {
            t[r] = (double) n_tokens / (now_s() - t0);
        }
    }
    printf("pp %d:", n_tokens);
    for (int r = 0; r < repeats; ++r) {
        printf(" %.1f", t[r]);
    }
    qsort(t, (size_t) repeats, sizeof(double), cmp_double);
    printf(" t/s; median %.1f\n", t[repeats / 2]);
    free(tokens);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
