#include "gguf/value.h"

#include <array>
#include <bit>

namespace switchyard::gguf {

static_assert(std::endian::native == std::endian::little, "GGUF values are kept as their little-endian bytes");

namespace {

constexpr std::array<TypeTraits, GGUF_TYPE_COUNT> kTypes = {{
    /* GGUF_TYPE_UINT8   */ {"u8", 1},
    /* GGUF_TYPE_INT8    */ {"i8", 1},
    /* GGUF_TYPE_UINT16  */ {"u16", 2},
    /* GGUF_TYPE_INT16   */ {"i16", 2},
    /* GGUF_TYPE_UINT32  */ {"u32", 4},
    /* GGUF_TYPE_INT32   */ {"i32", 4},
    /* GGUF_TYPE_FLOAT32 */ {"f32", 4},
    /* GGUF_TYPE_BOOL    */ {"bool", 1},
    /* GGUF_TYPE_STRING  */ {"str", 0},
    /* GGUF_TYPE_ARRAY   */ {"arr", 0},
    /* GGUF_TYPE_UINT64  */ {"u64", 8},
    /* GGUF_TYPE_INT64   */ {"i64", 8},
    /* GGUF_TYPE_FLOAT64 */ {"f64", 8},
}};

// every row filled (an entry left out would have a null name)
constexpr bool table_complete() {
    for (const TypeTraits & t : kTypes) {
        if (t.name == nullptr) {
            return false;
        }
    }
    return true;
}
static_assert(table_complete(), "kTypes needs a row for every gguf_type");
static_assert(kTypes[GGUF_TYPE_FLOAT64].size == sizeof(double) && kTypes[GGUF_TYPE_BOOL].size == 1);

constexpr TypeTraits kNotAType = {nullptr, 0};

} // namespace

const TypeTraits & type_traits(int type) {
    return type >= 0 && type < GGUF_TYPE_COUNT ? kTypes[static_cast<size_t>(type)] : kNotAType;
}

bool is_element_type(int type) {
    return type >= 0 && type < GGUF_TYPE_COUNT && type != GGUF_TYPE_ARRAY;
}

Value Value::scalar(gguf_type type, const void * bytes) {
    Value v = array(type, bytes, 1);
    v.is_array_ = false;
    return v;
}

Value Value::string(std::string s) {
    Value v;
    v.type_ = GGUF_TYPE_STRING;
    v.strings_.push_back(std::move(s));
    return v;
}

Value Value::array(gguf_type type, const void * bytes, size_t n) {
    // the callers checked that n * size does not overflow
    const size_t         nbytes = n * type_traits(type).size;
    std::vector<uint8_t> copy(nbytes);
    if (nbytes > 0) {
        std::memcpy(copy.data(), bytes, nbytes);
    }
    return of_bytes(type, true, std::move(copy));
}

Value Value::of_bytes(gguf_type type, bool is_array, std::vector<uint8_t> bytes) {
    Value v;
    v.type_     = type;
    v.is_array_ = is_array;
    v.bytes_    = std::move(bytes);
    if (type == GGUF_TYPE_BOOL) {
        for (uint8_t & b : v.bytes_) {
            b = b != 0 ? 1 : 0;
        }
    }
    return v;
}

Value Value::string_array(std::vector<std::string> strings) {
    Value v;
    v.type_     = GGUF_TYPE_STRING;
    v.is_array_ = true;
    v.strings_  = std::move(strings);
    return v;
}

size_t Value::count() const {
    if (type_ == GGUF_TYPE_STRING) {
        return strings_.size();
    }
    const size_t size = type_traits(type_).size;
    return size == 0 ? 0 : bytes_.size() / size;
}

} // namespace switchyard::gguf
