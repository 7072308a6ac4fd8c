#include "test_device.h"

#include "ggml-backend-impl.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace switchyard::testing {

namespace {

// ---------------------------------------------------------------------------------------------------------
// Stream: an in-order work queue on its own thread. Every submitted item gets a sequence number; wait_until(n)
// blocks until items up to n have completed.
class Stream {
public:
    Stream() : worker_([this] { run(); }) {}
    ~Stream() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        worker_.join();
    }

    uint64_t submit(std::function<void()> work) {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(work));
        cv_.notify_all();
        return ++submitted_;
    }

    uint64_t submitted() {
        std::lock_guard lock(mutex_);
        return submitted_;
    }

    void wait_until(uint64_t seq) {
        std::unique_lock lock(mutex_);
        done_cv_.wait(lock, [&] { return completed_ >= seq; });
    }

    void synchronize() { wait_until(submitted()); }

private:
    void run() {
        std::unique_lock lock(mutex_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
            if (queue_.empty()) {
                return; // stop requested and nothing left
            }
            std::function<void()> work = std::move(queue_.front());
            queue_.pop_front();
            lock.unlock();
            work();
            lock.lock();
            ++completed_;
            done_cv_.notify_all();
        }
    }

    std::mutex                        mutex_;
    std::condition_variable           cv_, done_cv_;
    std::deque<std::function<void()>> queue_;
    uint64_t                          submitted_ = 0, completed_ = 0;
    bool                              stop_      = false;
    std::thread                       worker_;
};

// ---------------------------------------------------------------------------------------------------------
// Device, buffer type and buffers

struct DeviceContext {
    TestDeviceConfig           config;
    std::string                name;
    ggml_backend_buffer_type   buft{};
    ggml_backend_device        device{};
    ggml_backend_reg           reg{};
    std::atomic<size_t>        allocated{0};
    std::atomic<size_t>        graphs{0};
    std::atomic<size_t>        async_copies{0};
    std::mutex                 supports_mutex;
};

struct BufferContext {
    DeviceContext *      dev;
    std::vector<uint8_t> memory;
    uintptr_t            fake_base; // what tensor->data addresses are relative to; never dereferenced
};

std::atomic<uintptr_t> g_next_fake_base{uintptr_t(0x200000000000)};

constexpr size_t kAlignment = 64;

DeviceContext * dev_ctx(ggml_backend_dev_t dev) { return static_cast<DeviceContext *>(dev->context); }

ggml_backend_buffer_t buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size);

bool is_test_buffer(const ggml_backend_buffer * buf) {
    return buf && buf->buft && buf->buft->iface.alloc_buffer == buft_alloc_buffer;
}

// Host address of a tensor's data (device memory translated; host buffers as they are).
uint8_t * host_address(const ggml_tensor * t) {
    const ggml_backend_buffer * buf = t->view_src ? t->view_src->buffer : t->buffer;
    if (is_test_buffer(buf)) {
        auto * ctx = static_cast<BufferContext *>(buf->context);
        return ctx->memory.data() + (reinterpret_cast<uintptr_t>(t->data) - ctx->fake_base);
    }
    return static_cast<uint8_t *>(t->data);
}

void buffer_free(ggml_backend_buffer_t buffer) {
    auto * ctx = static_cast<BufferContext *>(buffer->context);
    ctx->dev->allocated -= ctx->memory.size();
    delete ctx;
}

void * buffer_get_base(ggml_backend_buffer_t buffer) {
    return reinterpret_cast<void *>(static_cast<BufferContext *>(buffer->context)->fake_base);
}

void buffer_memset_tensor(ggml_backend_buffer_t, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    std::memset(host_address(t) + offset, value, size);
}

void buffer_set_tensor(ggml_backend_buffer_t, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    std::memcpy(host_address(t) + offset, data, size);
}

void buffer_get_tensor(ggml_backend_buffer_t, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    std::memcpy(data, host_address(t) + offset, size);
}

