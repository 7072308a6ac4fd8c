#pragma once

// Switchyard: the interfaces a backend implements. An out-of-tree backend includes this header, fills the
// vtables below and registers its reg (ggml_backend_register) or exports it from a module
// (GGML_BACKEND_DL_IMPL). The public wrappers in ggml-backend.h validate arguments and supply the defaults
// documented for each optional member, so implementations may assume valid input.

#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

    #define GGML_BACKEND_API_VERSION 2

    //
    // Backend buffer type
    //

    struct ggml_backend_buffer_type_i {
        // required: a short name, also used as the name of its buffers
        const char *          (*get_name)      (ggml_backend_buffer_type_t buft);
        // required: allocate a buffer of `size` bytes (never called with 0); NULL on failure
        ggml_backend_buffer_t (*alloc_buffer)  (ggml_backend_buffer_type_t buft, size_t size);
        // required: alignment of tensor data in bytes
        size_t                (*get_alignment) (ggml_backend_buffer_type_t buft);
        // optional: largest buffer that can be allocated (default SIZE_MAX)
        size_t                (*get_max_size)  (ggml_backend_buffer_type_t buft);
        // optional: bytes a tensor needs in this buffer type, padding included (default ggml_nbytes; never less)
        size_t                (*get_alloc_size)(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor);
        // optional: the memory is host memory with the standard ggml layout (default false)
        bool                  (*is_host)       (ggml_backend_buffer_type_t buft);
    };

    struct ggml_backend_buffer_type {
        struct ggml_backend_buffer_type_i  iface;
        ggml_backend_dev_t device;
        void * context;
    };

    //
    // Backend buffer
    //

    struct ggml_backend_buffer_i {
        // optional: release the buffer's memory and context (NULL when the memory is not owned)
        void         (*free_buffer)  (ggml_backend_buffer_t buffer);
        // required for buffers of non-zero size: base address of the tensors' data (never NULL)
        void *       (*get_base)     (ggml_backend_buffer_t buffer);
        // optional: prepare a tensor placed in this buffer (views included), e.g. set tensor->extra
        enum ggml_status (*init_tensor)(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor);
        // tensor data access; offsets are relative to tensor->data and already range-checked
        // memset_tensor is optional (ggml_backend_tensor_memset fails without it); set/get are required
        void         (*memset_tensor)(ggml_backend_buffer_t buffer,       struct ggml_tensor * tensor,     uint8_t value, size_t offset, size_t size);
        void         (*set_tensor)   (ggml_backend_buffer_t buffer,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
        void         (*get_tensor)   (ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
        // optional: strided copies (default: a loop of set/get)
        void         (*set_tensor_2d)(ggml_backend_buffer_t buffer,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        void         (*get_tensor_2d)(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        // optional: copy src (in any buffer) into dst (in this buffer), blocking; false if src's buffer is not
        // supported (the caller then copies through host memory)
        bool         (*cpy_tensor)   (ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst);
        // required: fill the whole buffer with value (never called for size 0)
        void         (*clear)        (ggml_backend_buffer_t buffer, uint8_t value);
        // optional: drop per-tensor state created by init_tensor (called before tensors are placed anew)
        void         (*reset)        (ggml_backend_buffer_t buffer);
    };

    struct ggml_backend_buffer {
        struct ggml_backend_buffer_i  iface;
        ggml_backend_buffer_type_t    buft;
        void * context;
        size_t size;
        enum ggml_backend_buffer_usage usage;
    };

    // create a buffer object (usage ANY); the buffer owns context until free_buffer is called
    GGML_API ggml_backend_buffer_t ggml_backend_buffer_init(
                   ggml_backend_buffer_type_t buft,
            struct ggml_backend_buffer_i      iface,
                   void *                     context,
                   size_t                     size);

    // do not use directly, use ggml_backend_tensor_copy instead
    GGML_API bool ggml_backend_buffer_copy_tensor(const struct ggml_tensor * src, struct ggml_tensor * dst);

    // multi-buffer: one buffer made of several (takes ownership of them); used when a context's tensors
    // exceed a buffer type's max size
    GGML_API ggml_backend_buffer_t ggml_backend_multi_buffer_alloc_buffer(ggml_backend_buffer_t * buffers, size_t n_buffers);
    GGML_API bool                  ggml_backend_buffer_is_multi_buffer(ggml_backend_buffer_t buffer);
    GGML_API void                  ggml_backend_multi_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);

    //
    // Meta device (private part)
    //

    GGML_API bool ggml_backend_is_meta       (ggml_backend_t backend);
    GGML_API bool ggml_backend_buffer_is_meta(ggml_backend_buffer_t buf);
    GGML_API bool ggml_backend_buft_is_meta  (ggml_backend_buffer_type_t buft);

    GGML_API size_t         ggml_backend_meta_n_backends    (ggml_backend_t meta_backend);
    GGML_API ggml_backend_t ggml_backend_meta_simple_backend(ggml_backend_t meta_backend, size_t index);

    GGML_API struct ggml_backend_buffer * ggml_backend_meta_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);

    //
    // Backend (stream)
    //

    struct ggml_backend_i {
        // required
        const char * (*get_name)(ggml_backend_t backend);
        // required: release the backend and its context
        void (*free)(ggml_backend_t backend);

        // optional: asynchronous tensor data access, ordered on this stream (default: synchronize, then copy)
        void (*set_tensor_async)   (ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
        void (*get_tensor_async)   (ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
        void (*set_tensor_2d_async)(ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        void (*get_tensor_2d_async)(ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        // optional: called on the destination backend; copy after all work queued so far on backend_src;
        // false if not possible (the caller synchronizes both and copies blocking)
        bool (*cpy_tensor_async)(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src, struct ggml_tensor * dst);

        // optional (required if anything is asynchronous): wait until all queued work has completed
        void (*synchronize)(ggml_backend_t backend);

        // optional: graph plans (precomputed execution state reused across computes)
        ggml_backend_graph_plan_t (*graph_plan_create) (ggml_backend_t backend, const struct ggml_cgraph * cgraph);
        void                      (*graph_plan_free)   (ggml_backend_t backend, ggml_backend_graph_plan_t plan);
        // update the plan with a new graph of the same topology
        void                      (*graph_plan_update) (ggml_backend_t backend, ggml_backend_graph_plan_t plan, const struct ggml_cgraph * cgraph);
        enum ggml_status          (*graph_plan_compute)(ggml_backend_t backend, ggml_backend_graph_plan_t plan);

        // required: compute the graph's nodes that carry GGML_TENSOR_FLAG_COMPUTE (asynchronous if the backend is)
        enum ggml_status          (*graph_compute)     (ggml_backend_t backend, struct ggml_cgraph * cgraph);

        // optional: record an event on this stream / make this stream wait for an event
        void (*event_record)(ggml_backend_t backend, ggml_backend_event_t event);
        void (*event_wait)  (ggml_backend_t backend, ggml_backend_event_t event);

        // optional: reorder the nodes of a graph (a scheduler split) for this backend
        void (*graph_optimize)(ggml_backend_t backend, struct ggml_cgraph * cgraph);
    };

    struct ggml_backend {
        ggml_guid_t guid;
        struct ggml_backend_i iface;
        ggml_backend_dev_t device;
        void * context;
    };

    struct ggml_backend_event {
        struct ggml_backend_device * device;
        void * context;
    };

    //
    // Backend device
    //

    struct ggml_backend_device_i {
        // required: short identifier, e.g. "CPU" or "CUDA0"
        const char * (*get_name)(ggml_backend_dev_t dev);
        // required: informative description, e.g. the model name
        const char * (*get_description)(ggml_backend_dev_t dev);
        // required: memory in bytes (0 if unknown)
        void         (*get_memory)(ggml_backend_dev_t dev, size_t * free, size_t * total);
        // required
        enum ggml_backend_dev_type (*get_type)(ggml_backend_dev_t dev);
        // required: fill props (zero-initialised by the caller)
        void (*get_props)(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props);
        // required: create a backend (stream); params is backend-specific and may be NULL
        ggml_backend_t (*init_backend)(ggml_backend_dev_t dev, const char * params);
        // required: the preferred buffer type
        ggml_backend_buffer_type_t (*get_buffer_type)(ggml_backend_dev_t dev);
        // optional: a host buffer type for faster transfers (e.g. pinned memory); NULL if none
        ggml_backend_buffer_type_t (*get_host_buffer_type)(ggml_backend_dev_t dev);
        // optional (check caps.buffer_from_host_ptr): a buffer over host memory the caller keeps owning
        ggml_backend_buffer_t (*buffer_from_host_ptr)(ggml_backend_dev_t dev, void * ptr, size_t size, size_t max_tensor_size);
        // required: can the device compute this op (types, shapes, where its sources live)
        bool (*supports_op)(ggml_backend_dev_t dev, const struct ggml_tensor * op);
        // required: can the device use tensors in buffers of this type
        bool (*supports_buft)(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft);
        // optional: an expensive op worth running here even when its weights are in host memory (default false)
        bool (*offload_op)(ggml_backend_dev_t dev, const struct ggml_tensor * op);
        // optional: events (NULL event_new: the device has none)
        ggml_backend_event_t (*event_new)         (ggml_backend_dev_t dev);
        void                 (*event_free)        (ggml_backend_dev_t dev, ggml_backend_event_t event);
        void                 (*event_synchronize) (ggml_backend_dev_t dev, ggml_backend_event_t event);
    };

    struct ggml_backend_device {
        struct ggml_backend_device_i iface;
        ggml_backend_reg_t reg;
        void * context;
    };

    //
    // Backend (reg)
    //

    struct ggml_backend_reg_i {
        // required
        const char * (*get_name)(ggml_backend_reg_t reg);
        // required: enumerate the devices
        size_t             (*get_device_count)(ggml_backend_reg_t reg);
        ggml_backend_dev_t (*get_device)(ggml_backend_reg_t reg, size_t index);
        // optional: a backend-specific function by name (NULL if unknown)
        void * (*get_proc_address)(ggml_backend_reg_t reg, const char * name);
    };

    struct ggml_backend_reg {
        int api_version; // GGML_BACKEND_API_VERSION
        struct ggml_backend_reg_i iface;
        void * context;
    };

    // Entry points of a backend built as a dynamic module
    typedef ggml_backend_reg_t (*ggml_backend_init_t)(void);
    // optional: 0 = not usable on this machine, higher = better
    typedef int                (*ggml_backend_score_t)(void);

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
