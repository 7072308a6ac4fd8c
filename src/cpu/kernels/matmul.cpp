// Placeholder: the matmul kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo matmul(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
