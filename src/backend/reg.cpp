// Reg wrappers: a reg is one backend library (its devices and its optional extra functions). The process-wide
// list of regs is the registry, in src/backend/registry/ (library ggml).
#include "ggml-backend-impl.h"

#include "base/log.h"

using namespace switchyard;

extern "C" {

const char * ggml_backend_reg_name(ggml_backend_reg_t reg) {
    if (reg == nullptr) {
        return "NULL";
    }
    return reg->iface.get_name(reg);
}

size_t ggml_backend_reg_dev_count(ggml_backend_reg_t reg) {
    if (reg == nullptr) {
        return 0;
    }
    return reg->iface.get_device_count(reg);
}

ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index) {
    if (reg == nullptr) {
        log_error("[ggml_backend_reg_dev_get] reg is NULL\n");
        return nullptr;
    }
    const size_t count = reg->iface.get_device_count(reg);
    if (index >= count) {
        log_error("[ggml_backend_reg_dev_get] device index %zu out of range: %s has %zu devices\n", index,
                  ggml_backend_reg_name(reg), count);
        return nullptr;
    }
    return reg->iface.get_device(reg, index);
}

void * ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    if (reg == nullptr || name == nullptr || reg->iface.get_proc_address == nullptr) {
        return nullptr;
    }
    return reg->iface.get_proc_address(reg, name);
}

} // extern "C"
