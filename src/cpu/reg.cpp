// The CPU reg: one device, and the CPU backend's extra entry points by name (ggml_backend_reg_get_proc_address),
// the way applications reach them when backends are loaded as modules.
#include "cpu/backend.h"

#include "cpu/comm.h"
#include "cpu/repack/buffer_type.h"
#include "cpu/repack/format.h"

#include "base/cpuid.h"

#include "ggml-cpu.h"

#include <cstring>
#include <utility>
#include <vector>

namespace switchyard::cpu {

namespace {

const char * reg_get_name(ggml_backend_reg_t) { return "CPU"; }

size_t reg_get_device_count(ggml_backend_reg_t) { return 1; }

ggml_backend_dev_t reg_get_device(ggml_backend_reg_t, size_t index) { return index == 0 ? cpu_device() : nullptr; }

// The CPU's extra buffer types, a NULL-terminated list: CPU_REPACK (weights repacked at load time,
// repack/buffer_type.h) where this CPU has a repacked tile faster than the portable one; else an empty list.
ggml_backend_buffer_type_t * dev_get_extra_bufts(ggml_backend_dev_t) {
    static ggml_backend_buffer_type_t with_repack[] = {repack::repack_buffer_type(), nullptr};
    static ggml_backend_buffer_type_t none[]        = {nullptr};
    return repack::tile_fast() != nullptr ? with_repack : none;
}

std::vector<ggml_backend_feature> detect_features() {
    const CpuFeatures &               f = cpu_features();
    std::vector<ggml_backend_feature> list;
    const std::pair<const char *, bool> isa[] = {
        {"SSE3", f.sse3},         {"SSSE3", f.ssse3},       {"AVX", f.avx},
        {"AVX_VNNI", f.avx_vnni}, {"AVX2", f.avx2},         {"F16C", f.f16c},
        {"FMA", f.fma},           {"BMI2", f.bmi2},         {"AVX512", f.avx512f},
        {"AVX512_VBMI", f.avx512_vbmi}, {"AVX512_VNNI", f.avx512_vnni}, {"AVX512_BF16", f.avx512_bf16},
        {"AMX_INT8", f.amx_int8}, {"NEON", f.neon},         {"DOTPROD", f.dotprod},
    };
    for (const auto & [name, present] : isa) {
        if (present) {
            list.push_back({name, "1"});
        }
    }
    list.push_back({nullptr, nullptr});
    return list;
}

// The ISA features the kernels may use on this machine (after SWITCHYARD_CPU_ISA), as {name, "1"} pairs.
ggml_backend_feature * get_features(ggml_backend_reg_t) {
    static std::vector<ggml_backend_feature> list = detect_features();
    return list.data();
}

struct Proc {
    const char * name;
    void *       address;
};

void * reg_get_proc_address(ggml_backend_reg_t, const char * name) {
    static const Proc procs[] = {
        {"ggml_backend_set_n_threads", reinterpret_cast<void *>(&ggml_backend_cpu_set_n_threads)},
        {"ggml_backend_dev_get_extra_bufts", reinterpret_cast<void *>(&dev_get_extra_bufts)},
        {"ggml_backend_get_features", reinterpret_cast<void *>(&get_features)},
        {"ggml_backend_set_abort_callback", reinterpret_cast<void *>(&ggml_backend_cpu_set_abort_callback)},
        {"ggml_backend_cpu_numa_init", reinterpret_cast<void *>(&ggml_numa_init)},
        {"ggml_backend_cpu_is_numa", reinterpret_cast<void *>(&ggml_is_numa)},
        {"ggml_backend_cpu_set_use_ref", reinterpret_cast<void *>(&ggml_backend_cpu_set_use_ref)},
        {"ggml_threadpool_new", reinterpret_cast<void *>(&ggml_threadpool_new)},
        {"ggml_threadpool_free", reinterpret_cast<void *>(&ggml_threadpool_free)},
        {"ggml_backend_cpu_set_threadpool", reinterpret_cast<void *>(&ggml_backend_cpu_set_threadpool)},
        {"ggml_backend_comm_init", reinterpret_cast<void *>(&comm_init)},
        {"ggml_backend_comm_free", reinterpret_cast<void *>(&comm_free)},
        {"ggml_backend_comm_allreduce_tensor", reinterpret_cast<void *>(&comm_allreduce_tensor)},
    };
    if (name == nullptr) {
        return nullptr;
    }
    for (const Proc & proc : procs) {
        if (std::strcmp(proc.name, name) == 0) {
            return proc.address;
        }
    }
    return nullptr;
}

constexpr ggml_backend_reg_i kInterface = {
    /* .get_name         = */ reg_get_name,
    /* .get_device_count = */ reg_get_device_count,
    /* .get_device       = */ reg_get_device,
    /* .get_proc_address = */ reg_get_proc_address,
};

} // namespace

} // namespace switchyard::cpu

extern "C" ggml_backend_reg_t ggml_backend_cpu_reg(void) {
    static ggml_backend_reg reg = {GGML_BACKEND_API_VERSION, switchyard::cpu::kInterface, nullptr};
    ggml_cpu_init();
    return &reg;
}

GGML_BACKEND_DL_IMPL(ggml_backend_cpu_reg)
