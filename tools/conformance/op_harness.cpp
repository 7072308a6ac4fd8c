#include "conformance/op_harness.h"

#include "conformance/reference/reference.h"

#include "ggml-alloc.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace switchyard::testing {

namespace {

constexpr uint8_t kGuardByte = 0xA5;
constexpr int     kGraphSize = 256;

size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

// Host bytes for one input, generated from the seed.
std::vector<uint8_t> make_input_bytes(const InputSpec & in, std::mt19937 & rng) {
    const ggml_tensor * t = in.tensor;
    const int64_t       n = ggml_nelements(t);
    std::vector<float>  v(static_cast<size_t>(n));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f), positive(0.1f, 2.0f);
    for (int64_t i = 0; i < n; ++i) {
        switch (in.kind) {
            case InputKind::Uniform:  v[static_cast<size_t>(i)] = uniform(rng); break;
            case InputKind::Positive: v[static_cast<size_t>(i)] = positive(rng); break;
            case InputKind::Indices:  v[static_cast<size_t>(i)] = static_cast<float>(rng() % static_cast<uint32_t>(in.limit)); break;
            case InputKind::Distinct: break; // below
            case InputKind::Mask: {
                const int64_t col = i % t->ne[0], row = (i / t->ne[0]) % t->ne[1];
                v[static_cast<size_t>(i)] = (col > row + t->ne[0] / 2 && col > 0) ? -INFINITY : 0.0f;
                break;
            }
        }
    }
    if (in.kind == InputKind::Distinct) {
        std::vector<int64_t> perm(static_cast<size_t>(in.limit));
        for (int64_t r = 0; r < n / t->ne[0]; ++r) {
            for (int64_t j = 0; j < in.limit; ++j) perm[static_cast<size_t>(j)] = j;
            std::shuffle(perm.begin(), perm.end(), rng);
            for (int64_t c = 0; c < t->ne[0]; ++c) v[static_cast<size_t>(r * t->ne[0] + c)] = static_cast<float>(perm[static_cast<size_t>(c)]);
        }
    }
    std::vector<uint8_t> bytes(ggml_nbytes(t));
    switch (t->type) {
        case GGML_TYPE_F32: std::memcpy(bytes.data(), v.data(), bytes.size()); break;
        case GGML_TYPE_I32:
            for (int64_t i = 0; i < n; ++i) reinterpret_cast<int32_t *>(bytes.data())[i] = static_cast<int32_t>(v[static_cast<size_t>(i)]);
            break;
        case GGML_TYPE_I64:
            for (int64_t i = 0; i < n; ++i) reinterpret_cast<int64_t *>(bytes.data())[i] = static_cast<int64_t>(v[static_cast<size_t>(i)]);
            break;
        case GGML_TYPE_F16:
            ggml_fp32_to_fp16_row(v.data(), reinterpret_cast<ggml_fp16_t *>(bytes.data()), n);
            break;
        case GGML_TYPE_BF16:
            ggml_fp32_to_bf16_row_ref(v.data(), reinterpret_cast<ggml_bf16_t *>(bytes.data()), n);
            break;
        default:
            ggml_quantize_chunk(t->type, v.data(), bytes.data(), 0, n / t->ne[0], t->ne[0], nullptr);
            break;
    }
    return bytes;
}

struct Built {
    ggml_context *                    ctx = nullptr;
    ggml_cgraph *                     graph = nullptr;
    ggml_tensor *                     out = nullptr;
    std::vector<InputSpec>            inputs;
};

Built build(const OpCase & c, bool no_alloc) {
    const size_t     mem = 64 * 1024 * 1024;
    ggml_init_params params{no_alloc ? kGraphSize * ggml_tensor_overhead() + ggml_graph_overhead_custom(kGraphSize, false) : mem, nullptr, no_alloc};
    Built            b;
    b.ctx = ggml_init(params);
    CaseBuilder cb(b.ctx);
    b.out    = c.build(cb);
    b.inputs = cb.inputs();
    if (!b.out) {
        return b;
    }
    b.graph = ggml_new_graph_custom(b.ctx, kGraphSize, false);
    ggml_build_forward_expand(b.graph, b.out);
    return b;
}

