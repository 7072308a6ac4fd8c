// A backend module shaped like one built against upstream ggml's tree (its CPU backend built with
// GGML_BACKEND_DL), for the loader tests in tests/unit/backend/upstream_module_test.cpp. Built as the MODULE
// library ggml-upstreamlike, linked against ggml-base only, with hidden visibility like upstream's modules.
//
// It does the two things such a module does that a module written against our public headers does not:
//  1. it calls upstream's internal ggml-base symbols (ggml-impl.h, ggml-quants.h), declared here as upstream's
//     headers declare them; because they are used, dlopen(RTLD_NOW) fails if ggml-base lacks any of them;
//  2. it defines and exports functions our own libraries export too (ggml_backend_cpu_init,
//     ggml_graph_compute) and calls them from inside, where its own definitions must run.
//
// Its reg "UPSTREAMLIKE" has no devices; get_proc_address answers these names:
//   "upstream_like_row_names"    const char * const * (*)(void): the quantize_row_*_ref functions the probe
//                                runs, in order, NULL-terminated.
//   "upstream_like_probe"        bool (*)(const float * x, uint8_t * out, size_t out_stride): runs every internal
//                                symbol: ggml_aligned_malloc/free (64-byte aligned; size 0 gives NULL),
//                                ggml_critical_section_start/end, ggml_log_internal (logs
//                                "[upstream_like_probe] log_internal 42 ok"), quantize_row_<t>_ref number i on the
//                                kProbeElements floats of x into out + i * out_stride, and quantize_iq4_xs (one
//                                row, no importance matrix) after them, into out + (number of rows) * out_stride.
//                                False if malloc or alignment misbehaved, or quantize_iq4_xs returned other than
//                                the row's 136 bytes.
//   "upstream_like_own_symbols"  int (*)(void): calls ggml_backend_cpu_init() and ggml_graph_compute() from inside
//                                the module; bit 0 set when the module's own ggml_backend_cpu_init ran, bit 1 when
//                                its own ggml_graph_compute ran (3: both calls stayed inside the module).
//
// Inside test_support (no GGML_BACKEND_DL) this file compiles to nothing.
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"

#ifdef GGML_BACKEND_DL

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>

// Upstream's internal declarations (block pointers are opaque to the linker; void * here).
extern "C" {
void * ggml_aligned_malloc(size_t size);
void   ggml_aligned_free(void * ptr, size_t size);
void   ggml_critical_section_start(void);
void   ggml_critical_section_end(void);
void   ggml_log_internal(enum ggml_log_level level, const char * format, ...);
void   quantize_row_q4_0_ref(const float * x, void * y, int64_t k);
void   quantize_row_q4_1_ref(const float * x, void * y, int64_t k);
void   quantize_row_q5_0_ref(const float * x, void * y, int64_t k);
void   quantize_row_q5_1_ref(const float * x, void * y, int64_t k);
void   quantize_row_q8_0_ref(const float * x, void * y, int64_t k);
void   quantize_row_q8_1_ref(const float * x, void * y, int64_t k);
void   quantize_row_q2_K_ref(const float * x, void * y, int64_t k);
void   quantize_row_q3_K_ref(const float * x, void * y, int64_t k);
void   quantize_row_q4_K_ref(const float * x, void * y, int64_t k);
void   quantize_row_q5_K_ref(const float * x, void * y, int64_t k);
void   quantize_row_q6_K_ref(const float * x, void * y, int64_t k);
void   quantize_row_q8_K_ref(const float * x, void * y, int64_t k);
void   quantize_row_iq4_nl_ref(const float * x, void * y, int64_t k);
void   quantize_row_mxfp4_ref(const float * x, void * y, int64_t k);
void   quantize_row_nvfp4_ref(const float * x, void * y, int64_t k);
void   quantize_row_q1_0_ref(const float * x, void * y, int64_t k);
void   quantize_row_q2_0_ref(const float * x, void * y, int64_t k);
void   quantize_row_tq1_0_ref(const float * x, void * y, int64_t k);
void   quantize_row_tq2_0_ref(const float * x, void * y, int64_t k);
size_t quantize_iq4_xs(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix);
}

