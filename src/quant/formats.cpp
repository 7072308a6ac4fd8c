#include "quant/formats.h"

#include <array>

namespace switchyard::quant {

namespace {

// Built on first use: the Format objects live in other translation units, so their addresses are only
// constants at link time and the table cannot be a constexpr array.
const std::array<const Format *, GGML_TYPE_COUNT> & format_table() {
    static const auto table = [] {
        std::array<const Format *, GGML_TYPE_COUNT> t{};
        const Format * all[] = {&kFormatF32,  &kFormatF16,  &kFormatBF16, &kFormatF64,  &kFormatQ4_0,
                                &kFormatQ4_1, &kFormatQ5_0, &kFormatQ5_1, &kFormatQ8_0, &kFormatQ8_1,
                                &kFormatQ2_K, &kFormatQ3_K, &kFormatQ4_K, &kFormatQ5_K, &kFormatQ6_K,
                                &kFormatQ8_K, &kFormatIQ4_NL, &kFormatIQ4_XS, &kFormatMXFP4, &kFormatTQ1_0, &kFormatTQ2_0,
                                &kFormatIQ2_XXS, &kFormatIQ2_XS, &kFormatIQ2_S, &kFormatIQ3_XXS, &kFormatIQ3_S,
                                &kFormatIQ1_S, &kFormatIQ1_M, &kFormatNVFP4, &kFormatQ1_0, &kFormatQ2_0, &kFormatI8,
                                &kFormatI16,  &kFormatI32,  &kFormatI64};
        for (const Format * f : all) {
            t[f->type] = f;
        }
        return t;
    }();
    return table;
}

} // namespace

const Format * find_format(ggml_type type) {
    if (type < 0 || type >= GGML_TYPE_COUNT) {
        return nullptr;
    }
    return format_table()[type];
}

ggml_to_float_t to_float_fn(ggml_type type) {
    const Format * f = find_format(type);
    return f ? f->to_float : nullptr;
}

ggml_from_float_t from_float_ref_fn(ggml_type type) {
    const Format * f = find_format(type);
    return f ? f->from_float_ref : nullptr;
}

} // namespace switchyard::quant
