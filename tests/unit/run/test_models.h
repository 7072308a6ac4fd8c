// unit_run's small models: written by the model writer (tools/model_writer/) into a temporary directory of this
// process, and rewritten with a key, a tensor's type or a value changed (testing/model_rewrite.h), to make bad files.
#pragma once

#include "model.h"
#include "testing/model_rewrite.h"

#include "model_writer/weights.h"

#include "ggml.h"
#include "gguf.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace switchyard::run::testing_models {

namespace fs = std::filesystem;

// 64 wide, 2 layers, 128 FFN units, 4 query / 2 KV heads, 300 tokens
inline model_writer::Shape tiny_shape(const std::string & type) {
    model_writer::Shape s;
    s.preset      = "test";
    s.n_embd      = 64;
    s.n_layer     = 2;
    s.n_ff        = 128;
    s.n_head      = 4;
    s.n_head_kv   = 2;
    s.n_vocab     = 300;
    s.n_ctx       = 128;
    s.weight_type = type;
    s.seed        = 7;
    return s;
}

// The process's scratch directory for models and traces, removed with everything in it when the process exits
// (CTest runs every test in a process of its own: a directory left behind per test would pile up).
inline fs::path temp_dir() {
    struct Dir {
        pid_t    owner = ::getpid();
        fs::path path  = fs::temp_directory_path() / ("switchyard_runner_test_" + std::to_string(owner));
        Dir() { fs::create_directories(path); }
        ~Dir() {
            std::error_code ec;
            if (::getpid() == owner) { // not in a child that exits
                fs::remove_all(path, ec);
            }
        }
    };
    static const Dir dir;
    return dir.path;
}

// writes a model (plan changed by `edit`), returning its path
inline std::string write_model(const std::string & name, const model_writer::Shape & shape,
                               void (*edit)(model_writer::Plan &) = nullptr) {
    std::string      error;
    model_writer::Plan plan = model_writer::plan_tensors(shape, error);
    EXPECT_EQ(error, "");
    if (edit != nullptr) {
        edit(plan);
    }
    const std::string   path = (temp_dir() / name).string();
    model_writer::Summary summary;
    EXPECT_TRUE(model_writer::write_model(path, shape, plan, 1, summary, error)) << error;
    return path;
}

// the f32 model of tiny_shape rewritten as `name` (testing/model_rewrite.h), returning its path
inline std::string rewrite_model(const std::string & name, const Rewrite & r) {
    const std::string src  = write_model("rewrite_src_" + name, tiny_shape("f32"));
    const std::string path = (temp_dir() / name).string();
    std::string       error;
    EXPECT_TRUE(rewrite_gguf(src, path, r, error)) << error;
    return path;
}

// the message of a Model::open that must fail
inline std::string open_error(const std::string & path) {
    std::string error;
    EXPECT_EQ(Model::open(path, error), nullptr);
    return error;
}

} // namespace switchyard::run::testing_models
