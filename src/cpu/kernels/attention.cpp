// Placeholder: the attention kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo attention(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
