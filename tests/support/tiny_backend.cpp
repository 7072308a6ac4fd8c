// TINY backend: see tiny_backend.h. Only public headers are included here, on purpose.
#include "support/tiny_backend.h"

#include "ggml-backend-impl.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace switchyard::testing {

namespace {

// One device with its buffer type and reg; all three point back here through their context.
struct TinyDevice {
    std::string                name;
    std::string                description;
    enum ggml_backend_dev_type type        = GGML_BACKEND_DEVICE_TYPE_GPU;
    size_t                     memory_size = 0;
    bool                       cpy_tensor  = true;
    ggml_guid                  guid        = {};
    ggml_backend_buffer_type   buft        = {};
    ggml_backend_device        device      = {};
    ggml_backend_reg           reg         = {};
    std::mutex                 mutex;
    TinyStats                  stats;
};

// A buffer's memory; tensor->data holds fake addresses base .. base + size.
struct TinyBuffer {
    TinyDevice *         owner = nullptr;
    std::vector<uint8_t> bytes;
    uintptr_t            base  = 0;
};

TinyDevice * device_of(ggml_backend_dev_t dev) { return static_cast<TinyDevice *>(dev->context); }
TinyBuffer * buffer_of(ggml_backend_buffer_t buf) { return static_cast<TinyBuffer *>(buf->context); }

ggml_backend_buffer_t buffer_holding(const ggml_tensor * t) {
    return t->view_src != nullptr ? t->view_src->buffer : t->buffer;
}

// Fake device addresses, never dereferenced: each buffer gets a range of its own.
uintptr_t next_fake_base(size_t size) {
    static std::atomic<uintptr_t> next{uintptr_t(1) << 44};
    constexpr uintptr_t           kGranule = uintptr_t(1) << 20;
    return next.fetch_add((size + 2 * kGranule - 1) / kGranule * kGranule);
}

uint8_t * bytes_at(TinyBuffer * tb, const ggml_tensor * t, size_t offset) {
    return tb->bytes.data() + (reinterpret_cast<uintptr_t>(t->data) - tb->base) + offset;
}

template <typename F>
void count(TinyDevice * d, F && update) {
    std::lock_guard lock(d->mutex);
    update(d->stats);
}

// ---- buffer -------------------------------------------------------------------------------------------------

void buffer_free(ggml_backend_buffer_t buf) {
    TinyBuffer * tb = buffer_of(buf);
    count(tb->owner, [&](TinyStats & s) { s.bytes_allocated -= tb->bytes.size(); });
    delete tb;
}

void * buffer_get_base(ggml_backend_buffer_t buf) { return reinterpret_cast<void *>(buffer_of(buf)->base); }

void buffer_memset(ggml_backend_buffer_t buf, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    std::memset(bytes_at(buffer_of(buf), t, offset), value, size);
}

void buffer_set(ggml_backend_buffer_t buf, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    std::memcpy(bytes_at(buffer_of(buf), t, offset), data, size);
    count(buffer_of(buf)->owner, [](TinyStats & s) { ++s.set_calls; });
}

void buffer_get(ggml_backend_buffer_t buf, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    std::memcpy(data, bytes_at(buffer_of(buf), t, offset), size);
    count(buffer_of(buf)->owner, [](TinyStats & s) { ++s.get_calls; });
}

bool buffer_cpy(ggml_backend_buffer_t buf, const ggml_tensor * src, ggml_tensor * dst) {
    ggml_backend_buffer_t src_buf = buffer_holding(src);
    if (!buffer_of(buf)->owner->cpy_tensor || !tiny_backend_owns(src_buf)) {
        return false; // the caller copies through host memory
    }
    std::memmove(bytes_at(buffer_of(buf), dst, 0), bytes_at(buffer_of(src_buf), src, 0), ggml_nbytes(src));
    count(buffer_of(buf)->owner, [](TinyStats & s) { ++s.device_copies; });
    return true;
}

void buffer_clear(ggml_backend_buffer_t buf, uint8_t value) {
    std::memset(buffer_of(buf)->bytes.data(), value, buffer_of(buf)->bytes.size());
}

constexpr ggml_backend_buffer_i kBufferInterface = {
    .free_buffer   = buffer_free,
    .get_base      = buffer_get_base,
    .memset_tensor = buffer_memset,
    .set_tensor    = buffer_set,
    .get_tensor    = buffer_get,
    .cpy_tensor    = buffer_cpy,
    .clear         = buffer_clear,
};

// ---- buffer type --------------------------------------------------------------------------------------------

const char * buft_name(ggml_backend_buffer_type_t buft) {
    return static_cast<TinyDevice *>(buft->context)->name.c_str();
}

ggml_backend_buffer_t buft_alloc(ggml_backend_buffer_type_t buft, size_t size) {
    TinyDevice * d = static_cast<TinyDevice *>(buft->context);
    {
        std::lock_guard lock(d->mutex);
        if (size > d->memory_size - d->stats.bytes_allocated) {
            return nullptr; // out of device memory
        }
        d->stats.bytes_allocated += size;
    }
    auto * tb = new (std::nothrow) TinyBuffer;
    if (tb != nullptr) {
        try {
            tb->bytes.resize(size);
        } catch (const std::bad_alloc &) {
            delete tb;
            tb = nullptr;
        }
    }
    if (tb == nullptr) {
        count(d, [&](TinyStats & s) { s.bytes_allocated -= size; });
        return nullptr;
    }
    tb->owner = d;
    tb->base  = next_fake_base(size);
    return ggml_backend_buffer_init(buft, kBufferInterface, tb, size);
}

size_t buft_alignment(ggml_backend_buffer_type_t) { return 32; }

bool buft_is_host(ggml_backend_buffer_type_t) { return false; }

constexpr ggml_backend_buffer_type_i kBufferTypeInterface = {
    .get_name      = buft_name,
    .alloc_buffer  = buft_alloc,
    .get_alignment = buft_alignment,
    .is_host       = buft_is_host,
};

// ---- backend (stream) ---------------------------------------------------------------------------------------

bool is_noop(ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_VIEW || op == GGML_OP_RESHAPE || op == GGML_OP_PERMUTE ||
           op == GGML_OP_TRANSPOSE;
}

// Byte offset of element idx in t, with idx reduced modulo t's extents (broadcasting).
size_t element_offset(const ggml_tensor * t, const int64_t idx[4]) {
    size_t off = 0;
    for (int d = 0; d < 4; ++d) {
        off += static_cast<size_t>(idx[d] % t->ne[d]) * t->nb[d];
    }
    return off;
}

bool compute_add(ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    if (!tiny_backend_owns(buffer_holding(dst)) || !tiny_backend_owns(buffer_holding(a)) ||
        !tiny_backend_owns(buffer_holding(b))) {
        return false;
    }
    TinyBuffer * tb_d = buffer_of(buffer_holding(dst));
    TinyBuffer * tb_a = buffer_of(buffer_holding(a));
    TinyBuffer * tb_b = buffer_of(buffer_holding(b));
    int64_t      idx[4];
    for (idx[3] = 0; idx[3] < dst->ne[3]; ++idx[3]) {
        for (idx[2] = 0; idx[2] < dst->ne[2]; ++idx[2]) {
            for (idx[1] = 0; idx[1] < dst->ne[1]; ++idx[1]) {
                for (idx[0] = 0; idx[0] < dst->ne[0]; ++idx[0]) {
                    float x, y;
                    std::memcpy(&x, bytes_at(tb_a, a, element_offset(a, idx)), sizeof(x));
                    std::memcpy(&y, bytes_at(tb_b, b, element_offset(b, idx)), sizeof(y));
                    const float z = x + y;
                    std::memcpy(bytes_at(tb_d, dst, element_offset(dst, idx)), &z, sizeof(z));
                }
            }
        }
    }
    return true;
}

const char * backend_name(ggml_backend_t backend) { return device_of(backend->device)->name.c_str(); }

void backend_free(ggml_backend_t backend) { delete backend; }

enum ggml_status backend_graph_compute(ggml_backend_t backend, ggml_cgraph * graph) {
    TinyDevice * d       = device_of(backend->device);
    size_t       n_added = 0;
    for (int i = 0; i < ggml_graph_n_nodes(graph); ++i) {
        ggml_tensor * node = ggml_graph_node(graph, i);
        if ((node->flags & GGML_TENSOR_FLAG_COMPUTE) == 0 || is_noop(node->op)) {
            continue;
        }
        if (node->op != GGML_OP_ADD || !compute_add(node)) {
            return GGML_STATUS_FAILED;
        }
        ++n_added;
    }
    count(d, [&](TinyStats & s) {
        ++s.graphs_computed;
        s.nodes_computed += n_added;
    });
    return GGML_STATUS_SUCCESS;
}

constexpr ggml_backend_i kBackendInterface = {
    .get_name      = backend_name,
    .free          = backend_free,
    .graph_compute = backend_graph_compute,
};

// ---- device -------------------------------------------------------------------------------------------------

const char * dev_name(ggml_backend_dev_t dev) { return device_of(dev)->name.c_str(); }

const char * dev_description(ggml_backend_dev_t dev) { return device_of(dev)->description.c_str(); }

void dev_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) {
    TinyDevice *    d = device_of(dev);
    std::lock_guard lock(d->mutex);
    *total = d->memory_size;
    *free  = d->memory_size - d->stats.bytes_allocated;
}

