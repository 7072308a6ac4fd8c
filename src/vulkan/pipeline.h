// Compute pipelines, created lazily and cached per device: one shader module, descriptor-set layout and
// pipeline layout per shader family, one pipeline per (family, specialisation constants). Every family's layout
// has exactly the storage-buffer bindings its shader declares (push descriptors, all written at each
// dispatch), so no descriptor ever refers to memory that was freed. Push constants: kPushConstantBytes.
//
// Specialisation constants: constant_id i takes spec[i]. By convention constant_id 0 is the workgroup size
// (local_size_x_id = 0) and constant_id 1 the subgroup size where a shader uses one.
//
// Thread safety: get() may be called from several threads.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace switchyard::vulkan {

constexpr uint32_t kPushConstantBytes = 128; // the minimum every Vulkan device offers

struct Pipeline {
    VkPipeline       pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout   = VK_NULL_HANDLE; // the family's
    uint32_t         n_bindings = 0;
};

class PipelineCache {
public:
    explicit PipelineCache(VkDevice device);
    ~PipelineCache();
    PipelineCache(const PipelineCache &)             = delete;
    PipelineCache & operator=(const PipelineCache &) = delete;

    // The pipeline of shader `family`, specialised with spec; nullptr (logged) when the family is unknown or the
    // driver fails. The result stays valid as long as the cache.
    const Pipeline * get(const char * family, std::span<const uint32_t> spec);

    size_t size() const; // pipelines created so far

private:
    struct Family {
        VkShaderModule        module     = VK_NULL_HANDLE;
        VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
        VkPipelineLayout      layout     = VK_NULL_HANDLE;
        uint32_t              n_bindings = 0;
    };
    Family * family(const std::string & name);

    VkDevice                                                              device_;
    mutable std::mutex                                                    mutex_;
    std::map<std::string, Family>                                         families_;
    std::map<std::pair<std::string, std::vector<uint32_t>>, std::unique_ptr<Pipeline>> pipelines_;
};

// Number of descriptor bindings a SPIR-V module declares (highest Binding decoration + 1).
uint32_t count_bindings(const uint32_t * code, size_t words);

} // namespace switchyard::vulkan
