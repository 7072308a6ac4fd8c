// Token ids through llama.cpp's own tokenizer (libllama), for the comparison with `switchyard-run --tokenize`
// (tests/tokenizer/run.sh). Built against llama.h of the llama.cpp release whose libllama it runs; it uses only
// that header's public API.
//
//   tokenize MODEL.gguf FILE...
//
// Loads the model's vocabulary only (vocab_only), then for each file prints "[id, id, ...]" on a line of its own:
// llama_tokenize of the file's text (one trailing newline dropped, as llama.cpp's -f and switchyard-run's -f
// read a prompt file) with add_special as llama-tokenize passes it (the vocabulary's add_bos) and special tokens
// parsed (llama-tokenize's default). Exit status 1 on any failure, with a message.
#include "llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    if (level == GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

// the file's bytes (*len of them, one trailing newline dropped), or NULL
static char * read_text(const char * path, size_t * len) {
    FILE * f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char * text = malloc(cap);
    for (size_t got; text != NULL && (got = fread(text + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char * grown = realloc(text, cap *= 2);
            if (grown == NULL) {
                free(text);
            }
            text = grown;
        }
    }
    const int failed = ferror(f);
    fclose(f);
    if (text == NULL || failed) {
        free(text);
        return NULL;
    }
    if (n > 0 && text[n - 1] == '\n') {
        --n;
    }
    *len = n;
    return text;
}

// prints the ids of one file's text; 0 on success
static int tokenize_file(const struct llama_vocab * vocab, const char * path) {
    size_t len  = 0;
    char * text = read_text(path, &len);
    if (text == NULL) {
        fprintf(stderr, "tokenize: cannot read %s\n", path);
        return 1;
    }
    const bool add_special = llama_vocab_get_add_bos(vocab);
    int        n_max       = (int) len + 8;
    llama_token * ids      = malloc(sizeof(llama_token) * (size_t) n_max);
    int           n        = ids == NULL ? 0 : llama_tokenize(vocab, text, (int32_t) len, ids, n_max, add_special, true);
    if (n < 0) { // more ids than the guess: -n of them
        n_max = -n;
        free(ids);
        ids = malloc(sizeof(llama_token) * (size_t) n_max);
        n   = ids == NULL ? -1 : llama_tokenize(vocab, text, (int32_t) len, ids, n_max, add_special, true);
    }
    free(text);
    if (ids == NULL || n < 0) {
        fprintf(stderr, "tokenize: llama_tokenize failed on %s\n", path);
        free(ids);
        return 1;
    }
    printf("[");
    for (int i = 0; i < n; ++i) {
        printf(i > 0 ? ", %d" : "%d", ids[i]);
    }
    printf("]\n");
    free(ids);
    return 0;
}

int main(int argc, char ** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL.gguf FILE...\n", argv[0]);
        return 2;
    }
    llama_log_set(quiet_log, NULL);
    llama_backend_init();
    struct llama_model_params mparams = llama_model_default_params();
    mparams.vocab_only                = true;
    mparams.n_gpu_layers              = 0;
    struct llama_model * model        = llama_model_load_from_file(argv[1], mparams);
    if (model == NULL) {
        fprintf(stderr, "tokenize: cannot load %s\n", argv[1]);
        return 1;
    }
    const struct llama_vocab * vocab = llama_model_get_vocab(model);
    int                        status = 0;
    for (int i = 2; i < argc && status == 0; ++i) {
        status = tokenize_file(vocab, argv[i]);
    }
    llama_model_free(model);
    llama_backend_free();
    return status;
}
