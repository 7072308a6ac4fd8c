// The reader's top level, the header and the key-value pairs. Tensor infos: tensor_infos.cpp; the tensors'
// ggml_context and data: tensor_data.cpp.
#include "gguf/reader.h"

#include "ggml.h"

#include <cinttypes>
#include <cstring>
#include <memory>
#include <unordered_set>

namespace switchyard::gguf {

namespace {

// the fewest bytes a key-value pair and a tensor info take in a file (a 1-byte key and a 1-byte value; a 1-d
// tensor with an empty name), to refuse counts that the file cannot hold before reading on
constexpr uint64_t kMinKvBytes         = 8 + 1 + 4 + 1;
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;

struct Header {
    uint32_t version   = 0;
    int64_t  n_tensors = 0;
    int64_t  n_kv      = 0;
};

bool read_version(Cursor & cursor, uint32_t & version) {
    const uint64_t at = cursor.pos();
    if (!cursor.read(version, "the version")) {
        return false;
    }
    if (version == 0 || (version & 0xFFFFu) == 0) {
        return cursor.fail(at, "bad version 0x%08" PRIx32 " (a big-endian file? only little-endian GGUF is read)",
                           version);
    }
    if (version == 1) {
        return cursor.fail(at, "GGUF version 1 is not supported (versions 2 and 3 are)");
    }
    if (version > GGUF_VERSION) {
        return cursor.fail(at, "GGUF version %" PRIu32 " is newer than the newest supported (%d)", version,
                           GGUF_VERSION);
    }
    return true;
}

bool read_count(Cursor & cursor, int64_t & n, uint64_t min_bytes, const char * what) {
    const uint64_t at = cursor.pos();
    if (!cursor.read(n, what)) {
        return false;
    }
    if (n < 0) {
        return cursor.fail(at, "%s is negative (%" PRId64 ")", what, n);
    }
    if (static_cast<uint64_t>(n) > cursor.left() / min_bytes) {
        return cursor.fail(at, "%s is %" PRId64 ", more than the %" PRIu64 " bytes left in the file can hold", what,
                           n, cursor.left());
    }
    return true;
}

bool read_header(Cursor & cursor, Header & header) {
    char magic[4] = {};
    if (!cursor.read_bytes(magic, sizeof(magic), "the magic")) {
        return false;
    }
    if (std::memcmp(magic, GGUF_MAGIC, sizeof(magic)) != 0) {
        const auto c = [](char ch) { return ch >= 0x20 && ch < 0x7f ? ch : '?'; };
        return cursor.fail(cursor.pos() - 4, "bad magic '%c%c%c%c' (expected 'GGUF'): not a GGUF file", c(magic[0]),
                           c(magic[1]), c(magic[2]), c(magic[3]));
    }
    return read_version(cursor, header.version) &&
           read_count(cursor, header.n_tensors, kMinTensorInfoBytes, "the tensor count") &&
           read_count(cursor, header.n_kv, kMinKvBytes, "the key-value count");
}

// n elements of a fixed-size type, checked against the bytes left before allocating them
bool read_fixed(Cursor & cursor, gguf_type type, bool is_array, uint64_t n, Value & value, const std::string & key) {
    const size_t size  = type_traits(type).size;
    uint64_t     bytes = 0;
    if (__builtin_mul_overflow(n, size, &bytes) || bytes > cursor.left()) {
        return cursor.fail(cursor.pos(), "key '%s': %" PRIu64 " elements of %s exceed the %" PRIu64
                           " bytes left in the file", key.c_str(), n, type_traits(type).name, cursor.left());
    }
    std::vector<uint8_t> data(static_cast<size_t>(bytes));
    if (!cursor.read_bytes(data.data(), data.size(), "a value")) {
        return false;
    }
    value = Value::of_bytes(type, is_array, std::move(data));
    return true;
}

bool read_strings(Cursor & cursor, bool is_array, uint64_t n, Value & value, const std::string & key) {
    if (n > cursor.left() / 8) {
        return cursor.fail(cursor.pos(), "key '%s': %" PRIu64 " strings exceed the %" PRIu64
                           " bytes left in the file", key.c_str(), n, cursor.left());
    }
    std::vector<std::string> strings(static_cast<size_t>(n));
    for (std::string & s : strings) {
        if (!cursor.read_string(s, UINT64_MAX, "a string value")) {
            return false;
        }
    }
    value = is_array ? Value::string_array(std::move(strings)) : Value::string(std::move(strings[0]));
    return true;
}

bool read_type(Cursor & cursor, int32_t & type, const std::string & key, bool element) {
    const uint64_t at = cursor.pos();
    if (!cursor.read(type, "a value type")) {
        return false;
    }
    if (element ? !is_element_type(type) : (type < 0 || type >= GGUF_TYPE_COUNT)) {
        return cursor.fail(at, "key '%s': %s %" PRId32 "%s", key.c_str(),
                           element ? "unknown array element type" : "unknown value type", type,
                           type == GGUF_TYPE_ARRAY ? " (arrays of arrays are not supported)" : "");
    }
    return true;
}

bool read_kv(Cursor & cursor, std::unordered_set<std::string> & seen, std::vector<KeyValue> & kv) {
    const uint64_t at = cursor.pos();
    KeyValue       entry;
    if (!cursor.read_string(entry.key, UINT64_MAX, "a key")) {
        return false;
    }
    if (entry.key.empty()) {
        return cursor.fail(at, "empty key");
    }
    if (entry.key.find('\0') != std::string::npos) {
        return cursor.fail(at, "key '%s' contains a NUL byte", entry.key.c_str());
    }
    if (seen.count(entry.key) != 0) {
        return cursor.fail(at, "duplicate key '%s'", entry.key.c_str());
    }
    int32_t type = 0;
    if (!read_type(cursor, type, entry.key, false)) {
        return false;
    }
    const bool is_array = type == GGUF_TYPE_ARRAY;
    uint64_t   n        = 1;
    if (is_array && !(read_type(cursor, type, entry.key, true) && cursor.read(n, "an array length"))) {
        return false;
    }
    const bool ok = type == GGUF_TYPE_STRING
                        ? read_strings(cursor, is_array, n, entry.value, entry.key)
                        : read_fixed(cursor, static_cast<gguf_type>(type), is_array, n, entry.value, entry.key);
    if (!ok) {
        return false;
    }
    seen.insert(entry.key);
    kv.push_back(std::move(entry));
    return true;
}

bool read_kvs(Cursor & cursor, int64_t n_kv, std::vector<KeyValue> & kv) {
    std::unordered_set<std::string> seen;
    for (int64_t i = 0; i < n_kv; ++i) {
        if (!read_kv(cursor, seen, kv)) {
            return false;
        }
    }
    return true;
}

// "general.alignment" when present (a u32 power of 2), else the default; kv_begin is where the pairs started
bool alignment_of(const Cursor & cursor, const std::vector<KeyValue> & kv, uint64_t kv_begin, size_t & alignment) {
    alignment = GGUF_DEFAULT_ALIGNMENT;
    for (const KeyValue & entry : kv) {
        if (entry.key != GGUF_KEY_GENERAL_ALIGNMENT) {
            continue;
        }
        const Value & v = entry.value;
        if (v.type() != GGUF_TYPE_UINT32 || v.is_array()) {
            return cursor.fail(kv_begin, "%s must be a single u32, not %s%s", GGUF_KEY_GENERAL_ALIGNMENT,
                               v.is_array() ? "an array of " : "", type_traits(v.type()).name);
        }
        const uint32_t value = v.element<uint32_t>(0);
        if (!is_valid_alignment(value)) {
            return cursor.fail(kv_begin, "%s is %" PRIu32 ", not a power of 2 up to %" PRIu32,
                               GGUF_KEY_GENERAL_ALIGNMENT, value, kMaxAlignment);
        }
        alignment = value;
    }
    return true;
}

struct GgmlContextDeleter {
    void operator()(ggml_context ** slot) const {
        if (slot != nullptr && *slot != nullptr) {
            ggml_free(*slot);
            *slot = nullptr;
        }
    }
};

} // namespace

gguf_context * read_file(Source & source, const gguf_init_params & params, const char * caller) {
    if (params.ctx != nullptr) {
        *params.ctx = nullptr;
    }
    Cursor cursor(source, caller);
    Header header;
    if (!read_header(cursor, header)) {
        return nullptr;
    }
    const uint64_t        kv_begin = cursor.pos();
    std::vector<KeyValue> kv;
    size_t                alignment = 0;
    if (!read_kvs(cursor, header.n_kv, kv) || !alignment_of(cursor, kv, kv_begin, alignment)) {
        return nullptr;
    }
    std::vector<TensorInfo> tensors;
    if (!read_tensor_infos(cursor, header.n_tensors, alignment, tensors)) {
        return nullptr;
    }
    // the data section starts at the next multiple of the alignment, counted from the GGUF file's first byte
    // (as the writer pads); a file without tensors needs no padding
    const uint64_t                relative = cursor.relative(cursor.pos());
    const std::optional<uint64_t> padded   = tensors.empty() ? relative : align_up(relative, alignment);
    if (!padded) {
        cursor.fail(cursor.pos(), "the data section's offset overflows");
        return nullptr;
    }
    const uint64_t data_offset = source.begin() + *padded;
    // as upstream, the padding before the data section must be in the file even when no data is read (ctx NULL or
    // no_alloc): a loader then maps the file from data_offset, which must not lie past its end
    if (!tensors.empty() && data_offset > source.end()) {
        cursor.fail(cursor.pos(), "the file ends inside the alignment padding before the data section (which starts "
                    "at offset %" PRIu64 ", past the end at %" PRIu64 ")", data_offset, source.end());
        return nullptr;
    }

    // the ggml_context is released on every failure after this point (an exception included)
    std::unique_ptr<ggml_context *, GgmlContextDeleter> made(params.ctx);
    if (!load_tensors(cursor, tensors, data_offset, alignment, params)) {
        return nullptr;
    }
    auto ctx = std::make_unique<gguf_context>();
    Context::adopt(*ctx, header.version, std::move(kv), std::move(tensors), alignment,
                   static_cast<size_t>(data_offset));
    made.release();
    return ctx.release();
}

} // namespace switchyard::gguf
