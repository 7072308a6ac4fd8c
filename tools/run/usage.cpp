// switchyard-run: --help and --version.
#include "cli.h"

#include "ggml.h"

#ifndef SWITCHYARD_VERSION
#define SWITCHYARD_VERSION "unknown"
#endif

namespace switchyard::run {

void print_usage(std::FILE * f) {
    std::fprintf(f,
        "usage: switchyard-run [-m FILE] [-p PROMPT | -f FILE | --tokens IDS] [options]\n"
        "       switchyard-run --tokenize [-m FILE] [-p PROMPT | -f FILE [-f FILE..]] [-e]\n"
        "       switchyard-run --bench [-m FILE] [-p N,..] [-n N,..] [-pg PP,TG] [-r N] [-o md|csv|json]\n"
        "\n"
        "Runs a GGUF model of the LLaMA family (general.architecture llama or qwen2): processes the prompt in\n"
        "batches, then generates token by token, streaming the text. Without -m it runs a small embedded model\n"
        "with random weights (written once next to the executable), which produces meaningless text.\n"
        "\n"
        "  -m, --model FILE        the GGUF file (a regular file: it is memory-mapped)\n"
        "  -p, --prompt TEXT       the prompt (default \"Once upon a time\")\n"
        "  -f, --file FILE         the prompt read from FILE (one trailing newline dropped)\n"
        "  -e, --escape            process escapes in the prompt: \\n \\r \\t \\\\ \\\" \\' \\xNN (default off;\n"
        "                          --no-escape: off)\n"
        "  --tokens 1,2,3          token ids instead of a prompt; the generated ids are printed instead of text\n"
        "                          (not with -p or -f)\n"
        "  --tokenize              print the prompt's token ids as [1, 2, 3] and exit, as llama.cpp's\n"
        "                          llama-tokenize --ids does (BOS and EOS as the file asks; special tokens in the\n"
        "                          text are parsed); with several -f, one line for each file. Reads only the\n"
        "                          model's metadata: a vocabulary-only GGUF will do\n"
        "  -n, --n-predict N       tokens to generate (default 32; -1: until the end of text or a full context)\n"
        "  -c, --ctx-size N        KV cache positions (default: prompt + n; with -n -1 the model's context\n"
        "                          length, at most 4096; for --bench what the tests need). A prompt longer than\n"
        "                          the context keeps its last N tokens (a warning); a full context ends the\n"
        "                          generation with a warning and exit status 0, as llama.cpp does\n"
        "  -b, --batch-size N      prompt tokens per graph (default 512)\n"
        "  -ub, --ubatch-size N    prompt tokens per computation (default: -b; 64 under mpirun with\n"
        "                          --split-mode layer, so that the ranks work on micro-batches at once)\n"
        "  -fa, --flash-attn M     on or auto (default): attention by FLASH_ATTN_EXT; off: soft_max(K*Q)*V\n"
        "  -t, --threads N         CPU threads, 1..%d (default: one per core this process may use); with --bench\n"
        "                          a list: every test at each count (1,2,4,8)\n"
        "  --device A[,B..]        devices to offload to (see --list-devices; default: every GPU)\n"
        "  --list-devices          list the devices and exit\n"
        "  -ngl N                  layers on the devices, the last N (N > layers: the output layer too;\n"
        "                          default 999: all); the others run on the CPU\n"
        "  -sm, --split-mode M     none (the first device), layer (layers shared out among the devices,\n"
        "                          default) or tensor (each layer split across the devices: a meta device)\n"
        "  -ts, --tensor-split a,b the devices' shares: finite, non-negative, a positive sum (default: equal)\n"
        "  -nr, --no-repack        keep all the CPU's weights mapped from the file (default: its matrices of\n"
        "                          the legacy, K-quant, iq4_nl, iq4_xs, mxfp4, tq1_0 and tq2_0 types, and of\n"
        "                          f32 / f16 / bf16 where it has their tile, are repacked for its MUL_MAT\n"
        "                          into CPU_REPACK)\n"
        "sampling, in llama.cpp's order: repeat penalty, top-k, top-p, min-p, temperature, then a draw\n"
        "  --repeat-penalty X      divide the positive logits and multiply the negative ones of the tokens\n"
        "                          among the last --repeat-last-n (prompt included) by X (default 1.0: off)\n"
        "  --repeat-last-n N       the tokens the penalty looks back on (default 64; 0: off)\n"
        "  --top-k N               keep the N most likely tokens (default 40; 0: all)\n"
        "  --top-p X               keep the most likely tokens up to probability X (default 0.95)\n"
        "  --min-p X               keep the tokens at least X times as likely as the most likely (default\n"
        "                          0.05; 0: off)\n"
        "  --temp X                temperature (default 0.8; 0: greedy, after the repeat penalty)\n"
        "  -s, --seed N            the sampler's seed (default: random, printed)\n"
        "output\n"
        "  --plan FILE             write the scheduler's plan of the last graph as JSON\n"
        "  --trace FILE            write a Chrome/Perfetto trace (JSON) of every computation: one track per\n"
        "                          backend, one slice per split and input copy, one per computation\n"
        "  --bench                 llama-bench's tests and table instead of generating text; then:\n"
        "    -p N[,N..]            prompt tests ppN (default 512; 0: none)\n"
        "    -n N[,N..]            generation tests tgN (default 128; 0: none)\n"
        "    -pg PP,TG             a prompt of PP then TG generated tokens (ppPP+tgTG; repeatable)\n"
        "    -r N                  repetitions per test, after a warm-up (default 5)\n"
        "    -o md|csv|json        the table (default md), or llama-bench's CSV or JSON records (the rest of\n"
        "                          the report then goes to standard error)\n"
        "  --test-device           register the GPU-like test device (TEST) for trying the splits\n"
        "  --version               the Switchyard version and the ggml API it implements\n"
        "  -h, --help              this text\n"
        "Exit status: 0 success, 1 an error (file, model, device, computation), 2 a usage error.\n",
        GGML_MAX_N_THREADS);
}

void print_version(std::FILE * f) {
    std::fprintf(f, "switchyard-run: Switchyard %s, implementing the API of ggml %s (ggml_commit() %s)\n",
                 SWITCHYARD_VERSION, ggml_version(), ggml_commit());
}

} // namespace switchyard::run
