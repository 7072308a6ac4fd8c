#include "kv_cache.h"

namespace switchyard::run {

KvCache::~KvCache() {
    for (auto & [dev, buf] : buffers_) {
        ggml_backend_buffer_free(buf);
    }
    for (auto & [dev, ctx] : ctxs_) {
        ggml_free(ctx);
    }
}

bool KvCache::init(const Hparams & hp, const Placement & placement, int64_t n_ctx, std::string & error) {
    n_ctx_ = n_ctx;
    for (size_t il = 0; il < placement.layers.size(); ++il) {
        ggml_backend_dev_t dev = placement.layers[il];
        if (ctxs_.count(dev) == 0) {
            ctxs_[dev] = ggml_init({2 * placement.layers.size() * ggml_tensor_overhead(), nullptr, true});
        }
        ggml_tensor * k = ggml_new_tensor_2d(ctxs_[dev], GGML_TYPE_F16, hp.n_embd_kv(), n_ctx);
        ggml_tensor * v = ggml_new_tensor_2d(ctxs_[dev], GGML_TYPE_F16, hp.n_embd_kv(), n_ctx);
        ggml_format_name(k, "cache_k_l%zu", il);
        ggml_format_name(v, "cache_v_l%zu", il);
        k_.push_back(k);
        v_.push_back(v);
    }
    for (auto & [dev, ctx] : ctxs_) {
        ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(dev));
        if (buf == nullptr) {
            error = std::string("cannot allocate the KV cache on device ") + ggml_backend_dev_name(dev);
            return false;
        }
        ggml_backend_buffer_clear(buf, 0);
        buffers_[dev] = buf;
    }
    return true;
}

std::vector<std::pair<ggml_backend_dev_t, size_t>> KvCache::holdings() const {
    std::vector<std::pair<ggml_backend_dev_t, size_t>> out;
    for (const auto & [dev, buf] : buffers_) {
        out.emplace_back(dev, ggml_backend_buffer_get_size(buf));
    }
    return out;
}

} // namespace switchyard::run
