#pragma once

// Switchyard: the CPU backend (source-compatible with upstream ggml's ggml-cpu.h).
// Graph planning and computation on the host, the thread pool, accessors for tensors in host memory, CPU
// feature probes, the CPU type traits, and the CPU backend/device/reg objects.
//
// Everything here is exported by the CPU backend module (GGML_BACKEND_API). In builds where backends are
// loaded dynamically, applications reach the CPU backend's extras through ggml_backend_reg_get_proc_address
// on ggml_backend_cpu_reg() rather than by linking against these symbols.

#include "ggml.h"
#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

    // What one computation of a graph needs: made by ggml_graph_plan, then completed by the caller (work_data)
    // and passed to ggml_graph_compute.
    struct ggml_cplan {
        size_t    work_size; // bytes of scratch memory the computation needs
        uint8_t * work_data; // caller-owned scratch of at least work_size bytes (may be NULL if work_size is 0)

        int                       n_threads;
        struct ggml_threadpool *  threadpool; // NULL: a temporary pool of n_threads is used

        // polled between nodes: returning true stops the computation with GGML_STATUS_ABORTED
        ggml_abort_callback abort_callback;
        void *              abort_callback_data;

        // compute with the plain reference kernels instead of the optimized ones (for testing)
        bool use_ref;
    };

    // NUMA placement strategies
    enum ggml_numa_strategy {
        GGML_NUMA_STRATEGY_DISABLED   = 0,
        GGML_NUMA_STRATEGY_DISTRIBUTE = 1,
        GGML_NUMA_STRATEGY_ISOLATE    = 2,
        GGML_NUMA_STRATEGY_NUMACTL    = 3,
        GGML_NUMA_STRATEGY_MIRROR     = 4,
        GGML_NUMA_STRATEGY_COUNT
    };

    // call once, before creating thread pools, to apply a NUMA strategy
    GGML_BACKEND_API void    ggml_numa_init(enum ggml_numa_strategy numa);
    // true if ggml_numa_init found more than one NUMA node
    GGML_BACKEND_API bool    ggml_is_numa(void);

    // Accessors for tensors whose data is in host memory (they read and write tensor->data directly).
    // ggml_new_* create a one-element tensor in ctx holding value; ggml_set_* fill every element.
    GGML_BACKEND_API struct ggml_tensor * ggml_new_i32(struct ggml_context * ctx, int32_t value);
    GGML_BACKEND_API struct ggml_tensor * ggml_new_f32(struct ggml_context * ctx, float value);

    GGML_BACKEND_API struct ggml_tensor * ggml_set_i32 (struct ggml_tensor * tensor, int32_t value);
    GGML_BACKEND_API struct ggml_tensor * ggml_set_f32 (struct ggml_tensor * tensor, float value);

    // element number i counting in storage order of the dimensions (ne[0] fastest), converted from/to the
    // tensor's type; non-contiguous tensors are handled through their strides
    GGML_BACKEND_API int32_t ggml_get_i32_1d(const struct ggml_tensor * tensor, int i);
    GGML_BACKEND_API void    ggml_set_i32_1d(const struct ggml_tensor * tensor, int i, int32_t value);

    // element (i0, i1, i2, i3), using the tensor's strides
    GGML_BACKEND_API int32_t ggml_get_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3);
    GGML_BACKEND_API void    ggml_set_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, int32_t value);

    GGML_BACKEND_API float   ggml_get_f32_1d(const struct ggml_tensor * tensor, int i);
    GGML_BACKEND_API void    ggml_set_f32_1d(const struct ggml_tensor * tensor, int i, float value);

    GGML_BACKEND_API float   ggml_get_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3);
    GGML_BACKEND_API void    ggml_set_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, float value);

    // Thread pool (the parameters struct and its helpers are in ggml.h). new returns NULL (logged) on failure;
    // the caller owns the pool and frees it after every computation using it has finished. pause parks the
    // workers, resume wakes them.
    GGML_BACKEND_API struct ggml_threadpool *      ggml_threadpool_new           (struct ggml_threadpool_params  * params);
    GGML_BACKEND_API void                          ggml_threadpool_free          (struct ggml_threadpool * threadpool);
    GGML_BACKEND_API int                           ggml_threadpool_get_n_threads (struct ggml_threadpool * threadpool);
    GGML_BACKEND_API void                          ggml_threadpool_pause         (struct ggml_threadpool * threadpool);
    GGML_BACKEND_API void                          ggml_threadpool_resume        (struct ggml_threadpool * threadpool);

    // Plan a computation of cgraph: n_threads <= 0 means GGML_DEFAULT_N_THREADS, threadpool may be NULL. Before
    // ggml_graph_compute, point plan.work_data at work_size bytes if work_size > 0.
    GGML_BACKEND_API struct ggml_cplan ggml_graph_plan(
                  const struct ggml_cgraph * cgraph,
                                       int   n_threads,
                    struct ggml_threadpool * threadpool);
    // compute the graph on the host, blocking
    GGML_BACKEND_API enum ggml_status  ggml_graph_compute(struct ggml_cgraph * cgraph, struct ggml_cplan * cplan);

    // plan and compute in one call, taking the scratch memory from ctx; GGML_STATUS_ALLOC_FAILED (logged) when
    // ctx has too little memory left for it
    GGML_BACKEND_API enum ggml_status  ggml_graph_compute_with_ctx(struct ggml_context * ctx, struct ggml_cgraph * cgraph, int n_threads);

    //
    // CPU features: 1 if the feature is available to this build on this machine, else 0
    //

    // x86
    GGML_BACKEND_API int ggml_cpu_has_sse3       (void);
    GGML_BACKEND_API int ggml_cpu_has_ssse3      (void);
    GGML_BACKEND_API int ggml_cpu_has_avx        (void);
    GGML_BACKEND_API int ggml_cpu_has_avx_vnni   (void);
    GGML_BACKEND_API int ggml_cpu_has_avx2       (void);
    GGML_BACKEND_API int ggml_cpu_has_bmi2       (void);
    GGML_BACKEND_API int ggml_cpu_has_f16c       (void);
    GGML_BACKEND_API int ggml_cpu_has_fma        (void);
    GGML_BACKEND_API int ggml_cpu_has_avx512     (void);
    GGML_BACKEND_API int ggml_cpu_has_avx512_vbmi(void);
    GGML_BACKEND_API int ggml_cpu_has_avx512_vnni(void);
    GGML_BACKEND_API int ggml_cpu_has_avx512_bf16(void);
    GGML_BACKEND_API int ggml_cpu_has_amx_int8   (void);
    // Arm
    GGML_BACKEND_API int ggml_cpu_has_neon       (void);
    GGML_BACKEND_API int ggml_cpu_has_arm_fma    (void);
    GGML_BACKEND_API int ggml_cpu_has_fp16_va    (void);
    GGML_BACKEND_API int ggml_cpu_has_dotprod    (void);
    GGML_BACKEND_API int ggml_cpu_has_matmul_int8(void);
    GGML_BACKEND_API int ggml_cpu_has_sve        (void);
    GGML_BACKEND_API int ggml_cpu_get_sve_cnt    (void); // SVE register width in bytes (0 without SVE)
    GGML_BACKEND_API int ggml_cpu_has_sme        (void);
    GGML_BACKEND_API int ggml_cpu_has_sme2       (void);
    // RISC-V, POWER, s390x, WebAssembly, and the llamafile matrix kernels
    GGML_BACKEND_API int ggml_cpu_has_riscv_v    (void);
    GGML_BACKEND_API int ggml_cpu_get_rvv_vlen   (void); // RISC-V vector register width in bytes (0 without RVV)
    GGML_BACKEND_API int ggml_cpu_has_vsx        (void);
    GGML_BACKEND_API int ggml_cpu_has_vxe        (void);
    GGML_BACKEND_API int ggml_cpu_has_wasm_simd  (void);
    GGML_BACKEND_API int ggml_cpu_has_llamafile  (void);

    //
    // CPU type traits (internal, exposed for tests and benchmarks)
    //

    // nrc (1 or nrows) dot products of n elements: x rows bx bytes apart, y rows by bytes apart, results bs
    // floats apart in s
    typedef void (*ggml_vec_dot_t)  (int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT x, size_t bx,
                                       const void * GGML_RESTRICT y, size_t by, int nrc);

    struct ggml_type_traits_cpu {
        ggml_from_float_t        from_float;   // convert a row of floats to this type (optimized)
        ggml_vec_dot_t           vec_dot;      // dot product of a row of this type with a row of vec_dot_type
        enum ggml_type           vec_dot_type; // the type the other operand is converted to for vec_dot
        int64_t                  nrows;        // rows vec_dot can process in one call
    };

    GGML_BACKEND_API const struct ggml_type_traits_cpu * ggml_get_type_traits_cpu(enum ggml_type type);

    // one-time initialisation of the CPU backend's tables (fp16 lookup tables, feature detection); idempotent
    // and thread-safe, called by ggml_backend_cpu_init
    GGML_BACKEND_API void ggml_cpu_init(void);

    //
    // CPU backend
    //

    // NULL (logged) on failure; free with ggml_backend_free
    GGML_BACKEND_API ggml_backend_t ggml_backend_cpu_init(void);

    GGML_BACKEND_API bool ggml_backend_is_cpu                (ggml_backend_t backend);
    // the setters below apply to later computations of backend_cpu, which must be a CPU backend
    GGML_BACKEND_API void ggml_backend_cpu_set_n_threads     (ggml_backend_t backend_cpu, int n_threads);
    // compute on the caller's thread pool (NULL: a temporary pool per computation); the pool stays the
    // caller's and must outlive its use by the backend
    GGML_BACKEND_API void ggml_backend_cpu_set_threadpool    (ggml_backend_t backend_cpu, ggml_threadpool_t threadpool);
    GGML_BACKEND_API void ggml_backend_cpu_set_abort_callback(ggml_backend_t backend_cpu, ggml_abort_callback abort_callback, void * abort_callback_data);
    // compute with the reference kernels (see ggml_cplan.use_ref)
    GGML_BACKEND_API void ggml_backend_cpu_set_use_ref       (ggml_backend_t backend_cpu, bool use_ref);

    GGML_BACKEND_API ggml_backend_reg_t ggml_backend_cpu_reg(void);

    // Row converters using the best instructions available: (src, dst, number of elements).
    GGML_BACKEND_API void ggml_cpu_fp32_to_fp32(const float *,       float *, int64_t);
    GGML_BACKEND_API void ggml_cpu_fp32_to_i32 (const float *,     int32_t *, int64_t);
    GGML_BACKEND_API void ggml_cpu_fp32_to_fp16(const float *, ggml_fp16_t *, int64_t);
    GGML_BACKEND_API void ggml_cpu_fp16_to_fp32(const ggml_fp16_t *, float *, int64_t);
    GGML_BACKEND_API void ggml_cpu_fp32_to_bf16(const float *, ggml_bf16_t *, int64_t);
    GGML_BACKEND_API void ggml_cpu_bf16_to_fp32(const ggml_bf16_t *, float *, int64_t);

#ifdef __cplusplus
}
#endif