bool buffer_cpy_tensor(ggml_backend_buffer_t, const ggml_tensor * src, ggml_tensor * dst) {
    const ggml_backend_buffer * sbuf = src->view_src ? src->view_src->buffer : src->buffer;
    if (!is_test_buffer(sbuf) && !ggml_backend_buffer_is_host(const_cast<ggml_backend_buffer *>(sbuf))) {
        return false;
    }
    std::memcpy(host_address(dst), host_address(src), ggml_nbytes(src));
    return true;
}

void buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    auto * ctx = static_cast<BufferContext *>(buffer->context);
    std::memset(ctx->memory.data(), value, ctx->memory.size());
}

const char * buft_get_name(ggml_backend_buffer_type_t buft) {
    return static_cast<DeviceContext *>(buft->context)->name.c_str();
}

ggml_backend_buffer_t buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    auto * dev = static_cast<DeviceContext *>(buft->context);
    if (dev->config.fail_alloc || dev->allocated + size > dev->config.memory_size) {
        std::fprintf(stderr, "[%s] out of device memory: %zu bytes requested, %zu of %zu in use\n", dev->name.c_str(),
                     size, dev->allocated.load(), dev->config.memory_size);
        return nullptr;
    }
    auto * ctx      = new BufferContext{dev, std::vector<uint8_t>(size), 0};
    ctx->fake_base  = g_next_fake_base.fetch_add((size + (1u << 20)) & ~uintptr_t(kAlignment - 1));
    dev->allocated += size;

    ggml_backend_buffer_i iface{};
    iface.free_buffer   = buffer_free;
    iface.get_base      = buffer_get_base;
    iface.memset_tensor = buffer_memset_tensor;
    iface.set_tensor    = buffer_set_tensor;
    iface.get_tensor    = buffer_get_tensor;
    iface.cpy_tensor    = buffer_cpy_tensor;
    iface.clear         = buffer_clear;
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, iface, ctx, size);
    if (buffer == nullptr) { // out of host memory for the handle: give the device memory back
        dev->allocated -= size;
        delete ctx;
    }
    return buffer;
}

size_t buft_get_alignment(ggml_backend_buffer_type_t) { return kAlignment; }

size_t buft_get_max_size(ggml_backend_buffer_type_t buft) {
    return static_cast<DeviceContext *>(buft->context)->config.memory_size;
}


// ---------------------------------------------------------------------------------------------------------
// Backend (stream)

struct BackendContext {
    DeviceContext *  dev;
    ggml_backend_t   cpu = nullptr; // runs the kernels on the device's memory
    ggml_context *   graph_ctx = nullptr;
    ggml_cgraph *    one_node = nullptr;
    std::atomic<int> sticky_error{GGML_STATUS_SUCCESS}; // an asynchronous failure, reported by the next call
    Stream           stream; // last member: its thread stops before the rest is destroyed
};

BackendContext * backend_ctx(ggml_backend_t backend) { return static_cast<BackendContext *>(backend->context); }

// A host-side shadow of `t`: same metadata, data translated to host memory, no buffer (so the CPU backend
// treats it as plain host memory).
ggml_tensor shadow_of(const ggml_tensor * t) {
    ggml_tensor s = *t;
    s.data        = host_address(t);
    s.buffer      = nullptr;
    s.view_src    = nullptr;
    s.view_offs   = 0;
    s.extra       = nullptr;
    return s;
}

ggml_status run_node(BackendContext * ctx, const ggml_tensor * node) {
    ggml_tensor srcs[GGML_MAX_SRC];
    ggml_tensor shadow = shadow_of(node);
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        if (node->src[j]) {
            srcs[j]       = shadow_of(node->src[j]);
            shadow.src[j] = &srcs[j];
        }
    }
    ggml_graph_clear(ctx->one_node);
    ggml_graph_add_node(ctx->one_node, &shadow);
    return ggml_backend_graph_compute(ctx->cpu, ctx->one_node);
}

bool is_metadata_op(ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_VIEW || op == GGML_OP_RESHAPE || op == GGML_OP_PERMUTE ||
           op == GGML_OP_TRANSPOSE;
}

const char * backend_get_name(ggml_backend_t backend) { return backend_ctx(backend)->dev->name.c_str(); }

void backend_free(ggml_backend_t backend) {
    BackendContext * ctx = backend_ctx(backend);
    ctx->stream.synchronize();
    ggml_backend_free(ctx->cpu);
    ggml_free(ctx->graph_ctx);
    delete ctx;
    delete backend;
}