enum ggml_backend_dev_type dev_type(ggml_backend_dev_t dev) { return device_of(dev)->type; }

void dev_props(ggml_backend_dev_t dev, ggml_backend_dev_props * props) {
    props->name        = dev_name(dev);
    props->description = dev_description(dev);
    props->type        = dev_type(dev);
    dev_memory(dev, &props->memory_free, &props->memory_total);
    // caps: no async, no host buffer, no buffers from host memory, no events (all false)
}

ggml_backend_t dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    if (params != nullptr && std::strcmp(params, "fail") == 0) {
        return nullptr; // lets tests exercise a device that cannot create a backend
    }
    return new (std::nothrow) ggml_backend{&device_of(dev)->guid, kBackendInterface, dev, nullptr};
}

ggml_backend_buffer_type_t dev_buffer_type(ggml_backend_dev_t dev) { return &device_of(dev)->buft; }

bool dev_supports_op(ggml_backend_dev_t, const ggml_tensor * op) {
    if (is_noop(op->op)) {
        return true;
    }
    return op->op == GGML_OP_ADD && op->type == GGML_TYPE_F32 && op->src[0]->type == GGML_TYPE_F32 &&
           op->src[1]->type == GGML_TYPE_F32;
}

bool dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    return buft == &device_of(dev)->buft;
}

