// Greedy generation through llama.cpp's own library (libllama), for the check that a prebuilt llama.cpp runs on
// Switchyard's libraries in place of its ggml (tests/llama_cpp/run.sh). Built against llama.h of the llama.cpp
// release whose libllama it runs; it uses only that header's public API.
//
//   greedy MODEL.gguf TOKENS N [--no-repack]
//
// Feeds the comma-separated token ids as one batch, then N - 1 single tokens, each the argmax of the last
// logits (ties to the lowest id), and prints "generated: id,id,..." (N ids), as `switchyard-run --tokens ... -n N
// --temp 0` does. --no-repack keeps the weights out of the CPU's extra buffer types (use_extra_bufts = false),
// as `switchyard-run -nr`. Exit status 1 on any failure, with a message.
#include "llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    if (level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN) {
        fputs(text, stderr);
    }
}

// the ids of a comma-separated list; returns their count, 0 on a malformed list
static int parse_tokens(const char * list, llama_token * out, int max) {
    int n = 0;
    for (const char * p = list; *p != '\0' && n < max;) {
        char *     end = NULL;
        const long v   = strtol(p, &end, 10);
        if (end == p || v < 0) {
            return 0;
        }
        out[n++] = (llama_token) v;
        p        = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0') {
            return 0;
        }
    }
    return n;
}

static llama_token argmax(const float * logits, int n_vocab) {
    int best = 0;
    for (int i = 1; i < n_vocab; ++i) {
        if (logits[i] > logits[best]) {
            best = i;
        }
    }
    return (llama_token) best;
}

int main(int argc, char ** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL.gguf TOKENS N [--no-repack]\n", argv[0]);
        return 2;
    }
    llama_token prompt[512];
    const int   n_prompt  = parse_tokens(argv[2], prompt, 512);
    const int   n_predict = atoi(argv[3]);
    const int   repack    = !(argc > 4 && strcmp(argv[4], "--no-repack") == 0);
    if (n_prompt == 0 || n_predict < 1) {
        fprintf(stderr, "greedy: bad token list '%s' or count '%s'\n", argv[2], argv[3]);
        return 2;
    }
    llama_log_set(quiet_log, NULL);
    llama_backend_init();

    struct llama_model_params mparams = llama_model_default_params();
    mparams.use_extra_bufts           = repack;
    mparams.n_gpu_layers              = 0;
    struct llama_model * model        = llama_model_load_from_file(argv[1], mparams);
    if (model == NULL) {
        fprintf(stderr, "greedy: cannot load %s\n", argv[1]);
        return 1;
    }
    struct llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx                       = 0; // the model's
    cparams.n_batch                     = 512;
    cparams.n_ubatch                    = 512;
    cparams.n_threads                   = 2;
    cparams.n_threads_batch             = 2;
    cparams.flash_attn_type             = LLAMA_FLASH_ATTN_TYPE_ENABLED; // switchyard-run's attention
    struct llama_context * ctx          = llama_init_from_model(model, cparams);
    if (ctx == NULL) {
        fprintf(stderr, "greedy: cannot create a context for %s\n", argv[1]);
        llama_model_free(model);
        return 1;
    }
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));

    int         status = 0;
    llama_token next   = 0;
    printf("generated: ");
    for (int i = 0; i < n_predict; ++i) {
        struct llama_batch batch = i == 0 ? llama_batch_get_one(prompt, n_prompt) : llama_batch_get_one(&next, 1);
        if (llama_decode(ctx, batch) != 0) {
            fprintf(stderr, "\ngreedy: llama_decode failed at step %d\n", i);
            status = 1;
            break;
        }
        next = argmax(llama_get_logits_ith(ctx, -1), n_vocab);
        printf("%s%d", i == 0 ? "" : ",", (int) next);
    }
    printf("\n");
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return status;
}
