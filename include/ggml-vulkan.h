#pragma once

// Switchyard: the Vulkan backend (source-compatible with upstream ggml's ggml-vulkan.h).
// Computes graphs on Vulkan 1.2 devices with compute shaders compiled to SPIR-V at build time.
//
// Devices: every physical device of type discrete, integrated or virtual GPU is used; CPU-type devices (such
// as Mesa's lavapipe) are hidden unless the environment variable GGML_VK_VISIBLE_DEVICES names them.
// GGML_VK_VISIBLE_DEVICES is a comma-separated list of indices into the driver's physical-device list
// (vkEnumeratePhysicalDevices order); when set, exactly those devices are used, in that order. A device that
// lacks what the backend needs (Vulkan 1.2, timeline semaphores, 8- and 16-bit storage buffers, push
// descriptors) is left out with a logged message; a missing or broken driver means zero devices.
//
// Device indices below (dev_num, device) count the devices in use, 0 .. ggml_backend_vk_get_device_count()-1.
// Everything here is exported by the Vulkan backend library (GGML_BACKEND_API); in builds where backends are
// loaded dynamically, reach the devices through ggml_backend_vk_reg()'s registry entries instead.

#include "ggml.h"
#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GGML_VK_NAME        "Vulkan"
#define GGML_VK_MAX_DEVICES 16

    // A backend (stream) on device dev_num; NULL (logged) when there is no such device or it cannot be opened.
    // The caller owns the result (ggml_backend_free).
    GGML_BACKEND_API ggml_backend_t ggml_backend_vk_init(size_t dev_num);

    // true for backends made by this library
    GGML_BACKEND_API bool ggml_backend_is_vk(ggml_backend_t backend);

    // number of devices in use (see above); 0 without a usable driver
    GGML_BACKEND_API int  ggml_backend_vk_get_device_count(void);
    // the device's name as the driver reports it, truncated to description_size - 1 characters; "" for a bad index
    GGML_BACKEND_API void ggml_backend_vk_get_device_description(int device, char * description, size_t description_size);
    // free and total device-local memory in bytes (0, 0 for a bad index)
    GGML_BACKEND_API void ggml_backend_vk_get_device_memory(int device, size_t * free, size_t * total);

    // the device-local buffer type of device dev_num (owned by the library); NULL for a bad index
    GGML_BACKEND_API ggml_backend_buffer_type_t ggml_backend_vk_buffer_type(size_t dev_num);
    // pinned host buffer for use with the CPU backend for faster copies between CPU and GPU (device 0's; NULL
    // without devices)
    GGML_BACKEND_API ggml_backend_buffer_type_t ggml_backend_vk_host_buffer_type(void);

    // the Vulkan backend library's reg (owned by the library)
    GGML_BACKEND_API ggml_backend_reg_t ggml_backend_vk_reg(void);

#ifdef __cplusplus
}
#endif
