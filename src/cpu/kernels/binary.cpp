// Placeholder: the binary kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo binary(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
