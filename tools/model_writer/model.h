// The model writer (library switchyard-model-writer): the GGUF model that switchyard-make-model writes, as
// switchyard-run writes its default model and the runner's tests their small models. A shape (hyper-parameters as
// flags or a preset) becomes a plan: the key-value pairs of a LLaMA-architecture GGUF as llama.cpp reads them
// (general.*, llama.*, tokenizer.ggml.* with a small synthetic SentencePiece-style vocabulary, or a real one read
// by --tokenizer: tokenizer_files.h) and the list of tensors with their names, shapes and storage types. The
// weights themselves are random (weights.cpp), and the file says so (general.name, general.description).
#pragma once

#include "ggml.h"
#include "gguf.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace switchyard::model_writer {

// A vocabulary as the tokenizer.ggml.* keys hold it (llama.cpp's names; what its convert_hf_to_gguf.py writes).
struct Vocabulary {
    std::string              model;  // tokenizer.ggml.model: "llama" (SentencePiece-style) or "gpt2" (byte-level BPE)
    std::string              pre;    // tokenizer.ggml.pre ("" : not written)
    std::vector<std::string> tokens; // tokenizer.ggml.tokens, by id
    std::vector<float>       scores; // tokenizer.ggml.scores (llama; empty: not written)
    std::vector<int32_t>     types;  // tokenizer.ggml.token_type: 1 normal, 2 unknown, 3 control, 4 user-defined,
                                     // 5 unused, 6 byte
    std::vector<std::string> merges; // tokenizer.ggml.merges (gpt2)
    int32_t                  bos = -1, eos = -1, unk = -1, pad = -1; // the *_token_id keys (-1: not written)
    std::optional<bool>      add_bos, add_eos;                       // add_bos_token, add_eos_token
    std::string              source;  // where it came from, for the summary ("encoder.json + vocab.bpe")
};

struct Shape {
    std::string preset        = "tiny";
    int64_t     n_embd        = 256;   // llama.embedding_length
    int64_t     n_layer       = 2;     // llama.block_count
    int64_t     n_ff          = 512;   // llama.feed_forward_length
    int64_t     n_head        = 4;     // llama.attention.head_count
    int64_t     n_head_kv     = 2;     // llama.attention.head_count_kv
    int64_t     n_vocab       = 320;   // tokens: <unk> <s> </s>, 256 byte tokens, then synthetic pieces
    int64_t     n_ctx         = 256;   // llama.context_length
    float       rope_base     = 10000.0f;
    float       rms_eps       = 1e-5f;
    std::string weight_type   = "mixed"; // a ggml type name for every matrix (any case), or "mixed" (Q4_K_M-like)
    uint64_t    seed          = 42;
    bool        tied_output   = false; // no output.weight: the output projection is token_embd (as in small models)
    // --tokenizer: the vocabulary to write instead of the synthetic one (n_vocab is then its size)
    std::shared_ptr<const Vocabulary> vocabulary;
};

// Sets the preset's values (tiny or 1b); false for an unknown preset.
bool apply_preset(const std::string & name, Shape & shape);

// An error message for a shape that cannot make a model (empty when it can).
std::string check_shape(const Shape & shape);

// A --type value, in any case ("Q4_K", "q4_k", "MIXED"): true with `name` set to its canonical spelling ("q4_K",
// "mixed") for "mixed" or a type the tool can store (weight_type_names()); false for anything else.
bool parse_weight_type(const std::string & text, std::string & name);

// "mixed" and the name of every type the tool can store, comma-separated, for messages.
std::string weight_type_names();

enum class Init { Ones, Random };

struct TensorPlan {
    std::string name;
    int64_t     ne0;
    int64_t     ne1;  // 1 for vectors
    ggml_type   type;
    Init        init;
};

struct Plan {
    std::vector<TensorPlan> tensors;
    std::vector<std::string> notes; // type fallbacks (one line per kind, with a count), for the summary
};

// The tensors in llama.cpp's order and names, their types chosen from shape.weight_type. An error message in
// `error` (and no tensors) for an unknown type, or one whose blocks do not divide a row.
Plan plan_tensors(const Shape & shape, std::string & error);

// The number of values in the planned tensors (the model's parameters).
uint64_t parameter_count(const Plan & plan);

// llama.cpp's size label for a parameter count (gguf-py's model_weight_count_rounded_notation): the count in
// thousands, millions, billions or trillions with at least two significant digits: 67264 -> "67K",
// 1344768 -> "1.3M", 1104218112 -> "1.1B".
std::string size_label(uint64_t params);

// general.name: "switchyard random llama (<preset>)" while the sizes are the preset's, "switchyard random llama
// (<size label>)" once a flag changed one (or for a preset the tool does not know).
std::string model_name(const Shape & shape, uint64_t params);

// Sets every key-value pair of the file on ctx (general.size_label and general.name from the plan's size).
void set_metadata(gguf_context * ctx, const Shape & shape, const Plan & plan);

// Sets the tokenizer.ggml.* keys of a vocabulary on ctx.
void set_vocabulary(gguf_context * ctx, const Vocabulary & vocabulary);

} // namespace switchyard::model_writer
