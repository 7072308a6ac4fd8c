// The registry helpers of the 2024 API (seed 000), kept for programs written against it, as thin wrappers
// over the current registry. Index i counts registered backends (regs); "the backend of reg i" is a backend
// (stream) on its first device. A 2024 backend name was often a device name ("CUDA0"), so names that match no
// reg are also tried as device names where a backend is created.
#include "backend/registry/registry.h"

#include "base/log.h"

#include <cstdint>
#include <string>

using namespace switchyard;
using namespace switchyard::registry;

namespace {

// The first device of reg i; NULL (logged, naming caller) if i is out of range or the reg has no device.
ggml_backend_dev_t first_device(size_t i, const char * caller) {
    const std::vector<ggml_backend_reg_t> regs = Registry::instance().regs();
    if (i >= regs.size()) {
        log_error("[%s] backend index %zu out of range (%zu backends)\n", caller, i, regs.size());
        return nullptr;
    }
    if (ggml_backend_reg_dev_count(regs[i]) == 0) {
        log_error("[%s] backend %s has no devices\n", caller, ggml_backend_reg_name(regs[i]));
        return nullptr;
    }
    return ggml_backend_reg_dev_get(regs[i], 0);
}

} // namespace

extern "C" {

size_t ggml_backend_reg_get_count(void) {
    return ggml_backend_reg_count();
}

size_t ggml_backend_reg_find_by_name(const char * name) {
    const std::vector<ggml_backend_reg_t> regs = Registry::instance().regs();
    for (size_t i = 0; i < regs.size(); ++i) {
        if (same_name(ggml_backend_reg_name(regs[i]), name)) {
            return i;
        }
    }
    return SIZE_MAX;
}

ggml_backend_t ggml_backend_reg_init_backend_from_str(const char * backend_str) {
    if (backend_str == nullptr) {
        log_error("[ggml_backend_reg_init_backend_from_str] backend string is NULL\n");
        return nullptr;
    }
    // "name" or "name:params"
    const std::string text(backend_str);
    const size_t      colon  = text.find(':');
    const std::string name   = text.substr(0, colon);
    const std::string params = colon == std::string::npos ? std::string() : text.substr(colon + 1);

    const size_t index = ggml_backend_reg_find_by_name(name.c_str());
    if (index != SIZE_MAX) {
        return ggml_backend_reg_init_backend(index, params.c_str());
    }
    if (ggml_backend_dev_t device = ggml_backend_dev_by_name(name.c_str())) {
        return ggml_backend_dev_init(device, params.c_str());
    }
    log_error("[ggml_backend_reg_init_backend_from_str] backend %s not found\n", name.c_str());
    return nullptr;
}

const char * ggml_backend_reg_get_name(size_t i) {
    const std::vector<ggml_backend_reg_t> regs = Registry::instance().regs();
    if (i >= regs.size()) {
        log_error("[ggml_backend_reg_get_name] backend index %zu out of range (%zu backends)\n", i, regs.size());
        return nullptr;
    }
    return ggml_backend_reg_name(regs[i]);
}

ggml_backend_t ggml_backend_reg_init_backend(size_t i, const char * params) {
    ggml_backend_dev_t device = first_device(i, "ggml_backend_reg_init_backend");
    return device != nullptr ? ggml_backend_dev_init(device, params) : nullptr;
}

ggml_backend_buffer_type_t ggml_backend_reg_get_default_buffer_type(size_t i) {
    ggml_backend_dev_t device = first_device(i, "ggml_backend_reg_get_default_buffer_type");
    return device != nullptr ? ggml_backend_dev_buffer_type(device) : nullptr;
}

ggml_backend_buffer_t ggml_backend_reg_alloc_buffer(size_t i, size_t size) {
    ggml_backend_buffer_type_t buft = ggml_backend_reg_get_default_buffer_type(i);
    return buft != nullptr ? ggml_backend_buft_alloc_buffer(buft, size) : nullptr;
}

} // extern "C"
