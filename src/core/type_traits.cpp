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

namespace {

// What upstream's table names the enum values it removed (its ggml_type_name returns these too).
const char * removed_type_name(int type) {
    switch (type) {
        case 31: return "TYPE_Q4_0_4_4 REMOVED, use Q4_0 with runtime repacking";
        case 32: return "TYPE_Q4_0_4_8 REMOVED, use Q4_0 with runtime repacking";
        case 33: return "TYPE_Q4_0_8_8 REMOVED, use Q4_0 with runtime repacking";
        case 36: return "TYPE_IQ4_NL_4_4 REMOVED, use IQ4_NL with runtime repacking";
        case 37: return "TYPE_IQ4_NL_4_8 REMOVED, use IQ4_NL with runtime repacking";
        case 38: return "TYPE_IQ4_NL_8_8 REMOVED, use IQ4_NL with runtime repacking";
        default: return "DEPRECATED";
    }
}

// Types whose conversions upstream's table leaves out although this library has them (the kernels use them through
// quant/formats.h): F32 and the integers convert nothing there, q8_1 and q8_K (activation formats) do not decode,
// and q8_K does not encode either (its quantizer is the CPU backend's from_float).
bool upstream_has_to_float(ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32: case GGML_TYPE_Q8_1: case GGML_TYPE_Q8_K: case GGML_TYPE_I8: case GGML_TYPE_I16:
        case GGML_TYPE_I32: case GGML_TYPE_I64: case GGML_TYPE_F64: return false;
        default: return true;
    }
}

bool upstream_has_from_float_ref(ggml_type t) { return t == GGML_TYPE_Q8_1 || upstream_has_to_float(t); }

} // namespace

const char * ggml_type_name(enum ggml_type type) {
    if (type < 0 || type >= GGML_TYPE_COUNT) {
        return "NONE";
    }
    const char * name = type_info(type).name;
    return name ? name : removed_type_name(type);
}

bool ggml_is_quantized(enum ggml_type type) { return type_info(type).is_quantized; }

const struct ggml_type_traits * ggml_get_type_traits(enum ggml_type type) {
    static const auto table = [] {
        std::array<ggml_type_traits, GGML_TYPE_COUNT> t{};
        for (int i = 0; i < GGML_TYPE_COUNT; ++i) {
            const auto       type_i = static_cast<ggml_type>(i);
            const TypeInfo & info   = type_info(type_i);
            const ggml_to_float_t   to_float = upstream_has_to_float(type_i) ? quant::to_float_fn(type_i) : nullptr;
            const ggml_from_float_t from_ref =
                upstream_has_from_float_ref(type_i) ? quant::from_float_ref_fn(type_i) : nullptr;
            t[i] = ggml_type_traits{ggml_type_name(type_i), info.name ? info.blck_size : 0, 0, info.type_size,
                                    info.is_quantized, to_float, from_ref};
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
