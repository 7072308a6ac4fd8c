#include "core/type_traits.h"

#include "quant/formats.h"

#include <array>

namespace switchyard {

namespace {

constexpr std::array<TypeInfo, GGML_TYPE_COUNT> make_type_table() {
    std::array<TypeInfo, GGML_TYPE_COUNT> t{};
    for (auto & e : t) {
        e = TypeInfo{nullptr, 1, 0, false};
    }
    t[GGML_TYPE_F32]     = {"f32", 1, 4, false};
    t[GGML_TYPE_F16]     = {"f16", 1, 2, false};
    t[GGML_TYPE_Q4_0]    = {"q4_0", 32, 18, true};
    t[GGML_TYPE_Q4_1]    = {"q4_1", 32, 20, true};
    t[GGML_TYPE_Q5_0]    = {"q5_0", 32, 22, true};
    t[GGML_TYPE_Q5_1]    = {"q5_1", 32, 24, true};
    t[GGML_TYPE_Q8_0]    = {"q8_0", 32, 34, true};
    t[GGML_TYPE_Q8_1]    = {"q8_1", 32, 36, true};
    t[GGML_TYPE_Q2_K]    = {"q2_K", 256, 84, true};
    t[GGML_TYPE_Q3_K]    = {"q3_K", 256, 110, true};
    t[GGML_TYPE_Q4_K]    = {"q4_K", 256, 144, true};
    t[GGML_TYPE_Q5_K]    = {"q5_K", 256, 176, true};
    t[GGML_TYPE_Q6_K]    = {"q6_K", 256, 210, true};
    t[GGML_TYPE_Q8_K]    = {"q8_K", 256, 292, true};
    t[GGML_TYPE_IQ2_XXS] = {"iq2_xxs", 256, 66, true};
    t[GGML_TYPE_IQ2_XS]  = {"iq2_xs", 256, 74, true};
    t[GGML_TYPE_IQ3_XXS] = {"iq3_xxs", 256, 98, true};
    t[GGML_TYPE_IQ1_S]   = {"iq1_s", 256, 50, true};
    t[GGML_TYPE_IQ4_NL]  = {"iq4_nl", 32, 18, true};
    t[GGML_TYPE_IQ3_S]   = {"iq3_s", 256, 110, true};
    t[GGML_TYPE_IQ2_S]   = {"iq2_s", 256, 82, true};
    t[GGML_TYPE_IQ4_XS]  = {"iq4_xs", 256, 136, true};
    t[GGML_TYPE_I8]      = {"i8", 1, 1, false};
    t[GGML_TYPE_I16]     = {"i16", 1, 2, false};
    t[GGML_TYPE_I32]     = {"i32", 1, 4, false};
    t[GGML_TYPE_I64]     = {"i64", 1, 8, false};
    t[GGML_TYPE_F64]     = {"f64", 1, 8, false};
    t[GGML_TYPE_IQ1_M]   = {"iq1_m", 256, 56, true};
    t[GGML_TYPE_BF16]    = {"bf16", 1, 2, false};
    t[GGML_TYPE_TQ1_0]   = {"tq1_0", 256, 54, true};
    t[GGML_TYPE_TQ2_0]   = {"tq2_0", 256, 66, true};
    t[GGML_TYPE_MXFP4]   = {"mxfp4", 32, 17, true};
    t[GGML_TYPE_NVFP4]   = {"nvfp4", 64, 36, true};
    t[GGML_TYPE_Q1_0]    = {"q1_0", 128, 18, true};
    t[GGML_TYPE_Q2_0]    = {"q2_0", 64, 18, true};
    return t;
}

constexpr auto kTypeTable = make_type_table();

static_assert(kTypeTable[GGML_TYPE_Q4_K].type_size == 144);
static_assert(kTypeTable[GGML_TYPE_Q6_K].type_size == 210);

const TypeInfo kInvalid{nullptr, 1, 0, false};

} // namespace

bool is_valid_type(int type) {
    return type >= 0 && type < GGML_TYPE_COUNT && kTypeTable[static_cast<size_t>(type)].name != nullptr;
}

const TypeInfo & type_info(ggml_type type) {
    if (type < 0 || type >= GGML_TYPE_COUNT) {
        return kInvalid;
    }
    return kTypeTable[type];
}

} // namespace switchyard

using namespace switchyard;

