// The public type API over the storage-type table (quant/types.h) and the reference conversions
// (quant/formats.h): sizes, names, ggml_get_type_traits, ftype mapping.
#include "quant/formats.h"
#include "quant/types.h"

#include <array>

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
