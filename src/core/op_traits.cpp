// The op-name part of the C API, read from the op table (src/core/op_traits.h).
#include "core/op_traits.h"

#include "base/abort.h"
#include "core/tensor.h"

namespace switchyard {

namespace {

constexpr OpInfo kUnknownOp = {GGML_OP_NONE, "UNKNOWN", "unknown", 0, false, false};

const char * unary_name(int op) {
    return (op >= 0 && op < GGML_UNARY_OP_COUNT) ? kUnaryOpNames[static_cast<size_t>(op)] : "UNKNOWN";
}

const char * glu_name(int op) {
    return (op >= 0 && op < GGML_GLU_OP_COUNT) ? kGluOpNames[static_cast<size_t>(op)] : "UNKNOWN";
}

} // namespace

const OpInfo & op_info(ggml_op op) {
    return is_valid_op(op) ? kOpTable[static_cast<size_t>(op)] : kUnknownOp;
}

} // namespace switchyard

using namespace switchyard;

extern "C" {

const char * ggml_op_name(enum ggml_op op) { return op_info(op).name; }

const char * ggml_op_symbol(enum ggml_op op) { return op_info(op).symbol; }

const char * ggml_unary_op_name(enum ggml_unary_op op) { return unary_name(op); }

const char * ggml_glu_op_name(enum ggml_glu_op op) { return glu_name(op); }

const char * ggml_op_desc(const struct ggml_tensor * t) {
    if (t->op == GGML_OP_UNARY) {
        return unary_name(get_op_param_i32(t, 0));
    }
    if (t->op == GGML_OP_GLU) {
        return glu_name(get_op_param_i32(t, 0));
    }
    return ggml_op_name(t->op);
}

enum ggml_unary_op ggml_get_unary_op(const struct ggml_tensor * t) {
    if (t->op != GGML_OP_UNARY) {
        fatal("[ggml_get_unary_op] tensor '%s' has op %s, not UNARY", t->name, ggml_op_name(t->op));
    }
    return static_cast<ggml_unary_op>(get_op_param_i32(t, 0));
}

enum ggml_glu_op ggml_get_glu_op(const struct ggml_tensor * t) {
    if (t->op != GGML_OP_GLU) {
        fatal("[ggml_get_glu_op] tensor '%s' has op %s, not GLU", t->name, ggml_op_name(t->op));
    }
    return static_cast<ggml_glu_op>(get_op_param_i32(t, 0));
}

} // extern "C"
