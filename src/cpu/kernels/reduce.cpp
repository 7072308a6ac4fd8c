// Placeholder: the reduce kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo reduce(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
