// The SPIR-V modules embedded in the library: one per shaders/<family>.comp, compiled by glslc at build time
// (vulkan.cmake generates the table).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace switchyard::vulkan {

struct EmbeddedShader {
    const char *     name; // the family, e.g. "binary"
    const uint32_t * code;
    size_t           size; // bytes
};

std::span<const EmbeddedShader> embedded_shaders();

} // namespace switchyard::vulkan
