// Helpers shared by the backend framework tests: log capture, tensor contexts, placing tensors in buffers.
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

namespace switchyard::testing {

// Captures everything logged while it lives (and restores the default sink after).
class LogCapture {
public:
    LogCapture() { ggml_log_set(&LogCapture::callback, this); }
    ~LogCapture() { ggml_log_set(nullptr, nullptr); }
    LogCapture(const LogCapture &)             = delete;
    LogCapture & operator=(const LogCapture &) = delete;

    bool contains(const std::string & needle) const {
        std::lock_guard lock(mutex_);
        for (const auto & [level, text] : lines_) {
            if (text.find(needle) != std::string::npos) {
                return true;
            }
        }
        return false;
    }

    size_t count(ggml_log_level level) const {
        std::lock_guard lock(mutex_);
        size_t          n = 0;
        for (const auto & line : lines_) {
            n += line.first == level ? 1 : 0;
        }
        return n;
    }

    size_t errors() const { return count(GGML_LOG_LEVEL_ERROR); }

    std::string text() const {
        std::lock_guard lock(mutex_);
        std::string     all;
        for (const auto & line : lines_) {
            all += line.second;
        }
        return all;
    }

    void clear() {
        std::lock_guard lock(mutex_);
        lines_.clear();
    }

private:
    static void callback(ggml_log_level level, const char * text, void * user_data) {
        auto *          self = static_cast<LogCapture *>(user_data);
        std::lock_guard lock(self->mutex_);
        self->lines_.emplace_back(level, text);
    }

    mutable std::mutex                                   mutex_;
    std::vector<std::pair<ggml_log_level, std::string>> lines_;
};

// A context for tensor metadata only (data goes into backend buffers).
class MetaContext {
public:
    MetaContext() {
        ggml_init_params params = {/*mem_size*/ 64 * ggml_tensor_overhead() + ggml_graph_overhead(),
                                   /*mem_buffer*/ nullptr, /*no_alloc*/ true};
        ctx_ = ggml_init(params);
    }
    ~MetaContext() { ggml_free(ctx_); }
    MetaContext(const MetaContext &)             = delete;
    MetaContext & operator=(const MetaContext &) = delete;

    ggml_context * get() const { return ctx_; }

private:
    ggml_context * ctx_ = nullptr;
};

// Places tensor at byte offset `offset` of buffer (ggml_backend_tensor_alloc); the offset must be aligned.
inline bool place(ggml_backend_buffer_t buffer, ggml_tensor * tensor, size_t offset) {
    char * base = static_cast<char *>(ggml_backend_buffer_get_base(buffer));
    return ggml_backend_tensor_alloc(buffer, tensor, base + offset) == GGML_STATUS_SUCCESS;
}

inline std::vector<float> read_f32(const ggml_tensor * t) {
    std::vector<float> out(ggml_nelements(t));
    ggml_backend_tensor_get(t, out.data(), 0, out.size() * sizeof(float));
    return out;
}

inline void write_f32(ggml_tensor * t, const std::vector<float> & values) {
    ggml_backend_tensor_set(t, values.data(), 0, values.size() * sizeof(float));
}

} // namespace switchyard::testing
