#include "devices.h"

#include "cpu_cores.h"
#include "cpu_repack.h"
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"
#include "hparams.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace switchyard::run {

namespace {

using SplitState = ggml_backend_meta_split_state;

SplitState split_along(int axis, const std::vector<int64_t> & shares) {
    SplitState s;
    std::memset(&s, 0, sizeof(s));
    s.axis       = static_cast<ggml_backend_meta_split_axis>(axis);
    s.n_segments = 1;
    s.nr[0]      = 1;
    for (size_t d = 0; d < shares.size(); ++d) {
        s.ne[d] = shares[d];
    }
    return s;
}

// n units shared out in proportion to weights (largest remainder); empty when a device would get none. The
// weights are finite and non-negative with a positive sum (Devices::create checks them).
std::vector<int64_t> share_out(int64_t n, const std::vector<float> & weights) {
    const double         total = std::accumulate(weights.begin(), weights.end(), 0.0);
    std::vector<int64_t> shares(weights.size());
    std::vector<double>  rest(weights.size());
    int64_t              given = 0;
    for (size_t d = 0; d < weights.size(); ++d) {
        const double exact = static_cast<double>(n) * weights[d] / total;
        shares[d]          = static_cast<int64_t>(exact);
        rest[d]            = exact - static_cast<double>(shares[d]);
        given += shares[d];
    }
    for (; given < n; ++given) {
        const size_t d = static_cast<size_t>(std::max_element(rest.begin(), rest.end()) - rest.begin());
        ++shares[d];
        rest[d] = -1.0;
    }
    if (std::find(shares.begin(), shares.end(), 0) != shares.end()) {
        return {};
    }
    return shares;
}

// n threads for a backend whose reg can set them (CPU, MPI), and for each simple backend of a meta backend
void set_backend_threads(ggml_backend_t b, int n) {
    if (ggml_backend_is_meta(b)) {
        for (size_t i = 0; i < ggml_backend_meta_n_backends(b); ++i) {
            set_backend_threads(ggml_backend_meta_simple_backend(b, i), n);
        }
        return;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(b));
    auto               set = reg != nullptr ? reinterpret_cast<ggml_backend_set_n_threads_t>(
                                    ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads"))
                                            : nullptr;
    if (set != nullptr) {
        set(b, n);
    }
}

bool is_gpu_like(ggml_backend_dev_t dev) {
    const auto type = ggml_backend_dev_type(dev);
    return type == GGML_BACKEND_DEVICE_TYPE_GPU || type == GGML_BACKEND_DEVICE_TYPE_IGPU;
}

} // namespace

Devices::~Devices() {
    for (ggml_backend_t b : backends_) {
        ggml_backend_free(b);
    }
}

std::unique_ptr<Devices> Devices::create(const DeviceOptions & options, std::string & error) {
    std::unique_ptr<Devices> d(new Devices());
    d->options_ = options;
    d->cpu_dev_ = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (d->cpu_dev_ == nullptr) {
        error = "no CPU device is registered";
        return nullptr;
    }
    for (const std::string & name : options.names) {
        ggml_backend_dev_t dev = ggml_backend_dev_by_name(name.c_str());
        if (dev == nullptr) {
            error = "unknown device '" + name + "' (see --list-devices)";
            return nullptr;
        }
        // in layer and none modes, naming the CPU only keeps the layers there
        if (options.mode == SplitMode::Tensor || dev != d->cpu_dev_) {
            d->devs_.push_back(dev);
        }
    }
    if (options.names.empty() && options.mode != SplitMode::Tensor) {
        for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
            if (is_gpu_like(ggml_backend_dev_get(i))) {
                d->devs_.push_back(ggml_backend_dev_get(i));
            }
        }
    }
    if (options.mode == SplitMode::None && d->devs_.size() > 1) {
        d->devs_.erase(d->devs_.begin() + 1, d->devs_.end());
    }
    if (options.mode == SplitMode::Tensor && d->devs_.size() < 2) {
        error = "--split-mode tensor needs two devices or more (e.g. --device CPU,CPU)";
        return nullptr;
    }
    if (options.n_threads < 0 || options.n_threads > GGML_MAX_N_THREADS) {
        error = "-t: " + std::to_string(options.n_threads) + " CPU threads asked for, the CPU backend takes 1.." +
                std::to_string(GGML_MAX_N_THREADS);
        return nullptr;
    }
    double sum = 0.0;
    for (float share : options.tensor_split) {
        if (!std::isfinite(share) || share < 0.0f) {
            error = "--tensor-split: the shares must be finite and non-negative";
            return nullptr;
        }
        sum += share;
    }
    if (!options.tensor_split.empty() && !(sum > 0.0)) {
        error = "--tensor-split: the shares must have a positive sum";
        return nullptr;
    }
    if (!options.tensor_split.empty() && options.tensor_split.size() != d->devs_.size()) {
        error = "--tensor-split has " + std::to_string(options.tensor_split.size()) + " shares for " +
                std::to_string(d->devs_.size()) + " devices";
        return nullptr;
    }
    if (options.mode == SplitMode::Tensor) {
        d->meta_ = ggml_backend_meta_device(d->devs_.data(), d->devs_.size(), &Devices::split_state_of, d.get());
        if (d->meta_ == nullptr) {
            error = "cannot create the meta device";
            return nullptr;
        }
    }
    std::vector<ggml_backend_dev_t> order;
    if (d->meta_ != nullptr) {
        order.push_back(d->meta_);
    } else {
        order = d->devs_;
    }
    order.push_back(d->cpu_dev_);
    d->n_threads_ = options.n_threads > 0 ? options.n_threads : default_threads();
    for (ggml_backend_dev_t dev : order) {
        ggml_backend_t b = ggml_backend_dev_init(dev, nullptr);
        if (b == nullptr) {
            error = std::string("cannot start a backend on device ") + ggml_backend_dev_name(dev);
            return nullptr;
        }
        d->backends_.push_back(b);
        d->backend_devs_.push_back(dev);
    }
    d->cpu_ = d->backends_.back();
    d->set_threads(d->n_threads_);
    return d;
}

