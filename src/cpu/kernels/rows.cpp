// Placeholder: the rows kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo rows(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
