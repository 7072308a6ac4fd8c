#include "model.h"

#include "cpu_repack.h"

#include "ggml-alloc.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <system_error>
#include <thread>

namespace switchyard::run {

namespace {

struct Expected {
    std::string          name;
    std::vector<int64_t> ne;
    bool                 required = true;
    bool                 f32      = false; // norms and biases are added or multiplied element-wise
};

std::string shape_text(const int64_t * ne, size_t n) {
    std::string s = "[";
    for (size_t i = 0; i < n; ++i) {
        s += (i ? ", " : "") + std::to_string(ne[i]);
    }
    return s + "]";
}

std::vector<Expected> expected_tensors(const Hparams & hp) {
    const int64_t         E = hp.n_embd, Ekv = hp.n_embd_kv(), F = hp.n_ff, V = hp.n_vocab;
    std::vector<Expected> list = {{"token_embd.weight", {E, V}}, {"output_norm.weight", {E}, true, true},
                                  {"output.weight", {E, V}, false}};
    for (int64_t il = 0; il < hp.n_layer; ++il) {
        const std::string b = "blk." + std::to_string(il) + ".";
        list.push_back({b + "attn_norm.weight", {E}, true, true});
        list.push_back({b + "attn_q.weight", {E, E}});
        list.push_back({b + "attn_k.weight", {E, Ekv}});
        list.push_back({b + "attn_v.weight", {E, Ekv}});
        list.push_back({b + "attn_q.bias", {E}, false, true});
        list.push_back({b + "attn_k.bias", {Ekv}, false, true});
        list.push_back({b + "attn_v.bias", {Ekv}, false, true});
        list.push_back({b + "attn_output.weight", {E, E}});
        list.push_back({b + "ffn_norm.weight", {E}, true, true});
        list.push_back({b + "ffn_gate.weight", {E, F}});
        list.push_back({b + "ffn_up.weight", {E, F}});
        list.push_back({b + "ffn_down.weight", {F, E}});
    }
    return list;
}

} // namespace

Model::~Model() {
    for (ggml_backend_buffer_t b : buffers_) {
        ggml_backend_buffer_free(b);
    }
    for (auto & [dev, ctx] : ctxs_) {
        ggml_free(ctx);
    }
    ggml_free(meta_ctx_);
    gguf_free(gguf_);
}

std::unique_ptr<Model> Model::open(const std::string & path, std::string & error) {
    std::unique_ptr<Model> m(new Model());
    m->path_ = path;
    if (!m->file_.open(path, error)) {
        return nullptr;
    }
    gguf_init_params params{};
    params.no_alloc = true;
    params.ctx      = &m->meta_ctx_;
    m->gguf_        = gguf_init_from_file(path.c_str(), params);
    if (m->gguf_ == nullptr) {
        error = "'" + path + "' is not a valid GGUF file";
        return nullptr;
    }
    if (!read_hparams(m->gguf_, m->hp_, error) || !m->check_tensors(error)) {
        error = path + ": " + error;
        return nullptr;
    }
    return m;
}

namespace {

// the length of tokenizer.ggml.tokens, -1 when the file has none
int64_t vocabulary_size(const gguf_context * g) {
    const int64_t id = gguf_find_key(g, "tokenizer.ggml.tokens");
    if (id < 0 || gguf_get_kv_type(g, id) != GGUF_TYPE_ARRAY) {
        return -1;
    }
    return static_cast<int64_t>(gguf_get_arr_n(g, id));
}

// the storage types a weight matrix may have: those MUL_MAT and GET_ROWS take (float and quantized)
bool multipliable(ggml_type type) {
    return type == GGML_TYPE_F32 || type == GGML_TYPE_F16 || type == GGML_TYPE_BF16 || ggml_is_quantized(type);
}

} // namespace

bool Model::check_tensors(std::string & error) {
    const ggml_tensor * embd = ggml_get_tensor(meta_ctx_, "token_embd.weight");
    if (embd == nullptr) {
        error = "missing tensor token_embd.weight";
        return false;
    }
    hp_.n_vocab              = embd->ne[1];
    const int64_t n_tokens   = vocabulary_size(gguf_);
    if (n_tokens >= 0 && n_tokens != hp_.n_vocab) {
        error = "token_embd.weight has " + std::to_string(hp_.n_vocab) + " rows, but the vocabulary " +
                "(tokenizer.ggml.tokens) has " + std::to_string(n_tokens) + " tokens";
        return false;
    }
    const size_t             data_offset = gguf_get_data_offset(gguf_);
    std::vector<std::string> unsupported; // "name is type" of the matrices no backend multiplies
    for (const Expected & e : expected_tensors(hp_)) {
        const ggml_tensor * t = ggml_get_tensor(meta_ctx_, e.name.c_str());
        if (t == nullptr) {
            if (e.required) {
                error = "missing tensor " + e.name;
                return false;
            }
            continue;
        }
        std::array<int64_t, GGML_MAX_DIMS> want{1, 1, 1, 1};
        std::copy(e.ne.begin(), e.ne.end(), want.begin());
        if (!std::equal(want.begin(), want.end(), t->ne)) {
            error = "tensor " + e.name + " has shape " + shape_text(t->ne, GGML_MAX_DIMS) + ", expected " +
                    shape_text(want.data(), e.ne.size());
            return false;
        }
        if (e.f32 && t->type != GGML_TYPE_F32) {
            error = "tensor " + e.name + " is " + ggml_type_name(t->type) + ", expected f32";
            return false;
        }
        if (!e.f32 && !multipliable(t->type)) {
            unsupported.push_back(e.name + " is " + ggml_type_name(t->type));
        }
        const int64_t id  = gguf_find_tensor(gguf_, e.name.c_str());
        const size_t  off = data_offset + gguf_get_tensor_offset(gguf_, id);
        if (off + ggml_nbytes(t) > file_.size()) {
            error = "the data of tensor " + e.name + " lies beyond the end of the file";
            return false;
        }
        if (e.f32 && !check_finite(e.name, off, ggml_nelements(t), error)) {
            return false;
        }
    }
    if (!unsupported.empty()) {
        error = "unsupported weight type" + std::string(unsupported.size() > 1 ? "s" : "") + ": " + unsupported[0];
        if (unsupported.size() > 1) {
            error += " (and " + std::to_string(unsupported.size() - 1) + " more: " + unsupported[1] +
                     (unsupported.size() > 2 ? ", ...)" : ")");
        }
        error += "; weight matrices must be f32, f16, bf16 or a quantized type";
        return false;
    }
    for (ggml_tensor * t = ggml_get_first_tensor(meta_ctx_); t != nullptr; t = ggml_get_next_tensor(meta_ctx_, t)) {
        n_params_ += static_cast<uint64_t>(ggml_nelements(t));
        n_bytes_ += ggml_nbytes(t);
    }
    return true;
}

// the f32 values of a norm or bias at byte offset off of the file: a NaN or infinity there is an error
bool Model::check_finite(const std::string & name, size_t off, int64_t n, std::string & error) const {
    for (int64_t i = 0; i < n; ++i) {
        float v = 0.0f;
        std::memcpy(&v, file_.data() + off + static_cast<size_t>(i) * sizeof(float), sizeof(float));
        if (!std::isfinite(v)) {
            error = "tensor " + name + " holds " + (std::isnan(v) ? "nan" : "an infinity") + " at element " +
                    std::to_string(i) + " (norm weights and biases must be finite)";
            return false;
        }
    }
    return true;
}

ggml_type Model::type_of(const std::string & name) const {
    const ggml_tensor * t = ggml_get_tensor(meta_ctx_, name.c_str());
    return t != nullptr ? t->type : GGML_TYPE_F32;
}

bool Model::has_tensor(const std::string & name) const { return ggml_get_tensor(meta_ctx_, name.c_str()) != nullptr; }

std::string Model::meta_string(const char * key) const {
    const int64_t id = gguf_find_key(gguf_, key);
    return id >= 0 && gguf_get_kv_type(gguf_, id) == GGUF_TYPE_STRING ? gguf_get_val_str(gguf_, id) : "";
}

// a tensor on dev named `name` with the shape, type and data of the file's tensor `file_name` (nullptr when the
// file has none); the data is filled in by place()
ggml_tensor * Model::place_one(const std::string & name, const std::string & file_name, ggml_backend_dev_t dev,
                               bool matmul, bool rows) {
    const ggml_tensor * src = ggml_get_tensor(meta_ctx_, file_name.c_str());
    if (src == nullptr) {
        return nullptr;
    }
    ggml_tensor * t = ggml_dup_tensor(ctxs_.at(dev), src);
    ggml_set_name(t, name.c_str());
    sources_.push_back({t, src, matmul, rows});
    return t;
}

// the tensors of every device's context, not yet allocated
void Model::create_tensors(const Placement & p) {
    const size_t per_dev = static_cast<size_t>(gguf_get_n_tensors(gguf_)) + 2;
    std::vector<ggml_backend_dev_t> devs = {p.input, p.output};
    devs.insert(devs.end(), p.layers.begin(), p.layers.end());
    for (ggml_backend_dev_t dev : devs) {
        if (ctxs_.count(dev) == 0) {
            ctxs_[dev] = ggml_init({per_dev * ggml_tensor_overhead(), nullptr, true});
        }
    }
    // a tied output (no output.weight) on the embedding's device is the embedding itself, read by GET_ROWS and
    // MUL_MAT (repacked where both accept that); on another device, a copy there
    const bool tied = !has_tensor("output.weight");
    const bool both = tied && p.output == p.input;
    token_embd      = place_one("token_embd.weight", "token_embd.weight", p.input, both, both);
    output_norm     = place_one("output_norm.weight", "output_norm.weight", p.output);
    output          = both ? token_embd
                           : place_one("output.weight", tied ? "token_embd.weight" : "output.weight", p.output, true);
    layers.assign(p.layers.size(), {});
    for (size_t il = 0; il < p.layers.size(); ++il) {
        const std::string  b   = "blk." + std::to_string(il) + ".";
        ggml_backend_dev_t dev = p.layers[il];
        LayerWeights &     l   = layers[il];
        const auto         one = [&](const char * name) { return place_one(b + name, b + name, dev); };
        const auto         mat = [&](const char * name) { return place_one(b + name, b + name, dev, true); };
        l.attn_norm = one("attn_norm.weight");
        l.wq = mat("attn_q.weight"), l.wk = mat("attn_k.weight"), l.wv = mat("attn_v.weight");
        l.bq = one("attn_q.bias"), l.bk = one("attn_k.bias"), l.bv = one("attn_v.bias");
        l.wo        = mat("attn_output.weight");
        l.ffn_norm  = one("ffn_norm.weight");
        l.ffn_gate = mat("ffn_gate.weight"), l.ffn_up = mat("ffn_up.weight"), l.ffn_down = mat("ffn_down.weight");
    }
}

size_t Model::file_offset(const ggml_tensor * src) const {
    return gguf_get_data_offset(gguf_) + gguf_get_tensor_offset(gguf_, gguf_find_tensor(gguf_, ggml_get_name(src)));
}

// The matrices of ctx (on dev) that buft repacks, copied from the file into one buffer of it (none: no buffer).
bool Model::load_repacked(ggml_backend_dev_t dev, ggml_context * ctx, ggml_backend_buffer_type_t buft,
                          std::string & error) {
    std::vector<const Source *> chosen;
    const size_t                align = ggml_backend_buft_get_alignment(buft);
    size_t                      size  = 0;
    for (const Source & s : sources_) {
        if (s.matmul && ggml_get_tensor(ctx, s.t->name) == s.t && repacks_for_cpu(dev, buft, s.t, s.rows)) {
            chosen.push_back(&s);
            size += (ggml_backend_buft_get_alloc_size(buft, s.t) + align - 1) / align * align;
        }
    }
    if (chosen.empty()) {
        return true;
    }
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, size);
    if (buf == nullptr) {
        error = std::string("cannot allocate ") + std::to_string(size) + " bytes of " + ggml_backend_buft_name(buft) +
                " for the repacked weights (-nr keeps them mapped)";
        return false;
    }
    buffers_.push_back(buf);
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_tallocr alloc = ggml_tallocr_new(buf);
    for (const Source * s : chosen) {
        if (ggml_tallocr_alloc(&alloc, s->t) != GGML_STATUS_SUCCESS) {
            error = std::string("cannot place ") + s->t->name + " in " + ggml_backend_buft_name(buft);
            return false;
        }
    }
    // repacking (and reading the file) is the load's cost: the tensors are set from every core at once, each
    // tensor by one thread (a set touches only its own tensor's memory)
    std::atomic<size_t> next{0};
    const auto          work = [&] {
        for (size_t i = next++; i < chosen.size(); i = next++) {
            const Source * s = chosen[i];
            ggml_backend_tensor_set(s->t, file_.data() + file_offset(s->src), 0, ggml_nbytes(s->t)); // repacks
        }
    };
    std::vector<std::thread> helpers;
    const size_t n_helpers = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), chosen.size()) - 1;
    for (size_t i = 0; i < n_helpers; ++i) {
        try {
            helpers.emplace_back(work);
        } catch (const std::system_error &) {
            break; // no more threads: the ones there are (this one at least) take every tensor
        }
    }
    work();
    for (std::thread & h : helpers) {
        h.join();
    }
    n_repacked_ = static_cast<int>(chosen.size());
    holdings_.push_back({dev, ggml_backend_buffer_get_size(buf), false, true});
    return true;
}