void backend_set_tensor_async(ggml_backend_t backend, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    uint8_t * dst = host_address(t) + offset;
    backend_ctx(backend)->stream.submit([=] { std::memcpy(dst, data, size); });
}

void backend_get_tensor_async(ggml_backend_t backend, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    const uint8_t * src = host_address(t) + offset;
    backend_ctx(backend)->stream.submit([=] { std::memcpy(data, src, size); });
}

// Called on the destination backend. The copy is queued on its stream after everything the source backend
// had queued so far (when the source is one of ours), like a GPU copy ordered by an event.
bool backend_cpy_tensor_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const ggml_tensor * src,
                              ggml_tensor * dst) {
    BackendContext * dctx = backend_ctx(backend_dst);
    if (!dctx->dev->config.async_copies) {
        return false;
    }
    const ggml_backend_buffer * sbuf = src->view_src ? src->view_src->buffer : src->buffer;
    const bool src_is_ours = is_test_buffer(sbuf);
    if (!src_is_ours && !ggml_backend_buffer_is_host(const_cast<ggml_backend_buffer *>(sbuf))) {
        return false;
    }
    Stream * src_stream = nullptr;
    uint64_t src_seq    = 0;
    if (backend_src && backend_src->iface.get_name == backend_get_name) {
        src_stream = &backend_ctx(backend_src)->stream;
        src_seq    = src_stream->submitted();
    } else if (backend_src) {
        ggml_backend_synchronize(backend_src);
    }
    const uint8_t * from  = host_address(src);
    uint8_t *       to    = host_address(dst);
    const size_t    bytes = ggml_nbytes(src);
    DeviceContext * dev   = dctx->dev;
    dctx->stream.submit([=] {
        if (src_stream) {
            src_stream->wait_until(src_seq);
        }
        std::memcpy(to, from, bytes);
        ++dev->async_copies;
    });
    return true;
}

void backend_synchronize(ggml_backend_t backend) { backend_ctx(backend)->stream.synchronize(); }

ggml_status backend_graph_compute(ggml_backend_t backend, ggml_cgraph * cgraph) {
    BackendContext * ctx = backend_ctx(backend);
    const int previous = ctx->sticky_error.exchange(GGML_STATUS_SUCCESS);
    if (previous != GGML_STATUS_SUCCESS) {
        return static_cast<ggml_status>(previous);
    }
    std::vector<ggml_tensor *> nodes;
    for (int i = 0; i < ggml_graph_n_nodes(cgraph); ++i) {
        ggml_tensor * node = ggml_graph_node(cgraph, i);
        if (!is_metadata_op(node->op) && (node->flags & GGML_TENSOR_FLAG_COMPUTE)) {
            if (!ggml_backend_dev_supports_op(backend->device, node)) {
                std::fprintf(stderr, "[%s] unsupported op %s for '%s'\n", ctx->dev->name.c_str(), ggml_op_desc(node),
                             node->name);
                return GGML_STATUS_FAILED;
            }
            nodes.push_back(node);
        }
    }
    ++ctx->dev->graphs;
    ctx->stream.submit([ctx, nodes] {
        for (const ggml_tensor * node : nodes) {
            const ggml_status status = run_node(ctx, node);
            if (status != GGML_STATUS_SUCCESS) {
                ctx->sticky_error = status;
                return;
            }
        }
    });
    return GGML_STATUS_SUCCESS;
}

// ---------------------------------------------------------------------------------------------------------
// Events: a point in some stream's sequence.

struct EventContext {
    Stream * stream = nullptr;
    uint64_t seq    = 0;
};

void backend_event_record(ggml_backend_t backend, ggml_backend_event_t event) {
    auto * ev   = static_cast<EventContext *>(event->context);
    ev->stream  = &backend_ctx(backend)->stream;
    ev->seq     = ev->stream->submitted();
}

void backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event) {
    auto *   ev     = static_cast<EventContext *>(event->context);
    Stream * stream = ev->stream;
    uint64_t seq    = ev->seq;
    if (!stream) {
        return; // never recorded: nothing to wait for
    }
    backend_ctx(backend)->stream.submit([stream, seq] { stream->wait_until(seq); });
}