extern "C" {

int64_t ggml_blck_size(enum ggml_type type) { return type_info(type).blck_size; }
size_t ggml_type_size(enum ggml_type type) { return type_info(type).type_size; }

size_t ggml_row_size(enum ggml_type type, int64_t ne) {
    const TypeInfo & info = type_info(type);
    return info.type_size * static_cast<size_t>(ne / info.blck_size);
}

double ggml_type_sizef(enum ggml_type type) {
    const TypeInfo & info = type_info(type);
    return static_cast<double>(info.type_size) / static_cast<double>(info.blck_size);
}

const char * ggml_type_name(enum ggml_type type) {
    const char * name = type_info(type).name;
    return name ? name : "NONE";
}

bool ggml_is_quantized(enum ggml_type type) { return type_info(type).is_quantized; }

const struct ggml_type_traits * ggml_get_type_traits(enum ggml_type type) {
    static const auto table = [] {
        std::array<ggml_type_traits, GGML_TYPE_COUNT> t{};
        for (int i = 0; i < GGML_TYPE_COUNT; ++i) {
            const auto       type_i = static_cast<ggml_type>(i);
            const TypeInfo & info   = type_info(type_i);
            t[i] = ggml_type_traits{info.name ? info.name : "DEPRECATED", info.blck_size, 0, info.type_size,
                                    info.is_quantized, quant::to_float_fn(type_i), quant::from_float_ref_fn(type_i)};
        }
        return t;
    }();
    if (type < 0 || type >= GGML_TYPE_COUNT) {
        return nullptr;
    }
    return &table[type];
}

enum ggml_type ggml_ftype_to_ggml_type(enum ggml_ftype ftype) {
    switch (ftype) {
        case GGML_FTYPE_ALL_F32:              return GGML_TYPE_F32;
        case GGML_FTYPE_MOSTLY_F16:           return GGML_TYPE_F16;
        case GGML_FTYPE_MOSTLY_BF16:          return GGML_TYPE_BF16;
        case GGML_FTYPE_MOSTLY_Q4_0:          return GGML_TYPE_Q4_0;
        case GGML_FTYPE_MOSTLY_Q4_1:          return GGML_TYPE_Q4_1;
        case GGML_FTYPE_MOSTLY_Q5_0:          return GGML_TYPE_Q5_0;
        case GGML_FTYPE_MOSTLY_Q5_1:          return GGML_TYPE_Q5_1;
        case GGML_FTYPE_MOSTLY_Q8_0:          return GGML_TYPE_Q8_0;
        case GGML_FTYPE_MOSTLY_Q2_K:          return GGML_TYPE_Q2_K;
        case GGML_FTYPE_MOSTLY_Q3_K:          return GGML_TYPE_Q3_K;
        case GGML_FTYPE_MOSTLY_Q4_K:          return GGML_TYPE_Q4_K;
        case GGML_FTYPE_MOSTLY_Q5_K:          return GGML_TYPE_Q5_K;
        case GGML_FTYPE_MOSTLY_Q6_K:          return GGML_TYPE_Q6_K;
        case GGML_FTYPE_MOSTLY_IQ2_XXS:       return GGML_TYPE_IQ2_XXS;
        case GGML_FTYPE_MOSTLY_IQ2_XS:        return GGML_TYPE_IQ2_XS;
        case GGML_FTYPE_MOSTLY_IQ3_XXS:       return GGML_TYPE_IQ3_XXS;
        case GGML_FTYPE_MOSTLY_IQ1_S:         return GGML_TYPE_IQ1_S;
        case GGML_FTYPE_MOSTLY_IQ1_M:         return GGML_TYPE_IQ1_M;
        case GGML_FTYPE_MOSTLY_IQ4_NL:        return GGML_TYPE_IQ4_NL;
        case GGML_FTYPE_MOSTLY_IQ4_XS:        return GGML_TYPE_IQ4_XS;
        case GGML_FTYPE_MOSTLY_IQ3_S:         return GGML_TYPE_IQ3_S;
        case GGML_FTYPE_MOSTLY_IQ2_S:         return GGML_TYPE_IQ2_S;
        case GGML_FTYPE_MOSTLY_MXFP4:         return GGML_TYPE_MXFP4;
        case GGML_FTYPE_MOSTLY_NVFP4:         return GGML_TYPE_NVFP4;
        case GGML_FTYPE_MOSTLY_Q1_0:          return GGML_TYPE_Q1_0;
        case GGML_FTYPE_MOSTLY_Q2_0:          return GGML_TYPE_Q2_0;
        case GGML_FTYPE_UNKNOWN:
        case GGML_FTYPE_MOSTLY_Q4_1_SOME_F16: break;
    }
    return GGML_TYPE_COUNT;
}

} // extern "C"
