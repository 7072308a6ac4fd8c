// Every function of upstream ggml's public C API, referenced from a C++20 program built against the installed
// package (find_package(ggml) in tests/consumer/project, run by the consumer_installed_package test).
//
// What it proves: api_tables.h names every function of upstream ggml 0.25.1's public headers (and of
// ggml-backend-impl.h, which we install) with the exact type upstream declares it with (`fn<RET(PARAMS)>(&name)`
// only compiles when &name converts to RET(*)(PARAMS) without a cast, so a missing declaration or a changed return
// or parameter type breaks the build), and static_asserts each struct's size, each field's offset and type, and
// each enum constant's value against upstream's. Linking the program proves the symbols are exported by the
// installed libraries. main() then checks no address is null and makes a handful of real calls through
// ggml-cpp.h's owners (contexts, a CPU backend and its buffer, a graph allocator, a scheduler, a GGUF context),
// computing a small graph both ways (ggml_graph_compute_with_ctx and a backend).
//
// How the list was made: tests/consumer/gen_api_tables.py reads upstream's headers (the ggml/ of llama.cpp
// release v0.5.0, ggml 0.25.1: `npm pack node-llama-cpp@3.22.1`, then `git clone package/llama/gitRelease.bundle`)
// with clang and measures the layouts with a probe compiled against them; rerun it when the target moves.
// Functions our headers declare beyond upstream's are listed in k_switchyard with the type our header gives.
//
// ggml-opt.h, ggml-backend-impl.h and ggml-vulkan.h are referenced only when the installed package has them
// (__has_include). ggml-cpp.h declares no functions: its seven owner types are each used below.

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpp.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "gguf.h"

#if __has_include("ggml-opt.h")
#    include "ggml-opt.h"
#    define CONSUMER_HAS_GGML_OPT 1
#else
#    define CONSUMER_HAS_GGML_OPT 0
#endif
#if __has_include("ggml-backend-impl.h")
#    include "ggml-backend-impl.h"
#    define CONSUMER_HAS_BACKEND_IMPL 1
#else
#    define CONSUMER_HAS_BACKEND_IMPL 0
#endif
#if __has_include("ggml-vulkan.h")
#    include "ggml-vulkan.h"
#    define CONSUMER_HAS_VULKAN 1
#else
#    define CONSUMER_HAS_VULKAN 0
#endif

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

namespace {

// The address of a function whose type must be exactly F (F spelled out at the call site), as an untyped pointer.
template <typename F>
const void * fn(F * f) {
    return reinterpret_cast<const void *>(f);
}

// Upstream marks a few of these GGML_DEPRECATED; taking their address is the point here.
#if defined(__GNUC__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

// ggml.h, ggml-alloc.h, ggml-backend.h, ggml-cpu.h, gguf.h, ggml-opt.h, ggml-backend-impl.h and ggml-vulkan.h
// as upstream ggml 0.25.1 declares them: the tables k_ggml ... k_ggml_vulkan and the layout and enum checks.
#include "api_tables.h"

// Declared by Switchyard beyond upstream 0.25.1 (seed 000's registry helpers, the scheduler's plan and trace):
// checked to exist and be exported, with the type our header gives them.
const void * const k_switchyard[] = {
    fn(&ggml_backend_reg_get_count),
    fn(&ggml_backend_reg_find_by_name),
    fn(&ggml_backend_reg_get_name),
    fn(&ggml_backend_reg_init_backend_from_str),
    fn(&ggml_backend_reg_get_default_buffer_type),
    fn(&ggml_backend_reg_alloc_buffer),
    fn(&ggml_backend_reg_init_backend),
    fn(&ggml_backend_sched_plan_json),
    fn(&ggml_backend_sched_set_trace),
};

#if defined(__GNUC__)
#    pragma GCC diagnostic pop
#endif

int g_failures = 0;

void check(bool ok, const char * what) {
    if (!ok) {
        std::fprintf(stderr, "all_functions: check failed: %s\n", what);
        ++g_failures;
    }
}

void check_table(std::span<const void * const> table, const char * header) {
    size_t n_null = 0;
    for (const void * p : table) {
        n_null += p == nullptr;
    }
    if (n_null != 0) {
        std::fprintf(stderr, "all_functions: %zu null function addresses in the %s table\n", n_null, header);
        ++g_failures;
    }
}

// c = a + b, computed on the CPU through ggml_graph_compute_with_ctx, in a context that owns the tensor data.
void compute_in_context() {
    const ggml_init_params params = {16 * 1024 * 1024, nullptr, false};
    ggml_context_ptr ctx(ggml_init(params));
    check(ctx != nullptr, "ggml_init");
    if (!ctx) {
        return;
    }
    ggml_tensor * a = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    ggml_tensor * b = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    check(a != nullptr && b != nullptr && ggml_nelements(a) == 4, "ggml_new_tensor_1d");
    for (int i = 0; i < 4; ++i) {
        ggml_set_f32_1d(a, i, float(i));
        ggml_set_f32_1d(b, i, 10.0f * float(i));
    }
    ggml_tensor * c = ggml_add(ctx.get(), a, b);
    ggml_cgraph * graph = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(graph, c);
    check(ggml_graph_compute_with_ctx(ctx.get(), graph, 1) == GGML_STATUS_SUCCESS, "ggml_graph_compute_with_ctx");
    for (int i = 0; i < 4; ++i) {
        check(ggml_get_f32_1d(c, i) == 11.0f * float(i), "ggml_add computed in a context");
    }
}

// The same sum on a CPU backend: tensors in a no_alloc context placed in a backend buffer, through a graph
// allocator and then a scheduler, every handle held by a ggml-cpp.h owner.
void compute_on_backend() {
    ggml_backend_ptr backend(ggml_backend_cpu_init());
    check(backend != nullptr, "ggml_backend_cpu_init");
    if (!backend) {
        return;
    }
    const ggml_init_params params = {ggml_tensor_overhead() * 8 + 2 * ggml_graph_overhead(), nullptr, true};
    ggml_context_ptr ctx(ggml_init(params));
    ggml_tensor * a = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    ggml_tensor * b = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    ggml_backend_buffer_ptr inputs(ggml_backend_alloc_ctx_tensors(ctx.get(), backend.get()));
    check(inputs != nullptr, "ggml_backend_alloc_ctx_tensors");
    if (!inputs) {
        return;
    }
    const float va[4] = {1, 2, 3, 4};
    const float vb[4] = {0.5f, 0.25f, 0.125f, 0.0625f};
    ggml_backend_tensor_set(a, va, 0, sizeof(va));
    ggml_backend_tensor_set(b, vb, 0, sizeof(vb));

    ggml_tensor * c = ggml_mul(ctx.get(), a, b);
    ggml_cgraph * graph = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(graph, c);

    ggml_gallocr_ptr galloc(ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend.get())));
    check(galloc != nullptr && ggml_gallocr_alloc_graph(galloc.get(), graph), "ggml_gallocr_alloc_graph");
    check(ggml_backend_graph_compute(backend.get(), graph) == GGML_STATUS_SUCCESS, "ggml_backend_graph_compute");
    float vc[4] = {};
    ggml_backend_tensor_get(c, vc, 0, sizeof(vc));
    for (int i = 0; i < 4; ++i) {
        check(vc[i] == va[i] * vb[i], "ggml_mul on the CPU backend (graph allocator)");
    }

    ggml_backend_t backends[] = {backend.get()};
    ggml_backend_sched_ptr sched(ggml_backend_sched_new(backends, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, true));
    check(sched != nullptr, "ggml_backend_sched_new");
    if (sched) {
        ggml_tensor * d = ggml_add(ctx.get(), c, a);
        ggml_cgraph * graph2 = ggml_new_graph(ctx.get());
        ggml_build_forward_expand(graph2, d);
        check(ggml_backend_sched_graph_compute(sched.get(), graph2) == GGML_STATUS_SUCCESS,
              "ggml_backend_sched_graph_compute");
        float vd[4] = {};
        ggml_backend_tensor_get(d, vd, 0, sizeof(vd));
        for (int i = 0; i < 4; ++i) {
            check(vd[i] == va[i] * vb[i] + va[i], "ggml_add through the scheduler");
        }
    }

    // a CPU device may have no events: the owner must hold a null handle as well as a real one
    ggml_backend_event_ptr event(ggml_backend_event_new(ggml_backend_get_device(backend.get())));
    if (event) {
        ggml_backend_event_record(event.get(), backend.get());
        ggml_backend_event_synchronize(event.get());
    }
}

