// Placeholder: the conv kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo conv(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
