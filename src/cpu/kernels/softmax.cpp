// Placeholder: the softmax kernels are not written yet.
#include "cpu/kernels/families.h"

namespace switchyard::cpu::kernels {

KernelInfo softmax(ggml_op) { return KernelInfo{}; }

} // namespace switchyard::cpu::kernels
