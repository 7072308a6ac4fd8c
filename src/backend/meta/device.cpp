// The meta device: an ordered list of simple devices presented as one, plus the user's split callback.
//
// ggml_backend_meta_device returns the same device for the same (devices, callback, user data), so buffers
// and backends made from two calls work together. The device belongs to no reg. Its name and description list
// the simple devices' ("Meta(CPU,CPU)"); memory adds up; capabilities are those all simple devices share,
// except that the meta device has no events, no host-pointer buffers and no memory mapping of its own. An op
// is supported when every simple device supports it on its full sources: every op has at least the replicated
// fallback, which computes the full op on each device.
#include "backend/meta/meta.h"

#include "base/guard.h"
#include "base/log.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace switchyard::meta {

namespace {

MetaDevice * ctx_of(ggml_backend_dev_t dev) { return static_cast<MetaDevice *>(dev->context); }

const char * dev_get_name(ggml_backend_dev_t dev) { return ctx_of(dev)->name.c_str(); }
const char * dev_get_description(ggml_backend_dev_t dev) { return ctx_of(dev)->description.c_str(); }

void dev_get_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) {
    *free  = 0;
    *total = 0;
    for (ggml_backend_dev_t simple : ctx_of(dev)->devs) {
        size_t f = 0, t = 0;
        ggml_backend_dev_memory(simple, &f, &t);
        *free += f;
        *total += t;
    }
}

enum ggml_backend_dev_type dev_get_type(ggml_backend_dev_t) { return GGML_BACKEND_DEVICE_TYPE_META; }

void dev_get_props(ggml_backend_dev_t dev, ggml_backend_dev_props * props) {
    props->name        = dev_get_name(dev);
    props->description = dev_get_description(dev);
    props->type        = GGML_BACKEND_DEVICE_TYPE_META;
    props->device_id   = nullptr;
    dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps.async = true;
    for (ggml_backend_dev_t simple : ctx_of(dev)->devs) {
        ggml_backend_dev_props sp;
        ggml_backend_dev_get_props(simple, &sp);
        props->caps.async = props->caps.async && sp.caps.async;
    }
    props->caps.host_buffer          = dev->iface.get_host_buffer_type(dev) != nullptr;
    props->caps.buffer_from_host_ptr = false;
    props->caps.events               = false;
    props->caps.mmap_support         = false;
}

ggml_backend_t dev_init_backend(ggml_backend_dev_t dev, const char *) { return new_meta_backend(*ctx_of(dev)); }

ggml_backend_buffer_type_t dev_get_buffer_type(ggml_backend_dev_t dev) { return &ctx_of(dev)->buft; }

// The simple devices' host buffer type when they all have the same one (pinned memory shared by all).
ggml_backend_buffer_type_t dev_get_host_buffer_type(ggml_backend_dev_t dev) {
    ggml_backend_buffer_type_t host = nullptr;
    for (ggml_backend_dev_t simple : ctx_of(dev)->devs) {
        ggml_backend_buffer_type_t h = ggml_backend_dev_host_buffer_type(simple);
        if (h == nullptr || (host != nullptr && h != host)) {
            return nullptr;
        }
        host = h;
    }
    return host;
}

// t as device d would see it: sources in meta buffers appear to live in d's own buffer type.
ggml_tensor shadow(const MetaDevice & dev, int d, const ggml_tensor * t) {
    ggml_tensor s = *t;
    if (meta_buffer_of(t) != nullptr || (t->buffer != nullptr && t->buffer->buft == &dev.buft)) {
        s.buffer   = const_cast<ggml_backend_buffer *>(&dev.probes[static_cast<size_t>(d)]);
        s.view_src = nullptr;
    }
    return s;
}

bool dev_supports_op(ggml_backend_dev_t dev, const ggml_tensor * op) {
    const MetaDevice & meta = *ctx_of(dev);
    for (int d = 0; d < meta.n(); ++d) {
        ggml_tensor srcs[GGML_MAX_SRC];
        ggml_tensor node = shadow(meta, d, op);
        for (int j = 0; j < GGML_MAX_SRC; ++j) {
            if (op->src[j] != nullptr) {
                srcs[j]    = shadow(meta, d, op->src[j]);
                node.src[j] = &srcs[j];
            }
        }
        if (!ggml_backend_dev_supports_op(meta.devs[static_cast<size_t>(d)], &node)) {
            return false;
        }
    }
    return true;
}

bool dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    const MetaDevice * other = meta_device_of_buft(buft);
    return other != nullptr && other->devs == ctx_of(dev)->devs;
}

