#include "vulkan/pipeline.h"

#include "vulkan/shader_table.h"

#include "base/log.h"

#include <algorithm>
#include <cstring>

namespace switchyard::vulkan {

uint32_t count_bindings(const uint32_t * code, size_t words) {
    constexpr uint32_t kOpDecorate = 71, kDecorationBinding = 33;
    uint32_t           n           = 0;
    for (size_t i = 5; i < words;) { // after the 5-word header, instructions: (word count << 16) | opcode
        const uint32_t count = code[i] >> 16, opcode = code[i] & 0xFFFF;
        if (count == 0) {
            break;
        }
        if (opcode == kOpDecorate && count >= 4 && i + 3 < words && code[i + 2] == kDecorationBinding) {
            n = std::max(n, code[i + 3] + 1);
        }
        i += count;
    }
    return n;
}

PipelineCache::PipelineCache(VkDevice device) : device_(device) {}

PipelineCache::~PipelineCache() {
    for (auto & [key, p] : pipelines_) {
        vkDestroyPipeline(device_, p->pipeline, nullptr);
    }
    for (auto & [name, f] : families_) {
        vkDestroyPipelineLayout(device_, f.layout, nullptr);
        vkDestroyDescriptorSetLayout(device_, f.set_layout, nullptr);
        vkDestroyShaderModule(device_, f.module, nullptr);
    }
}

size_t PipelineCache::size() const {
    std::lock_guard lock(mutex_);
    return pipelines_.size();
}

PipelineCache::Family * PipelineCache::family(const std::string & name) {
    if (auto it = families_.find(name); it != families_.end()) {
        return &it->second;
    }
    const EmbeddedShader * shader = nullptr;
    for (const EmbeddedShader & s : embedded_shaders()) {
        if (name == s.name) {
            shader = &s;
        }
    }
    if (shader == nullptr) {
        log_error("[ggml_backend_vk] no shader named '%s'\n", name.c_str());
        return nullptr;
    }
    Family f;
    f.n_bindings = count_bindings(shader->code, shader->size / 4);

    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = shader->size;
    mi.pCode    = shader->code;
    std::vector<VkDescriptorSetLayoutBinding> bindings(f.n_bindings);
    for (uint32_t i = 0; i < f.n_bindings; ++i) {
        bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    li.flags        = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    li.bindingCount = f.n_bindings;
    li.pBindings    = bindings.data();
    VkPushConstantRange           range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
    VkPipelineLayoutCreateInfo    pi{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    if (vkCreateShaderModule(device_, &mi, nullptr, &f.module) != VK_SUCCESS ||
        vkCreateDescriptorSetLayout(device_, &li, nullptr, &f.set_layout) != VK_SUCCESS) {
        log_error("[ggml_backend_vk] cannot create the shader module of '%s'\n", name.c_str());
        vkDestroyShaderModule(device_, f.module, nullptr);
        return nullptr;
    }
    pi.setLayoutCount         = 1;
    pi.pSetLayouts            = &f.set_layout;
    pi.pushConstantRangeCount = 1;
    pi.pPushConstantRanges    = &range;
    if (vkCreatePipelineLayout(device_, &pi, nullptr, &f.layout) != VK_SUCCESS) {
        log_error("[ggml_backend_vk] cannot create the pipeline layout of '%s'\n", name.c_str());
        vkDestroyDescriptorSetLayout(device_, f.set_layout, nullptr);
        vkDestroyShaderModule(device_, f.module, nullptr);
        return nullptr;
    }
    return &families_.emplace(name, f).first->second;
}

const Pipeline * PipelineCache::get(const char * name, std::span<const uint32_t> spec) {
    std::lock_guard lock(mutex_);
    auto            key = std::make_pair(std::string(name), std::vector<uint32_t>(spec.begin(), spec.end()));
    if (auto it = pipelines_.find(key); it != pipelines_.end()) {
        return it->second.get();
    }
    Family * f = family(key.first);
    if (f == nullptr) {
        return nullptr;
    }
    std::vector<VkSpecializationMapEntry> entries(spec.size());
    for (uint32_t i = 0; i < spec.size(); ++i) {
        entries[i] = {i, i * 4, 4};
    }
    VkSpecializationInfo si{static_cast<uint32_t>(entries.size()), entries.data(), spec.size() * 4, spec.data()};
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage        = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    ci.stage.stage  = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = f->module;
    ci.stage.pName  = "main";
    ci.stage.pSpecializationInfo = spec.empty() ? nullptr : &si;
    ci.layout       = f->layout;
    auto p          = std::make_unique<Pipeline>();
    p->layout       = f->layout;
    p->n_bindings   = f->n_bindings;
    const VkResult r = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &ci, nullptr, &p->pipeline);
    if (r != VK_SUCCESS) {
        log_error("[ggml_backend_vk] cannot create the pipeline of '%s' (%d)\n", name, static_cast<int>(r));
        return nullptr;
    }
    return pipelines_.emplace(std::move(key), std::move(p)).first->second.get();
}

} // namespace switchyard::vulkan
