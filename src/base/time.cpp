// Wall-clock helpers of the public API.
#include "ggml.h"

#include <chrono>

namespace {
const auto g_start = std::chrono::steady_clock::now();
}

extern "C" {

void ggml_time_init(void) {}

int64_t ggml_time_ms(void) {
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now() - g_start).count();
}

int64_t ggml_time_us(void) {
    using namespace std::chrono;
    return duration_cast<microseconds>(steady_clock::now() - g_start).count();
}

int64_t ggml_cycles(void) {
    return static_cast<int64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

int64_t ggml_cycles_per_ms(void) {
    using period = std::chrono::steady_clock::period;
    return static_cast<int64_t>(period::den / period::num / 1000);
}

FILE * ggml_fopen(const char * fname, const char * mode) {
    return std::fopen(fname, mode);
}

// The ggml version whose API we implement (programs compare it with what they were written for), not
// Switchyard's own release number; ggml_commit names the implementation.
const char * ggml_version(void) { return "0.25.1"; }
const char * ggml_commit(void) { return "switchyard"; }

bool ggml_guid_matches(ggml_guid_t guid_a, ggml_guid_t guid_b) {
    for (int i = 0; i < 16; ++i) {
        if ((*guid_a)[i] != (*guid_b)[i]) {
            return false;
        }
    }
    return true;
}

const char * ggml_status_to_string(enum ggml_status status) {
    switch (status) {
        case GGML_STATUS_ALLOC_FAILED: return "GGML status: error (failed to allocate memory)";
        case GGML_STATUS_FAILED:       return "GGML status: error (operation failed)";
        case GGML_STATUS_SUCCESS:      return "GGML status: success";
        case GGML_STATUS_ABORTED:      return "GGML status: warning (operation aborted)";
    }
    return "GGML status: unknown";
}

} // extern "C"
