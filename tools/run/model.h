// switchyard-run: a LLaMA-family GGUF model. open() reads the metadata (gguf_init_from_file, no_alloc) into a
// context of tensor descriptions, checks every tensor the graph needs (name, shape, that its data lies inside
// the file) and memory-maps the file. place() then puts the weights on their devices: on a CPU device that can
// wrap host memory (ggml_backend_dev_buffer_from_host_ptr) the weights stay in the mapping, used in place, except
// those the placement's CPU_REPACK buffer type takes (cpu_repack.h), which are copied into one buffer of it; on
// other devices (the test device, Vulkan, the meta device) they are copied into the device's buffers.
#pragma once

#include "devices.h"
#include "hparams.h"
#include "mapped_file.h"

#include "ggml-backend.h"
#include "ggml.h"
#include "gguf.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace switchyard::run {

struct LayerWeights {
    ggml_tensor * attn_norm = nullptr;
    ggml_tensor * wq = nullptr, * wk = nullptr, * wv = nullptr, * wo = nullptr;
    ggml_tensor * bq = nullptr, * bk = nullptr, * bv = nullptr; // biases (qwen2), nullptr when absent
    ggml_tensor * ffn_norm = nullptr;
    ggml_tensor * ffn_gate = nullptr, * ffn_up = nullptr, * ffn_down = nullptr;
};

class Model {
public:
    ~Model();
    Model(const Model &)             = delete;
    Model & operator=(const Model &) = delete;

    // Reads and checks the file; nullptr with a message for a missing file, a bad GGUF, an unsupported
    // architecture, bad hyper-parameters (hparams.h), a missing tensor, a shape mismatch, token_embd rows that
    // differ from the vocabulary's size (tokenizer.ggml.tokens, when present), weight matrices of types no
    // backend multiplies (i8, i16, i32, i64, f64: all named in one message), or a norm or bias holding a NaN or
    // an infinity.
    static std::unique_ptr<Model> open(const std::string & path, std::string & error);

    // Puts the weights on the devices of the placement; false with a message when a buffer cannot be made.
    bool place(const Placement & placement, std::string & error);

    const Hparams &      hparams() const { return hp_; }
    const gguf_context * gguf() const { return gguf_; }
    const Placement &    placement() const { return placement_; }
    // the storage type of a tensor in the file (GGUF_TYPE_F32 when absent), for splitting decisions
    ggml_type type_of(const std::string & name) const;
    bool      has_tensor(const std::string & name) const; // the file holds a tensor of this name
    // general.description, general.name ("" when absent)
    std::string meta_string(const char * key) const;

    // the placed weights (valid after place)
    ggml_tensor *                     token_embd = nullptr;
    ggml_tensor *                     output_norm = nullptr;
    ggml_tensor *                     output = nullptr;
    std::vector<LayerWeights>         layers;

    uint64_t n_params() const { return n_params_; }
    uint64_t n_bytes() const { return n_bytes_; } // of all tensors in the file
    size_t   file_size() const { return file_.size(); }
    // FNV-1a of the file's bytes before the tensor data (header, metadata, tensor infos): ranks compare it
    uint64_t header_checksum() const;
    // bytes of weights each device holds, per buffer; mapped = true for weights used in place from the file,
    // repacked = true for the CPU_REPACK buffer
    struct Holding {
        ggml_backend_dev_t dev;
        size_t             bytes;
        bool               mapped;
        bool               repacked = false;
    };
    const std::vector<Holding> & holdings() const { return holdings_; }
    // the weights stored in the CPU_REPACK buffer (0 when none: -nr, no such buffer type, no weight of its types)
    int    n_repacked() const { return n_repacked_; }
    size_t repacked_bytes() const; // of that buffer

private:
    Model() = default;
    bool check_tensors(std::string & error);
    bool check_finite(const std::string & name, size_t off, int64_t n, std::string & error) const;
    // a placed tensor and the file's tensor that holds its data; matmul: read by MUL_MAT only, as src0 (and by
    // GET_ROWS too with rows: a tied output, which is the token embedding)
    struct Source {
        ggml_tensor *       t;
        const ggml_tensor * src;
        bool                matmul;
        bool                rows = false;
    };
    ggml_tensor * place_one(const std::string & name, const std::string & file_name, ggml_backend_dev_t dev,
                            bool matmul = false, bool rows = false);
    void   create_tensors(const Placement & p);
    size_t file_offset(const ggml_tensor * src) const;
    bool   load_repacked(ggml_backend_dev_t dev, ggml_context * ctx, ggml_backend_buffer_type_t buft, std::string & error);
    bool   load_device(ggml_backend_dev_t dev, ggml_context * ctx, std::string & error);

    std::string                                   path_;
    gguf_context *                                gguf_ = nullptr;
    ggml_context *                                meta_ctx_ = nullptr; // tensor descriptions from the file
    MappedFile                                    file_;
    Hparams                                       hp_;
    Placement                                     placement_;
    // one context of placed tensors per device, and their source tensors in the file
    std::map<ggml_backend_dev_t, ggml_context *>  ctxs_;
    std::vector<Source>                           sources_;
    std::vector<ggml_backend_buffer_t>            buffers_;
    std::vector<Holding>                          holdings_;
    int                                           n_repacked_ = 0;
    uint64_t                                      n_params_ = 0;
    uint64_t                                      n_bytes_  = 0;
};

} // namespace switchyard::run
