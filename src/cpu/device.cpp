// The CPU device: the host processor and system memory. It computes every (op, types) pair the kernel table
// accepts, on tensors in host memory; it stores tensors in any host buffer type and can wrap caller memory
// (e.g. a memory-mapped model) in a buffer. No events, no asynchronous work.
#include "cpu/backend.h"

#include "cpu/kernel.h"
#include "cpu/repack/buffer_type.h"

#include "ggml-cpu.h"

#include "base/log.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <unistd.h>

namespace switchyard::cpu {

namespace {

// "model name : Intel(R) Xeon(R) ..." from /proc/cpuinfo; "CPU" where there is none (other systems, Arm).
std::string read_cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string   line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) != 0) {
            continue;
        }
        const size_t colon = line.find(':');
        if (colon == std::string::npos) {
            continue;
        }
        size_t begin = colon + 1;
        while (begin < line.size() && std::isspace(static_cast<unsigned char>(line[begin]))) {
            ++begin;
        }
        size_t end = line.size();
        while (end > begin && std::isspace(static_cast<unsigned char>(line[end - 1]))) {
            --end;
        }
        if (end > begin) {
            return line.substr(begin, end - begin);
        }
    }
    return "CPU";
}

const char * dev_get_name(ggml_backend_dev_t) { return "CPU"; }

const char * dev_get_description(ggml_backend_dev_t) {
    static const std::string model = read_cpu_model();
    return model.c_str();
}

void dev_get_memory(ggml_backend_dev_t, size_t * free, size_t * total) {
    const long page  = sysconf(_SC_PAGESIZE);
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long avail = sysconf(_SC_AVPHYS_PAGES);
    *total = page > 0 && pages > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
    *free  = page > 0 && avail > 0 ? static_cast<size_t>(avail) * static_cast<size_t>(page) : 0;
}

enum ggml_backend_dev_type dev_get_type(ggml_backend_dev_t) { return GGML_BACKEND_DEVICE_TYPE_CPU; }

void dev_get_props(ggml_backend_dev_t dev, ggml_backend_dev_props * props) {
    props->name        = dev_get_name(dev);
    props->description = dev_get_description(dev);
    props->type        = dev_get_type(dev);
    props->device_id   = nullptr;
    dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps = {
        /* .async                = */ false,
        /* .host_buffer          = */ false,
        /* .buffer_from_host_ptr = */ true,
        /* .events               = */ false,
        /* .mmap_support         = */ true,
    };
}

ggml_backend_t dev_init_backend(ggml_backend_dev_t, const char * params) {
    ggml_backend_t backend = ggml_backend_cpu_init();
    if (backend != nullptr) {
        apply_backend_params(backend, params);
    }
    return backend;
}

ggml_backend_buffer_type_t dev_get_buffer_type(ggml_backend_dev_t) { return ggml_backend_cpu_buffer_type(); }

ggml_backend_buffer_t dev_buffer_from_host_ptr(ggml_backend_dev_t, void * ptr, size_t size, size_t) {
    return ggml_backend_cpu_buffer_from_ptr(ptr, size);
}

// Host memory the kernels can address: host buffers, and CPU_REPACK buffers (host memory whose repacked
// tensors only MUL_MAT, MUL_MAT_ID and GET_ROWS read, as their src0: dev_supports_op checks that,
// repack/buffer_type.h).
// `buffer` is the one t's memory lives in (its view_src's for a view).
bool in_host_memory(const ggml_tensor * t, ggml_backend_buffer_t buffer) {
    return ggml_backend_buffer_is_host(buffer) || repack::in_repack_buffer(t);
}

// Only MUL_MAT, MUL_MAT_ID and GET_ROWS read repacked bytes, and only as src0 (itself, not a view of it). Decided by
// op, the source's type and shape and its buffer type, not by whether init_tensor has run: a placement probe asks
// with tensors never initialised, and must get the answer their computation will get.
bool reads_repacked_wrongly(const ggml_tensor * op, const ggml_tensor * src) {
    const bool reader = op->op == GGML_OP_MUL_MAT || op->op == GGML_OP_MUL_MAT_ID || op->op == GGML_OP_GET_ROWS;
    return !(reader && src == op->src[0] && src->view_src == nullptr) && repack::placed_repacked(src);
}

