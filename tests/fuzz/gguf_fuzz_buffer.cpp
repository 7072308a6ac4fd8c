// libFuzzer harness: the GGUF reader over memory (gguf_init_from_buffer with and without the data,
// gguf_init_from_callback in 7-byte chunks), then everything a context that loaded offers (gguf_fuzz_common.h).
#include "gguf_fuzz_common.h"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    gguf_fuzz::quiet();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    gguf_fuzz::read_buffer(data, size);
    return 0;
}
