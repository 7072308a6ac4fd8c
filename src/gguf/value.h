// A GGUF key-value pair: the table of value types (name, size on disk) and the value itself, a single value or
// an array of one element type. Fixed-size elements are kept as their little-endian bytes, one after another
// (bools one byte each, 0 or 1), so gguf_get_arr_data can hand out a pointer to them; strings are kept as
// std::string, whose c_str() gguf_get_val_str and gguf_get_arr_str hand out.
#pragma once

#include "gguf.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace switchyard::gguf {

struct TypeTraits {
    const char * name;
    size_t       size; // bytes of one element on disk; 0 for string and array
};

// traits of a gguf_type; {nullptr, 0} for a value that is not a type. Takes an int: an application may pass any
// int as a C enum, and loading an out-of-range value as the C++ enum is undefined (raw_enum reads it safely).
const TypeTraits & type_traits(int type);

// the value of an enum argument from a C caller, read as the int it is without loading it as the C++ enum type
template <class E> int raw_enum(const E & e) {
    static_assert(sizeof(E) == sizeof(int));
    int v = 0;
    std::memcpy(&v, &e, sizeof(v));
    return v;
}

// true for the types an element can have: every type but GGUF_TYPE_ARRAY (arrays do not nest)
bool is_element_type(int type);

// The C++ type a fixed-size gguf_type is read as (bools: uint8_t 0 or 1).
template <gguf_type T> struct Element;
template <> struct Element<GGUF_TYPE_UINT8>   { using type = uint8_t; };
template <> struct Element<GGUF_TYPE_INT8>    { using type = int8_t; };
template <> struct Element<GGUF_TYPE_UINT16>  { using type = uint16_t; };
template <> struct Element<GGUF_TYPE_INT16>   { using type = int16_t; };
template <> struct Element<GGUF_TYPE_UINT32>  { using type = uint32_t; };
template <> struct Element<GGUF_TYPE_INT32>   { using type = int32_t; };
template <> struct Element<GGUF_TYPE_FLOAT32> { using type = float; };
template <> struct Element<GGUF_TYPE_BOOL>    { using type = uint8_t; };
template <> struct Element<GGUF_TYPE_UINT64>  { using type = uint64_t; };
template <> struct Element<GGUF_TYPE_INT64>   { using type = int64_t; };
template <> struct Element<GGUF_TYPE_FLOAT64> { using type = double; };

class Value {
public:
    // a single value of a fixed-size type, from its bytes (type_traits(type).size of them)
    static Value scalar(gguf_type type, const void * bytes);
    static Value string(std::string s);
    // an array of n fixed-size elements, from n * size bytes (bools are normalised to 0 or 1)
    static Value array(gguf_type type, const void * bytes, size_t n);
    // a single value or an array of a fixed-size type that takes over `bytes` (a whole number of elements)
    static Value of_bytes(gguf_type type, bool is_array, std::vector<uint8_t> bytes);
    static Value string_array(std::vector<std::string> strings);

    gguf_type type() const { return type_; }     // the element type
    bool      is_array() const { return is_array_; }
    size_t    count() const;                      // elements (1 for a single value)

    const std::vector<uint8_t> &     bytes() const { return bytes_; }
    const std::vector<std::string> & strings() const { return strings_; }

    // element i of a fixed-size type; requires i < count()
    template <class T> T element(size_t i) const {
        T v;
        std::memcpy(&v, bytes_.data() + i * sizeof(T), sizeof(T));
        return v;
    }

private:
    gguf_type                type_     = GGUF_TYPE_UINT8;
    bool                     is_array_ = false;
    std::vector<uint8_t>     bytes_;
    std::vector<std::string> strings_;
};

struct KeyValue {
    std::string key;
    Value       value;
};

} // namespace switchyard::gguf
