// Internal links between the CPU backend's objects: reg (reg.cpp) -> device (device.cpp) -> backend
// (backend.cpp). The C entry points are in ggml-cpu.h.
#pragma once

#include "ggml-backend-impl.h"

namespace switchyard::cpu {

// The one CPU device, owned by the CPU reg and alive for the whole process.
ggml_backend_dev_t cpu_device();

// Applies a backend parameter string ("n_threads=4"; entries separated by ',', ';' or spaces) to a CPU backend.
// Unknown keys and bad values are logged as warnings and skipped; NULL or "" changes nothing.
void apply_backend_params(ggml_backend_t backend, const char * params);

} // namespace switchyard::cpu
