// The Vulkan reg: one ggml device per Vulkan device in use (instance.cpp decides which), made on first use and
// kept for the life of the process, and the C API of include/ggml-vulkan.h.
#include "vulkan/backend.h"

#include "vulkan/buffer.h"

#include "ggml-vulkan.h"

#include "base/guard.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace switchyard::vulkan {

ggml_backend_device_i device_interface(); // backend_device.cpp

namespace {

const char * reg_get_name(ggml_backend_reg_t) { return GGML_VK_NAME; }

std::vector<Device *> & devices() {
    // never destroyed: backends and buffers may outlive static destruction order
    static auto * list = [] {
        auto * v = new std::vector<Device *>();
        for (const PhysicalDevice & p : physical_devices()) {
            auto * d             = new Device(v->size(), p);
            d->buffer_type      = {device_buffer_type_interface(), &d->ggml_device, d};
            d->host_buffer_type = {host_buffer_type_interface(), &d->ggml_device, d};
            d->ggml_device      = {device_interface(), reg(), d};
            v->push_back(d);
        }
        return v;
    }();
    return *list;
}

size_t reg_get_device_count(ggml_backend_reg_t) { return device_count(); }

ggml_backend_dev_t reg_get_device(ggml_backend_reg_t, size_t index) {
    Device * d = device_at(index);
    return d != nullptr ? &d->ggml_device : nullptr;
}

const ggml_backend_reg_i kInterface = {
    .get_name         = reg_get_name,
    .get_device_count = reg_get_device_count,
    .get_device       = reg_get_device,
    .get_proc_address = nullptr,
};

} // namespace

size_t device_count() {
    return guard("ggml_backend_vk_reg", size_t{0}, [] { return devices().size(); });
}

Device * device_at(size_t index) { return index < device_count() ? devices()[index] : nullptr; }

ggml_backend_reg_t reg() {
    static ggml_backend_reg r = {GGML_BACKEND_API_VERSION, kInterface, nullptr};
    return &r;
}

} // namespace switchyard::vulkan

using namespace switchyard;
using namespace switchyard::vulkan;

extern "C" {

ggml_backend_reg_t ggml_backend_vk_reg(void) { return vulkan::reg(); }

ggml_backend_t ggml_backend_vk_init(size_t dev_num) {
    return guard("ggml_backend_vk_init", nullptr, [&]() -> ggml_backend_t {
        Device * d = device_at(dev_num);
        if (d == nullptr) {
            log_error("[ggml_backend_vk_init] no Vulkan device %zu (%zu in use)\n", dev_num, device_count());
            return nullptr;
        }
        return make_backend(*d);
    });
}

bool ggml_backend_is_vk(ggml_backend_t backend) { return is_vk_backend(backend); }

int ggml_backend_vk_get_device_count(void) { return static_cast<int>(device_count()); }

void ggml_backend_vk_get_device_description(int device, char * description, size_t description_size) {
    if (description == nullptr || description_size == 0) {
        return;
    }
    Device *          d    = device >= 0 ? device_at(static_cast<size_t>(device)) : nullptr;
    const std::string text = d != nullptr ? d->description() : std::string();
    const size_t      n    = std::min(text.size(), description_size - 1);
    std::memcpy(description, text.data(), n);
    description[n] = '\0';
}

void ggml_backend_vk_get_device_memory(int device, size_t * free, size_t * total) {
    size_t   f = 0, t = 0;
    Device * d = device >= 0 ? device_at(static_cast<size_t>(device)) : nullptr;
    if (d != nullptr) {
        d->memory_info(&f, &t);
    }
    if (free != nullptr) {
        *free = f;
    }
    if (total != nullptr) {
        *total = t;
    }
}

ggml_backend_buffer_type_t ggml_backend_vk_buffer_type(size_t dev_num) {
    Device * d = device_at(dev_num);
    if (d == nullptr) {
        log_error("[ggml_backend_vk_buffer_type] no Vulkan device %zu\n", dev_num);
        return nullptr;
    }
    return &d->buffer_type;
}

ggml_backend_buffer_type_t ggml_backend_vk_host_buffer_type(void) {
    Device * d = device_at(0);
    return d != nullptr ? &d->host_buffer_type : nullptr;
}

} // extern "C"

GGML_BACKEND_DL_IMPL(ggml_backend_vk_reg)
