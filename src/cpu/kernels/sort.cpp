// Placeholder: the sort kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo sort(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