constexpr ggml_backend_device_i kInterface = {
    /* .get_name             = */ dev_get_name,
    /* .get_description      = */ dev_get_description,
    /* .get_memory           = */ dev_get_memory,
    /* .get_type             = */ dev_get_type,
    /* .get_props            = */ dev_get_props,
    /* .init_backend         = */ dev_init_backend,
    /* .get_buffer_type      = */ dev_get_buffer_type,
    /* .get_host_buffer_type = */ dev_get_host_buffer_type,
    /* .buffer_from_host_ptr = */ nullptr,
    /* .supports_op          = */ dev_supports_op,
    /* .supports_buft        = */ dev_supports_buft,
    /* .offload_op           = */ nullptr,
    /* .event_new            = */ nullptr,
    /* .event_free           = */ nullptr,
    /* .event_synchronize    = */ nullptr,
};

std::string joined(const std::vector<ggml_backend_dev_t> & devs, const char * (*part)(ggml_backend_dev_t)) {
    std::string s = "Meta(";
    for (size_t i = 0; i < devs.size(); ++i) {
        s += std::string(i ? "," : "") + part(devs[i]);
    }
    return s + ")";
}

std::unique_ptr<MetaDevice> make_device(ggml_backend_dev_t * devs, size_t n, ggml_backend_meta_get_split_state_t cb,
                                        void * ud) {
    auto meta             = std::make_unique<MetaDevice>();
    meta->devs            = std::vector<ggml_backend_dev_t>(devs, devs + n);
    meta->get_split_state = cb;
    meta->user_data       = ud;
    meta->name            = joined(meta->devs, ggml_backend_dev_name);
    meta->description     = joined(meta->devs, ggml_backend_dev_description);
    meta->buft_name       = "Meta(";
    for (size_t i = 0; i < n; ++i) {
        ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(devs[i]);
        if (buft == nullptr) {
            log_error("[ggml_backend_meta_device] device %s has no buffer type\n", ggml_backend_dev_name(devs[i]));
            return nullptr;
        }
        meta->bufts.push_back(buft);
        meta->buft_name += std::string(i ? "," : "") + ggml_backend_buft_name(buft);
        meta->probes[i] = ggml_backend_buffer{{}, buft, nullptr, 0, GGML_BACKEND_BUFFER_USAGE_ANY};
    }
    meta->buft_name += ")";
    meta->device = ggml_backend_device{kInterface, nullptr, meta.get()};
    meta->buft   = ggml_backend_buffer_type{buffer_type_interface(), &meta->device, meta.get()};
    return meta;
}

} // namespace

MetaDevice * meta_device(ggml_backend_dev_t dev) {
    return dev != nullptr && dev->iface.get_name == dev_get_name ? ctx_of(dev) : nullptr;
}

} // namespace switchyard::meta

using namespace switchyard;
using namespace switchyard::meta;

extern "C" ggml_backend_dev_t ggml_backend_meta_device(ggml_backend_dev_t * devs, size_t n_devs,
                                                     ggml_backend_meta_get_split_state_t get_split_state,
                                                     void * get_split_state_ud) {
    constexpr const char * kCaller = "ggml_backend_meta_device";
    if (devs == nullptr || n_devs == 0 || n_devs > static_cast<size_t>(kMaxDevices) || get_split_state == nullptr) {
        log_error("[%s] need 1..%d devices and a split state callback (got %zu devices%s)\n", kCaller, kMaxDevices,
                  n_devs, get_split_state == nullptr ? ", no callback" : "");
        return nullptr;
    }
    for (size_t i = 0; i < n_devs; ++i) {
        if (devs[i] == nullptr || meta_device(devs[i]) != nullptr) {
            log_error("[%s] device %zu is %s\n", kCaller, i, devs[i] == nullptr ? "NULL" : "a meta device itself");
            return nullptr;
        }
    }
    return guard(kCaller, nullptr, [&]() -> ggml_backend_dev_t {
        static std::mutex                               mutex;
        static std::vector<std::unique_ptr<MetaDevice>> known; // alive for the whole process, like other devices
        std::lock_guard                                 lock(mutex);
        const std::vector<ggml_backend_dev_t>           list(devs, devs + n_devs);
        for (const auto & m : known) {
            if (m->devs == list && m->get_split_state == get_split_state && m->user_data == get_split_state_ud) {
                return &m->device;
            }
        }
        std::unique_ptr<MetaDevice> meta = make_device(devs, n_devs, get_split_state, get_split_state_ud);
        if (meta == nullptr) {
            return nullptr;
        }
        known.push_back(std::move(meta));
        return &known.back()->device;
    });
}