ggml_backend_event_t dev_event_new(ggml_backend_dev_t dev) {
    if (!dev_ctx(dev)->config.events) {
        return nullptr;
    }
    auto context = std::make_unique<EventContext>();
    auto * event = new ggml_backend_event{dev, context.get()};
    context.release();
    return event;
}

void dev_event_free(ggml_backend_dev_t, ggml_backend_event_t event) {
    delete static_cast<EventContext *>(event->context);
    delete event;
}

void dev_event_synchronize(ggml_backend_dev_t, ggml_backend_event_t event) {
    auto * ev = static_cast<EventContext *>(event->context);
    if (ev->stream) {
        ev->stream->wait_until(ev->seq);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Device and reg

const char * dev_get_name(ggml_backend_dev_t dev) { return dev_ctx(dev)->name.c_str(); }
const char * dev_get_description(ggml_backend_dev_t) { return "Switchyard test device (asynchronous, non-host memory)"; }

void dev_get_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) {
    DeviceContext * ctx = dev_ctx(dev);
    *total              = ctx->config.memory_size;
    *free               = ctx->config.memory_size - ctx->allocated;
}

enum ggml_backend_dev_type dev_get_type(ggml_backend_dev_t) { return GGML_BACKEND_DEVICE_TYPE_GPU; }

void dev_get_props(ggml_backend_dev_t dev, ggml_backend_dev_props * props) {
    props->name        = dev_get_name(dev);
    props->description = dev_get_description(dev);
    props->type        = GGML_BACKEND_DEVICE_TYPE_GPU;
    dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps.async                = true;
    props->caps.host_buffer          = false;
    props->caps.buffer_from_host_ptr = false;
    props->caps.events               = dev_ctx(dev)->config.events;
}

ggml_backend_t dev_init_backend(ggml_backend_dev_t dev, const char *) {
    // released with what it holds on every early exit (an exception from an allocation included)
    auto release = [](BackendContext * c) {
        ggml_backend_free(c->cpu);
        ggml_free(c->graph_ctx);
        delete c;
    };
    std::unique_ptr<BackendContext, decltype(release)> ctx(new BackendContext{dev_ctx(dev)}, release);
    // the device computes with the CPU device of the registry, one thread per stream
    ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ctx->cpu = cpu_dev ? ggml_backend_dev_init(cpu_dev, "n_threads=1") : nullptr;
    ggml_init_params params{ggml_graph_overhead_custom(1, false) + 1024, nullptr, true};
    ctx->graph_ctx = ggml_init(params);
    ctx->one_node  = ggml_new_graph_custom(ctx->graph_ctx, 1, false);

    static const ggml_backend_i iface = [] {
        ggml_backend_i i{};
        i.get_name         = backend_get_name;
        i.free             = backend_free;
        i.set_tensor_async = backend_set_tensor_async;
        i.get_tensor_async = backend_get_tensor_async;
        i.cpy_tensor_async = backend_cpy_tensor_async;
        i.synchronize      = backend_synchronize;
        i.graph_compute    = backend_graph_compute;
        i.event_record     = backend_event_record;
        i.event_wait       = backend_event_wait;
        return i;
    }();
    static ggml_guid guid = {0x73, 0x77, 0x69, 0x74, 0x63, 0x68, 0x79, 0x61, 0x72, 0x64, 0x2d, 0x74, 0x65, 0x73, 0x74, 0x31};
    auto * backend = new ggml_backend{&guid, iface, dev, ctx.get()};
    ctx.release();
    return backend;
}

ggml_backend_buffer_type_t dev_get_buffer_type(ggml_backend_dev_t dev) { return &dev_ctx(dev)->buft; }

// Ops that call a function of the application on the host (ggml_map_custom*, ggml_custom_*): a device whose
// memory the host cannot address refuses them, so a scheduler runs them on the CPU.
bool calls_host_function(ggml_op op) {
    return op == GGML_OP_MAP_CUSTOM1 || op == GGML_OP_MAP_CUSTOM2 || op == GGML_OP_MAP_CUSTOM3 || op == GGML_OP_CUSTOM;
}

bool dev_supports_op(ggml_backend_dev_t dev, const ggml_tensor * op) {
    DeviceContext * ctx = dev_ctx(dev);
    if (calls_host_function(op->op)) {
        return false;
    }
    {
        std::lock_guard lock(ctx->supports_mutex);
        if (ctx->config.supports_op && !ctx->config.supports_op(op)) {
            return false;
        }
    }
    // whatever the CPU kernels can run on host shadows of the tensors
    ggml_tensor srcs[GGML_MAX_SRC];
    ggml_tensor shadow = *op;
    shadow.buffer      = nullptr;
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        if (op->src[j]) {
            srcs[j]        = *op->src[j];
            srcs[j].buffer = nullptr;
            srcs[j].view_src = nullptr;
            shadow.src[j]  = &srcs[j];
        }
    }
    ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    return cpu && ggml_backend_dev_supports_op(cpu, &shadow);
}

