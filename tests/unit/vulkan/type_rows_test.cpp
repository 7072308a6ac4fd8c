// The Vulkan device's per-type rows (vulkan/ops/types.h): the dequant codes are the shaders' own (read from
// shaders/dequant.glsl, where the QTYPE_ names are defined), every code the shaders define has a row, and MUL_MAT's
// activation format for each type is the CPU's vec_dot_type (upstream's type_traits_cpu, through the public API).
#include "vulkan/ops/types.h"

#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace {

using namespace switchyard::vulkan::ops;

// QTYPE_<NAME> -> code, from the shader source
std::map<std::string, uint32_t> shader_codes() {
    std::ifstream                   in(SWITCHYARD_SHADER_DIR "/dequant.glsl");
    std::map<std::string, uint32_t> codes;
    const std::regex                define(R"(^#define QTYPE_([A-Z0-9_]+)\s+([0-9]+)u\s*$)");
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_match(line, m, define)) {
            codes[m[1]] = static_cast<uint32_t>(std::stoul(m[2]));
        }
    }
    return codes;
}

std::string upper_name(ggml_type t) {
    std::string s = ggml_type_name(t);
    for (char & c : s) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return s;
}

TEST(VkTypeRows, DequantCodesAreTheShadersOwn) {
    const auto codes = shader_codes();
    ASSERT_GE(codes.size(), 12u) << "dequant.glsl's QTYPE_ defines were not found";
    std::set<ggml_type> seen;
    for (const VkTypeRow & r : kVkTypeRows) {
        EXPECT_TRUE(seen.insert(r.type).second) << ggml_type_name(r.type) << " has two rows";
        if (r.type == GGML_TYPE_F32 || r.type == GGML_TYPE_F16 || r.type == GGML_TYPE_BF16) {
            EXPECT_EQ(r.code, float_type_code(r.type));
            continue;
        }
        const auto it = codes.find(upper_name(r.type));
        ASSERT_NE(it, codes.end()) << ggml_type_name(r.type) << " has a row but no QTYPE_ in dequant.glsl";
        EXPECT_EQ(r.code, it->second) << ggml_type_name(r.type);
    }
    for (const auto & [name, code] : codes) {
        bool found = false;
        for (const VkTypeRow & r : kVkTypeRows) {
            found = found || (r.code == code && upper_name(r.type) == name);
        }
        EXPECT_TRUE(found) << "QTYPE_" << name << " has no row";
    }
    EXPECT_EQ(weight_type_code(GGML_TYPE_Q4_K), 22u);
    EXPECT_EQ(weight_type_code(GGML_TYPE_IQ2_XXS), kNoType);
    EXPECT_FALSE(vk_type_row(GGML_TYPE_I32).kv);
}

TEST(VkTypeRows, ActivationFormatIsTheCpusVecDotType) {
    for (const VkTypeRow & r : kVkTypeRows) {
        ggml_type expected = GGML_TYPE_COUNT;
        switch (r.act) {
            case ActFormat::F16:  expected = GGML_TYPE_F16; break;
            case ActFormat::BF16: expected = GGML_TYPE_BF16; break;
            case ActFormat::Q8_0: expected = GGML_TYPE_Q8_0; break;
            case ActFormat::Q8_1: expected = GGML_TYPE_Q8_1; break;
            case ActFormat::Q8_K: expected = GGML_TYPE_Q8_K; break;
            case ActFormat::AsIs: expected = r.type; break;
            case ActFormat::None: break;
        }
        EXPECT_EQ(ggml_get_type_traits_cpu(r.type)->vec_dot_type, expected) << ggml_type_name(r.type);
    }
}

// The quantized writes and the attention's K / V types are the documented ones (quantize.comp, flash_attn.comp).
TEST(VkTypeRows, QuantizedWritesAndAttentionTypes) {
    const std::set<ggml_type> writes = {GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0,
                                        GGML_TYPE_Q5_1, GGML_TYPE_Q8_0, GGML_TYPE_IQ4_NL};
    std::set<ggml_type> kv = writes;
    kv.insert({GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16});
    for (const VkTypeRow & r : kVkTypeRows) {
        EXPECT_EQ(r.quantize, writes.count(r.type) == 1) << ggml_type_name(r.type);
        EXPECT_EQ(r.kv, kv.count(r.type) == 1) << ggml_type_name(r.type);
    }
}

} // namespace
