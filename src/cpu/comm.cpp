// All-reduce for CPU backends in one process: the partial sums already live in host memory, so the total is
// formed in place in the first tensor (in float for 16-bit types) and copied to the others.
#include "cpu/comm.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"

#include "base/fp16.h"
#include "base/log.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace switchyard::cpu {

namespace {

struct Communicator {
    size_t n_backends = 0;
};

bool in_host_memory(const ggml_tensor * t) {
    const ggml_backend_buffer_t buffer = t->view_src != nullptr ? t->view_src->buffer : t->buffer;
    return t->data != nullptr && (buffer == nullptr || ggml_backend_buffer_is_host(buffer));
}

bool compatible(ggml_tensor * const * tensors, size_t n) {
    const ggml_tensor * first = tensors[0];
    if (first == nullptr ||
        (first->type != GGML_TYPE_F32 && first->type != GGML_TYPE_F16 && first->type != GGML_TYPE_BF16)) {
        return false;
    }
    for (size_t i = 0; i < n; ++i) {
        const ggml_tensor * t = tensors[i];
        if (t == nullptr || t->type != first->type || ggml_nelements(t) != ggml_nelements(first) ||
            !ggml_is_contiguous(t) || !in_host_memory(t)) {
            return false;
        }
    }
    return true;
}

float load(ggml_type type, const void * p, size_t i) {
    if (type == GGML_TYPE_F32) {
        return static_cast<const float *>(p)[i];
    }
    const uint16_t h = static_cast<const uint16_t *>(p)[i];
    return type == GGML_TYPE_F16 ? fp16_to_fp32(h) : bf16_to_fp32(h);
}

void store(ggml_type type, void * p, size_t i, float v) {
    if (type == GGML_TYPE_F32) {
        static_cast<float *>(p)[i] = v;
    } else {
        static_cast<uint16_t *>(p)[i] = type == GGML_TYPE_F16 ? fp32_to_fp16(v) : fp32_to_bf16(v);
    }
}

void sum_f32(ggml_tensor * const * tensors, size_t n, size_t count) {
    float * total = static_cast<float *>(tensors[0]->data);
    for (size_t k = 1; k < n; ++k) {
        const float * part = static_cast<const float *>(tensors[k]->data);
        for (size_t i = 0; i < count; ++i) {
            total[i] += part[i];
        }
    }
}

// Sums in float a chunk of elements at a time, on the stack.
void sum_converted(ggml_tensor * const * tensors, size_t n, size_t count) {
    constexpr size_t kChunk = 256;
    const ggml_type  type   = tensors[0]->type;
    float            acc[kChunk];
    for (size_t i0 = 0; i0 < count; i0 += kChunk) {
        const size_t m = std::min(kChunk, count - i0);
        for (size_t i = 0; i < m; ++i) {
            acc[i] = load(type, tensors[0]->data, i0 + i);
        }
        for (size_t k = 1; k < n; ++k) {
            for (size_t i = 0; i < m; ++i) {
                acc[i] += load(type, tensors[k]->data, i0 + i);
            }
        }
        for (size_t i = 0; i < m; ++i) {
            store(type, tensors[0]->data, i0 + i, acc[i]);
        }
    }
}

} // namespace

void * comm_init(ggml_backend_t * backends, size_t n_backends) {
    if (backends == nullptr || n_backends == 0) {
        return nullptr;
    }
    for (size_t i = 0; i < n_backends; ++i) {
        if (!ggml_backend_is_cpu(backends[i])) {
            log_debug("[ggml_backend_comm_init] backend %zu (%s) is not a CPU backend\n", i, ggml_backend_name(backends[i]));
            return nullptr;
        }
    }
    auto * comm = new (std::nothrow) Communicator{n_backends};
    if (comm == nullptr) {
        log_error("[ggml_backend_comm_init] out of memory\n");
    }
    return comm;
}

void comm_free(void * comm_ctx) { delete static_cast<Communicator *>(comm_ctx); }

bool comm_allreduce_tensor(void * comm_ctx, ggml_tensor ** tensors) {
    const auto * comm = static_cast<const Communicator *>(comm_ctx);
    if (comm == nullptr || tensors == nullptr || !compatible(tensors, comm->n_backends)) {
        return false;
    }
    const size_t count = static_cast<size_t>(ggml_nelements(tensors[0]));
    if (tensors[0]->type == GGML_TYPE_F32) {
        sum_f32(tensors, comm->n_backends, count);
    } else {
        sum_converted(tensors, comm->n_backends, count);
    }
    for (size_t k = 1; k < comm->n_backends; ++k) {
        if (tensors[k]->data != tensors[0]->data) {
            std::memcpy(tensors[k]->data, tensors[0]->data, ggml_nbytes(tensors[0]));
        }
    }
    return true;
}

} // namespace switchyard::cpu