namespace {

constexpr int64_t kProbeElements = 256;

using RowRefFn = void (*)(const float * x, void * y, int64_t k);

struct RowRef {
    const char * name;
    RowRefFn     fn;
};

const RowRef kRowRefs[] = {
    {"quantize_row_q4_0_ref", quantize_row_q4_0_ref},     {"quantize_row_q4_1_ref", quantize_row_q4_1_ref},
    {"quantize_row_q5_0_ref", quantize_row_q5_0_ref},     {"quantize_row_q5_1_ref", quantize_row_q5_1_ref},
    {"quantize_row_q8_0_ref", quantize_row_q8_0_ref},     {"quantize_row_q8_1_ref", quantize_row_q8_1_ref},
    {"quantize_row_q2_K_ref", quantize_row_q2_K_ref},     {"quantize_row_q3_K_ref", quantize_row_q3_K_ref},
    {"quantize_row_q4_K_ref", quantize_row_q4_K_ref},     {"quantize_row_q5_K_ref", quantize_row_q5_K_ref},
    {"quantize_row_q6_K_ref", quantize_row_q6_K_ref},     {"quantize_row_q8_K_ref", quantize_row_q8_K_ref},
    {"quantize_row_iq4_nl_ref", quantize_row_iq4_nl_ref}, {"quantize_row_mxfp4_ref", quantize_row_mxfp4_ref},
    {"quantize_row_nvfp4_ref", quantize_row_nvfp4_ref},   {"quantize_row_q1_0_ref", quantize_row_q1_0_ref},
    {"quantize_row_q2_0_ref", quantize_row_q2_0_ref},     {"quantize_row_tq1_0_ref", quantize_row_tq1_0_ref},
    {"quantize_row_tq2_0_ref", quantize_row_tq2_0_ref},
};

const char * const * row_names() {
    static const char * names[std::size(kRowRefs) + 1] = {};
    for (size_t i = 0; i < std::size(kRowRefs); ++i) {
        names[i] = kRowRefs[i].name;
    }
    return names;
}

bool probe_aligned_malloc() {
    void * zero = ggml_aligned_malloc(0);
    if (zero != nullptr) {
        ggml_aligned_free(zero, 0);
        return false;
    }
    constexpr size_t kSize = 1000;
    void *           p     = ggml_aligned_malloc(kSize);
    if (p == nullptr || reinterpret_cast<uintptr_t>(p) % 64 != 0) {
        ggml_aligned_free(p, kSize);
        return false;
    }
    std::memset(p, 0x5a, kSize);
    ggml_aligned_free(p, kSize);
    return true;
}

int g_critical_counter = 0;

bool probe(const float * x, uint8_t * out, size_t out_stride) {
    bool ok = probe_aligned_malloc();

    ggml_critical_section_start();
    ++g_critical_counter;
    ggml_critical_section_end();

    ggml_log_internal(GGML_LOG_LEVEL_INFO, "[upstream_like_probe] log_internal %d %s\n", 42, "ok");

    for (size_t i = 0; i < std::size(kRowRefs); ++i) {
        kRowRefs[i].fn(x, out + i * out_stride, kProbeElements);
    }

    return quantize_iq4_xs(x, out + std::size(kRowRefs) * out_stride, 1, kProbeElements, nullptr) == 136 && ok;
}

bool g_own_cpu_init_ran      = false;
bool g_own_graph_compute_ran = false;

int own_symbols() {
    g_own_cpu_init_ran      = false;
    g_own_graph_compute_ran = false;
    // Through volatile pointers, so the compiler can neither inline the module's definitions nor assume what
    // they do: the addresses come from the GOT, bound by the dynamic linker as the module's PLT calls are.
    // Without RTLD_DEEPBIND they are the test binary's (our) CPU backend's.
    ggml_backend_t (*volatile cpu_init)(void) = &ggml_backend_cpu_init;
    enum ggml_status (*volatile graph_compute)(struct ggml_cgraph *, struct ggml_cplan *) = &ggml_graph_compute;
    if (ggml_backend_t backend = cpu_init()) {
        ggml_backend_free(backend); // ours ran and made a real backend
    }
    graph_compute(nullptr, nullptr); // ours logs "[ggml_graph_compute] cgraph is NULL" and fails
    return (g_own_cpu_init_ran ? 1 : 0) | (g_own_graph_compute_ran ? 2 : 0);
}

const char * reg_get_name(ggml_backend_reg_t) {
    return "UPSTREAMLIKE";
}

size_t reg_get_device_count(ggml_backend_reg_t) {
    return 0;
}

ggml_backend_dev_t reg_get_device(ggml_backend_reg_t, size_t) {
    return nullptr;
}

void * reg_get_proc_address(ggml_backend_reg_t, const char * name) {
    if (std::strcmp(name, "upstream_like_row_names") == 0) {
        return reinterpret_cast<void *>(&row_names);
    }
    if (std::strcmp(name, "upstream_like_probe") == 0) {
        return reinterpret_cast<void *>(&probe);
    }
    if (std::strcmp(name, "upstream_like_own_symbols") == 0) {
        return reinterpret_cast<void *>(&own_symbols);
    }
    return nullptr;
}

ggml_backend_reg_t upstream_like_reg() {
    static ggml_backend_reg reg = {
        .api_version = GGML_BACKEND_API_VERSION,
        .iface =
            {
                .get_name         = reg_get_name,
                .get_device_count = reg_get_device_count,
                .get_device       = reg_get_device,
                .get_proc_address = reg_get_proc_address,
            },
        .context = nullptr,
    };
    return &reg;
}

} // namespace

// The module's own versions of names our libraries export too, exported as upstream's CPU module exports them.
extern "C" {

__attribute__((visibility("default"))) ggml_backend_t ggml_backend_cpu_init(void) {
    g_own_cpu_init_ran = true;
    return nullptr;
}

__attribute__((visibility("default"))) enum ggml_status ggml_graph_compute(struct ggml_cgraph * cgraph,
                                                                           struct ggml_cplan * cplan) {
    g_own_graph_compute_ran = true;
    return GGML_STATUS_ABORTED;
}

} // extern "C"

GGML_BACKEND_DL_IMPL(upstream_like_reg)

#endif // GGML_BACKEND_DL
