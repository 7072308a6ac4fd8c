// switchyard-run: the KV cache. For each layer, K and V as f16 matrices [n_embd_kv, n_ctx] (cell j holds the
// token at position j) in a buffer of the layer's device; on the meta device they are split like the layer's
// K and V weights (by KV heads, see Devices). Tensors are named cache_k_l<N> / cache_v_l<N>.
#pragma once

#include "devices.h"
#include "hparams.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <map>
#include <string>
#include <vector>

namespace switchyard::run {

class KvCache {
public:
    KvCache() = default;
    ~KvCache();
    KvCache(const KvCache &)             = delete;
    KvCache & operator=(const KvCache &) = delete;

    // Allocates (and zeroes) the cache for n_ctx positions; false with a message when a buffer cannot be made.
    bool init(const Hparams & hp, const Placement & placement, int64_t n_ctx, std::string & error);

    ggml_tensor * k(size_t il) const { return k_[il]; }
    ggml_tensor * v(size_t il) const { return v_[il]; }
    int64_t       n_ctx() const { return n_ctx_; }

    // bytes each device holds
    std::vector<std::pair<ggml_backend_dev_t, size_t>> holdings() const;

private:
    int64_t                                      n_ctx_ = 0;
    std::vector<ggml_tensor *>                   k_, v_;
    std::map<ggml_backend_dev_t, ggml_context *> ctxs_;
    std::map<ggml_backend_dev_t, ggml_backend_buffer_t> buffers_;
};

} // namespace switchyard::run
