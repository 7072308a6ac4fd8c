// Placeholder: the unary kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo unary(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
