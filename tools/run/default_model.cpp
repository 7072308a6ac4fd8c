#include "default_model.h"

#include "model_writer/model.h"
#include "model_writer/weights.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace switchyard::run {

namespace {

constexpr const char * kFileName = "switchyard-default.gguf";

std::string executable_dir() {
    char          buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0) {
        return ".";
    }
    const std::string exe(buf, static_cast<size_t>(n));
    const size_t      slash = exe.rfind('/');
    return slash == std::string::npos ? "." : exe.substr(0, slash);
}

// writes the model to path through a temporary file renamed into place, so that concurrent runs never see a
// half-written file
bool write_at(const std::string & path, const model_writer::Shape & shape, const model_writer::Plan & plan,
              std::string & error) {
    const std::string    tmp = path + ".tmp." + std::to_string(getpid());
    model_writer::Summary  summary;
    if (!model_writer::write_model(tmp, shape, plan, 2, summary, error)) {
        std::remove(tmp.c_str());
        return false;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        error = "cannot rename the default model into " + path;
        return false;
    }
    return true;
}

} // namespace

bool ensure_default_model(std::string & path, bool & wrote, std::string & error) {
    model_writer::Shape shape;
    model_writer::apply_preset("tiny", shape);
    shape.weight_type = "mixed";
    shape.seed        = 42;
    const model_writer::Plan plan = model_writer::plan_tensors(shape, error);
    if (!error.empty()) {
        return false;
    }
    wrote = false;
    const char * tmpdir = std::getenv("TMPDIR");
    for (const std::string & dir : {executable_dir(), std::string(tmpdir != nullptr ? tmpdir : "/tmp")}) {
        path = dir + "/" + kFileName;
        std::string ignored;
        if (access(path.c_str(), R_OK) == 0 && model_writer::verify_model(path, plan, ignored)) {
            return true;
        }
        if (write_at(path, shape, plan, error) && model_writer::verify_model(path, plan, error)) {
            wrote = true;
            return true;
        }
    }
    error = "cannot write the default model (" + error + ")";
    return false;
}

} // namespace switchyard::run
