// The Vulkan instance and device enumeration with the visibility rule (see include/ggml-vulkan.h): a CPU-type
// device such as lavapipe is used only when GGML_VK_VISIBLE_DEVICES names it, so it never shadows a real GPU.
// A device is usable when it has Vulkan 1.2, timeline semaphores, 8- and 16-bit storage buffer access, push
// descriptors and a compute queue; others are left out with a message.
#include "vulkan/instance.h"

#include "base/log.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace switchyard::vulkan {

namespace {

struct InstanceState {
    VkInstance                  instance = VK_NULL_HANDLE;
    std::vector<PhysicalDevice> devices;
};

bool has_extension(VkPhysicalDevice dev, const char * name) {
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(dev, nullptr, &n, nullptr) != VK_SUCCESS) {
        return false;
    }
    std::vector<VkExtensionProperties> exts(n);
    if (vkEnumerateDeviceExtensionProperties(dev, nullptr, &n, exts.data()) != VK_SUCCESS) {
        return false;
    }
    for (const VkExtensionProperties & e : exts) {
        if (std::strcmp(e.extensionName, name) == 0) {
            return true;
        }
    }
    return false;
}

// Fills `out` and returns true when the device has what the backend needs; otherwise logs why and returns false.
bool inspect(VkPhysicalDevice handle, uint32_t vk_index, PhysicalDevice & out) {
    out.handle   = handle;
    out.vk_index = vk_index;
    vkGetPhysicalDeviceProperties(handle, &out.props);
    vkGetPhysicalDeviceMemoryProperties(handle, &out.memory);
    out.name = out.props.deviceName;
    auto reject = [&](const char * why) {
        log_warn("[ggml_backend_vk_reg] Vulkan device %u (%s) is not used: %s\n", vk_index, out.name.c_str(), why);
        return false;
    };
    if (out.props.apiVersion < VK_API_VERSION_1_2) {
        return reject("Vulkan 1.2 is required");
    }
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
    VkPhysicalDeviceFeatures2        f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
    vkGetPhysicalDeviceFeatures2(handle, &f2);
    if (!f12.timelineSemaphore) {
        return reject("no timeline semaphores");
    }
    if (!f11.storageBuffer16BitAccess || !f12.storageBuffer8BitAccess) {
        return reject("no 8- or 16-bit storage buffer access");
    }
    if (!has_extension(handle, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) {
        return reject("no VK_KHR_push_descriptor");
    }
    uint32_t n_families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(handle, &n_families, nullptr);
    std::vector<VkQueueFamilyProperties> families(n_families);
    vkGetPhysicalDeviceQueueFamilyProperties(handle, &n_families, families.data());
    bool found = false;
    for (uint32_t i = 0; i < n_families && !found; ++i) {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            out.queue_family = i;
            found            = true;
        }
    }
    if (!found) {
        return reject("no compute queue");
    }

    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceSubgroupProperties              subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    out.external_memory_host = has_extension(handle, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    if (out.external_memory_host) {
        subgroup.pNext = &host;
    }
    VkPhysicalDeviceMaintenance3Properties   m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &subgroup};
    VkPhysicalDeviceMaintenance4PropertiesKHR m4{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES_KHR, &m3};
    const bool has_m4 = has_extension(handle, VK_KHR_MAINTENANCE_4_EXTENSION_NAME);
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, has_m4 ? static_cast<void *>(&m4) : &m3};
    vkGetPhysicalDeviceProperties2(handle, &p2);
    out.max_allocation = m3.maxMemoryAllocationSize;
    out.max_buffer     = has_m4 ? std::min(m4.maxBufferSize, m3.maxMemoryAllocationSize) : m3.maxMemoryAllocationSize;
    out.subgroup_size          = subgroup.subgroupSize > 0 ? subgroup.subgroupSize : 32;
    out.subgroup_arithmetic    = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
                                 (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    out.host_pointer_alignment = out.external_memory_host ? host.minImportedHostPointerAlignment : 0;
    return true;
}

InstanceState create_instance() {
    InstanceState state;
    uint32_t      version = 0;
    if (vkEnumerateInstanceVersion(&version) != VK_SUCCESS || version < VK_API_VERSION_1_2) {
        log_info("[ggml_backend_vk_reg] no Vulkan 1.2 loader: no Vulkan devices\n");
        return state;
    }
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "ggml";
    app.pEngineName      = "switchyard";
    app.apiVersion       = VK_API_VERSION_1_2;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    const VkResult r      = vkCreateInstance(&info, nullptr, &state.instance);
    if (r != VK_SUCCESS) {
        log_warn("[ggml_backend_vk_reg] vkCreateInstance failed (%d): no Vulkan devices\n", static_cast<int>(r));
        state.instance = VK_NULL_HANDLE;
        return state;
    }
    uint32_t n = 0;
    if (vkEnumeratePhysicalDevices(state.instance, &n, nullptr) != VK_SUCCESS || n == 0) {
        return state;
    }
    std::vector<VkPhysicalDevice> handles(n);
    if (vkEnumeratePhysicalDevices(state.instance, &n, handles.data()) < 0) {
        return state;
    }
    handles.resize(n);
    std::vector<VkPhysicalDeviceType> types;
    for (VkPhysicalDevice h : handles) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(h, &props);
        types.push_back(props.deviceType);
    }
    for (uint32_t index : select_devices(types, std::getenv("GGML_VK_VISIBLE_DEVICES"))) {
        PhysicalDevice dev;
        if (state.devices.size() < 16 && inspect(handles[index], index, dev)) {
            state.devices.push_back(std::move(dev));
        }
    }
    return state;
}

InstanceState & state() {
    static InstanceState s = create_instance();
    return s;
}

} // namespace

std::vector<uint32_t> select_devices(const std::vector<VkPhysicalDeviceType> & types, const char * visible) {
    std::vector<uint32_t> out;
    if (visible == nullptr) {
        for (uint32_t i = 0; i < types.size(); ++i) {
            const VkPhysicalDeviceType t = types[i];
            if (t == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU || t == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
                t == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU) {
                out.push_back(i);
            }
        }
        return out;
    }
    std::string_view list(visible);
    while (!list.empty()) {
        const size_t           comma = list.find(',');
        const std::string_view item  = list.substr(0, comma);
        list                         = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        std::string text(item);
        char *      end = nullptr;
        const long  v   = std::strtol(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || v < 0 || static_cast<size_t>(v) >= types.size()) {
            log_warn("[ggml_backend_vk_reg] GGML_VK_VISIBLE_DEVICES: ignoring '%s' (%zu Vulkan devices)\n",
                     text.c_str(), types.size());
            continue;
        }
        bool seen = false;
        for (uint32_t o : out) {
            seen = seen || o == static_cast<uint32_t>(v);
        }
        if (!seen) {
            out.push_back(static_cast<uint32_t>(v));
        }
    }
    return out;
}

VkInstance instance() { return state().instance; }

const std::vector<PhysicalDevice> & physical_devices() { return state().devices; }

} // namespace switchyard::vulkan