void Devices::set_threads(int n) {
    n_threads_ = n;
    ggml_backend_cpu_set_n_threads(cpu_, n);
    // the other backends that compute on CPU cores take as many: the meta device's CPUs, an MPI device's CPU on
    // its own rank (left at their default, they would add up to more threads than cores)
    for (ggml_backend_t b : backends_) {
        if (b != cpu_) {
            set_backend_threads(b, n);
        }
    }
}

ggml_backend_t Devices::backend_of(ggml_backend_dev_t dev) const {
    for (size_t i = 0; i < backends_.size(); ++i) {
        if (backend_devs_[i] == dev) {
            return backends_[i];
        }
    }
    return cpu_;
}

std::string Devices::describe() const {
    std::string s;
    for (ggml_backend_dev_t dev : backend_devs_) {
        s += std::string(s.empty() ? "" : "+") + ggml_backend_dev_name(dev);
    }
    return s;
}

SplitState Devices::split_state_of(const ggml_tensor * t, void * self) {
    const auto & states = static_cast<const Devices *>(self)->states_;
    const auto   it     = states.find(t->name);
    if (it != states.end()) {
        return it->second;
    }
    SplitState s;
    std::memset(&s, 0, sizeof(s));
    s.axis       = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    s.n_segments = 1;
    s.nr[0]      = 1;
    return s;
}

