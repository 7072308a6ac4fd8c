// switchyard-ops perf --case SPEC: parsing the specs into op cases, and their fast preparation (case_spec.h).
#include "case_spec.h"

#include "ggml.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <thread>
#include <vector>

namespace switchyard::tools {

using testing::CaseBuilder;
using testing::InputKind;
using testing::InputSpec;
using testing::OpCase;
using testing::PreparedCase;

namespace {

using Keys = std::map<std::string, std::string>;

// "a=1,b=2" into keys; false on an item without '=' or a repeated key
bool split_keys(const std::string & text, Keys & keys, std::string & error) {
    size_t start = 0;
    while (start <= text.size()) {
        const size_t      comma = std::min(text.find(',', start), text.size());
        const std::string item  = text.substr(start, comma - start);
        const size_t      eq    = item.find('=');
        if (eq == std::string::npos || eq == 0 || !keys.emplace(item.substr(0, eq), item.substr(eq + 1)).second) {
            error = "'" + item + "' is not a new key=value";
            return false;
        }
        start = comma + 1;
    }
    return true;
}

// Takes key out of keys as a positive integer; def (when >= 0) if absent.
bool take_int(Keys & keys, const std::string & key, int64_t def, int64_t & out, std::string & error) {
    const auto it = keys.find(key);
    if (it == keys.end()) {
        if (def < 0) error = "missing " + key + "=";
        out = def;
        return def >= 0;
    }
    char *          end = nullptr;
    const long long v   = std::strtoll(it->second.c_str(), &end, 10);
    keys.erase(it);
    if (end == nullptr || *end != '\0' || v <= 0) {
        error = key + " needs a positive whole number";
        return false;
    }
    out = v;
    return true;
}

bool take_type(Keys & keys, const std::string & key, const char * def, ggml_type & out, std::string & error) {
    const auto        it   = keys.find(key);
    const std::string name = it == keys.end() ? def : it->second;
    if (it != keys.end()) keys.erase(it);
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const char * n = ggml_type_name(static_cast<ggml_type>(t));
        if (n != nullptr && ggml_type_size(static_cast<ggml_type>(t)) > 0 && name == n) {
            out = static_cast<ggml_type>(t);
            return true;
        }
    }
    error = "unknown type '" + name + "' for " + key + "=";
    return false;
}

bool no_keys_left(const Keys & keys, std::string & error) {
    if (keys.empty()) return true;
    error = "unknown key '" + keys.begin()->first + "'";
    return false;
}

bool parse_mul_mat(Keys & keys, OpCase & c, std::string & error) {
    ggml_type ta = GGML_TYPE_F32, tb = GGML_TYPE_F32;
    int64_t   m = 0, n = 0, k = 0, copies = 0, mib = 0;
    if (!take_type(keys, "type", "", ta, error) || !take_type(keys, "type_b", "f32", tb, error) || !take_int(keys, "m", -1, m, error) ||
        !take_int(keys, "n", -1, n, error) || !take_int(keys, "k", -1, k, error) || !take_int(keys, "copies", 0, copies, error) ||
        !take_int(keys, "mib", 0, mib, error) || !no_keys_left(keys, error)) {
        return false;
    }
    if (k % ggml_blck_size(ta) != 0) {
        error = "k=" + std::to_string(k) + " is not a multiple of the " + ggml_type_name(ta) + " block";
        return false;
    }
    if (copies > 0 && mib > 0) {
        error = "copies= and mib= together";
        return false;
    }
    const double one = static_cast<double>(ggml_row_size(ta, k)) * static_cast<double>(m);
    if (mib > 0) copies = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(mib) * 1048576.0 / one)));
    copies = std::max<int64_t>(copies, 1);
    c.name = std::string("MUL_MAT(type_a=") + ggml_type_name(ta) + ",type_b=" + ggml_type_name(tb) + ",m=" + std::to_string(m) +
             ",n=" + std::to_string(n) + ",k=" + std::to_string(k) + ",copies=" + std::to_string(copies) + ")";
    c.op    = GGML_OP_MUL_MAT;
    c.build = [=](CaseBuilder & b) { return ggml_mul_mat(b.ctx(), b.input(ta, k, m, 1, copies), b.input(tb, k, n, 1, copies)); };
    c.flops = n == 1 ? 0.0 : 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(copies);
    return true;
}

