// Running small graphs on meta devices for the rule and fallback tests: named inputs, log capture, and the
// counters of the meta backend's last program (all-reduces, gathers, replicated nodes).
#pragma once

#include "backend/meta/backend.h"

#include "meta_fixture.h"

namespace switchyard::testing {

struct LogCapture {
    std::string text;
    LogCapture() { ggml_log_set(callback, this); }
    ~LogCapture() { ggml_log_set(nullptr, nullptr); }
    static void callback(ggml_log_level, const char * msg, void * ud) { static_cast<LogCapture *>(ud)->text += msg; }
    size_t count(const std::string & needle) const {
        size_t n = 0;
        for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
            ++n;
        }
        return n;
    }
};

inline std::vector<uint8_t> input_bytes(size_t count, uint32_t seed) { return as_bytes(random_values(count, seed, -1.0f, 1.0f)); }

inline ggml_tensor * input(ggml_context * ctx, const char * name, ggml_type type, int64_t ne0, int64_t ne1 = 1) {
    ggml_tensor * t = ggml_new_tensor_2d(ctx, type, ne0, ne1);
    ggml_set_name(t, name);
    ggml_set_input(t);
    return t;
}

class MetaRunTest : public ::testing::TestWithParam<DeviceKind> {
protected:
    // Runs spec on a meta device of n devices and returns the output, keeping the counters of its program.
    std::vector<float> run_meta(const ModelSpec & spec, int n, ggml_status * status = nullptr) {
        ggml_backend_dev_t dev     = make_meta(GetParam(), n, table_);
        ggml_backend_t     backend = ggml_backend_dev_init(dev, nullptr);
        RunOptions         opt;
        opt.status             = status;
        std::vector<float> out = run_model(spec, backend, opt);
        const meta::Program * p = meta::meta_backend(backend)->program.get();
        if (p != nullptr) {
            n_replicated_ = p->n_replicated;
            n_gather_     = p->n_gather;
            n_allreduce_  = p->n_allreduce;
            n_redirected_ = p->n_redirected;
        }
        ggml_backend_free(backend);
        return out;
    }

    SplitTable table_;
    int        n_replicated_ = -1, n_gather_ = -1, n_allreduce_ = -1, n_redirected_ = -1;
};

} // namespace switchyard::testing
