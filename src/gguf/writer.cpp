#include "gguf/writer.h"

#include "backend/tensor_io.h"
#include "base/log.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstring>
#include <string>

namespace switchyard::gguf {

static_assert(std::endian::native == std::endian::little, "numbers are written as their in-memory bytes");

bool Sink::write(const void * data, size_t n) {
    if (failed_) {
        return false;
    }
    if (n > 0 && !write_raw(data, n)) {
        failed_ = true;
        return false;
    }
    written_ += n;
    return true;
}

bool VectorSink::write_raw(const void * data, size_t n) {
    const auto * p = static_cast<const uint8_t *>(data);
    bytes.insert(bytes.end(), p, p + n);
    return true;
}

namespace {

template <class T> bool put(Sink & sink, T v) {
    return sink.write(&v, sizeof(v));
}

bool put_string(Sink & sink, const std::string & s) {
    return put<uint64_t>(sink, s.size()) && sink.write(s.data(), s.size());
}

bool pad(Sink & sink, size_t alignment) {
    static constexpr uint8_t zeros[256] = {};
    uint64_t                 n          = (alignment - sink.written() % alignment) % alignment;
    while (n > 0) {
        const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, sizeof(zeros)));
        if (!sink.write(zeros, chunk)) {
            return false;
        }
        n -= chunk;
    }
    return true;
}

bool put_kv(Sink & sink, const KeyValue & kv) {
    const Value & v = kv.value;
    if (!put_string(sink, kv.key)) {
        return false;
    }
    if (v.is_array()) {
        if (!put<int32_t>(sink, GGUF_TYPE_ARRAY) || !put<int32_t>(sink, v.type()) ||
            !put<uint64_t>(sink, v.count())) {
            return false;
        }
    } else if (!put<int32_t>(sink, v.type())) {
        return false;
    }
    if (v.type() != GGUF_TYPE_STRING) {
        return sink.write(v.bytes().data(), v.bytes().size());
    }
    for (const std::string & s : v.strings()) {
        if (!put_string(sink, s)) {
            return false;
        }
    }
    return true;
}

// Dimensions written: up to the last extent that is not 1 (at least 1). Upstream's ggml_n_dims counts up to the
// last extent > 1, which for an extent of 0 in a higher dimension writes a shape that reads back with another
// size; for every other shape the two agree.
uint32_t dims_to_write(const ggml_tensor & t) {
    for (int i = GGML_MAX_DIMS - 1; i >= 1; --i) {
        if (t.ne[i] != 1) {
            return static_cast<uint32_t>(i + 1);
        }
    }
    return 1;
}

bool put_tensor_info(Sink & sink, const TensorInfo & info) {
    const uint32_t n_dims = dims_to_write(info.t);
    if (!put_string(sink, info.t.name) || !put<uint32_t>(sink, n_dims)) {
        return false;
    }
    for (uint32_t i = 0; i < n_dims; ++i) {
        if (!put<int64_t>(sink, info.t.ne[i])) {
            return false;
        }
    }
    return put<int32_t>(sink, info.t.type) && put<uint64_t>(sink, info.offset);
}

// a tensor in a backend buffer, copied out through a bounded host buffer
bool put_buffer_tensor(Sink & sink, const TensorInfo & info, const char * caller) {
    constexpr size_t     kChunk = size_t{16} << 20;
    std::vector<uint8_t> host(std::min(info.size, kChunk));
    for (size_t done = 0; done < info.size; done += host.size()) {
        const size_t n = std::min(host.size(), info.size - done);
        if (!backend::tensor_get(&info.t, host.data(), done, n, caller) || !sink.write(host.data(), n)) {
            return false;
        }
    }
    return true;
}

} // namespace

bool write_meta(const Context & ctx, Sink & sink) {
    bool ok = sink.write(GGUF_MAGIC, 4) && put<uint32_t>(sink, ctx.version()) &&
              put<int64_t>(sink, static_cast<int64_t>(ctx.tensors().size())) &&
              put<int64_t>(sink, static_cast<int64_t>(ctx.kv().size()));
    for (const KeyValue & kv : ctx.kv()) {
        ok = ok && put_kv(sink, kv);
    }
    for (const TensorInfo & info : ctx.tensors()) {
        ok = ok && put_tensor_info(sink, info);
    }
    return ok && pad(sink, ctx.alignment());
}

bool check_tensor_data(const Context & ctx, const char * caller) {
    for (const TensorInfo & info : ctx.tensors()) {
        if (info.size == 0) {
            continue;
        }
        if (backend::tensor_buffer(&info.t) == nullptr && info.t.data == nullptr) {
            log_error("[%s] tensor '%s' has no data to write (give it some with gguf_set_tensor_data)\n", caller,
                      info.t.name);
            return false;
        }
        if (!ggml_is_contiguous(&info.t) || ggml_nbytes(&info.t) != info.size) {
            log_error("[%s] tensor '%s' is not contiguous: only contiguous data can be written\n", caller,
                      info.t.name);
            return false;
        }
    }
    return true;
}

bool write_data(const Context & ctx, Sink & sink, const char * caller) {
    const uint64_t start = sink.written();
    for (const TensorInfo & info : ctx.tensors()) {
        if (sink.written() - start != info.offset) {
            log_error("[%s] internal error: tensor '%s' would be written at offset %" PRIu64 ", not %" PRIu64 "\n",
                      caller, info.t.name, sink.written() - start, info.offset);
            return false;
        }
        const bool ok = backend::tensor_buffer(&info.t) != nullptr ? put_buffer_tensor(sink, info, caller)
                                                                   : sink.write(info.t.data, info.size);
        if (!ok || !pad(sink, ctx.alignment())) {
            return false;
        }
    }
    return true;
}

} // namespace switchyard::gguf