bool parse_flash_attn(Keys & keys, OpCase & c, std::string & error) {
    ggml_type kv = GGML_TYPE_F16;
    int64_t   d = 0, n_q = 0, n_kv = 0, copies = 0, h = 0, h_kv = 0;
    const auto heads = keys.find("heads");
    if (heads == keys.end() || std::sscanf(heads->second.c_str(), "%ld/%ld", &h, &h_kv) != 2 || h <= 0 || h_kv <= 0 || h % h_kv != 0) {
        error = "heads= needs Q/KV head counts, Q a multiple of KV (heads=32/8)";
        return false;
    }
    keys.erase(heads);
    if (!take_type(keys, "kv", "f16", kv, error) || !take_int(keys, "d", -1, d, error) || !take_int(keys, "n_q", -1, n_q, error) ||
        !take_int(keys, "n_kv", -1, n_kv, error) || !take_int(keys, "copies", 1, copies, error) || !no_keys_left(keys, error)) {
        return false;
    }
    c.name = "FLASH_ATTN_EXT(d=" + std::to_string(d) + ",n_q=" + std::to_string(n_q) + ",n_kv=" + std::to_string(n_kv) +
             ",heads=" + std::to_string(h) + "/" + std::to_string(h_kv) + ",kv=" + ggml_type_name(kv) + ",copies=" + std::to_string(copies) + ")";
    c.op    = GGML_OP_FLASH_ATTN_EXT;
    c.build = [=](CaseBuilder & b) {
        ggml_tensor * q    = b.input(GGML_TYPE_F32, d, n_q, h, copies);
        ggml_tensor * k    = b.input(kv, d, n_kv, h_kv, copies);
        ggml_tensor * v    = b.input(kv, d, n_kv, h_kv, copies);
        ggml_tensor * mask = b.input(GGML_TYPE_F16, n_kv, GGML_PAD(n_q, GGML_KQ_MASK_PAD), 1, 1, InputKind::Mask);
        return ggml_flash_attn_ext(b.ctx(), q, k, v, mask, 1.0f / std::sqrt(static_cast<float>(d)), 0.0f, 0.0f);
    };
    c.flops = n_q == 1 ? 0.0 : 4.0 * static_cast<double>(d) * static_cast<double>(n_q) * static_cast<double>(n_kv) *
                                   static_cast<double>(h) * static_cast<double>(copies);
    return true;
}

bool parse_dup(Keys & keys, OpCase & c, std::string & error) {
    int64_t mib = 0;
    if (!take_int(keys, "mib", -1, mib, error) || !no_keys_left(keys, error)) return false;
    c.name  = "DUP(f32,mib=" + std::to_string(mib) + ")";
    c.op    = GGML_OP_DUP;
    c.build = [=](CaseBuilder & b) { return ggml_dup(b.ctx(), b.input(GGML_TYPE_F32, 1024 * 1024 / 4, mib)); };
    return true;
}

// One dim-3 slice of in's values: uniform in [-1, 1], or the causal-like mask the harness uses.
std::vector<float> slice_values(const InputSpec & in, std::mt19937 & rng) {
    const ggml_tensor * t = in.tensor;
    const int64_t       n = t->ne[0] * t->ne[1] * t->ne[2];
    std::vector<float>  v(static_cast<size_t>(n));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t col = i % t->ne[0], row = (i / t->ne[0]) % t->ne[1];
        v[static_cast<size_t>(i)] = in.kind == InputKind::Mask ? ((col > row + t->ne[0] / 2 && col > 0) ? -INFINITY : 0.0f) : uniform(rng);
    }
    return v;
}

