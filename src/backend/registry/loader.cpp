// Backends built as dynamic modules. A module exports
//   ggml_backend_reg_t ggml_backend_init(void)   its reg (required; see GGML_BACKEND_DL_IMPL)
//   int                ggml_backend_score(void)  0: unusable on this machine, higher: better (optional)
// ggml_backend_load opens one module (dlopen, RTLD_NOW | RTLD_LOCAL, plus RTLD_DEEPBIND where available: see
// module_open_flags), checks its backend API version and registers its reg. ggml_backend_load_all(_from_path)
// looks for the known backends by file name (libggml-<name>-<variant>.so: the best-scoring variant wins; else
// libggml-<name>.so) in the search paths: the given directory, or GGML_BACKEND_DIR (compile time), the
// executable's directory and the working directory; then it loads the module named by the environment variable
// GGML_BACKEND_PATH, if set.
// Failures are logged and skipped; nothing here aborts.
#include "backend/registry/registry.h"

#include "base/guard.h"
#include "base/log.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

using namespace switchyard;
using namespace switchyard::registry;

namespace fs = std::filesystem;

namespace {

// Backends known to ggml, in the order load_all tries them (the CPU last: other backends may depend on it).
constexpr const char * kKnownBackends[] = {
    "blas",   "zendnn",  "cann",   "cuda",    "hip",  "metal",    "rpc", "sycl",
    "vulkan", "virtgpu", "opencl", "hexagon", "musa", "openvino", "cpu",
};

// Whether this build runs under ASan or TSan, whose runtimes refuse RTLD_DEEPBIND ("incompatible with
// sanitizer runtime") because a deep-bound module would bypass their malloc/free interceptors.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SWITCHYARD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SWITCHYARD_SANITIZED 1
#endif
#endif

// A module's calls to functions it defines itself must reach its own definitions. A module built for upstream
// (its CPU backend, for one) defines and exports names our libraries export too (ggml_backend_cpu_init,
// ggml_graph_compute, ...); with plain RTLD_LOCAL the dynamic linker searches the global scope first, so the
// module's internal calls would run our compiled-in CPU backend instead of its own code. RTLD_DEEPBIND (glibc)
// puts the module and its own dependencies ahead of the global scope. Cost: a module that calls malloc or
// operator new binds to libc's even if the executable replaces them. Sanitizer runtimes abort the process on
// the flag, so a sanitized build, or an unsanitized one loaded into a sanitized program, and platforms without
// the flag keep the old flags; names a module shares with our libraries then resolve to ours.
int module_open_flags() {
    constexpr int kPlain = RTLD_NOW | RTLD_LOCAL;
#if defined(RTLD_DEEPBIND) && !defined(SWITCHYARD_SANITIZED)
    static const bool sanitizer_runtime = [] {
        for (const char * init : {"__asan_init", "__tsan_init", "__msan_init", "__hwasan_init"}) {
            if (dlsym(RTLD_DEFAULT, init) != nullptr) {
                return true;
            }
        }
        return false;
    }();
    return sanitizer_runtime ? kPlain : kPlain | RTLD_DEEPBIND;
#else
    return kPlain;
#endif
}

void * open_library(const fs::path & path, bool silent) {
    void * handle = dlopen(path.c_str(), module_open_flags());
    if (handle == nullptr && !silent) {
        const char * reason = dlerror();
        log_error("[ggml_backend_load] cannot load %s: %s\n", path.c_str(), reason != nullptr ? reason : "unknown");
    }
    return handle;
}

template <typename Fn>
Fn find_symbol(void * handle, const char * name) {
    return reinterpret_cast<Fn>(dlsym(handle, name));
}

// Initializes the module behind handle; its reg, or NULL (logged unless silent) if it is not a usable module.
ggml_backend_reg_t init_module(void * handle, const fs::path & path, bool silent) {
    auto score_fn = find_symbol<ggml_backend_score_t>(handle, "ggml_backend_score");
    if (score_fn != nullptr && score_fn() == 0) {
        if (!silent) {
            log_info("[ggml_backend_load] %s is not supported on this machine\n", path.c_str());
        }
        return nullptr;
    }
    auto init_fn = find_symbol<ggml_backend_init_t>(handle, "ggml_backend_init");
    if (init_fn == nullptr) {
        if (!silent) {
            log_error("[ggml_backend_load] %s is not a ggml backend module (no ggml_backend_init)\n", path.c_str());
        }
        return nullptr;
    }
    ggml_backend_reg_t reg = init_fn();
    if (reg == nullptr) {
        if (!silent) {
            log_error("[ggml_backend_load] ggml_backend_init of %s returned NULL\n", path.c_str());
        }
        return nullptr;
    }
    if (reg->api_version != GGML_BACKEND_API_VERSION) {
        if (!silent) {
            log_error("[ggml_backend_load] %s uses backend API version %d, this library version %d\n", path.c_str(),
                      reg->api_version, GGML_BACKEND_API_VERSION);
        }
        return nullptr;
    }
    return reg;
}

ggml_backend_reg_t load_module(const fs::path & path, bool silent) {
    void * handle = open_library(path, silent);
    if (handle == nullptr) {
        return nullptr;
    }
    ggml_backend_reg_t reg = init_module(handle, path, silent);
    if (reg == nullptr) {
        dlclose(handle);
        return nullptr;
    }
    if (!Registry::instance().add_reg(reg, handle)) {
        // loaded before: dlopen returned the same library with one more reference
        dlclose(handle);
        return reg;
    }
    log_info("[ggml_backend_load] loaded backend %s from %s\n", ggml_backend_reg_name(reg), path.c_str());
    return reg;
}

// The module's score, 0 if it cannot be loaded or has no score function.
int module_score(const fs::path & path, bool silent) {
    void * handle = open_library(path, silent);
    if (handle == nullptr) {
        return 0;
    }
    auto score_fn = find_symbol<ggml_backend_score_t>(handle, "ggml_backend_score");
    const int score = score_fn != nullptr ? score_fn() : 0;
    if (score_fn == nullptr && !silent) {
        log_info("[ggml_backend_load_all] %s has no ggml_backend_score, skipped\n", path.c_str());
    }
    dlclose(handle);
    return score;
}

std::vector<fs::path> search_paths(const char * dir_path) {
    if (dir_path != nullptr) {
        return {fs::path(dir_path)};
    }
    std::vector<fs::path> paths;
#ifdef GGML_BACKEND_DIR
    paths.emplace_back(GGML_BACKEND_DIR);
#endif
    std::error_code ec;
    const fs::path  exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        paths.push_back(exe.parent_path());
    }
    const fs::path cwd = fs::current_path(ec);
    if (!ec) {
        paths.push_back(cwd);
    }
    return paths;
}