// Schedulers ask this for every node of every graph, so the common answers come first: sources without a
// buffer yet (activations being planned) and sources in the plain CPU buffer type need no further look.
bool dev_supports_op(ggml_backend_dev_t, const ggml_tensor * op) {
    const KernelInfo & info = kernel_for(op->op);
    if (info.supports == nullptr || !info.supports(op)) {
        return false;
    }
    if (info.compute == nullptr) {
        return true; // views and reshapes touch no memory
    }
    static const ggml_backend_buffer_type_t plain = ggml_backend_cpu_buffer_type();
    for (const ggml_tensor * src : op->src) {
        if (src == nullptr) {
            continue;
        }
        const ggml_backend_buffer_t buffer =
            src->view_src != nullptr && src->view_src->buffer != nullptr ? src->view_src->buffer : src->buffer;
        if (buffer == nullptr || buffer->buft == plain) {
            continue; // no memory yet, or plain host memory: never repacked
        }
        if (!in_host_memory(src, buffer) || reads_repacked_wrongly(op, src)) {
            return false;
        }
    }
    return true;
}

// Host buffer types, and the CPU's own CPU_REPACK (ggml_backend_dev_get_extra_bufts).
bool dev_supports_buft(ggml_backend_dev_t, ggml_backend_buffer_type_t buft) {
    return ggml_backend_buft_is_host(buft) || buft == repack::repack_buffer_type();
}

constexpr ggml_backend_device_i kInterface = {
    /* .get_name             = */ dev_get_name,
    /* .get_description      = */ dev_get_description,
    /* .get_memory           = */ dev_get_memory,
    /* .get_type             = */ dev_get_type,
    /* .get_props            = */ dev_get_props,
    /* .init_backend         = */ dev_init_backend,
    /* .get_buffer_type      = */ dev_get_buffer_type,
    /* .get_host_buffer_type = */ nullptr,
    /* .buffer_from_host_ptr = */ dev_buffer_from_host_ptr,
    /* .supports_op          = */ dev_supports_op,
    /* .supports_buft        = */ dev_supports_buft,
    /* .offload_op           = */ nullptr,
    /* .event_new            = */ nullptr,
    /* .event_free           = */ nullptr,
    /* .event_synchronize    = */ nullptr,
};

bool is_separator(char c) { return c == ',' || c == ';' || std::isspace(static_cast<unsigned char>(c)); }

void apply_param(ggml_backend_t backend, const std::string & entry) {
    const size_t      eq    = entry.find('=');
    const std::string key   = entry.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : entry.substr(eq + 1);
    if (key == "n_threads") {
        char *     end = nullptr;
        errno          = 0;
        const long n   = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || errno != 0 || n < 1 || n > GGML_MAX_N_THREADS) {
            log_warn("[ggml_backend_dev_init] CPU: ignoring n_threads=%s (expected 1..%d)\n", value.c_str(),
                     GGML_MAX_N_THREADS);
            return;
        }
        ggml_backend_cpu_set_n_threads(backend, static_cast<int>(n));
        return;
    }
    log_warn("[ggml_backend_dev_init] CPU: ignoring unknown parameter '%s'\n", entry.c_str());
}

} // namespace

ggml_backend_dev_t cpu_device() {
    static ggml_backend_device device = {kInterface, ggml_backend_cpu_reg(), nullptr};
    return &device;
}

void apply_backend_params(ggml_backend_t backend, const char * params) {
    if (params == nullptr) {
        return;
    }
    const std::string text(params);
    size_t            pos = 0;
    while (pos < text.size()) {
        while (pos < text.size() && is_separator(text[pos])) {
            ++pos;
        }
        size_t end = pos;
        while (end < text.size() && !is_separator(text[end])) {
            ++end;
        }
        if (end > pos) {
            apply_param(backend, text.substr(pos, end - pos));
        }
        pos = end;
    }
}

} // namespace switchyard::cpu
