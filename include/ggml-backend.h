#pragma once

// Switchyard: the public backend API (source-compatible with upstream ggml's ggml-backend.h, 2026 form).
//
// Objects, from the memory outwards:
//   buffer type   a kind of memory a device can use: device memory, host memory, pinned host memory, ...
//   buffer        one allocation of a buffer type; tensors are placed inside it
//   backend       a stream of work on one device: tensor I/O, graph computation, events (also called "stream")
//   event         a marker in a backend's stream that the host or another stream can wait for
//   device        one piece of hardware: its properties, its buffer types, which ops it can run
//   reg           a backend library: the devices it offers and optional extra entry points (proc addresses)
//   scheduler     runs one graph over several backends, copying tensors between them where needed
//   meta device   several devices presented as one, each tensor split across them (tensor parallelism)
//
// Error model: functions whose outcome depends on run-time data or resources (bad arguments, out of memory,
// an op a device cannot run, a failing driver) log a message naming the function and return NULL / false /
// a ggml_status. They do not abort the process. Handles passed in must be live objects of this library.
//
// Threading: an object may be used from one thread at a time unless stated otherwise; the registry
// enumeration functions may be called from any thread.

#include "ggml.h"
#include "ggml-alloc.h"

// Functions exported by a backend module (the CPU backend, accelerator backends) are marked
// GGML_BACKEND_API; in dynamically loaded builds applications reach them through
// ggml_backend_reg_get_proc_address instead of linking against them.
#ifdef GGML_BACKEND_SHARED
#    if defined(_WIN32) && !defined(__MINGW32__)
#        ifdef GGML_BACKEND_BUILD
#            define GGML_BACKEND_API __declspec(dllexport) extern
#        else
#            define GGML_BACKEND_API __declspec(dllimport) extern
#        endif
#    else
#        define GGML_BACKEND_API __attribute__((visibility("default"))) extern
#    endif
#else
#    define GGML_BACKEND_API extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

    typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
    typedef struct ggml_backend_buffer * ggml_backend_buffer_t;
    typedef struct ggml_backend_event * ggml_backend_event_t;
    typedef struct ggml_backend * ggml_backend_t;
    typedef void * ggml_backend_graph_plan_t;
    typedef struct ggml_backend_reg * ggml_backend_reg_t;
    typedef struct ggml_backend_device * ggml_backend_dev_t;

    //
    // Buffer type
    //

    GGML_API const char *          ggml_backend_buft_name          (ggml_backend_buffer_type_t buft);
    // size 0 gives a valid zero-size buffer without asking the backend; NULL (logged) when allocation fails.
    // The caller owns the result and releases it with ggml_backend_buffer_free.
    GGML_API ggml_backend_buffer_t ggml_backend_buft_alloc_buffer  (ggml_backend_buffer_type_t buft, size_t size);
    GGML_API size_t                ggml_backend_buft_get_alignment (ggml_backend_buffer_type_t buft);
    // largest single buffer this type can allocate (SIZE_MAX when the backend does not say)
    GGML_API size_t                ggml_backend_buft_get_max_size  (ggml_backend_buffer_type_t buft);
    // bytes the tensor occupies in this buffer type, padding included; never less than ggml_nbytes(tensor)
    GGML_API size_t                ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor);
    // true when tensors of this type live in host memory with the standard ggml layout (data is readable)
    GGML_API bool                  ggml_backend_buft_is_host       (ggml_backend_buffer_type_t buft);
    // the device this buffer type belongs to; NULL for the plain CPU buffer type
    GGML_API ggml_backend_dev_t    ggml_backend_buft_get_device    (ggml_backend_buffer_type_t buft);

    //
    // Buffer
    //

    enum ggml_backend_buffer_usage {
        GGML_BACKEND_BUFFER_USAGE_ANY = 0,
        GGML_BACKEND_BUFFER_USAGE_WEIGHTS = 1,
        GGML_BACKEND_BUFFER_USAGE_COMPUTE = 2,
    };

    // the buffer's name is the name of its buffer type
    GGML_API const char *                   ggml_backend_buffer_name          (ggml_backend_buffer_t buffer);
    // releases the buffer and its memory; NULL is accepted and ignored
    GGML_API void                           ggml_backend_buffer_free          (ggml_backend_buffer_t buffer);
    // NULL for zero-size buffers
    GGML_API void *                         ggml_backend_buffer_get_base      (ggml_backend_buffer_t buffer);
    GGML_API size_t                         ggml_backend_buffer_get_size      (ggml_backend_buffer_t buffer);
    // lets the buffer prepare a tensor placed inside it (ggml_backend_tensor_alloc does this for you)
    GGML_API enum ggml_status               ggml_backend_buffer_init_tensor   (ggml_backend_buffer_t buffer, struct ggml_tensor * tensor);
    GGML_API size_t                         ggml_backend_buffer_get_alignment (ggml_backend_buffer_t buffer);
    GGML_API size_t                         ggml_backend_buffer_get_max_size  (ggml_backend_buffer_t buffer);
    GGML_API size_t                         ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor);
    // fills the whole buffer with value; does nothing for zero-size buffers
    GGML_API void                           ggml_backend_buffer_clear         (ggml_backend_buffer_t buffer, uint8_t value);
    GGML_API bool                           ggml_backend_buffer_is_host       (ggml_backend_buffer_t buffer);
    // the usage is a hint for the scheduler (WEIGHTS pulls ops to the buffer's backend); it also applies to
    // every part of a multi-buffer
    GGML_API void                           ggml_backend_buffer_set_usage     (ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);
    GGML_API enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage     (ggml_backend_buffer_t buffer);
    GGML_API ggml_backend_buffer_type_t     ggml_backend_buffer_get_type      (ggml_backend_buffer_t buffer);
    // drops per-tensor state the buffer keeps (tensor extras); the tensors must be initialized again
    GGML_API void                           ggml_backend_buffer_reset         (ggml_backend_buffer_t buffer);

    // Blocking copy of src's data into dst; both must have the same layout and may live in buffers of any
    // backends (through host memory when neither buffer can copy directly).
    GGML_API void ggml_backend_tensor_copy(const struct ggml_tensor * src, struct ggml_tensor * dst);

    //
    // Backend (stream)
    //

    GGML_API ggml_guid_t  ggml_backend_guid(ggml_backend_t backend);
    // "NULL" for a NULL backend
    GGML_API const char * ggml_backend_name(ggml_backend_t backend);
    // releases the backend; NULL is accepted and ignored
    GGML_API void         ggml_backend_free(ggml_backend_t backend);

    // the preferred buffer type of the backend's device, and shortcuts through it
    GGML_API ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend);
    GGML_API ggml_backend_buffer_t      ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size);
    GGML_API size_t                     ggml_backend_get_alignment(ggml_backend_t backend);
    GGML_API size_t                     ggml_backend_get_max_size(ggml_backend_t backend);

    // Asynchronous tensor I/O queued on the backend's stream. The host memory must stay valid (and, for set,
    // unchanged) until ggml_backend_synchronize(backend) returns. Backends without asynchronous I/O
    // synchronize first and then copy synchronously.
    GGML_API void ggml_backend_tensor_set_async(ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
    GGML_API void ggml_backend_tensor_get_async(ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
    // Strided variants: n_copies blocks of size bytes, stride_tensor bytes apart in the tensor (starting at
    // offset) and stride_data bytes apart in host memory.
    GGML_API void ggml_backend_tensor_set_2d_async(ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
    GGML_API void ggml_backend_tensor_get_2d_async(ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);

    // Blocking tensor I/O. offset and size are in bytes from the start of the tensor's data and are
    // range-checked: an out-of-range request is logged and nothing is copied. size 0 does nothing.
    // Views are handled through their view source's buffer.
    GGML_API void ggml_backend_tensor_set   (      struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
    GGML_API void ggml_backend_tensor_get   (const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
    GGML_API void ggml_backend_tensor_set_2d(      struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
    GGML_API void ggml_backend_tensor_get_2d(const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
    // fill a byte range of the tensor with value (logged failure if the buffer cannot memset)
    GGML_API void ggml_backend_tensor_memset(      struct ggml_tensor * tensor,     uint8_t value, size_t offset, size_t size);

    // blocks until all work queued on the backend has completed
    GGML_API void ggml_backend_synchronize(ggml_backend_t backend);

    // Graph plans: execution state prepared once and reused for repeated computations of the same graph.
    // Only some backends (the CPU backend) support them; others log and return NULL / a failure status.
    GGML_API ggml_backend_graph_plan_t ggml_backend_graph_plan_create(ggml_backend_t backend, struct ggml_cgraph * cgraph);
    GGML_API void                      ggml_backend_graph_plan_free  (ggml_backend_t backend, ggml_backend_graph_plan_t plan);

    GGML_API enum ggml_status ggml_backend_graph_plan_compute (ggml_backend_t backend, ggml_backend_graph_plan_t plan);
    // computes the graph and waits for it (= compute_async + synchronize)
    GGML_API enum ggml_status ggml_backend_graph_compute      (ggml_backend_t backend, struct ggml_cgraph * cgraph);
    // queues the graph on the backend's stream; may return before the results are ready
    GGML_API enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph * cgraph);

    // forwarders to the ggml_backend_dev_* versions on the backend's device (prefer those)
    GGML_API bool ggml_backend_supports_op(ggml_backend_t backend, const struct ggml_tensor * op);
    GGML_API bool ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft);
    GGML_API bool ggml_backend_offload_op(ggml_backend_t backend, const struct ggml_tensor * op);

    // Copy between streams: the copy happens after the work already queued on backend_src, and work queued
    // later on backend_dst sees the result. When backend_dst cannot do this asynchronously, both backends are
    // synchronized and the copy is blocking.
    GGML_API void ggml_backend_tensor_copy_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src, struct ggml_tensor * dst);

    GGML_API ggml_backend_dev_t ggml_backend_get_device(ggml_backend_t backend);

    //
    // Events
    //

    // NULL when the device has no events (see ggml_backend_dev_caps.events); free with ggml_backend_event_free
    GGML_API ggml_backend_event_t ggml_backend_event_new(ggml_backend_dev_t device);
    // NULL is accepted and ignored
    GGML_API void                 ggml_backend_event_free(ggml_backend_event_t event);
    // mark the current end of backend's stream; backend must belong to the event's device
    GGML_API void                 ggml_backend_event_record(ggml_backend_event_t event, ggml_backend_t backend);
    // block the calling thread until the recorded point has been reached
    GGML_API void                 ggml_backend_event_synchronize(ggml_backend_event_t event);
    // make later work on backend's stream wait for the recorded point (does not block the host)
    GGML_API void                 ggml_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event);

    //
    // Device
    //

    // The numeric values follow upstream's order (they changed in 2025-09 when IGPU was inserted).
    enum ggml_backend_dev_type {
        // the host CPU, computing in system memory
        GGML_BACKEND_DEVICE_TYPE_CPU,
        // a discrete GPU with its own memory
        GGML_BACKEND_DEVICE_TYPE_GPU,
        // a GPU that shares system memory with the host
        GGML_BACKEND_DEVICE_TYPE_IGPU,
        // a helper that runs some ops alongside the CPU backend on host memory (BLAS, AMX and the like)
        GGML_BACKEND_DEVICE_TYPE_ACCEL,
        // several devices combined into one for tensor parallelism (see ggml_backend_meta_device)
        GGML_BACKEND_DEVICE_TYPE_META,
    };

    // what a device can do beyond the required minimum
    struct ggml_backend_dev_caps {
        bool async;                // its backends queue work and I/O asynchronously
        bool host_buffer;          // it offers a host buffer type (pinned memory for faster transfers)
        bool buffer_from_host_ptr; // ggml_backend_dev_buffer_from_host_ptr works
        bool events;               // ggml_backend_event_new works
        bool mmap_support;         // weights may stay in memory-mapped model files
    };

    struct ggml_backend_dev_props {
        const char * name;          // short identifier, e.g. "CPU", "CUDA0"
        const char * description;   // human-readable, e.g. the model name
        size_t memory_free;         // bytes, 0 when unknown
        size_t memory_total;        // bytes, 0 when unknown
        enum ggml_backend_dev_type type;
        const char * device_id;     // lower-case PCI bus id "dddd:bb:dd.f", or NULL when unknown
        struct ggml_backend_dev_caps caps;
    };

    GGML_API const char *                  ggml_backend_dev_name(ggml_backend_dev_t device);
    GGML_API const char *                  ggml_backend_dev_description(ggml_backend_dev_t device);
    GGML_API void                          ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total);
    GGML_API enum ggml_backend_dev_type    ggml_backend_dev_type(ggml_backend_dev_t device);
    // props is zero-filled before the device fills it in
    GGML_API void                          ggml_backend_dev_get_props(ggml_backend_dev_t device, struct ggml_backend_dev_props * props);
    GGML_API ggml_backend_reg_t            ggml_backend_dev_backend_reg(ggml_backend_dev_t device);
    // create a backend (stream) on the device; params is backend-specific and usually NULL. NULL on failure.
    // The caller owns the result (ggml_backend_free).
    GGML_API ggml_backend_t                ggml_backend_dev_init(ggml_backend_dev_t device, const char * params);
    // the device's preferred buffer type
    GGML_API ggml_backend_buffer_type_t    ggml_backend_dev_buffer_type(ggml_backend_dev_t device);
    // a host buffer type for faster transfers (pinned memory), or NULL
    GGML_API ggml_backend_buffer_type_t    ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device);
    // a buffer over existing host memory (e.g. a memory-mapped file); the caller keeps owning ptr and must keep
    // it valid while the buffer lives. NULL when unsupported (check caps.buffer_from_host_ptr).
    GGML_API ggml_backend_buffer_t         ggml_backend_dev_buffer_from_host_ptr(ggml_backend_dev_t device, void * ptr, size_t size, size_t max_tensor_size);

    // can the device compute op (its type, shape and parameters, and where its sources live)
    GGML_API bool                          ggml_backend_dev_supports_op(ggml_backend_dev_t device, const struct ggml_tensor * op);
    // can the device use tensors stored in buffers of this type
    GGML_API bool                          ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft);
    // is op expensive enough to run here even though its weights are in host memory (false if not said)
    GGML_API bool                          ggml_backend_dev_offload_op(ggml_backend_dev_t device, const struct ggml_tensor * op);

    //
    // Reg (a backend library)
    //

    GGML_API const char *       ggml_backend_reg_name(ggml_backend_reg_t reg);
    GGML_API size_t             ggml_backend_reg_dev_count(ggml_backend_reg_t reg);
    GGML_API ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index);
    // a backend-specific entry point by name, NULL when the backend does not provide it
    GGML_API void *             ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name);

    // Signatures of the entry points conventionally looked up with ggml_backend_reg_get_proc_address
    // (the proc name is the typedef name without the trailing _t).

    // Collective communication among backends of one reg, used by the meta device for all-reduce:
    // init returns a communicator for the given backends (NULL if unsupported); allreduce sums tensors[i]
    // (one per backend, same shape) in place on every backend, returning false if it cannot; free releases it.
    typedef void * (*ggml_backend_comm_init_t)(ggml_backend_t * backends, size_t n_backends);
    typedef void   (*ggml_backend_comm_free_t)(void * comm_ctx);
    typedef bool   (*ggml_backend_comm_allreduce_tensor_t)(void * comm_ctx, struct ggml_tensor ** tensors);

    // the older row-split buffer type for multi-GPU tensor parallelism
    typedef ggml_backend_buffer_type_t   (*ggml_backend_split_buffer_type_t)(int main_device, const float * tensor_split);
    // set the number of threads a backend computes with
    typedef void                         (*ggml_backend_set_n_threads_t)(ggml_backend_t backend, int n_threads);
    // extra buffer types a device offers (e.g. repacked weight layouts), as a NULL-terminated array
    typedef ggml_backend_buffer_type_t * (*ggml_backend_dev_get_extra_bufts_t)(ggml_backend_dev_t device);
    // install a callback polled during computation; returning true from it stops the computation
    typedef void                         (*ggml_backend_set_abort_callback_t)(ggml_backend_t backend, ggml_abort_callback abort_callback, void * abort_callback_data);
    // a backend's build/run-time features as name/value pairs, terminated by an entry with a NULL name
    struct ggml_backend_feature {
        const char * name;
        const char * value;
    };
    typedef struct ggml_backend_feature * (*ggml_backend_get_features_t)(ggml_backend_reg_t reg);

    //
    // Registry
    //

    // add a reg (and all its devices) to the process-wide registry; registering twice is harmless
    GGML_API void ggml_backend_register(ggml_backend_reg_t reg);
    // add one device on its own (e.g. a remote device discovered later)
    GGML_API void ggml_backend_device_register(ggml_backend_dev_t device);

    // regs in registration order; name lookups ignore case and return NULL when not found
    GGML_API size_t             ggml_backend_reg_count(void);
    GGML_API ggml_backend_reg_t ggml_backend_reg_get(size_t index);
    GGML_API ggml_backend_reg_t ggml_backend_reg_by_name(const char * name);

    // devices of all regs in registration order; by_type returns the first device of that type
    GGML_API size_t             ggml_backend_dev_count(void);
    GGML_API ggml_backend_dev_t ggml_backend_dev_get(size_t index);
    GGML_API ggml_backend_dev_t ggml_backend_dev_by_name(const char * name);
    GGML_API ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type);

    // shortcuts: ggml_backend_dev_init on the device found by name / by type
    GGML_API ggml_backend_t ggml_backend_init_by_name(const char * name, const char * params);
    GGML_API ggml_backend_t ggml_backend_init_by_type(enum ggml_backend_dev_type type, const char * params);
    // the first GPU, else the first integrated GPU, else the CPU
    GGML_API ggml_backend_t ggml_backend_init_best(void);

    // load a backend module (shared library) and register its reg; NULL (logged) on failure
    GGML_API ggml_backend_reg_t ggml_backend_load(const char * path);
    // unregister a reg and its devices, and unload its module if it was loaded dynamically
    GGML_API void               ggml_backend_unload(ggml_backend_reg_t reg);
    // load every known backend module found in the default search paths / in dir_path (NULL: defaults)
    GGML_API void               ggml_backend_load_all(void);
    GGML_API void               ggml_backend_load_all_from_path(const char * dir_path);

    //
    // Legacy registry helpers (seed 000)
    //
    // The index-based registry API of 2024, kept as thin wrappers over the functions above. Indices count
    // registered regs, in the same order as ggml_backend_reg_get.

    GGML_API size_t                     ggml_backend_reg_get_count(void);
    // index of the reg with this name (case-insensitive), SIZE_MAX if there is none
    GGML_API size_t                     ggml_backend_reg_find_by_name(const char * name);
    // backend_str is "name" or "name:params"
    GGML_API ggml_backend_t             ggml_backend_reg_init_backend_from_str(const char * backend_str);
    GGML_API const char *               ggml_backend_reg_get_name(size_t i);
    // a backend on the reg's first device; params is backend-specific
    GGML_API ggml_backend_t             ggml_backend_reg_init_backend(size_t i, const char * params);
    GGML_API ggml_backend_buffer_type_t ggml_backend_reg_get_default_buffer_type(size_t i);
    GGML_API ggml_backend_buffer_t      ggml_backend_reg_alloc_buffer(size_t i, size_t size);

    //
    // Scheduler
    //
    // Runs one graph over several backends. Each node goes to a backend that can run it, preferring the
    // backend whose buffers hold its weights, then lower indices (higher priority); tensors crossing from one
    // backend to another are copied into inputs of the receiving split. The last backend must be on a CPU
    // device. Typical use:
    //
    //   sched = ggml_backend_sched_new(backends, NULL, n_backends, GGML_DEFAULT_GRAPH_SIZE, false, true);
    //   ggml_backend_sched_reserve(sched, worst_case_graph);   // optional: size the compute buffers once
    //   ggml_backend_sched_alloc_graph(sched, graph);          // place the graph's tensors
    //   ggml_backend_tensor_set(input, ...);                   // fill the inputs
    //   ggml_backend_sched_graph_compute(sched, graph);
    //   ggml_backend_sched_reset(sched);                       // before allocating the next, different graph
    //
    // The scheduler redirects node sources to its input copies, so a graph is allocated once but can be
    // computed many times.

    typedef struct ggml_backend_sched * ggml_backend_sched_t;

    // Observation callback. With ask == true, return whether you want to see tensor t once it is computed
    // (the scheduler then ends a compute batch after it); with ask == false, t has been computed and its data
    // can be read: return true to continue, false to cancel the rest of the computation.
    typedef bool (*ggml_backend_sched_eval_callback)(struct ggml_tensor * t, bool ask, void * user_data);

    // backends in priority order (last: CPU); bufts may be NULL (each backend's default buffer type);
    // graph_size: the most nodes a graph may have; parallel: keep several copies of split inputs for
    // pipelining; op_offload: let backends pull expensive ops whose weights are in host memory
    GGML_API ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends, size_t graph_size, bool parallel, bool op_offload);
    GGML_API void                 ggml_backend_sched_free(ggml_backend_sched_t sched);

    // dry run: write to sizes[i] the compute buffer size backend i would need for measure_graph
    GGML_API void                 ggml_backend_sched_reserve_size(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph, size_t * sizes);
    // allocate compute buffers large enough for measure_graph (keeps user assignments); false on failure
    GGML_API bool                 ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph);

    GGML_API int                  ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched);
    GGML_API ggml_backend_t       ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i);

    // number of splits and of input copies of the last split graph
    GGML_API int                  ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched);
    GGML_API int                  ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched);

    // the buffer type used for backend's compute tensors, and the size of its compute buffer
    GGML_API ggml_backend_buffer_type_t ggml_backend_sched_get_buffer_type(ggml_backend_sched_t sched, ggml_backend_t backend);
    GGML_API size_t                     ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend);

    // pin a node to a backend before the graph is split (rarely needed); get returns NULL if not assigned
    GGML_API void                 ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node, ggml_backend_t backend);
    GGML_API ggml_backend_t       ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node);

    // assign and split the graph without allocating it
    GGML_API void                 ggml_backend_sched_split_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph);

    // split and allocate the graph; false (logged) if it cannot run (no backend for an op, out of memory)
    GGML_API bool                 ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
    // compute (allocating first if needed) and wait / and return once queued
    GGML_API enum ggml_status     ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
    GGML_API enum ggml_status     ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
    // wait for every backend of the scheduler
    GGML_API void                 ggml_backend_sched_synchronize(ggml_backend_sched_t sched);

    // forget the assignments and the allocation of the current graph; its compute tensors are left with
    // dangling data pointers and must not be used again. Needed before allocating a different graph.
    GGML_API void                 ggml_backend_sched_reset(ggml_backend_sched_t sched);

    GGML_API void                 ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback callback, void * user_data);

    // Switchyard extensions (observability; not in upstream ggml):
    // the plan of the last split graph as JSON: the splits with their backend, node range and copied inputs
    // (with bytes), each backend's compute buffer size, and ops that did not run on their preferred backend
    // with the reason. Writes at most size bytes (NUL-terminated) to buf and returns the full length, like
    // snprintf. The environment variable GGML_SCHED_PLAN=<path> writes it to a file after every split.
    GGML_API size_t               ggml_backend_sched_plan_json(ggml_backend_sched_t sched, char * buf, size_t size);
    // write a Chrome/Perfetto trace (JSON) of every compute to path (NULL: stop); also GGML_SCHED_TRACE=<path>
    GGML_API void                 ggml_backend_sched_set_trace(ggml_backend_sched_t sched, const char * path);

    //
    // Meta device: several devices presented as one, each tensor split across them
    //

    #define GGML_BACKEND_META_MAX_DEVICES 16

    enum ggml_backend_meta_split_axis {
        // each device holds a slice of the tensor along this dimension
        GGML_BACKEND_SPLIT_AXIS_0 = 0,
        GGML_BACKEND_SPLIT_AXIS_1 = 1,
        GGML_BACKEND_SPLIT_AXIS_2 = 2,
        GGML_BACKEND_SPLIT_AXIS_3 = 3,

        // each device holds the whole tensor
        GGML_BACKEND_SPLIT_AXIS_MIRRORED = 10,
        // each device holds a partial sum; the tensor is the sum over devices
        GGML_BACKEND_SPLIT_AXIS_PARTIAL = 11,

        // used inside the meta backend only
        GGML_BACKEND_SPLIT_AXIS_NONE = 98,
        GGML_BACKEND_SPLIT_AXIS_UNKNOWN = 99,
    };
    GGML_API const char * ggml_backend_meta_split_axis_name(enum ggml_backend_meta_split_axis split_axis);

    struct ggml_backend_meta_split_state {
        enum ggml_backend_meta_split_axis axis;

        // For the dimension axes: the extent along `axis` is cut into n_segments segments (usually 1; more for
        // fused tensors such as a combined QKV weight), each split separately across the devices.
        // With n devices, ne[s*n + d] is device d's share of segment s (segments outer, devices inner:
        // [seg0_dev0, seg0_dev1, seg1_dev0, seg1_dev1] for two devices), and segment s occurs nr[s] times in a
        // row; summed over devices and repetitions the shares give the tensor's extent. A fused QKV weight whose
        // K and V are the same size: two segments, Q then K/V, with nr = {1, 2}.
        int64_t  ne[16*GGML_BACKEND_META_MAX_DEVICES];
        uint32_t nr[16];
        uint32_t n_segments;
    };

    // Supplied by the user: the split state of a tensor allocated statically on the meta device (weights,
    // KV cache). Split states of compute tensors are derived from their sources.
    typedef struct ggml_backend_meta_split_state(*ggml_backend_meta_get_split_state_t)(const struct ggml_tensor * tensor, void * userdata);

    // Create a meta device over devs[0..n_devs-1] (at most GGML_BACKEND_META_MAX_DEVICES); its buffer types,
    // buffers and backends are derived from it. NULL (logged) on invalid arguments.
    GGML_API ggml_backend_dev_t ggml_backend_meta_device(
        ggml_backend_dev_t * devs, size_t n_devs, ggml_backend_meta_get_split_state_t get_split_state, void * get_split_state_ud);

    //
    // Utils
    //

    struct ggml_backend_graph_copy {
        ggml_backend_buffer_t buffer;
        struct ggml_context * ctx_allocated;
        struct ggml_context * ctx_unallocated;
        struct ggml_cgraph * graph;
    };

    // deep-copy a graph (tensors and their data) onto another backend; all members are NULL on failure.
    // Release with ggml_backend_graph_copy_free.
    GGML_API struct ggml_backend_graph_copy ggml_backend_graph_copy(ggml_backend_t backend, struct ggml_cgraph * graph);
    GGML_API void                           ggml_backend_graph_copy_free(struct ggml_backend_graph_copy copy);

    // t1 is the node computed on backend1, t2 the same node on backend2; return false to stop comparing
    typedef bool (*ggml_backend_eval_callback)(int node_index, struct ggml_tensor * t1, struct ggml_tensor * t2, void * user_data);

    // Compare two backends on the same graph. With num_test_nodes == 0 the graph is run node by node on both
    // and callback sees every non-view node; otherwise both whole graphs are computed and callback sees only
    // test_nodes (nodes of graph). False if the comparison could not be carried out.
    GGML_API bool ggml_backend_compare_graph_backend(ggml_backend_t backend1, ggml_backend_t backend2, struct ggml_cgraph * graph, ggml_backend_eval_callback callback, void * user_data, const struct ggml_tensor * const * test_nodes, size_t num_test_nodes);

    // place a not-yet-allocated, non-view tensor at addr inside buffer and initialize it;
    // a failure status (logged) if it does not fit
    GGML_API enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, void * addr);
    // give a view its buffer and data pointer from its view source, and initialize it
    GGML_API enum ggml_status ggml_backend_view_init(struct ggml_tensor * tensor);

    // The plain CPU buffer type is part of the base library so it is always available.
    // from_ptr wraps caller-owned memory (32-byte aligned, kept valid while the buffer lives; not freed by it).
    GGML_API ggml_backend_buffer_t      ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size);
    GGML_API ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void);

#ifdef __cplusplus
}
#endif
