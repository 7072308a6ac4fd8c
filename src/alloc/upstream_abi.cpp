// Upstream ggml's internal allocator symbol that programs built against its tree link against: upstream declares it
// in its private ggml-impl.h and its own test-alloc calls it to check that only in-place results overlap their
// sources. Exported with upstream's name, C linkage and meaning; not declared in include/.
//
//   bool ggml_op_can_inplace(enum ggml_op op)  whether the graph allocator may place op's result in the memory of
//                                              a source that dies at it (the op table's can_inplace column,
//                                              upstream's list); false for values outside the enum.
#include "alloc/inplace_ops.h"

#include "ggml.h"

extern "C" {

__attribute__((visibility("default"))) bool ggml_op_can_inplace(enum ggml_op op);

bool ggml_op_can_inplace(enum ggml_op op) {
    return switchyard::alloc::op_can_inplace(op);
}

} // extern "C"
