// The Vulkan backend (stream) object and the entry points other files of the backend need.
#pragma once

#include "vulkan/stream.h"

#include <string>

namespace switchyard::vulkan {

struct Backend {
    explicit Backend(Device & d) : device(&d), stream(d) {}
    Device * device;
    Stream   stream;
};

// A backend on device; nullptr (logged) on failure. The caller owns the result.
ggml_backend_t make_backend(Device & device);
bool           is_vk_backend(ggml_backend_t backend);

// Events (event.cpp): the device vtable's members and the backend's record / wait.
ggml_backend_event_t event_new(ggml_backend_dev_t dev);
void                 event_free(ggml_backend_dev_t dev, ggml_backend_event_t event);
void                 event_synchronize(ggml_backend_dev_t dev, ggml_backend_event_t event);
void                 event_record(ggml_backend_t backend, ggml_backend_event_t event);
void                 event_wait(ggml_backend_t backend, ggml_backend_event_t event);

// The reg's devices (reg.cpp).
size_t   device_count();
Device * device_at(size_t index);
ggml_backend_reg_t reg();

} // namespace switchyard::vulkan
