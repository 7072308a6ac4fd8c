// Placeholder: the norm kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo norm(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
