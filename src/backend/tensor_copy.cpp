// Copies between tensors in any two buffers. The blocking copy takes the cheapest route available:
//   1. src in host memory   -> dst's buffer writes straight from src->data;
//   2. dst in host memory   -> src's buffer reads straight into dst->data;
//   3. dst's buffer can copy from src's buffer itself (cpy_tensor, e.g. device to device);
//   4. otherwise the data goes through a temporary host buffer (get, then set).
// The asynchronous copy asks the destination backend first and falls back to synchronizing both backends and
// copying blocking, which gives the same ordering as a stream copy.
#include "backend/tensor_io.h"

#include "ggml-backend-impl.h"

#include "base/log.h"

#include <memory>
#include <new>

using namespace switchyard;

namespace switchyard::backend {

namespace {

// Both tensors given, same layout, allocated (unless empty); false (logged) otherwise.
bool check_copy(const ggml_tensor * src, const ggml_tensor * dst, const char * caller) {
    if (src == nullptr || dst == nullptr) {
        log_error("[%s] %s tensor is NULL\n", caller, src == nullptr ? "source" : "destination");
        return false;
    }
    if (!same_layout(src, dst)) {
        log_error("[%s] cannot copy '%s' (%s) into '%s' (%s): different layouts\n", caller, src->name,
                  ggml_type_name(src->type), dst->name, ggml_type_name(dst->type));
        return false;
    }
    const size_t nbytes = ggml_nbytes(src);
    return nbytes == 0 || (check_range(src, 0, nbytes, caller) && check_range(dst, 0, nbytes, caller));
}

bool bounce_copy(const ggml_tensor * src, ggml_tensor * dst, size_t nbytes, const char * caller) {
    std::unique_ptr<uint8_t[]> staging(new (std::nothrow) uint8_t[nbytes]);
    if (!staging) {
        log_error("[%s] cannot allocate %zu bytes of host memory to copy '%s' into '%s'\n", caller, nbytes, src->name,
                  dst->name);
        return false;
    }
    ggml_backend_buffer_t src_buf = tensor_buffer(src);
    ggml_backend_buffer_t dst_buf = tensor_buffer(dst);
    src_buf->iface.get_tensor(src_buf, src, staging.get(), 0, nbytes);
    dst_buf->iface.set_tensor(dst_buf, dst, staging.get(), 0, nbytes);
    return true;
}

} // namespace

bool tensor_copy(const ggml_tensor * src, ggml_tensor * dst, const char * caller) {
    if (src == dst && src != nullptr) {
        return true;
    }
    if (!check_copy(src, dst, caller)) {
        return false;
    }
    const size_t nbytes = ggml_nbytes(src);
    if (nbytes == 0) {
        return true;
    }
    ggml_backend_buffer_t src_buf = tensor_buffer(src);
    ggml_backend_buffer_t dst_buf = tensor_buffer(dst);
    if (ggml_backend_buffer_is_host(src_buf)) {
        dst_buf->iface.set_tensor(dst_buf, dst, src->data, 0, nbytes);
        return true;
    }
    if (ggml_backend_buffer_is_host(dst_buf)) {
        src_buf->iface.get_tensor(src_buf, src, dst->data, 0, nbytes);
        return true;
    }
    if (ggml_backend_buffer_copy_tensor(src, dst)) {
        return true;
    }
    return bounce_copy(src, dst, nbytes, caller);
}

} // namespace switchyard::backend

extern "C" {

void ggml_backend_tensor_copy(const ggml_tensor * src, ggml_tensor * dst) {
    switchyard::backend::tensor_copy(src, dst, "ggml_backend_tensor_copy");
}

void ggml_backend_tensor_copy_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const ggml_tensor * src,
                                    ggml_tensor * dst) {
    constexpr const char * kCaller = "ggml_backend_tensor_copy_async";
    if (backend_src == nullptr || backend_dst == nullptr) {
        log_error("[%s] %s backend is NULL\n", kCaller, backend_src == nullptr ? "source" : "destination");
        return;
    }
    if (src == dst && src != nullptr) {
        return;
    }
    if (!switchyard::backend::check_copy(src, dst, kCaller) || ggml_nbytes(src) == 0) {
        return;
    }
    if (backend_dst->iface.cpy_tensor_async != nullptr &&
        backend_dst->iface.cpy_tensor_async(backend_src, backend_dst, src, dst)) {
        return;
    }
    // an asynchronous copy starts after the work queued on both streams: wait for it, then copy blocking
    ggml_backend_synchronize(backend_src);
    ggml_backend_synchronize(backend_dst);
    switchyard::backend::tensor_copy(src, dst, kCaller);
}

} // extern "C"
