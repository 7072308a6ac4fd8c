// The registry of backends and devices: registration, enumeration by index, name and type, and backend
// (stream) creation from a device name or type. The compiled-in backends are registered when the registry is
// first used; every other reg comes from ggml_backend_register or from a module (loader.cpp).
#include "backend/registry/registry.h"

#include "base/guard.h"
#include "base/log.h"

#ifdef GGML_USE_CPU
#include "ggml-cpu.h"
#endif
#ifdef GGML_USE_MPI
#include "mpi/mpi.h"
#endif
#ifdef GGML_USE_VULKAN
#include "ggml-vulkan.h"
#endif

#include <algorithm>
#include <cctype>

using namespace switchyard;
using namespace switchyard::registry;

namespace switchyard::registry {

Registry & Registry::instance() {
    static Registry * registry = new Registry();
    return *registry;
}

Registry::Registry() {
    // compiled-in backends, in upstream's order (GPU backends first, the CPU last)
#ifdef GGML_USE_VULKAN
    add_reg(ggml_backend_vk_reg(), nullptr);
#endif
#ifdef GGML_USE_CPU
    add_reg(ggml_backend_cpu_reg(), nullptr);
#endif
#ifdef GGML_USE_MPI
    // under an MPI launcher, every rank's devices (the ones above: its CPU and GPU-type devices) as MPI<r>:<name>
    std::vector<ggml_backend_dev_t> local;
    for (ggml_backend_dev_t dev : devices_) {
        const auto type = ggml_backend_dev_type(dev);
        if (type == GGML_BACKEND_DEVICE_TYPE_CPU || type == GGML_BACKEND_DEVICE_TYPE_GPU ||
            type == GGML_BACKEND_DEVICE_TYPE_IGPU) {
            local.push_back(dev);
        }
    }
    if (ggml_backend_reg_t reg = mpi::make_reg(local)) {
        add_reg(reg, nullptr);
    }
#endif
}

bool Registry::add_reg(ggml_backend_reg_t reg, void * dl_handle) {
    // ask the backend for its devices before taking the lock: it may call back into the registry
    std::vector<ggml_backend_dev_t> reg_devices;
    const size_t                    n_devices = ggml_backend_reg_dev_count(reg);
    for (size_t i = 0; i < n_devices; ++i) {
        if (ggml_backend_dev_t device = ggml_backend_reg_dev_get(reg, i)) {
            reg_devices.push_back(device);
        }
    }
    std::lock_guard lock(mutex_);
    if (std::any_of(regs_.begin(), regs_.end(), [&](const Entry & e) { return e.reg == reg; })) {
        return false;
    }
    regs_.push_back({reg, dl_handle});
    for (ggml_backend_dev_t device : reg_devices) {
        if (std::find(devices_.begin(), devices_.end(), device) == devices_.end()) {
            devices_.push_back(device);
        }
    }
    return true;
}

bool Registry::add_device(ggml_backend_dev_t device) {
    std::lock_guard lock(mutex_);
    if (std::find(devices_.begin(), devices_.end(), device) != devices_.end()) {
        return false;
    }
    devices_.push_back(device);
    return true;
}

bool Registry::remove_reg(ggml_backend_reg_t reg, void ** dl_handle) {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(regs_.begin(), regs_.end(), [&](const Entry & e) { return e.reg == reg; });
    if (it == regs_.end()) {
        return false;
    }
    *dl_handle = it->dl_handle;
    regs_.erase(it);
    std::erase_if(devices_, [&](ggml_backend_dev_t device) { return ggml_backend_dev_backend_reg(device) == reg; });
    return true;
}

std::vector<ggml_backend_reg_t> Registry::regs() const {
    std::lock_guard                 lock(mutex_);
    std::vector<ggml_backend_reg_t> out;
    out.reserve(regs_.size());
    for (const Entry & e : regs_) {
        out.push_back(e.reg);
    }
    return out;
}

std::vector<ggml_backend_dev_t> Registry::devices() const {
    std::lock_guard lock(mutex_);
    return devices_;
}

bool same_name(const char * a, const char * b) {
    if (a == nullptr || b == nullptr) {
        return false;
    }
    for (; *a != '\0' && *b != '\0'; ++a, ++b) {
        if (std::tolower(static_cast<unsigned char>(*a)) != std::tolower(static_cast<unsigned char>(*b))) {
            return false;
        }
    }
    return *a == *b;
}

ggml_backend_reg_t find_reg(const char * name) {
    for (ggml_backend_reg_t reg : Registry::instance().regs()) {
        if (same_name(ggml_backend_reg_name(reg), name)) {
            return reg;
        }
    }
    return nullptr;
}

} // namespace switchyard::registry

