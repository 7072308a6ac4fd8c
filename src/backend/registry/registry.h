// The process-wide registry of backends (regs) and devices, shared by registry.cpp (registration and
// enumeration), loader.cpp (backends loaded from dynamic libraries) and legacy.cpp (the 2024 helpers).
//
// Order is registration order: compiled-in backends first (the CPU last among them), then backends registered
// or loaded at run time. Every member is thread-safe; lookups return snapshots, so a backend registered
// concurrently may or may not be seen.
#pragma once

#include "ggml-backend-impl.h"

#include <cstddef>
#include <mutex>
#include <vector>

namespace switchyard::registry {

class Registry {
public:
    // The registry, created (with the compiled-in backends registered) on first use and never destroyed: at
    // process exit the threads of a loaded backend may still run code from its library.
    static Registry & instance();

    // Adds reg and its devices. False (nothing changes) if reg is already registered. On success the registry
    // owns dl_handle (NULL for backends not loaded from a library) until remove_reg hands it back.
    bool add_reg(ggml_backend_reg_t reg, void * dl_handle);

    // Adds one device; false if it is already registered.
    bool add_device(ggml_backend_dev_t device);

    // Removes reg and every device that belongs to it. False if reg is not registered; otherwise *dl_handle
    // receives the library handle it was loaded with (NULL if none) for the caller to close.
    bool remove_reg(ggml_backend_reg_t reg, void ** dl_handle);

    std::vector<ggml_backend_reg_t> regs() const;
    std::vector<ggml_backend_dev_t> devices() const;

    Registry(const Registry &)             = delete;
    Registry & operator=(const Registry &) = delete;

private:
    Registry();

    struct Entry {
        ggml_backend_reg_t reg;
        void *             dl_handle;
    };

    mutable std::mutex              mutex_;
    std::vector<Entry>              regs_;
    std::vector<ggml_backend_dev_t> devices_;
};

// ASCII case-insensitive comparison of two NUL-terminated names (NULL equals nothing).
bool same_name(const char * a, const char * b);

// The registered reg whose name matches (case-insensitively); NULL if none.
ggml_backend_reg_t find_reg(const char * name);

} // namespace switchyard::registry
