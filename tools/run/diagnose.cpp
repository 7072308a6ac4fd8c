#include "diagnose.h"

#include "ggml-backend.h"

#include <cmath>
#include <cstdio>

namespace switchyard::run {

namespace {

struct Search {
    std::string              found; // the description of the first node with a non-finite value
    std::vector<float>       values;
    std::vector<ggml_fp16_t> halves;
};

// nodes whose output is data of their own: not views of another tensor's, nor the cache written in place
bool inspectable(const ggml_tensor * t) {
    switch (t->op) {
        case GGML_OP_NONE:
        case GGML_OP_VIEW:
        case GGML_OP_RESHAPE:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
        case GGML_OP_SET_ROWS:
            return false;
        default:
            return (t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16) && t->buffer != nullptr &&
                   ggml_is_contiguous(t);
    }
}

std::string value_text(float v) {
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

std::string describe(const ggml_tensor * t, int64_t at, float v) {
    std::vector<std::string> srcs;
    for (int i = 0; i < GGML_MAX_SRC && t->src[i] != nullptr; ++i) {
        srcs.push_back(std::string("'") + t->src[i]->name + "'");
    }
    std::string of;
    for (size_t i = 0; i < srcs.size(); ++i) {
        of += (i == 0 ? " of " : i + 1 == srcs.size() ? " and " : ", ") + srcs[i];
    }
    return std::string("node '") + t->name + "' (" + ggml_op_desc(t) + of + ") holds " + value_text(v) +
           " at element " + std::to_string(at);
}

bool inspect(ggml_tensor * t, bool ask, void * user_data) {
    if (ask) {
        return inspectable(t);
    }
    auto &        s = *static_cast<Search *>(user_data);
    const int64_t n = ggml_nelements(t);
    s.values.resize(static_cast<size_t>(n));
    if (t->type == GGML_TYPE_F16) {
        s.halves.resize(static_cast<size_t>(n));
        ggml_backend_tensor_get(t, s.halves.data(), 0, ggml_nbytes(t));
        ggml_fp16_to_fp32_row(s.halves.data(), s.values.data(), n);
    } else {
        ggml_backend_tensor_get(t, s.values.data(), 0, ggml_nbytes(t));
    }
    const int64_t at = first_non_finite(s.values);
    if (at < 0) {
        return true;
    }
    s.found = describe(t, at, s.values[static_cast<size_t>(at)]);
    return false; // stops the computation
}

} // namespace

int64_t first_non_finite(const std::vector<float> & values) {
    for (size_t i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values[i])) {
            return static_cast<int64_t>(i);
        }
    }
    return -1;
}

std::string find_non_finite_node(Context & ctx, const std::vector<int32_t> & tokens) {
    Search             search;
    std::vector<float> logits;
    std::string        error;
    ctx.clear();
    ggml_backend_sched_set_eval_callback(ctx.sched(), inspect, &search);
    const bool ran = ctx.decode(tokens, false, logits, error);
    ggml_backend_sched_set_eval_callback(ctx.sched(), nullptr, nullptr);
    if (!search.found.empty()) {
        return search.found;
    }
    return ran ? "no node held a non-finite value when the tokens ran again (the values differ between runs)"
               : "running the tokens again failed: " + error;
}

} // namespace switchyard::run