constexpr ggml_backend_device_i kDeviceInterface = {
    .get_name        = dev_name,
    .get_description = dev_description,
    .get_memory      = dev_memory,
    .get_type        = dev_type,
    .get_props       = dev_props,
    .init_backend    = dev_init_backend,
    .get_buffer_type = dev_buffer_type,
    .supports_op     = dev_supports_op,
    .supports_buft   = dev_supports_buft,
};

// ---- reg ----------------------------------------------------------------------------------------------------

const char * reg_name(ggml_backend_reg_t reg) { return static_cast<TinyDevice *>(reg->context)->name.c_str(); }

size_t reg_device_count(ggml_backend_reg_t) { return 1; }

ggml_backend_dev_t reg_device(ggml_backend_reg_t reg, size_t) {
    return &static_cast<TinyDevice *>(reg->context)->device;
}

constexpr ggml_backend_reg_i kRegInterface = {
    .get_name         = reg_name,
    .get_device_count = reg_device_count,
    .get_device       = reg_device,
};

// Every device made so far. They live until the program ends (or, in a module, until it is unloaded): a
// registered backend must outlive its registration.
std::vector<std::unique_ptr<TinyDevice>> & all_devices() {
    static std::vector<std::unique_ptr<TinyDevice>> devices;
    return devices;
}

} // namespace

ggml_backend_reg_t tiny_backend_new_reg(const TinyBackendConfig & config) {
    static std::mutex mutex;
    std::lock_guard   lock(mutex);
    TinyDevice *      d = all_devices().emplace_back(std::make_unique<TinyDevice>()).get();
    d->name        = config.name;
    d->description = std::string("tiny test backend ") + config.name;
    d->type        = config.type;
    d->memory_size = config.memory_size;
    d->cpy_tensor  = config.cpy_tensor;
    for (size_t i = 0; i < sizeof(d->guid); ++i) {
        d->guid[i] = static_cast<uint8_t>(d->name[i % d->name.size()] + i);
    }
    d->buft   = {kBufferTypeInterface, &d->device, d};
    d->device = {kDeviceInterface, &d->reg, d};
    d->reg    = {config.api_version < 0 ? GGML_BACKEND_API_VERSION : config.api_version, kRegInterface, d};
    return &d->reg;
}

ggml_backend_reg_t tiny_backend_reg() {
    static ggml_backend_reg_t reg = tiny_backend_new_reg(TinyBackendConfig{});
    return reg;
}

TinyStats tiny_backend_stats(ggml_backend_dev_t device) {
    if (device == nullptr || device->iface.get_name != dev_name) {
        return {};
    }
    TinyDevice *    d = device_of(device);
    std::lock_guard lock(d->mutex);
    return d->stats;
}

bool tiny_backend_owns(ggml_backend_buffer_t buffer) {
    return buffer != nullptr && buffer->iface.free_buffer == buffer_free;
}

} // namespace switchyard::testing
