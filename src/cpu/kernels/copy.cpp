// Placeholder: the copy kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo copy(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