// Files libggml-<name>-*.so in dir, sorted by name.
std::vector<fs::path> variants_in(const fs::path & dir, const std::string & name) {
    const std::string     prefix = "libggml-" + name + "-";
    std::vector<fs::path> found;
    std::error_code       ec;
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
        const fs::path    path     = it->path();
        const std::string filename = path.filename().string();
        if (filename.rfind(prefix, 0) == 0 && path.extension() == ".so" && it->is_regular_file(ec)) {
            found.push_back(path);
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

void load_best(const char * name, bool silent, const char * dir_path) {
    if (find_reg(name) != nullptr) {
        return; // compiled in or loaded already
    }
    const std::vector<fs::path> paths = search_paths(dir_path);
    int                         best_score = 0;
    fs::path                    best_path;
    for (const fs::path & dir : paths) {
        for (const fs::path & candidate : variants_in(dir, name)) {
            const int score = module_score(candidate, silent);
            if (score > best_score) {
                best_score = score;
                best_path  = candidate;
            }
        }
    }
    if (best_score > 0) {
        load_module(best_path, silent);
        return;
    }
    const std::string plain = std::string("libggml-") + name + ".so";
    for (const fs::path & dir : paths) {
        std::error_code ec;
        if (fs::exists(dir / plain, ec)) {
            load_module(dir / plain, silent);
            return;
        }
    }
}

} // namespace

extern "C" {

ggml_backend_reg_t ggml_backend_load(const char * path) {
    if (path == nullptr) {
        log_error("[ggml_backend_load] path is NULL\n");
        return nullptr;
    }
    return guard("ggml_backend_load", nullptr, [&] { return load_module(fs::path(path), false); });
}

void ggml_backend_unload(ggml_backend_reg_t reg) {
    if (reg == nullptr) {
        log_error("[ggml_backend_unload] reg is NULL\n");
        return;
    }
    void * dl_handle = nullptr;
    if (!Registry::instance().remove_reg(reg, &dl_handle)) {
        log_error("[ggml_backend_unload] backend %s is not registered\n", ggml_backend_reg_name(reg));
        return;
    }
    if (dl_handle != nullptr) {
        dlclose(dl_handle);
    }
}

void ggml_backend_load_all(void) {
    ggml_backend_load_all_from_path(nullptr);
}

void ggml_backend_load_all_from_path(const char * dir_path) {
#ifdef NDEBUG
    const bool silent = true;
#else
    const bool silent = false;
#endif
    guard_void("ggml_backend_load_all_from_path", [&] {
        for (const char * name : kKnownBackends) {
            load_best(name, silent, dir_path);
        }
    });
    if (const char * extra = std::getenv("GGML_BACKEND_PATH"); extra != nullptr && extra[0] != '\0') {
        ggml_backend_load(extra);
    }
}

} // extern "C"
