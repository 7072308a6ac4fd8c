// The Vulkan instance and the physical devices the backend uses. Made once, on first use, and kept for the life
// of the process. Enumeration never fails: without a loader, a driver, or a usable device the list is empty (the
// reasons are logged).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

namespace switchyard::vulkan {

// What enumeration learned about one physical device the backend will use.
struct PhysicalDevice {
    VkPhysicalDevice                 handle       = VK_NULL_HANDLE;
    uint32_t                         vk_index     = 0; // in vkEnumeratePhysicalDevices order
    VkPhysicalDeviceProperties       props{};
    VkPhysicalDeviceMemoryProperties memory{};
    uint32_t                         queue_family  = 0; // a family with compute (and so transfer) support
    uint32_t                         subgroup_size = 32;
    bool                             subgroup_arithmetic = false;
    bool                             external_memory_host   = false; // VK_EXT_external_memory_host
    VkDeviceSize                     host_pointer_alignment = 0;
    // The largest single allocation (maxMemoryAllocationSize) and VkBuffer (maxBufferSize of
    // VK_KHR_maintenance4; the allocation limit where the device does not report it).
    VkDeviceSize                     max_allocation = 0;
    VkDeviceSize                     max_buffer     = 0;
    std::string                      name; // props.deviceName
};

VkInstance                          instance();
const std::vector<PhysicalDevice> & physical_devices();

// Which of the driver's devices to use, by GGML_VK_VISIBLE_DEVICES (a list of vk indices; nullptr when unset):
// the listed ones in that order, else every GPU-type device. Exposed for the unit tests.
std::vector<uint32_t> select_devices(const std::vector<VkPhysicalDeviceType> & types, const char * visible);

} // namespace switchyard::vulkan
