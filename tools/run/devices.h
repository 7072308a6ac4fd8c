// switchyard-run: the devices a run uses and where each part of the model goes.
//
//   split mode none    the layers offloaded (-ngl) go to the first device named
//   split mode layer   they are shared out among the devices named, in order, in proportion to --tensor-split
//                      (equal shares by default)
//   split mode tensor  one meta device over the devices named (ggml_backend_meta_device) holds them: each
//                      layer's attention is split by KV heads and its FFN by hidden units across the devices, in
//                      proportion to --tensor-split; a layer whose quantized blocks do not divide its shares is
//                      mirrored (every device holds all of it) and said so in the notes
//
// As in llama.cpp, -ngl N offloads the last N layers, and the output layer too when N > n_layer; the token
// embedding stays on the CPU. The CPU's matrices go into its CPU_REPACK buffer type where it has one
// (cpu_repack.h), unless -nr.
// Devices are named as ggml_backend_dev_by_name knows them ("CPU", "TEST", "Vulkan0").
#pragma once

#include "ggml-backend.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace switchyard::run {

struct Hparams;

enum class SplitMode { None, Layer, Tensor };

struct DeviceOptions {
    std::vector<std::string> names;           // empty: every GPU-type device registered
    SplitMode                mode         = SplitMode::Layer;
    int                      n_gpu_layers = 999;
    std::vector<float>       tensor_split;    // shares per device (any scale); empty: equal
    int                      n_threads    = 0; // CPU threads, 1..GGML_MAX_N_THREADS; 0: one per core the process may use (cpu_cores.h)
    bool                     repack       = true; // the CPU's matrices into CPU_REPACK where it exists (-nr: off)
};

// Which device holds each part of the model (the CPU device, a named device or the meta device).
struct Placement {
    ggml_backend_dev_t              input = nullptr; // token_embd
    std::vector<ggml_backend_dev_t> layers;
    ggml_backend_dev_t              output = nullptr; // output_norm, output
    // the CPU device's CPU_REPACK buffer type, for the weights on the CPU that MUL_MAT reads and that it
    // repacks (cpu_repack.h); nullptr: every CPU weight stays mapped from the file
    ggml_backend_buffer_type_t      cpu_repack = nullptr;
};

// the storage type of a model tensor by name (GGML_TYPE_F32 when absent)
using TypeOf = std::function<ggml_type(const std::string &)>;

class Devices {
public:
    ~Devices();
    Devices(const Devices &)             = delete;
    Devices & operator=(const Devices &) = delete;

    // Resolves the names and creates the backends (and the meta device in tensor mode); nullptr with a message
    // for an unknown device name, a split that does not fit the devices (a share that is negative or not finite,
    // shares summing to 0, a count that differs from the devices'), or a backend that fails to start.
    static std::unique_ptr<Devices> create(const DeviceOptions & options, std::string & error);

    // Places the model's layers. In tensor mode, also records the split state of every weight and KV cache
    // tensor the meta device will hold (by name); notes says which layers had to be mirrored.
    Placement place(const Hparams & hp, const TypeOf & type_of, std::vector<std::string> & notes);

    // The scheduler's backends in priority order (the CPU backend last).
    const std::vector<ggml_backend_t> & backends() const { return backends_; }
    ggml_backend_t                      cpu_backend() const { return cpu_; }
    ggml_backend_dev_t                  cpu_device() const { return cpu_dev_; }
    int                                 n_threads() const { return n_threads_; }
    // n CPU threads from now on, for every backend that computes on CPU cores (as create sets them)
    void set_threads(int n);
    // a short description of the backends ("CPU", "TEST+CPU", "META(CPU,CPU)+CPU")
    std::string describe() const;
    // the backend that runs a device's work (the CPU backend for the CPU device)
    ggml_backend_t backend_of(ggml_backend_dev_t dev) const;

private:
    Devices() = default;
    static ggml_backend_meta_split_state split_state_of(const ggml_tensor * t, void * self);
    void record_layer_splits(const Hparams & hp, int il, const TypeOf & type_of, std::vector<std::string> & notes);

    DeviceOptions                                         options_;
    std::vector<ggml_backend_dev_t>                       devs_; // the devices named (non-CPU in layer mode)
    ggml_backend_dev_t                                    cpu_dev_ = nullptr;
    ggml_backend_dev_t                                    meta_    = nullptr;
    ggml_backend_t                                        cpu_     = nullptr;
    std::vector<ggml_backend_t>                           backends_;
    std::vector<ggml_backend_dev_t>                       backend_devs_;
    std::map<std::string, ggml_backend_meta_split_state> states_;
    int                                                   n_threads_ = 1;
};

} // namespace switchyard::run
