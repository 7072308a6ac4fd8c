// ggml_validate_row_data: the check a loader runs on untrusted tensor data. Plain float types must hold no NaN
// or Inf; block formats must have finite scales (d, dmin, m, s ...) and MXFP4 no 0xff exponent. The first
// problem found is logged with the block (or element) index and the field, and the function returns false.
#include "quant/formats.h"

#include "base/fp16.h"
#include "base/log.h"
#include "quant/types.h"

#include <cstring>

namespace switchyard::quant {

namespace {

constexpr const char * kValidate = "ggml_validate_row_data";
constexpr int64_t      kChunk    = 1024;

template <typename Bits>
Bits load_bits(const void * data, int64_t i) {
    Bits b;
    std::memcpy(&b, static_cast<const char *>(data) + i * static_cast<int64_t>(sizeof(Bits)), sizeof(Bits));
    return b;
}

// Index of the first element whose exponent field is all ones (Inf or NaN), or -1. Chunks are first tested
// with a branch-free loop the compiler vectorises; only a flagged chunk is searched element by element.
template <typename Bits>
int64_t first_nonfinite(const void * data, int64_t n, Bits exponent) {
    for (int64_t c = 0; c < n; c += kChunk) {
        const int64_t end     = c + kChunk < n ? c + kChunk : n;
        bool          flagged = false;
        for (int64_t i = c; i < end; ++i) {
            flagged |= (load_bits<Bits>(data, i) & exponent) == exponent;
        }
        if (!flagged) {
            continue;
        }
        for (int64_t i = c; i < end; ++i) {
            if ((load_bits<Bits>(data, i) & exponent) == exponent) {
                return i;
            }
        }
    }
    return -1;
}

template <typename Bits>
bool check_values(ggml_type type, const void * data, int64_t n, Bits exponent, Bits mantissa) {
    const int64_t bad = first_nonfinite<Bits>(data, n, exponent);
    if (bad < 0) {
        return true;
    }
    const bool nan = (load_bits<Bits>(data, bad) & mantissa) != 0;
    log_error("[%s] %s value %lld is %s\n", kValidate, ggml_type_name(type), static_cast<long long>(bad),
              nan ? "NaN" : "Inf");
    return false;
}

// The problem with one scale field, or nullptr when it is fine.
const char * scale_problem(ScaleKind kind, const unsigned char * p) {
    switch (kind) {
        case ScaleKind::kHalf: {
            const uint16_t h = load_bits<uint16_t>(p, 0);
            return (h & 0x7c00u) != 0x7c00u ? nullptr : (h & 0x3ffu) ? "NaN" : "Inf";
        }
        case ScaleKind::kFloat: {
            const uint32_t f = load_bits<uint32_t>(p, 0);
            return (f & 0x7f800000u) != 0x7f800000u ? nullptr : (f & 0x7fffffu) ? "NaN" : "Inf";
        }
        case ScaleKind::kE8M0: return *p == 0xff ? "0xff (not a valid E8M0 exponent)" : nullptr;
        case ScaleKind::kNone: break;
    }
    return nullptr;
}

bool check_scales(ggml_type type, const void * data, int64_t nblocks, const ScaleField * fields, int nfields) {
    const size_t block_size = ggml_type_size(type);
    for (int64_t i = 0; i < nblocks; ++i) {
        const auto * block = static_cast<const unsigned char *>(data) + static_cast<size_t>(i) * block_size;
        for (int f = 0; f < nfields; ++f) {
            const char * problem = scale_problem(fields[f].kind, block + fields[f].offset);
            if (problem != nullptr) {
                log_error("[%s] %s block %lld: %s is %s\n", kValidate, ggml_type_name(type),
                          static_cast<long long>(i), fields[f].name, problem);
                return false;
            }
        }
    }
    return true;
}

// IQ1_M spreads its fp16 super-scale over the top nibbles of its four uint16 sub-scale words (bytes 48..55).
bool check_iq1_m(const void * data, int64_t nblocks) {
    for (int64_t i = 0; i < nblocks; ++i) {
        const auto * sc = static_cast<const unsigned char *>(data) + i * 56 + 48;
        uint16_t     w[4];
        std::memcpy(w, sc, sizeof(w));
        const auto  d = static_cast<uint16_t>((w[0] >> 12) | ((w[1] >> 8) & 0x00f0) | ((w[2] >> 4) & 0x0f00) |
                                              (w[3] & 0xf000));
        const char * problem = scale_problem(ScaleKind::kHalf, reinterpret_cast<const unsigned char *>(&d));
        if (problem != nullptr) {
            log_error("[%s] iq1_m block %lld: d is %s\n", kValidate, static_cast<long long>(i), problem);
            return false;
        }
    }
    return true;
}

// Block formats stored in files whose conversions are not implemented here: their scale is still checked.
ScaleField foreign_scale(ggml_type type) {
    switch (type) {
        case GGML_TYPE_IQ2_XXS:
        case GGML_TYPE_IQ2_XS:
        case GGML_TYPE_IQ3_XXS:
        case GGML_TYPE_IQ1_S:
        case GGML_TYPE_IQ3_S:
        case GGML_TYPE_IQ2_S:
        case GGML_TYPE_IQ4_XS:
        case GGML_TYPE_Q1_0:
        case GGML_TYPE_Q2_0:  return {ScaleKind::kHalf, 0, "d"};
        case GGML_TYPE_TQ1_0: return {ScaleKind::kHalf, 52, "d"}; // after qs[48], qh[4]
        default:              return {};                          // NVFP4: every scale byte is valid
    }
}

bool validate(ggml_type type, const void * data, int64_t n) {
    switch (type) {
        case GGML_TYPE_F32:  return check_values<uint32_t>(type, data, n, 0x7f800000u, 0x007fffffu);
        case GGML_TYPE_F16:  return check_values<uint16_t>(type, data, n, 0x7c00u, 0x03ffu);
        case GGML_TYPE_BF16: return check_values<uint16_t>(type, data, n, 0x7f80u, 0x007fu);
        case GGML_TYPE_F64:
            return check_values<uint64_t>(type, data, n, 0x7ff0000000000000ull, 0x000fffffffffffffull);
        case GGML_TYPE_I8:
        case GGML_TYPE_I16:
        case GGML_TYPE_I32:
        case GGML_TYPE_I64:   return true;
        case GGML_TYPE_IQ1_M: return check_iq1_m(data, n);
        default:              break;
    }
    if (const Format * fmt = find_format(type)) {
        const int nfields = fmt->scales[1].kind != ScaleKind::kNone ? 2 : (fmt->scales[0].kind != ScaleKind::kNone);
        return check_scales(type, data, n, fmt->scales, nfields);
    }
    const ScaleField field = foreign_scale(type);
    return check_scales(type, data, n, &field, field.kind != ScaleKind::kNone ? 1 : 0);
}

} // namespace

} // namespace switchyard::quant

using namespace switchyard;

extern "C" bool ggml_validate_row_data(enum ggml_type type, const void * data, size_t nbytes) {
    if (!is_valid_type(type)) {
        log_error("[ggml_validate_row_data] invalid type %d\n", static_cast<int>(type));
        return false;
    }
    const size_t type_size = ggml_type_size(type);
    if (nbytes % type_size != 0) {
        log_error("[ggml_validate_row_data] invalid size %zu for type %s (type size = %zu)\n", nbytes,
                  ggml_type_name(type), type_size);
        return false;
    }
    if (data == nullptr && nbytes > 0) {
        log_error("[ggml_validate_row_data] data is NULL\n");
        return false;
    }
    return quant::validate(type, data, static_cast<int64_t>(nbytes / type_size));
}