void Devices::record_layer_splits(const Hparams & hp, int il, const TypeOf & type_of, std::vector<std::string> & notes) {
    std::vector<float> weights = options_.tensor_split;
    if (weights.empty()) {
        weights.assign(devs_.size(), 1.0f);
    }
    const std::string blk    = "blk." + std::to_string(il) + ".";
    const int64_t     group  = hp.n_head / hp.n_head_kv;
    const int64_t     down_b = ggml_blck_size(type_of(blk + "ffn_down.weight"));
    const int64_t     out_b  = ggml_blck_size(type_of(blk + "attn_output.weight"));
    std::vector<int64_t> kv_heads = share_out(hp.n_head_kv, weights);
    std::vector<int64_t> ff_units = hp.n_ff % down_b == 0 ? share_out(hp.n_ff / down_b, weights) : std::vector<int64_t>{};
    std::vector<int64_t> q_cols, kv_cols, ff;
    for (int64_t h : kv_heads) {
        q_cols.push_back(h * group * hp.head_dim);
        kv_cols.push_back(h * hp.head_dim);
    }
    for (int64_t u : ff_units) {
        ff.push_back(u * down_b);
    }
    const bool q_ok = !q_cols.empty() && std::all_of(q_cols.begin(), q_cols.end(), [&](int64_t c) { return c % out_b == 0; });
    if (!q_ok || ff.empty()) {
        notes.push_back("layer " + std::to_string(il) + " mirrored on every device: its heads or FFN units do not " +
                        "divide into whole blocks of its weights for this split");
        return;
    }
    states_[blk + "attn_q.weight"]      = split_along(1, q_cols);
    states_[blk + "attn_k.weight"]      = split_along(1, kv_cols);
    states_[blk + "attn_v.weight"]      = split_along(1, kv_cols);
    states_[blk + "attn_q.bias"]        = split_along(0, q_cols);
    states_[blk + "attn_k.bias"]        = split_along(0, kv_cols);
    states_[blk + "attn_v.bias"]        = split_along(0, kv_cols);
    states_[blk + "attn_output.weight"] = split_along(0, q_cols);
    states_[blk + "ffn_gate.weight"]    = split_along(1, ff);
    states_[blk + "ffn_up.weight"]      = split_along(1, ff);
    states_[blk + "ffn_down.weight"]    = split_along(0, ff);
    states_["cache_k_l" + std::to_string(il)] = split_along(0, kv_cols);
    states_["cache_v_l" + std::to_string(il)] = split_along(0, kv_cols);
}

Placement Devices::place(const Hparams & hp, const TypeOf & type_of, std::vector<std::string> & notes) {
    Placement p;
    p.input      = cpu_dev_;
    p.output     = cpu_dev_;
    p.cpu_repack = options_.repack ? cpu_repack_buffer_type(cpu_dev_) : nullptr;
    p.layers.assign(static_cast<size_t>(hp.n_layer), cpu_dev_);
    const int64_t n_off = devs_.empty() ? 0 : std::clamp<int64_t>(options_.n_gpu_layers, 0, hp.n_layer + 1);
    const int64_t first = hp.n_layer - std::min(n_off, hp.n_layer);
    if (meta_ != nullptr) {
        for (int64_t il = first; il < hp.n_layer; ++il) {
            p.layers[static_cast<size_t>(il)] = meta_;
            record_layer_splits(hp, static_cast<int>(il), type_of, notes);
        }
    } else if (!devs_.empty()) {
        std::vector<float> weights = options_.tensor_split;
        if (weights.empty()) {
            weights.assign(devs_.size(), 1.0f);
        }
        // the offloaded layers in runs, device by device, in proportion to the weights (a device may get none)
        const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
        double       upto  = 0.0;
        size_t       d     = 0;
        for (int64_t il = first; il < hp.n_layer; ++il) {
            const double at = static_cast<double>(il - first) + 0.5;
            while (d + 1 < devs_.size() && at >= (upto + weights[d]) / total * static_cast<double>(hp.n_layer - first)) {
                upto += weights[d++];
            }
            p.layers[static_cast<size_t>(il)] = devs_[d];
        }
    }
    if (n_off > hp.n_layer) {
        p.output = meta_ != nullptr ? meta_ : devs_.back();
        if (meta_ != nullptr) {
            // the output projection by vocabulary rows: each device computes its share of the logits (the largest
            // matrix of a small model, read once per token: mirrored, every device would read all of it)
            std::vector<float> weights = options_.tensor_split;
            if (weights.empty()) {
                weights.assign(devs_.size(), 1.0f);
            }
            if (std::vector<int64_t> rows = share_out(hp.n_vocab, weights); !rows.empty()) {
                states_["output.weight"] = split_along(1, rows);
            }
        }
    }
    return p;
}

} // namespace switchyard::run
