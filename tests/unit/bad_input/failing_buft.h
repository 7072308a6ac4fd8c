// A host-memory buffer type that refuses chosen allocations, written only against ggml-backend-impl.h: the
// buffer type of a device that runs out of memory part-way through loading a model. Its max size is
// configurable (to force a context into several buffers) and it counts live buffers, so a test can see that a
// failed call freed what it had allocated.
#pragma once

#include "ggml-backend-impl.h"
#include "ggml-backend.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace switchyard::bad_input {

class FailingBuft {
public:
    static constexpr size_t kAlignment = 32;

    explicit FailingBuft(size_t max_size = SIZE_MAX) : max_size_(max_size) {
        buft_.iface.get_name      = [](ggml_backend_buffer_type_t) { return "FAILING"; };
        buft_.iface.alloc_buffer  = alloc_buffer;
        buft_.iface.get_alignment = [](ggml_backend_buffer_type_t) { return kAlignment; };
        buft_.iface.get_max_size  = [](ggml_backend_buffer_type_t b) { return owner(b)->max_size_; };
        buft_.iface.is_host       = [](ggml_backend_buffer_type_t) { return true; };
        buft_.device              = nullptr;
        buft_.context             = this;
    }
    FailingBuft(const FailingBuft &)             = delete;
    FailingBuft & operator=(const FailingBuft &) = delete;

    ggml_backend_buffer_type_t get() { return &buft_; }

    // the n-th allocation from now on (1 = the next) fails; 0: none
    void fail_nth(int n) {
        fail_at_  = n;
        attempts_ = 0;
    }
    void fail_all(bool on) { fail_all_ = on; }

    int live_buffers() const { return live_; }
    int attempts() const { return attempts_; }

private:
    static FailingBuft * owner(ggml_backend_buffer_type_t buft) { return static_cast<FailingBuft *>(buft->context); }

    struct Memory {
        FailingBuft * owner;
        void *        data;
    };

    static ggml_backend_buffer_t alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
        FailingBuft * self = owner(buft);
        ++self->attempts_;
        if (self->fail_all_ || self->attempts_ == self->fail_at_) {
            return nullptr;
        }
        const size_t padded = (size + kAlignment - 1) / kAlignment * kAlignment;
        void *       data   = std::aligned_alloc(kAlignment, padded);
        if (data == nullptr) {
            return nullptr;
        }
        ggml_backend_buffer_i iface{};
        iface.free_buffer = [](ggml_backend_buffer_t b) {
            auto * m = static_cast<Memory *>(b->context);
            m->owner->live_--;
            std::free(m->data);
            delete m;
        };
        iface.get_base      = [](ggml_backend_buffer_t b) { return static_cast<Memory *>(b->context)->data; };
        iface.memset_tensor = [](ggml_backend_buffer_t, ggml_tensor * t, uint8_t v, size_t offset, size_t n) {
            std::memset(static_cast<char *>(t->data) + offset, v, n);
        };
        iface.set_tensor = [](ggml_backend_buffer_t, ggml_tensor * t, const void * src, size_t offset, size_t n) {
            std::memcpy(static_cast<char *>(t->data) + offset, src, n);
        };
        iface.get_tensor = [](ggml_backend_buffer_t, const ggml_tensor * t, void * dst, size_t offset, size_t n) {
            std::memcpy(dst, static_cast<const char *>(t->data) + offset, n);
        };
        iface.clear = [](ggml_backend_buffer_t b, uint8_t v) {
            std::memset(static_cast<Memory *>(b->context)->data, v, b->size);
        };
        // nothrow: a buffer type reports failure with NULL, never with an exception
        auto * memory = new (std::nothrow) Memory{self, data};
        if (memory == nullptr) {
            std::free(data);
            return nullptr;
        }
        ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, iface, memory, size);
        if (buffer == nullptr) {
            std::free(data);
            delete memory;
            return nullptr;
        }
        self->live_++;
        return buffer;
    }

    ggml_backend_buffer_type buft_{};
    size_t                   max_size_;
    int                      fail_at_  = 0;
    int                      attempts_ = 0;
    bool                     fail_all_ = false;
    int                      live_     = 0;
};

} // namespace switchyard::bad_input
