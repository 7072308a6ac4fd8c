// MPI buffers: on the owner rank, a buffer of the local device's type with the same base address (so tensor
// addresses are real there); on the other ranks, a placeholder of the same size at a fake address that nothing
// dereferences. Writes happen on the owner only; reads are broadcasts from it; copies between ranks are
// messages (include/ggml-mpi.h states the rules).
#include "mpi/comm.h"
#include "mpi/mpi.h"

#include "base/log.h"

#include <cstring>
#include <new>
#include <vector>

namespace switchyard::mpi {

namespace {

struct Buffer {
    Device *              dev   = nullptr;
    ggml_backend_buffer_t inner = nullptr; // the owner's memory; NULL elsewhere
    uintptr_t             base  = 0;
};

Buffer & ctx(ggml_backend_buffer_t buffer) { return *static_cast<Buffer *>(buffer->context); }

bool is_self(const Buffer & b) { return b.inner != nullptr; }

void buffer_free(ggml_backend_buffer_t buffer) {
    Buffer * b = &ctx(buffer);
    if (b->inner != nullptr) {
        add_local_bytes(-static_cast<int64_t>(ggml_backend_buffer_get_size(b->inner)));
        ggml_backend_buffer_free(b->inner);
    }
    delete b;
}

void * buffer_get_base(ggml_backend_buffer_t buffer) { return reinterpret_cast<void *>(ctx(buffer).base); }

ggml_status buffer_init_tensor(ggml_backend_buffer_t buffer, ggml_tensor * tensor) {
    const Buffer & b = ctx(buffer);
    if (is_self(b) && b.inner->iface.init_tensor != nullptr) {
        return b.inner->iface.init_tensor(b.inner, tensor);
    }
    return GGML_STATUS_SUCCESS;
}

// The owner's local access to a tensor's bytes, through the local buffer's interface.
void write_local(const Buffer & b, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    b.inner->iface.set_tensor(b.inner, t, data, offset, size);
}

void read_local(const Buffer & b, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    b.inner->iface.get_tensor(b.inner, t, data, offset, size);
}

void buffer_memset_tensor(ggml_backend_buffer_t buffer, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    const Buffer & b = ctx(buffer);
    if (!is_self(b)) {
        return;
    }
    if (b.inner->iface.memset_tensor != nullptr) {
        b.inner->iface.memset_tensor(b.inner, t, value, offset, size);
        return;
    }
    std::vector<uint8_t> bytes(size, value);
    write_local(b, t, bytes.data(), offset, size);
}

void buffer_set_tensor(ggml_backend_buffer_t buffer, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    const Buffer & b = ctx(buffer);
    if (is_self(b)) {
        write_local(b, t, data, offset, size);
    }
}

void buffer_get_tensor(ggml_backend_buffer_t buffer, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    const Buffer & b = ctx(buffer);
    if (is_self(b)) {
        read_local(b, t, data, offset, size);
    }
    bcast(data, size, b.dev->rank);
}

// dst lives in this buffer. Every rank takes the same decision from the same two buffers.
bool buffer_cpy_tensor(ggml_backend_buffer_t buffer, const ggml_tensor * src, ggml_tensor * dst) {
    const Buffer &        b       = ctx(buffer);
    const size_t          nbytes  = ggml_nbytes(src);
    const int             to      = b.dev->rank;
    ggml_backend_buffer_t src_buf = root_buffer(src);
    std::vector<uint8_t>  staging;
    if (is_mpi_buffer(src_buf)) {
        const Buffer & a    = ctx(src_buf);
        const int      from = a.dev->rank;
        if (is_self(a) || is_self(b)) {
            staging.resize(nbytes);
        }
        if (is_self(a)) {
            read_local(a, src, staging.data(), 0, nbytes);
            if (from != to) {
                send(staging.data(), nbytes, to);
            }
        } else if (is_self(b)) {
            recv(staging.data(), nbytes, from);
        }
        if (is_self(b)) {
            write_local(b, dst, staging.data(), 0, nbytes);
        }
        return true;
    }
    // the source is this rank's own memory, which every rank holds alike: the owner copies it in
    if (is_self(b)) {
        if (src_buf == nullptr || ggml_backend_buffer_is_host(src_buf)) {
            write_local(b, dst, src->data, 0, nbytes);
        } else {
            staging.resize(nbytes);
            ggml_backend_tensor_get(src, staging.data(), 0, nbytes);
            write_local(b, dst, staging.data(), 0, nbytes);
        }
    }
    return true;
}

void buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    const Buffer & b = ctx(buffer);
    if (is_self(b)) {
        ggml_backend_buffer_clear(b.inner, value);
    }
}

void buffer_reset(ggml_backend_buffer_t buffer) {
    const Buffer & b = ctx(buffer);
    if (is_self(b) && b.inner->iface.reset != nullptr) {
        b.inner->iface.reset(b.inner);
    }
}

constexpr ggml_backend_buffer_i kInterface = {
    .free_buffer   = buffer_free,
    .get_base      = buffer_get_base,
    .init_tensor   = buffer_init_tensor,
    .memset_tensor = buffer_memset_tensor,
    .set_tensor    = buffer_set_tensor,
    .get_tensor    = buffer_get_tensor,
    .set_tensor_2d = nullptr,
    .get_tensor_2d = nullptr,
    .cpy_tensor    = buffer_cpy_tensor,
    .clear         = buffer_clear,
    .reset         = buffer_reset,
};

} // namespace

ggml_backend_buffer_t new_buffer(Device & dev, size_t size) {
    auto * b = new (std::nothrow) Buffer();
    if (b == nullptr) {
        return nullptr;
    }
    b->dev = &dev;
    if (dev.owned()) {
        b->inner = ggml_backend_buft_alloc_buffer(dev.analog_buft, size);
        if (b->inner == nullptr) {
            log_error("[ggml_backend_mpi] %s: cannot allocate %zu bytes\n", dev.name.c_str(), size);
            delete b;
            return nullptr;
        }
        b->base = reinterpret_cast<uintptr_t>(ggml_backend_buffer_get_base(b->inner));
        add_local_bytes(static_cast<int64_t>(ggml_backend_buffer_get_size(b->inner)));
    } else {
        // a placeholder address, aligned as the owner's would be, never dereferenced
        const uintptr_t align = ggml_backend_buft_get_alignment(dev.analog_buft);
        b->base               = (uintptr_t(1) << 32) / align * align;
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(&dev.buft, kInterface, b, size);
    if (buffer == nullptr) {
        ggml_backend_buffer_free(b->inner);
        delete b;
    }
    return buffer;
}

bool is_mpi_buffer(ggml_backend_buffer_t buffer) { return buffer != nullptr && buffer->iface.free_buffer == buffer_free; }

ggml_backend_buffer_t root_buffer(const ggml_tensor * t) {
    return t->view_src != nullptr && t->view_src->buffer != nullptr ? t->view_src->buffer : t->buffer;
}

int owner_of(ggml_backend_buffer_t mpi_buffer) { return ctx(mpi_buffer).dev->rank; }

ggml_backend_buffer_t inner_of(ggml_backend_buffer_t mpi_buffer) { return ctx(mpi_buffer).inner; }

} // namespace switchyard::mpi
