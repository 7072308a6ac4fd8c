// Placeholder: the rope kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo rope(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