extern "C" {

void ggml_backend_register(ggml_backend_reg_t reg) {
    if (reg == nullptr) {
        log_error("[ggml_backend_register] reg is NULL\n");
        return;
    }
    if (reg->api_version != GGML_BACKEND_API_VERSION) {
        log_error("[ggml_backend_register] backend %s uses backend API version %d, this library version %d\n",
                  ggml_backend_reg_name(reg), reg->api_version, GGML_BACKEND_API_VERSION);
        return;
    }
    // registering a reg twice changes nothing
    guard_void("ggml_backend_register", [&] { Registry::instance().add_reg(reg, nullptr); });
}

void ggml_backend_device_register(ggml_backend_dev_t device) {
    if (device == nullptr) {
        log_error("[ggml_backend_device_register] device is NULL\n");
        return;
    }
    // registering a device twice changes nothing
    guard_void("ggml_backend_device_register", [&] { Registry::instance().add_device(device); });
}

size_t ggml_backend_reg_count(void) {
    return guard("ggml_backend_reg_count", size_t{0}, [] { return Registry::instance().regs().size(); });
}

ggml_backend_reg_t ggml_backend_reg_get(size_t index) {
    return guard("ggml_backend_reg_get", nullptr, [&]() -> ggml_backend_reg_t {
        const std::vector<ggml_backend_reg_t> regs = Registry::instance().regs();
        if (index >= regs.size()) {
            log_error("[ggml_backend_reg_get] index %zu out of range (%zu backends)\n", index, regs.size());
            return nullptr;
        }
        return regs[index];
    });
}

ggml_backend_reg_t ggml_backend_reg_by_name(const char * name) {
    return guard("ggml_backend_reg_by_name", nullptr, [&] { return find_reg(name); });
}

size_t ggml_backend_dev_count(void) {
    return guard("ggml_backend_dev_count", size_t{0}, [] { return Registry::instance().devices().size(); });
}

ggml_backend_dev_t ggml_backend_dev_get(size_t index) {
    return guard("ggml_backend_dev_get", nullptr, [&]() -> ggml_backend_dev_t {
        const std::vector<ggml_backend_dev_t> devices = Registry::instance().devices();
        if (index >= devices.size()) {
            log_error("[ggml_backend_dev_get] index %zu out of range (%zu devices)\n", index, devices.size());
            return nullptr;
        }
        return devices[index];
    });
}

ggml_backend_dev_t ggml_backend_dev_by_name(const char * name) {
    return guard("ggml_backend_dev_by_name", nullptr, [&]() -> ggml_backend_dev_t {
        for (ggml_backend_dev_t device : Registry::instance().devices()) {
            if (same_name(ggml_backend_dev_name(device), name)) {
                return device;
            }
        }
        return nullptr;
    });
}

ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type) {
    return guard("ggml_backend_dev_by_type", nullptr, [&]() -> ggml_backend_dev_t {
        for (ggml_backend_dev_t device : Registry::instance().devices()) {
            if (ggml_backend_dev_type(device) == type) {
                return device;
            }
        }
        return nullptr;
    });
}

ggml_backend_t ggml_backend_init_by_name(const char * name, const char * params) {
    ggml_backend_dev_t device = ggml_backend_dev_by_name(name);
    if (device == nullptr) {
        log_error("[ggml_backend_init_by_name] no device named '%s'\n", name != nullptr ? name : "(NULL)");
        return nullptr;
    }
    return ggml_backend_dev_init(device, params);
}

ggml_backend_t ggml_backend_init_by_type(enum ggml_backend_dev_type type, const char * params) {
    ggml_backend_dev_t device = ggml_backend_dev_by_type(type);
    if (device == nullptr) {
        log_error("[ggml_backend_init_by_type] no device of type %d\n", static_cast<int>(type));
        return nullptr;
    }
    return ggml_backend_dev_init(device, params);
}

ggml_backend_t ggml_backend_init_best(void) {
    ggml_backend_dev_t device = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU);
    if (device == nullptr) {
        device = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU);
    }
    if (device == nullptr) {
        device = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    }
    if (device == nullptr) {
        log_error("[ggml_backend_init_best] no device is registered\n");
        return nullptr;
    }
    return ggml_backend_dev_init(device, nullptr);
}

} // extern "C"

#ifdef GGML_USE_MPI
extern "C" ggml_backend_reg_t ggml_backend_mpi_reg(void) {
    Registry::instance(); // makes the reg over the local devices
    return switchyard::mpi::current_reg();
}
#endif