// Places every tensor of ctx in one buffer with guard regions between them. Each tensor starts aligned; its
// guard region starts right at its real end (offset + the buffer type's alloc size, not rounded up), so a write
// of even one byte past a tensor lands in a guard and is caught. Returns the buffer (nullptr on failure) and
// the guard tensors, created in guard_ctx.
ggml_backend_buffer_t allocate_with_guards(ggml_context * ctx, ggml_backend_t backend, ggml_context * guard_ctx,
                                           std::vector<ggml_tensor *> & guards) {
    ggml_backend_buffer_type_t buft  = ggml_backend_get_default_buffer_type(backend);
    const size_t               align = ggml_backend_buft_get_alignment(buft);
    const size_t               guard = align_up(64, align);
    struct Placement {
        ggml_tensor * tensor;
        size_t        offset, size; // size: the alloc size, unaligned
    };
    std::vector<Placement> placed;
    size_t                 off = 0;
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (t->view_src || t->data) continue;
        const size_t size = ggml_backend_buft_get_alloc_size(buft, t);
        off += guard;
        placed.push_back({t, off, size});
        off += align_up(std::max<size_t>(size, 1), align);
    }
    off += guard;
    ggml_backend_buffer_t buffer = ggml_backend_buft_alloc_buffer(buft, off);
    if (!buffer) return nullptr;
    ggml_backend_buffer_clear(buffer, kGuardByte);
    char * base = static_cast<char *>(ggml_backend_buffer_get_base(buffer));
    auto add_guard = [&](size_t start, size_t len) {
        ggml_tensor * g = ggml_new_tensor_1d(guard_ctx, GGML_TYPE_I8, static_cast<int64_t>(len));
        ggml_backend_tensor_alloc(buffer, g, base + start);
        guards.push_back(g);
    };
    size_t prev_end = 0;
    for (const Placement & p : placed) {
        add_guard(prev_end, p.offset - prev_end);
        ggml_backend_tensor_alloc(buffer, p.tensor, base + p.offset);
        prev_end = p.offset + p.size;
    }
    add_guard(prev_end, off - prev_end);
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (t->view_src) ggml_backend_view_init(t);
    }
    return buffer;
}

bool guards_intact(const std::vector<ggml_tensor *> & guards) {
    for (const ggml_tensor * g : guards) {
        std::vector<uint8_t> bytes(ggml_nbytes(g));
        ggml_backend_tensor_get(g, bytes.data(), 0, bytes.size());
        for (uint8_t b : bytes) {
            if (b != kGuardByte) return false;
        }
    }
    return true;
}

bool all_supported(ggml_backend_t backend, ggml_cgraph * graph, std::string & why) {
    for (int i = 0; i < ggml_graph_n_nodes(graph); ++i) {
        const ggml_tensor * node = ggml_graph_node(graph, i);
        const ggml_op       op   = node->op;
        if (op == GGML_OP_NONE || op == GGML_OP_VIEW || op == GGML_OP_RESHAPE || op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE) continue;
        if (!ggml_backend_supports_op(backend, node)) {
            why = std::string(ggml_op_desc(node)) + " (" + ggml_type_name(node->type) + ") not supported";
            return false;
        }
    }
    return true;
}

std::vector<float> values_of(const ggml_tensor * t, const std::vector<uint8_t> & raw) {
    ggml_tensor host = *t;
    host.data        = const_cast<uint8_t *>(raw.data());
    host.buffer      = nullptr;
    host.view_src    = nullptr;
    std::vector<float> v;
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1)
                for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) v.push_back(reference::get(&host, i0, i1, i2, i3));
    return v;
}

void sort_rows(std::vector<float> & v, int64_t row) {
    for (size_t i = 0; i + static_cast<size_t>(row) <= v.size(); i += static_cast<size_t>(row)) {
        std::sort(v.begin() + static_cast<long>(i), v.begin() + static_cast<long>(i) + row);
    }
}

// Normalised MSE; non-finite values must match exactly (same infinities, NaN where NaN).
double nmse(const std::vector<float> & got, const std::vector<float> & want, std::string & why) {
    double err = 0, norm = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const float a = got[i], b = want[i];
        if (!std::isfinite(a) || !std::isfinite(b)) {
            if (!(std::isnan(a) && std::isnan(b)) && a != b) {
                why = "element " + std::to_string(i) + ": got " + std::to_string(a) + ", want " + std::to_string(b);
                return INFINITY;
            }
            continue;
        }
        err += (static_cast<double>(a) - b) * (static_cast<double>(a) - b);
        norm += static_cast<double>(b) * b;
    }
    return norm > 0 ? err / norm : err;
}

// The node of the op under test: the last node of the case's op (the output, or the node nearest it when the
// case wraps the op in views); the output when none matches.
const ggml_tensor * op_node(const Built & b, ggml_op op) {
    for (int i = ggml_graph_n_nodes(b.graph) - 1; i >= 0; --i) {
        if (ggml_graph_node(b.graph, i)->op == op) return ggml_graph_node(b.graph, i);
    }
    return b.out;
}

// The type a case is about: the weights of a matrix product (with the activations' type when not f32), the K/V
// cache of attention, source -> destination of a conversion, the destination of IM2COL, else the first source.
std::string type_label(const ggml_tensor * node) {
    const ggml_tensor * a = node->src[0];
    const ggml_tensor * b = node->src[1];
    switch (node->op) {
        case GGML_OP_FLASH_ATTN_EXT: return b ? ggml_type_name(b->type) : ggml_type_name(node->type);
        case GGML_OP_IM2COL:         return ggml_type_name(node->type);
        case GGML_OP_CPY:
            if (a && a->type != node->type) return std::string(ggml_type_name(a->type)) + "->" + ggml_type_name(node->type);
            break;
        case GGML_OP_MUL_MAT:
        case GGML_OP_MUL_MAT_ID:
        case GGML_OP_OUT_PROD:
            if (a && b && b->type != GGML_TYPE_F32) return std::string(ggml_type_name(a->type)) + "*" + ggml_type_name(b->type);
            break;
        default: break;
    }
    return ggml_type_name(a ? a->type : node->type);
}

} // namespace