void gguf_round_trip() {
    gguf_context_ptr gguf(gguf_init_empty());
    check(gguf != nullptr, "gguf_init_empty");
    if (!gguf) {
        return;
    }
    gguf_set_val_u32(gguf.get(), "consumer.answer", 42);
    const int64_t key = gguf_find_key(gguf.get(), "consumer.answer");
    check(key >= 0 && gguf_get_val_u32(gguf.get(), key) == 42, "gguf_set_val_u32 / gguf_get_val_u32");
}

#if CONSUMER_HAS_GGML_OPT
void opt_result() {
    ggml_opt_result_t result = ggml_opt_result_init();
    check(result != nullptr, "ggml_opt_result_init");
    if (result != nullptr) {
        int64_t ndata = -1;
        ggml_opt_result_ndata(result, &ndata);
        check(ndata == 0, "ggml_opt_result_ndata of a new result");
        ggml_opt_result_free(result);
    }
}
#endif

} // namespace

int main() {
    check_table(k_ggml, "ggml.h");
    check_table(k_ggml_alloc, "ggml-alloc.h");
    check_table(k_ggml_backend, "ggml-backend.h");
    check_table(k_ggml_cpu, "ggml-cpu.h");
    check_table(k_gguf, "gguf.h");
    check_table(k_switchyard, "Switchyard additions");
    size_t n_functions = std::size(k_ggml) + std::size(k_ggml_alloc) + std::size(k_ggml_backend) +
                         std::size(k_ggml_cpu) + std::size(k_gguf) + std::size(k_switchyard);
#if CONSUMER_HAS_GGML_OPT
    check_table(k_ggml_opt, "ggml-opt.h");
    n_functions += std::size(k_ggml_opt);
#endif
#if CONSUMER_HAS_BACKEND_IMPL
    check_table(k_ggml_backend_impl, "ggml-backend-impl.h");
    n_functions += std::size(k_ggml_backend_impl);
#endif
#if CONSUMER_HAS_VULKAN
    check_table(k_ggml_vulkan, "ggml-vulkan.h");
    n_functions += std::size(k_ggml_vulkan);
#endif

    compute_in_context();
    compute_on_backend();
    gguf_round_trip();
#if CONSUMER_HAS_GGML_OPT
    opt_result();
#endif

    std::printf("all_functions: %zu functions referenced (ggml-opt.h %s), %d failed checks\n", n_functions,
                CONSUMER_HAS_GGML_OPT ? "included" : "not installed", g_failures);
    return g_failures == 0 ? 0 : 1;
}