// The tensors of ctx not placed yet: used in place from the mapping on a CPU device that can wrap it, else
// copied into a buffer of the device.
bool Model::load_device(ggml_backend_dev_t dev, ggml_context * ctx, std::string & error) {
    std::vector<const Source *> rest;
    for (const Source & s : sources_) {
        if (s.t->data == nullptr && ggml_get_tensor(ctx, s.t->name) == s.t) {
            rest.push_back(&s);
        }
    }
    if (rest.empty()) {
        return true;
    }
    ggml_backend_dev_props props{};
    ggml_backend_dev_get_props(dev, &props);
    ggml_backend_buffer_t buf    = nullptr;
    const bool            mapped = props.type == GGML_BACKEND_DEVICE_TYPE_CPU && props.caps.buffer_from_host_ptr;
    if (mapped) {
        buf = ggml_backend_dev_buffer_from_host_ptr(dev, file_.mutable_data(), file_.size(), file_.size());
    } else {
        buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(dev));
    }
    if (buf == nullptr) {
        error = std::string("cannot allocate the weights on device ") + ggml_backend_dev_name(dev);
        return false;
    }
    buffers_.push_back(buf);
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    size_t bytes = 0;
    for (const Source * s : rest) {
        const size_t off = file_offset(s->src);
        if (mapped) {
            if (ggml_backend_tensor_alloc(buf, s->t, static_cast<char *>(file_.mutable_data()) + off) !=
                GGML_STATUS_SUCCESS) {
                error = std::string("cannot place ") + s->t->name + " in the mapped file";
                return false;
            }
        } else {
            ggml_backend_tensor_set(s->t, file_.data() + off, 0, ggml_nbytes(s->t));
        }
        bytes += ggml_nbytes(s->t);
    }
    holdings_.push_back({dev, mapped ? bytes : ggml_backend_buffer_get_size(buf), mapped});
    return true;
}

bool Model::place(const Placement & p, std::string & error) {
    placement_ = p;
    create_tensors(p);
    for (auto & [dev, ctx] : ctxs_) {
        const bool repack = p.cpu_repack != nullptr && ggml_backend_buft_get_device(p.cpu_repack) == dev;
        if ((repack && !load_repacked(dev, ctx, p.cpu_repack, error)) || !load_device(dev, ctx, error)) {
            return false;
        }
    }
    return true;
}

size_t Model::repacked_bytes() const {
    size_t bytes = 0;
    for (const Holding & h : holdings_) {
        bytes += h.repacked ? h.bytes : 0;
    }
    return bytes;
}

uint64_t Model::header_checksum() const {
    const size_t n = std::min(file_.size(), static_cast<size_t>(gguf_get_data_offset(gguf_)));
    uint64_t     h = 14695981039346656037ull;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ file_.data()[i]) * 1099511628211ull;
    }
    return h;
}

} // namespace switchyard::run