// v in t's type, rows quantized on all cores (the K-quants' search costs about 150 ns a weight)
std::vector<uint8_t> slice_bytes(const ggml_tensor * t, const std::vector<float> & v) {
    const int64_t        n = static_cast<int64_t>(v.size()), rows = n / t->ne[0];
    std::vector<uint8_t> bytes(static_cast<size_t>(ggml_row_size(t->type, t->ne[0]) * rows));
    switch (t->type) {
        case GGML_TYPE_F32: std::memcpy(bytes.data(), v.data(), bytes.size()); return bytes;
        case GGML_TYPE_F16: ggml_fp32_to_fp16_row(v.data(), reinterpret_cast<ggml_fp16_t *>(bytes.data()), n); return bytes;
        case GGML_TYPE_BF16: ggml_fp32_to_bf16_row_ref(v.data(), reinterpret_cast<ggml_bf16_t *>(bytes.data()), n); return bytes;
        default: break;
    }
    ggml_quantize_init(t->type);
    const int64_t            n_threads = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), rows));
    std::vector<std::thread> threads;
    for (int64_t i = 0; i < n_threads; ++i) {
        const int64_t r0 = rows * i / n_threads, r1 = rows * (i + 1) / n_threads;
        threads.emplace_back([&, r0, r1] { ggml_quantize_chunk(t->type, v.data(), bytes.data(), r0 * t->ne[0], r1 - r0, t->ne[0], nullptr); });
    }
    for (std::thread & th : threads) th.join();
    return bytes;
}

bool all_supported(ggml_backend_t backend, ggml_cgraph * graph) {
    for (int i = 0; i < ggml_graph_n_nodes(graph); ++i) {
        if (!ggml_backend_supports_op(backend, ggml_graph_node(graph, i))) return false;
    }
    return true;
}

} // namespace

bool parse_case_spec(const std::string & spec, OpCase & c, std::string & error) {
    const size_t      colon = spec.find(':');
    const std::string kind  = spec.substr(0, colon);
    Keys              keys;
    if (colon == std::string::npos || !split_keys(spec.substr(colon + 1), keys, error)) {
        if (error.empty()) error = "expected KIND:key=value,..";
        return false;
    }
    c = OpCase{};
    if (kind == "mul_mat") return parse_mul_mat(keys, c, error);
    if (kind == "flash_attn") return parse_flash_attn(keys, c, error);
    if (kind == "dup") return parse_dup(keys, c, error);
    error = "unknown kind '" + kind + "' (mul_mat, flash_attn or dup)";
    return false;
}

PreparedCase prepare_spec_case(ggml_backend_t backend, const OpCase & c) {
    PreparedCase         p;
    const size_t         n_nodes = 16;
    const ggml_init_params params{n_nodes * ggml_tensor_overhead() + ggml_graph_overhead_custom(n_nodes, false), nullptr, true};
    p.ctx = ggml_init(params);
    CaseBuilder b(p.ctx);
    p.output = c.build(b);
    p.graph  = ggml_new_graph_custom(p.ctx, n_nodes, false);
    ggml_build_forward_expand(p.graph, p.output);
    if (!all_supported(backend, p.graph) || (p.buffer = ggml_backend_alloc_ctx_tensors(p.ctx, backend)) == nullptr) return p;
    std::mt19937 rng(1234);
    for (const InputSpec & in : b.inputs()) {
        const std::vector<uint8_t> slice = slice_bytes(in.tensor, slice_values(in, rng));
        for (int64_t i3 = 0; i3 < in.tensor->ne[3]; ++i3) {
            ggml_backend_tensor_set(in.tensor, slice.data(), static_cast<size_t>(i3) * in.tensor->nb[3], slice.size());
        }
    }
    p.supported = true;
    return p;
}

} // namespace switchyard::tools
