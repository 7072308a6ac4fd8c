#pragma once

// Switchyard: the interfaces a backend implements (source-compatible with upstream ggml's
// src/ggml-backend-impl.h, backend API version 2).
//
// An out-of-tree backend includes this header, fills in the vtables below and either registers its reg with
// ggml_backend_register or exports it from a loadable module with GGML_BACKEND_DL_IMPL. Member order in every
// struct is part of the ABI: it equals upstream's, so positional and designated initialisers written for
// upstream ggml work unchanged.
//
// The public wrappers in ggml-backend.h check their arguments (NULL handles, ranges, sizes) and supply the
// default documented for every optional member before calling in, so implementations may assume valid input.
// "Optional" members may be NULL. Unless stated otherwise a member is called from one thread at a time per
// object; objects of different devices may be used concurrently.

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

    // A reg whose api_version differs from this is rejected by the module loader.
    #define GGML_BACKEND_API_VERSION 2

    //
    // Buffer type
    //

    struct ggml_backend_buffer_type_i {
        // required: a short name for the buffer type; its buffers report the same name. The string is owned by
        // the buffer type and stays valid as long as it does.
        const char *          (*get_name)      (ggml_backend_buffer_type_t buft);
        // required: allocate a buffer of size bytes (never called with 0: the wrapper makes zero-size buffers
        // itself). Return NULL on failure; the caller owns the result.
        ggml_backend_buffer_t (*alloc_buffer)  (ggml_backend_buffer_type_t buft, size_t size);
        // required: the alignment, in bytes, of every tensor placed in buffers of this type (a power of two)
        size_t                (*get_alignment) (ggml_backend_buffer_type_t buft);
        // optional: the largest buffer alloc_buffer can return; default SIZE_MAX
        size_t                (*get_max_size)  (ggml_backend_buffer_type_t buft);
        // optional: bytes the tensor needs in this buffer type, padding included; default ggml_nbytes(tensor).
        // Must never be smaller than ggml_nbytes (the wrapper rejects that).
        size_t                (*get_alloc_size)(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor);
        // optional: true if tensor data is in host memory with the standard ggml layout, so tensor->data may be
        // read and written directly; default false
        bool                  (*is_host)       (ggml_backend_buffer_type_t buft);
    };

    struct ggml_backend_buffer_type {
        struct ggml_backend_buffer_type_i  iface;
        ggml_backend_dev_t device;   // owning device; NULL only for the plain CPU buffer type
        void * context;              // owned by the backend
    };

    //
    // Buffer
    //

    struct ggml_backend_buffer_i {
        // optional: release the memory and context; NULL when the buffer does not own its memory (e.g. a buffer
        // over caller memory). Called once, from ggml_backend_buffer_free.
        void         (*free_buffer)  (ggml_backend_buffer_t buffer);
        // required for buffers of non-zero size: base address of the buffer (a device address for device
        // memory); must not be NULL. Tensor data pointers are base + offset.
        void *       (*get_base)     (ggml_backend_buffer_t buffer);
        // optional: prepare a tensor just placed in this buffer, views included (e.g. set tensor->extra, choose a
        // repacked layout). Default: nothing to do, GGML_STATUS_SUCCESS. Anything it allocates is released by
        // reset or free_buffer.
        enum ggml_status (*init_tensor)(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor);
        // Tensor data access, blocking. offset is in bytes from tensor->data; offset + size is already checked
        // against the tensor's size.
        // memset_tensor is optional (without it ggml_backend_tensor_memset logs a failure and does nothing);
        // set_tensor and get_tensor are required.
        void         (*memset_tensor)(ggml_backend_buffer_t buffer,       struct ggml_tensor * tensor,     uint8_t value, size_t offset, size_t size);
        void         (*set_tensor)   (ggml_backend_buffer_t buffer,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
        void         (*get_tensor)   (ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
        // optional: strided copies of n_copies blocks of size bytes (stride_tensor apart in the tensor,
        // stride_data apart in host memory), blocking. Default: one set_tensor/get_tensor call per block.
        void         (*set_tensor_2d)(ggml_backend_buffer_t buffer,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        void         (*get_tensor_2d)(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        // optional: blocking copy of src (in a buffer of any backend) into dst (in this buffer), same layout.
        // Return false when src's buffer is not one this backend can read; the caller then goes through host
        // memory.
        bool         (*cpy_tensor)   (ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst);
        // required: fill the whole buffer with value, blocking (never called for zero-size buffers)
        void         (*clear)        (ggml_backend_buffer_t buffer, uint8_t value);
        // optional: drop per-tensor state created by init_tensor, before the buffer's tensors are placed anew
        // (the graph allocator calls it when it reuses a buffer). Default: nothing to do.
        void         (*reset)        (ggml_backend_buffer_t buffer);
    };

    struct ggml_backend_buffer {
        struct ggml_backend_buffer_i  iface;
        ggml_backend_buffer_type_t    buft;
        void * context;                       // owned by the buffer, released by iface.free_buffer
        size_t size;                          // bytes
        enum ggml_backend_buffer_usage usage;
    };

    // Create a buffer object around a backend's memory (usage ANY). The buffer takes ownership of context,
    // which iface.free_buffer releases. NULL (logged) when out of memory.
    GGML_API ggml_backend_buffer_t ggml_backend_buffer_init(
                   ggml_backend_buffer_type_t buft,
            struct ggml_backend_buffer_i      iface,
                   void *                     context,
                   size_t                     size);

    // The direct-copy step of ggml_backend_tensor_copy (dst's buffer's cpy_tensor); use that function instead.
    GGML_API bool ggml_backend_buffer_copy_tensor(const struct ggml_tensor * src, struct ggml_tensor * dst);

    // Multi-buffer: one buffer object made of several buffers of the same type, used when a context's tensors
    // do not fit one buffer of the type's max size. It takes ownership of buffers[0..n_buffers-1] (the array
    // itself stays the caller's); clear and free act on all parts, set_usage on all parts.
    GGML_API ggml_backend_buffer_t ggml_backend_multi_buffer_alloc_buffer(ggml_backend_buffer_t * buffers, size_t n_buffers);
    GGML_API bool                  ggml_backend_buffer_is_multi_buffer(ggml_backend_buffer_t buffer);
    GGML_API void                  ggml_backend_multi_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);
    // the usage of a meta buffer and of each device's part (ggml_backend_buffer_set_usage calls it)
    GGML_API void                  ggml_backend_meta_buffer_set_usage (ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);

    // Ops whose result a buffer type's get_alloc_size may size above ggml_nbytes (scratch kept with the output,
    // e.g. FLASH_ATTN_EXT, MUL_MAT, MUL_MAT_ID, CUMSUM, ARGSORT, TOP_K); quantized results and empty ops may too.
    GGML_API bool ggml_op_alloc_size_may_expand(enum ggml_op op);

    //
    // Meta device, private part (see the public part in ggml-backend.h)
    //

    GGML_API bool ggml_backend_is_meta       (ggml_backend_t backend);
    GGML_API bool ggml_backend_buffer_is_meta(ggml_backend_buffer_t buf);
    GGML_API bool ggml_backend_buft_is_meta  (ggml_backend_buffer_type_t buft);

    // number of per-device backends of a meta backend, and the index-th of them (owned by the meta backend)
    GGML_API size_t         ggml_backend_meta_n_backends    (ggml_backend_t meta_backend);
    GGML_API ggml_backend_t ggml_backend_meta_simple_backend(ggml_backend_t meta_backend, size_t index);

    // the meta-buffer-type path of ggml_backend_alloc_ctx_tensors_from_buft (which routes meta types here)
    GGML_API struct ggml_backend_buffer * ggml_backend_meta_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);

    //
    // Backend (stream)
    //

    // Passed to graph_optimize (ggml 0.25.1): a backend that computes parts of the graph out of order (e.g. on
    // concurrent streams) calls add_alloc_dep(user_data, tensor, until) so that tensor's memory is not reused
    // before node `until` (a node of the same graph) has been computed. Calling it again for a tensor keeps the
    // longest of its lifetimes.
    struct ggml_backend_graph_optimize_params {
        void (*add_alloc_dep)(void * user_data, struct ggml_tensor * tensor, struct ggml_tensor * until);
        void * user_data;
    };

    struct ggml_backend_i {
        // required: the backend's name (usually the device name); owned by the backend
        const char * (*get_name)(ggml_backend_t backend);

        // required: release the backend, its context and the struct itself; pending work is finished or
        // cancelled first
        void (*free)(ggml_backend_t backend);

        // optional: tensor I/O queued on this stream, returning before it completes; the host memory must stay
        // valid until synchronize. Arguments are already checked as for the buffer's set/get. Default:
        // synchronize, then the blocking buffer functions.
        void (*set_tensor_async)   (ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
        void (*get_tensor_async)   (ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
        // optional: strided variants; default: one set/get_tensor_async call per block
        void (*set_tensor_2d_async)(ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        void (*get_tensor_2d_async)(ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        // optional: called on the destination backend. Copy src into dst after the work already queued on
        // backend_src, so that later work on backend_dst sees it, without blocking the host. Return false when
        // this pair of backends/buffers is not handled; the caller then synchronizes both and copies blocking.
        bool (*cpy_tensor_async)(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src, struct ggml_tensor * dst);

        // optional, but required when any member works asynchronously: block until everything queued on this
        // stream has completed. Default: nothing to wait for.
        void (*synchronize)(ggml_backend_t backend);

        // optional: graph plans, i.e. execution state prepared once and reused. Without plan_create the plan
        // wrappers log and fail. The plan is owned by the caller until graph_plan_free.
        ggml_backend_graph_plan_t (*graph_plan_create) (ggml_backend_t backend, const struct ggml_cgraph * cgraph);
        void                      (*graph_plan_free)   (ggml_backend_t backend, ggml_backend_graph_plan_t plan);
        // optional: refresh a plan for a new graph with the same topology (cheaper than a new plan)
        void                      (*graph_plan_update) (ggml_backend_t backend, ggml_backend_graph_plan_t plan, const struct ggml_cgraph * cgraph);
        // optional: run a plan
        enum ggml_status          (*graph_plan_compute)(ggml_backend_t backend, ggml_backend_graph_plan_t plan);

        // required: compute the graph's nodes (those flagged GGML_TENSOR_FLAG_COMPUTE). Asynchronous backends
        // queue the work and return; synchronous ones return when done. Every node has passed supports_op.
        enum ggml_status          (*graph_compute)     (ggml_backend_t backend, struct ggml_cgraph * cgraph);

        // optional (required if the device creates events): mark the current end of this stream in event /
        // make later work on this stream wait for event, which may come from another stream of the same
        // device. Neither blocks the host. Without them the event wrappers log a failure.
        void (*event_record)(ggml_backend_t backend, ggml_backend_event_t event);
        void (*event_wait)  (ggml_backend_t backend, ggml_backend_event_t event);

        // optional: reorder the nodes of a graph (one scheduler split) before it is computed, e.g. to group
        // independent work; must keep every node after its sources. Default: order unchanged. params (may be
        // NULL when the caller keeps no allocation plan) lets a backend that runs nodes out of order keep a
        // tensor allocated until a later node of the same graph.
        void (*graph_optimize)(ggml_backend_t backend, struct ggml_cgraph * cgraph,
                               struct ggml_backend_graph_optimize_params * params);
    };

    struct ggml_backend {
        ggml_guid_t guid;            // identifies the backend implementation
        struct ggml_backend_i iface;
        ggml_backend_dev_t device;
        void * context;              // owned by the backend, released by iface.free
    };

    // Events have no vtable of their own: the device creates, frees and host-synchronizes them, the backend
    // records and waits on them.
    struct ggml_backend_event {
        struct ggml_backend_device * device;
        void * context;              // owned by the event, released by the device's event_free
    };

    //
    // Device
    //

    struct ggml_backend_device_i {
        // required: a short identifier, e.g. "CPU" or "CUDA0" (looked up by ggml_backend_dev_by_name); owned by
        // the device
        const char * (*get_name)(ggml_backend_dev_t dev);

        // required: a human-readable description, e.g. the hardware model; owned by the device
        const char * (*get_description)(ggml_backend_dev_t dev);

        // required: free and total memory in bytes; report 0 for what is unknown
        void         (*get_memory)(ggml_backend_dev_t dev, size_t * free, size_t * total);

        // required
        enum ggml_backend_dev_type (*get_type)(ggml_backend_dev_t dev);

        // required: fill in props, which the caller has zero-filled; strings stay owned by the device
        void (*get_props)(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props);

        // required: create a backend (stream) on this device; params is backend-specific and may be NULL.
        // Return NULL on failure; the caller owns the result.
        ggml_backend_t (*init_backend)(ggml_backend_dev_t dev, const char * params);

        // required: the preferred buffer type for tensors used by this device (owned by the device)
        ggml_backend_buffer_type_t (*get_buffer_type)(ggml_backend_dev_t dev);

        // optional: a host-memory buffer type that makes transfers to this device faster (pinned memory);
        // default NULL (none)
        ggml_backend_buffer_type_t (*get_host_buffer_type)(ggml_backend_dev_t dev);

        // optional (advertise with caps.buffer_from_host_ptr): a buffer over existing host memory, such as a
        // memory-mapped model file, that the caller keeps owning; no tensor placed in it exceeds max_tensor_size.
        // Default: unsupported, the wrapper returns NULL.
        ggml_backend_buffer_t (*buffer_from_host_ptr)(ggml_backend_dev_t dev, void * ptr, size_t size, size_t max_tensor_size);

        // required: can this device compute op, given its type, shape, parameters and where its sources live.
        // Must be cheap and free of side effects: the scheduler calls it for every node.
        bool (*supports_op)(ggml_backend_dev_t dev, const struct ggml_tensor * op);

        // required: can this device use tensors stored in buffers of this type
        bool (*supports_buft)(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft);

        // optional: is op expensive enough to be worth running here even though its weights sit in a buffer
        // this device cannot use directly (they are copied over). Default false.
        bool (*offload_op)(ggml_backend_dev_t dev, const struct ggml_tensor * op);

        // optional (advertise with caps.events): create, free, and block the host until completion of, events.
        // Without event_new the device has no events and ggml_backend_event_new returns NULL.
        ggml_backend_event_t (*event_new)         (ggml_backend_dev_t dev);
        void                 (*event_free)        (ggml_backend_dev_t dev, ggml_backend_event_t event);
        void                 (*event_synchronize) (ggml_backend_dev_t dev, ggml_backend_event_t event);
    };

    struct ggml_backend_device {
        struct ggml_backend_device_i iface;
        ggml_backend_reg_t reg;
        void * context;              // owned by the device
    };

    //
    // Reg (a backend library)
    //

    struct ggml_backend_reg_i {
        // required: the backend library's name, e.g. "CPU", "CUDA"; owned by the reg
        const char * (*get_name)(ggml_backend_reg_t reg);

        // required: enumerate the devices. The device objects are owned by the reg and live as long as it does.
        // Enumeration must not fail: a broken driver reports zero devices.
        size_t             (*get_device_count)(ggml_backend_reg_t reg);
        ggml_backend_dev_t (*get_device)(ggml_backend_reg_t reg, size_t index);

        // optional: look up a backend-specific extra function by name (see the typedefs in ggml-backend.h);
        // NULL when unknown. Default: no extra functions.
        void * (*get_proc_address)(ggml_backend_reg_t reg, const char * name);
    };

    struct ggml_backend_reg {
        int api_version;             // set to GGML_BACKEND_API_VERSION
        struct ggml_backend_reg_i iface;
        void * context;              // owned by the reg
    };

    // Entry points of a backend built as a loadable module.
    // ggml_backend_init: return the module's reg (required).
    typedef ggml_backend_reg_t (*ggml_backend_init_t)(void);
    // ggml_backend_score: how well the module suits this machine, 0 = unusable, higher = better; the loader
    // keeps the best-scoring variant of a backend (optional).
    typedef int                (*ggml_backend_score_t)(void);

    // GGML_BACKEND_DL_IMPL(reg_fn) / GGML_BACKEND_DL_SCORE_IMPL(score_fn) define those exported entry points in
    // a module built with GGML_BACKEND_DL, forwarding to reg_fn / score_fn; otherwise they expand to nothing.
#ifdef GGML_BACKEND_DL
#    ifdef __cplusplus
#        define GGML_BACKEND_DL_IMPL(reg_fn)                             \
            extern "C" {                                                 \
            GGML_BACKEND_API ggml_backend_reg_t ggml_backend_init(void); \
            }                                                            \
            ggml_backend_reg_t ggml_backend_init(void) {                 \
                return reg_fn();                                         \
            }
#        define GGML_BACKEND_DL_SCORE_IMPL(score_fn)       \
            extern "C" {                                   \
            GGML_BACKEND_API int ggml_backend_score(void); \
            }                                              \
            int ggml_backend_score(void) {                 \
                return score_fn();                         \
            }
#    else
#        define GGML_BACKEND_DL_IMPL(reg_fn)                             \
            GGML_BACKEND_API ggml_backend_reg_t ggml_backend_init(void); \
            ggml_backend_reg_t ggml_backend_init(void) {                 \
                return reg_fn();                                         \
            }
#        define GGML_BACKEND_DL_SCORE_IMPL(score_fn)       \
            GGML_BACKEND_API int ggml_backend_score(void); \
            int ggml_backend_score(void) {                 \
                return score_fn();                         \
            }
#    endif
#else
#    define GGML_BACKEND_DL_IMPL(reg_fn)
#    define GGML_BACKEND_DL_SCORE_IMPL(score_fn)
#endif

#ifdef __cplusplus
}
#endif