CaseResult run_case(ggml_backend_t backend, const OpCase & c, uint32_t seed) {
    CaseResult result;
    Built      dev = build(c, true);
    if (!dev.out || !dev.graph) {
        result.message = "the case could not be built";
        ggml_free(dev.ctx);
        return result;
    }
    if (!all_supported(backend, dev.graph, result.message)) {
        result.status = CaseStatus::Unsupported;
        ggml_free(dev.ctx);
        return result;
    }
    ggml_init_params           gparams{256 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *             guard_ctx = ggml_init(gparams);
    std::vector<ggml_tensor *> guards;
    ggml_backend_buffer_t      buffer = allocate_with_guards(dev.ctx, backend, guard_ctx, guards);
    Built                      ref    = build(c, false);
    std::mt19937               rng(seed);
    if (buffer) {
        for (size_t i = 0; i < dev.inputs.size(); ++i) {
            const std::vector<uint8_t> bytes = make_input_bytes(dev.inputs[i], rng);
            ggml_backend_tensor_set(dev.inputs[i].tensor, bytes.data(), 0, bytes.size());
            std::memcpy(ref.inputs[i].tensor->data, bytes.data(), bytes.size());
        }
    }
    if (!buffer) {
        result.message = "allocation failed";
    } else if (ggml_backend_graph_compute(backend, dev.graph) != GGML_STATUS_SUCCESS) {
        result.message = "compute failed";
    } else if (!reference::compute_graph(ref.graph)) {
        result.message = "no reference implementation";
    } else {
        std::vector<uint8_t> raw(ggml_nbytes(dev.out));
        ggml_backend_tensor_get(dev.out, raw.data(), 0, raw.size());
        std::vector<uint8_t> ref_raw(static_cast<uint8_t *>(ref.out->data), static_cast<uint8_t *>(ref.out->data) + ggml_nbytes(ref.out));
        std::vector<float> got = values_of(dev.out, raw), want = values_of(ref.out, ref_raw);
        if (c.rows_unordered) {
            sort_rows(got, dev.out->ne[0]);
            sort_rows(want, dev.out->ne[0]);
        }
        result.nmse = nmse(got, want, result.message);
        if (!guards_intact(guards)) {
            result.message = "out-of-bounds write: guard bytes changed";
        } else if (result.nmse > c.max_nmse) {
            if (result.message.empty()) result.message = "nmse " + std::to_string(result.nmse) + " > " + std::to_string(c.max_nmse);
        } else {
            result.status = CaseStatus::Passed;
        }
    }
    ggml_backend_buffer_free(buffer);
    ggml_free(guard_ctx);
    ggml_free(ref.ctx);
    ggml_free(dev.ctx);
    return result;
}

PreparedCase prepare_case(ggml_backend_t backend, const OpCase & c, uint32_t seed) {
    PreparedCase p;
    Built        b = build(c, true);
    p.ctx          = b.ctx;
    p.graph        = b.graph;
    p.output       = b.out;
    std::string why;
    if (!b.out || !b.graph || !all_supported(backend, b.graph, why)) {
        return p;
    }
    p.buffer = ggml_backend_alloc_ctx_tensors(b.ctx, backend);
    if (!p.buffer) {
        return p;
    }
    std::mt19937 rng(seed);
    for (const InputSpec & in : b.inputs) {
        const std::vector<uint8_t> bytes = make_input_bytes(in, rng);
        ggml_backend_tensor_set(in.tensor, bytes.data(), 0, bytes.size());
    }
    p.supported = true;
    return p;
}

void free_prepared_case(PreparedCase & p) {
    ggml_backend_buffer_free(p.buffer);
    ggml_free(p.ctx);
    p = PreparedCase{};
}

CaseInfo describe_case(const OpCase & c) {
    CaseInfo info;
    info.op  = ggml_op_name(c.op);
    Built b  = build(c, true);
    if (b.out && b.graph) {
        const ggml_tensor * node = op_node(b, c.op);
        info.built               = true;
        info.type                = type_label(node);
        if (node->op == GGML_OP_UNARY) info.sub_op = ggml_unary_op_name(ggml_get_unary_op(node));
        if (node->op == GGML_OP_GLU) info.sub_op = ggml_glu_op_name(ggml_get_glu_op(node));
    }
    ggml_free(b.ctx);
    return info;
}

bool case_supported(ggml_backend_t backend, const OpCase & c, std::string * why) {
    Built       b = build(c, true);
    std::string reason;
    const bool  ok = b.out && b.graph && all_supported(backend, b.graph, reason);
    if (why) *why = b.out && b.graph ? reason : "the case could not be built";
    ggml_free(b.ctx);
    return ok;
}

} // namespace switchyard::testing
