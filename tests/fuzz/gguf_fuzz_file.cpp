// libFuzzer harness: gguf_init_from_file on the input, kept in an in-memory file (memfd) opened by its
// /proc/self/fd path, with and without the data; then everything a context that loaded offers.
#include "gguf_fuzz_common.h"

#include <cstdio>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

int         g_fd = -1;
std::string g_path;

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    gguf_fuzz::quiet();
    g_fd = memfd_create("gguf_fuzz", 0);
    if (g_fd < 0) {
        std::perror("memfd_create");
        return 1;
    }
    g_path = "/proc/self/fd/" + std::to_string(g_fd);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    if (ftruncate(g_fd, 0) != 0 || pwrite(g_fd, data, size, 0) != static_cast<ssize_t>(size)) {
        __builtin_trap();
    }
    for (bool no_alloc : {false, true}) {
        ggml_context * gctx = nullptr;
        gguf_context * ctx  = gguf_init_from_file(g_path.c_str(), {no_alloc, &gctx});
        if (ctx != nullptr) {
            gguf_fuzz::exercise(ctx, gctx);
        }
        gguf_free(ctx);
        ggml_free(gctx);
    }
    return 0;
}
