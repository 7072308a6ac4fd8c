#include "vulkan/recorder.h"

#include "vulkan/buffer.h"

#include "base/log.h"

#include <algorithm>
#include <vector>

namespace switchyard::vulkan {

Operand Recorder::operand(const ggml_tensor * t, bool write) {
    TensorRef ref;
    Operand   o;
    if (!tensor_ref(t, ref)) {
        return o; // supports_op keeps this from happening
    }
    const VkDeviceSize max_range = device_.physical().props.limits.maxStorageBufferRange;
    const VkDeviceSize align     = device_.window_alignment();
    const VkDeviceSize bytes     = ggml_nbytes(t);
    if (ref.size <= max_range) {
        o.window = 0;
        o.range  = ref.size;
    } else {
        o.window = ref.offset / align * align;
        o.range  = std::min(ref.size - o.window, max_range);
    }
    if (ref.offset + bytes > o.window + o.range) { // record_node keeps this from happening
        log_error("[ggml_backend_vk] '%s': %llu bytes at %llu do not fit one descriptor window\n", t->name,
                  static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(ref.offset));
        return Operand{};
    }
    o.buffer   = ref.buffer;
    o.residual = static_cast<uint32_t>(ref.offset - o.window);
    o.span     = {ref.buffer, ref.offset, ref.offset + bytes};
    o.write    = write;
    return o;
}

Operand Recorder::scratch(int slot, size_t size, bool write) {
    Operand o;
    if (!stream_.scratch(slot, size, o.buffer)) {
        o.buffer = VK_NULL_HANDLE;
        return o;
    }
    o.window = 0;
    o.range  = (size + 3) & ~size_t(3);
    o.span   = {o.buffer, 0, size};
    o.write  = write;
    return o;
}

void Recorder::groups_for(uint64_t n, uint32_t per_group, uint32_t & gx, uint32_t & gy) const {
    const uint64_t groups = (n + per_group - 1) / per_group;
    const uint64_t max_x  = std::min<uint32_t>(device_.physical().props.limits.maxComputeWorkGroupCount[0], 65535);
    gx                    = static_cast<uint32_t>(std::max<uint64_t>(1, std::min(groups, max_x)));
    gy                    = static_cast<uint32_t>(std::max<uint64_t>(1, (groups + gx - 1) / gx));
}

bool Recorder::dispatch(const char * family, std::initializer_list<uint32_t> spec, std::initializer_list<Operand> operands,
                        const void * push, size_t push_size, uint32_t gx, uint32_t gy, uint32_t gz) {
    const Pipeline * p = device_.pipelines().get(family, std::span<const uint32_t>(spec.begin(), spec.size()));
    if (p == nullptr) {
        stream_.fail("ggml_backend_vk_graph_compute", VK_ERROR_INITIALIZATION_FAILED);
        return false;
    }
    if (operands.size() != p->n_bindings || push_size > kPushConstantBytes) {
        log_error("[ggml_backend_vk] %s: %zu operands for %u bindings\n", family, operands.size(), p->n_bindings);
        stream_.fail("ggml_backend_vk_graph_compute", VK_ERROR_INITIALIZATION_FAILED);
        return false;
    }
    VkCommandBuffer cmd = stream_.cmd();
    if (cmd == VK_NULL_HANDLE) {
        return false;
    }
    std::vector<MemoryRange>            reads, writes;
    std::vector<VkDescriptorBufferInfo> infos;
    for (const Operand & o : operands) {
        if (o.buffer == VK_NULL_HANDLE) {
            stream_.fail("ggml_backend_vk_graph_compute", VK_ERROR_INITIALIZATION_FAILED);
            return false;
        }
        (o.write ? writes : reads).push_back(o.span);
        infos.push_back({o.buffer, o.window, o.range});
    }
    stream_.order(reads, writes);
    std::vector<VkWriteDescriptorSet> descriptor_writes(infos.size());
    for (size_t i = 0; i < infos.size(); ++i) {
        VkWriteDescriptorSet & w = descriptor_writes[i];
        w                        = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstBinding             = static_cast<uint32_t>(i);
        w.descriptorCount        = 1;
        w.descriptorType         = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w.pBufferInfo            = &infos[i];
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    device_.push_descriptor_set()(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0,
                                  static_cast<uint32_t>(descriptor_writes.size()), descriptor_writes.data());
    uint8_t constants[kPushConstantBytes] = {};
    std::copy_n(static_cast<const uint8_t *>(push), push_size, constants);
    vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes, constants);
    vkCmdDispatch(cmd, gx, gy, gz);
    return true;
}

} // namespace switchyard::vulkan