bool dev_offload_op(ggml_backend_dev_t dev, const ggml_tensor * op) {
    const DeviceContext * ctx = dev_ctx(dev);
    return ctx->config.offload_op && ctx->config.offload_op(op);
}

bool dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) { return buft == &dev_ctx(dev)->buft; }

const char * reg_get_name(ggml_backend_reg_t reg) { return static_cast<DeviceContext *>(reg->context)->name.c_str(); }
size_t reg_get_device_count(ggml_backend_reg_t) { return 1; }
ggml_backend_dev_t reg_get_device(ggml_backend_reg_t reg, size_t) {
    return &static_cast<DeviceContext *>(reg->context)->device;
}

} // namespace

ggml_backend_dev_t test_device_create(const TestDeviceConfig & config) {
    auto * ctx   = new DeviceContext();
    ctx->config  = config;
    ctx->name    = config.name;

    ggml_backend_buffer_type_i buft_iface{};
    buft_iface.get_name      = buft_get_name;
    buft_iface.alloc_buffer  = buft_alloc_buffer;
    buft_iface.get_alignment = buft_get_alignment;
    buft_iface.get_max_size  = buft_get_max_size;
    ctx->buft                = ggml_backend_buffer_type{buft_iface, &ctx->device, ctx};

    ggml_backend_device_i dev_iface{};
    dev_iface.get_name          = dev_get_name;
    dev_iface.get_description   = dev_get_description;
    dev_iface.get_memory        = dev_get_memory;
    dev_iface.get_type          = dev_get_type;
    dev_iface.get_props         = dev_get_props;
    dev_iface.init_backend      = dev_init_backend;
    dev_iface.get_buffer_type   = dev_get_buffer_type;
    dev_iface.supports_op       = dev_supports_op;
    dev_iface.supports_buft     = dev_supports_buft;
    dev_iface.offload_op        = dev_offload_op;
    dev_iface.event_new         = dev_event_new;
    dev_iface.event_free        = dev_event_free;
    dev_iface.event_synchronize = dev_event_synchronize;
    ctx->device                 = ggml_backend_device{dev_iface, &ctx->reg, ctx};

    ggml_backend_reg_i reg_iface{};
    reg_iface.get_name         = reg_get_name;
    reg_iface.get_device_count = reg_get_device_count;
    reg_iface.get_device       = reg_get_device;
    ctx->reg                   = ggml_backend_reg{GGML_BACKEND_API_VERSION, reg_iface, ctx};
    return &ctx->device;
}

void test_device_release(ggml_backend_dev_t dev) { delete dev_ctx(dev); }
size_t test_device_allocated(ggml_backend_dev_t dev) { return dev_ctx(dev)->allocated; }
size_t test_device_graphs_computed(ggml_backend_dev_t dev) { return dev_ctx(dev)->graphs; }
size_t test_device_async_copies(ggml_backend_dev_t dev) { return dev_ctx(dev)->async_copies; }

void test_device_set_supports_op(ggml_backend_dev_t dev, std::function<bool(const ggml_tensor *)> supports_op) {
    DeviceContext * ctx = dev_ctx(dev);
    std::lock_guard lock(ctx->supports_mutex);
    ctx->config.supports_op = std::move(supports_op);
}

} // namespace switchyard::testing
