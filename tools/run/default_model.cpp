#include "default_model.h"

#include "model.h"
#include "weights.h"

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
bool write_at(const std::string & path, const make_model::Shape & shape, const make_model::Plan & plan,
              std::string & error) {
    const std::string    tmp = path + ".tmp." + std::to_string(getpid());
    make_model::Summary  summary;
    if (!make_model::write_model(tmp, shape, plan, 2, summary, error)) {
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
    make_model::Shape shape;
    make_model::apply_preset("tiny", shape);
    shape.weight_type = "mixed";
    shape.seed        = 42;
    const make_model::Plan plan = make_model::plan_tensors(shape, error);
    if (!error.empty()) {
        return false;
    }
    wrote = false;
    const char * tmpdir = std::getenv("TMPDIR");
    for (const std::string & dir : {executable_dir(), std::string(tmpdir != nullptr ? tmpdir : "/tmp")}) {
        path = dir + "/" + kFileName;
        std::string ignored;
        if (access(path.c_str(), R_OK) == 0 && make_model::verify_model(path, plan, ignored)) {
            return true;
        }
        if (write_at(path, shape, plan, error) && make_model::verify_model(path, plan, error)) {
            wrote = true;
            return true;
        }
    }
    error = "cannot write the default model (" + error + ")";
    return false;
}

} // namespace switchyard::run
