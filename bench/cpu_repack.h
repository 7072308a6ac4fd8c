// The CPU device's CPU_REPACK buffer type, as a program finds it (ggml_backend_dev_get_extra_bufts through the CPU
// reg's proc address), for the benchmarks that load weights into it.
#pragma once

#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <cstring>

// nullptr where the CPU device offers none.
inline ggml_backend_buffer_type_t cpu_repack_buffer_type() {
    ggml_backend_reg_t reg = ggml_backend_cpu_reg();
    auto get = reinterpret_cast<ggml_backend_buffer_type_t * (*)(ggml_backend_dev_t)>(
        ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts"));
    for (ggml_backend_buffer_type_t * b = get != nullptr ? get(ggml_backend_reg_dev_get(reg, 0)) : nullptr;
         b != nullptr && *b != nullptr; ++b) {
        if (std::strcmp(ggml_backend_buft_name(*b), "CPU_REPACK") == 0) {
            return *b;
        }
    }
    return nullptr;
}
