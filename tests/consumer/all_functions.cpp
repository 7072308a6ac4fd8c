// Every function of upstream ggml's public C API, referenced from a C++20 program built against the installed
// package (find_package(ggml) in tests/consumer/project, run by the consumer_installed_package test).
//
// What it proves: each table entry below names one function with the exact type upstream declares it with,
// written out (`fn<RET(PARAMS)>(&name)` only compiles when &name converts to RET(*)(PARAMS) without a cast, so a
// missing declaration or a changed return/parameter type breaks the build), and linking the program proves the
// symbol is exported by the installed libraries. main() then checks no address is null and makes a handful of
// real calls through ggml-cpp.h's owners (contexts, a CPU backend and its buffer, a graph allocator, a scheduler,
// a GGUF context), computing a small graph both ways (ggml_graph_compute_with_ctx and a backend).
//
// How the list was made: the declarations were transcribed from upstream's headers (ggml-org/llama.cpp,
// ggml/include/: ggml.h at 3514e9f6, ggml-backend.h and ggml-alloc.h at 5bc7a740, ggml-cpu.h at 4739e47c, gguf.h
// at 0b6d2254, ggml-opt.h at 2df5e5fe) and brought up to the snapshot that shared/design/ggml-reference.md
// describes where that note records a later change (each such entry says so in a comment). A script expanded
// them into the tables; it is not kept: edit the tables by hand when upstream changes. Functions that our headers
// declare beyond those copies close each table, referenced with the type our header gives them. Every upstream
// function of those copies is declared (the last three, ggml_flash_attn_back and the deprecated ggml_rope_custom
// pair, have table rows like the rest); one that upstream adds and we lack would be listed after the tables under
// `#if 0`, with the reason, so the gap stays visible.
//
// ggml-opt.h is referenced only when the installed package has it (__has_include). ggml-cpp.h declares no
// functions: its seven owner types are each used below.
//
// Length: over 1000 lines because it is one table row per public function (about 660); a table split across
// files would only hide which header a function belongs to.

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpp.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "gguf.h"

#if __has_include("ggml-opt.h")
#    include "ggml-opt.h"
#    define CONSUMER_HAS_GGML_OPT 1
#else
#    define CONSUMER_HAS_GGML_OPT 0
#endif

#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

namespace {

// The address of a function whose type must be exactly F (F spelled out at the call site), as an untyped pointer.
template <typename F>
const void * fn(F * f) {
    return reinterpret_cast<const void *>(f);
}

// Upstream marks a few of these GGML_DEPRECATED; taking their address is the point here.
#if defined(__GNUC__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

// ggml.h: 356 functions with upstream's types
const void * const k_ggml[] = {
    fn<ggml_abort_callback_t(ggml_abort_callback_t)>(&ggml_set_abort_callback),
    fn<void(const char *, int, const char *, ...)>(&ggml_abort),
    fn<const char *(enum ggml_status)>(&ggml_status_to_string),
    fn<float(ggml_fp16_t)>(&ggml_fp16_to_fp32),
    fn<ggml_fp16_t(float)>(&ggml_fp32_to_fp16),
    fn<void(const ggml_fp16_t *, float *, int64_t)>(&ggml_fp16_to_fp32_row),
    fn<void(const float *, ggml_fp16_t *, int64_t)>(&ggml_fp32_to_fp16_row),
    fn<ggml_bf16_t(float)>(&ggml_fp32_to_bf16),
    fn<float(ggml_bf16_t)>(&ggml_bf16_to_fp32),
    fn<void(const ggml_bf16_t *, float *, int64_t)>(&ggml_bf16_to_fp32_row),
    fn<void(const float *, ggml_bf16_t *, int64_t)>(&ggml_fp32_to_bf16_row_ref),
    fn<void(const float *, ggml_bf16_t *, int64_t)>(&ggml_fp32_to_bf16_row),
    fn<bool(ggml_guid_t, ggml_guid_t)>(&ggml_guid_matches),
    fn<const char *(void)>(&ggml_version),
    fn<const char *(void)>(&ggml_commit),
    fn<void(void)>(&ggml_time_init),
    fn<int64_t(void)>(&ggml_time_ms),
    fn<int64_t(void)>(&ggml_time_us),
    fn<int64_t(void)>(&ggml_cycles),
    fn<int64_t(void)>(&ggml_cycles_per_ms),
    fn<FILE *(const char *, const char *)>(&ggml_fopen),
    fn<void(const struct ggml_object *)>(&ggml_print_object),
    fn<void(const struct ggml_context *)>(&ggml_print_objects),
    fn<int64_t(const struct ggml_tensor *)>(&ggml_nelements),
    fn<int64_t(const struct ggml_tensor *)>(&ggml_nrows),
    fn<size_t(const struct ggml_tensor *)>(&ggml_nbytes),
    fn<size_t(const struct ggml_tensor *)>(&ggml_nbytes_pad),
    fn<int64_t(enum ggml_type)>(&ggml_blck_size),
    fn<size_t(enum ggml_type)>(&ggml_type_size),
    fn<size_t(enum ggml_type, int64_t)>(&ggml_row_size),
    fn<double(enum ggml_type)>(&ggml_type_sizef),
    fn<const char *(enum ggml_type)>(&ggml_type_name),
    fn<const char *(enum ggml_op)>(&ggml_op_name),
    fn<const char *(enum ggml_op)>(&ggml_op_symbol),
    fn<const char *(enum ggml_unary_op)>(&ggml_unary_op_name),
    fn<const char *(enum ggml_glu_op)>(&ggml_glu_op_name),
    fn<const char *(const struct ggml_tensor *)>(&ggml_op_desc),
    fn<size_t(const struct ggml_tensor *)>(&ggml_element_size),
    fn<bool(enum ggml_type)>(&ggml_is_quantized),
    fn<enum ggml_type(enum ggml_ftype)>(&ggml_ftype_to_ggml_type),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_transposed),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_permuted),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_empty),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_scalar),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_vector),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_matrix),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_3d),
    fn<int(const struct ggml_tensor *)>(&ggml_n_dims),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_contiguous),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_contiguous_0),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_contiguous_1),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_contiguous_2),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_contiguously_allocated),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_contiguous_channels),
    fn<bool(const struct ggml_tensor *)>(&ggml_is_contiguous_rows),
    fn<bool(const struct ggml_tensor *, const struct ggml_tensor *)>(&ggml_are_same_shape),
    fn<bool(const struct ggml_tensor *, const struct ggml_tensor *)>(&ggml_are_same_stride),
    fn<bool(const struct ggml_tensor *, const struct ggml_tensor *)>(&ggml_can_repeat),
    fn<size_t(void)>(&ggml_tensor_overhead),
    fn<bool(enum ggml_type, const void *, size_t)>(&ggml_validate_row_data),
    fn<struct ggml_context *(struct ggml_init_params)>(&ggml_init),
    fn<void(struct ggml_context *)>(&ggml_reset),
    fn<void(struct ggml_context *)>(&ggml_free),
    fn<size_t(const struct ggml_context *)>(&ggml_used_mem),
    fn<bool(struct ggml_context *)>(&ggml_get_no_alloc),
    fn<void(struct ggml_context *, bool)>(&ggml_set_no_alloc),
    fn<void *(const struct ggml_context *)>(&ggml_get_mem_buffer),
    fn<size_t(const struct ggml_context *)>(&ggml_get_mem_size),
    fn<size_t(const struct ggml_context *)>(&ggml_get_max_tensor_size),
    fn<struct ggml_tensor *(struct ggml_context *, enum ggml_type, int, const int64_t *)>(&ggml_new_tensor),
    fn<struct ggml_tensor *(struct ggml_context *, enum ggml_type, int64_t)>(&ggml_new_tensor_1d),
    fn<struct ggml_tensor *(struct ggml_context *, enum ggml_type, int64_t, int64_t)>(&ggml_new_tensor_2d),
    fn<struct ggml_tensor *(struct ggml_context *, enum ggml_type, int64_t, int64_t, int64_t)>(&ggml_new_tensor_3d),
    fn<struct ggml_tensor *(struct ggml_context *, enum ggml_type, int64_t, int64_t, int64_t,
            int64_t)>(&ggml_new_tensor_4d),
    fn<void *(struct ggml_context *, size_t)>(&ggml_new_buffer),
    fn<struct ggml_tensor *(struct ggml_context *, const struct ggml_tensor *)>(&ggml_dup_tensor),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_view_tensor),
    fn<struct ggml_tensor *(const struct ggml_context *)>(&ggml_get_first_tensor),
    fn<struct ggml_tensor *(const struct ggml_context *, struct ggml_tensor *)>(&ggml_get_next_tensor),
    fn<struct ggml_tensor *(struct ggml_context *, const char *)>(&ggml_get_tensor),
    fn<void(const struct ggml_tensor *, int64_t, int64_t *, int64_t *, int64_t *, int64_t *)>(&ggml_unravel_index),
    fn<enum ggml_unary_op(const struct ggml_tensor *)>(&ggml_get_unary_op),
    fn<enum ggml_glu_op(const struct ggml_tensor *)>(&ggml_get_glu_op),
    fn<void *(const struct ggml_tensor *)>(&ggml_get_data),
    fn<float *(const struct ggml_tensor *)>(&ggml_get_data_f32),
    fn<const char *(const struct ggml_tensor *)>(&ggml_get_name),
    fn<struct ggml_tensor *(struct ggml_tensor *, const char *)>(&ggml_set_name),
    fn<struct ggml_tensor *(struct ggml_tensor *, const char *, ...)>(&ggml_format_name),
    fn<void(struct ggml_tensor *)>(&ggml_set_input),
    fn<void(struct ggml_tensor *)>(&ggml_set_output),
    fn<void(struct ggml_tensor *)>(&ggml_set_param),
    fn<void(struct ggml_tensor *)>(&ggml_set_loss),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_dup),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_dup_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_add),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_add_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            enum ggml_type)>(&ggml_add_cast),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_add_id),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_add1),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_add1_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, size_t, size_t, size_t,
            size_t)>(&ggml_acc),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, size_t, size_t, size_t,
            size_t)>(&ggml_acc_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_sub),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_sub_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_mul),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_mul_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_div),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_div_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sqr),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sqr_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sqrt),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sqrt_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_log),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_log_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_expm1),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_expm1_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_softplus),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_softplus_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sin),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sin_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_cos),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_cos_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sum),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sum_rows),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_cumsum),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_mean),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_argmax),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_count_equal),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_repeat),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t, int64_t,
            int64_t)>(&ggml_repeat_4d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_repeat_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int)>(&ggml_concat),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_abs),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_abs_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sgn),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sgn_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_neg),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_neg_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_step),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_step_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_tanh),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_tanh_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_elu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_elu_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_relu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float, bool)>(&ggml_leaky_relu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_relu_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sigmoid),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_sigmoid_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_gelu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_gelu_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_gelu_erf),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_gelu_erf_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_gelu_quick),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_gelu_quick_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_silu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_silu_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_silu_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_hardswish),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_hardsigmoid),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_exp),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_exp_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_floor),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_floor_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_ceil),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_ceil_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_round),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_round_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_trunc),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_trunc_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float, float, float, float)>(&ggml_xielu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, enum ggml_glu_op, bool)>(&ggml_glu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_reglu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_reglu_swapped),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_geglu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_geglu_swapped),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_swiglu),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_swiglu_swapped),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_geglu_erf),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_geglu_erf_swapped),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_geglu_quick),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_geglu_quick_swapped),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            enum ggml_glu_op)>(&ggml_glu_split),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_reglu_split),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_geglu_split),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_swiglu_split),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_geglu_erf_split),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_geglu_quick_split),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, float,
            float)>(&ggml_swiglu_oai),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_norm),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_norm_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_rms_norm),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_rms_norm_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, float)>(&ggml_group_norm),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, float)>(&ggml_group_norm_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_l2_norm),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_l2_norm_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            float)>(&ggml_rms_norm_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_mul_mat),
    fn<void(struct ggml_tensor *, enum ggml_prec)>(&ggml_mul_mat_set_prec),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_mul_mat_id),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_out_prod),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_scale),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_scale_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float, float)>(&ggml_scale_bias),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float, float)>(&ggml_scale_bias_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, size_t, size_t, size_t,
            size_t)>(&ggml_set),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, size_t, size_t, size_t,
            size_t)>(&ggml_set_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, size_t)>(&ggml_set_1d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            size_t)>(&ggml_set_1d_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, size_t,
            size_t)>(&ggml_set_2d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, size_t,
            size_t)>(&ggml_set_2d_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_cpy),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, enum ggml_type)>(&ggml_cast),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_cont),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t)>(&ggml_cont_1d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t)>(&ggml_cont_2d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t, int64_t)>(&ggml_cont_3d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t, int64_t,
            int64_t)>(&ggml_cont_4d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_reshape),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t)>(&ggml_reshape_1d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t)>(&ggml_reshape_2d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t, int64_t)>(&ggml_reshape_3d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t, int64_t,
            int64_t)>(&ggml_reshape_4d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, size_t)>(&ggml_view_1d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t, size_t,
            size_t)>(&ggml_view_2d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t, int64_t, size_t, size_t,
            size_t)>(&ggml_view_3d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t, int64_t, int64_t, size_t,
            size_t, size_t, size_t)>(&ggml_view_4d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int, int, int)>(&ggml_permute),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_transpose),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_get_rows),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_get_rows_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_set_rows),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_diag),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int)>(&ggml_diag_mask_inf),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int)>(&ggml_diag_mask_inf_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int)>(&ggml_diag_mask_zero),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int)>(&ggml_diag_mask_zero_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_soft_max),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *)>(&ggml_soft_max_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, float,
            float)>(&ggml_soft_max_ext),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, float,
            float)>(&ggml_soft_max_ext_inplace),
    fn<void(struct ggml_tensor *, struct ggml_tensor *)>(&ggml_soft_max_add_sinks),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, float,
            float)>(&ggml_soft_max_ext_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, float,
            float)>(&ggml_soft_max_ext_back_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int)>(&ggml_rope),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int,
            int)>(&ggml_rope_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            int, int, int, float, float, float, float, float, float)>(&ggml_rope_ext),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            int, int *, int, int, float, float, float, float, float, float)>(&ggml_rope_multi),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            int, int, int, float, float, float, float, float, float)>(&ggml_rope_ext_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            int, int *, int, int, float, float, float, float, float, float)>(&ggml_rope_multi_inplace),
    // GGML_DEPRECATED upstream ("use ggml_rope_ext instead"), as in our header
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int, int, float,
            float, float, float, float, float)>(&ggml_rope_custom),
    // GGML_DEPRECATED upstream ("use ggml_rope_ext_inplace instead"), as in our header
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int, int, float,
            float, float, float, float, float)>(&ggml_rope_custom_inplace),
    fn<void(int, int, float, float, float, float *)>(&ggml_rope_yarn_corr_dims),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            int, int, int, float, float, float, float, float, float)>(&ggml_rope_ext_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            int, int *, int, int, float, float, float, float, float, float)>(&ggml_rope_multi_back),
    // newer upstream API than the copy (ggml_rope_set_offset, moves the rotated window of a rope node)
    fn<struct ggml_tensor *(struct ggml_tensor *, int)>(&ggml_rope_set_offset),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float, float)>(&ggml_clamp),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int, int, int, int,
            int, bool, enum ggml_type)>(&ggml_im2col),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int64_t *, int, int, int,
            int, int, int, bool)>(&ggml_im2col_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int,
            int)>(&ggml_conv_1d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int,
            int)>(&ggml_conv_1d_ph),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int,
            int)>(&ggml_conv_1d_dw),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int,
            int)>(&ggml_conv_1d_dw_ph),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int,
            int)>(&ggml_conv_transpose_1d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int, int, int, int,
            int)>(&ggml_conv_2d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int64_t, int, int, int,
            int, int, int, int, int, int, enum ggml_type)>(&ggml_im2col_3d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int64_t, int, int, int,
            int, int, int, int, int, int)>(&ggml_conv_3d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_conv_2d_sk_p0),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_conv_2d_s1_ph),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int, int, int, int,
            int)>(&ggml_conv_2d_dw),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int, int, int, int,
            int)>(&ggml_conv_2d_dw_direct),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            int)>(&ggml_conv_transpose_2d_p0),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int, int, int, int,
            int)>(&ggml_conv_2d_direct),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, int, int, int, int, int,
            int, int, int, int, int, int, int)>(&ggml_conv_3d_direct),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, enum ggml_op_pool, int, int,
            int)>(&ggml_pool_1d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, enum ggml_op_pool, int, int, int, int, float,
            float)>(&ggml_pool_2d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, enum ggml_op_pool, int,
            int, int, int, float, float)>(&ggml_pool_2d_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, enum ggml_scale_mode)>(&ggml_upscale),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int, int, int,
            enum ggml_scale_mode)>(&ggml_upscale_ext),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int64_t, int64_t, int64_t, int64_t,
            uint32_t)>(&ggml_interpolate),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int, int, int)>(&ggml_pad),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int, int, int)>(&ggml_pad_circular),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int, int, int, int, int, int,
            int)>(&ggml_pad_ext),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int, int, int, int, int, int,
            int)>(&ggml_pad_ext_circular),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int)>(&ggml_pad_reflect_1d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int, int, int)>(&ggml_roll),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, enum ggml_tri_type)>(&ggml_tri),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_fill),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, float)>(&ggml_fill_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int)>(&ggml_timestep_embedding),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, enum ggml_sort_order)>(&ggml_argsort),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int)>(&ggml_argsort_top_k),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int)>(&ggml_top_k),
    fn<struct ggml_tensor *(struct ggml_context *, float, float, float)>(&ggml_arange),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *, float, float, float)>(&ggml_flash_attn_ext),
    fn<void(struct ggml_tensor *, enum ggml_prec)>(&ggml_flash_attn_ext_set_prec),
    fn<enum ggml_prec(const struct ggml_tensor *)>(&ggml_flash_attn_ext_get_prec),
    fn<void(struct ggml_tensor *, struct ggml_tensor *)>(&ggml_flash_attn_ext_add_sinks),
    // the legacy attention backward op (upstream: "TODO: needs to be adapted to ggml_flash_attn_ext")
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *, bool)>(&ggml_flash_attn_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_ssm_conv),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_ssm_scan),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int)>(&ggml_win_part),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int, int)>(&ggml_win_unpart),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, enum ggml_unary_op)>(&ggml_unary),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, enum ggml_unary_op)>(&ggml_unary_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, int, int)>(&ggml_get_rel_pos),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_add_rel_pos),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_add_rel_pos_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_rwkv_wkv6),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *, struct ggml_tensor *, float)>(&ggml_gated_linear_attn),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *)>(&ggml_rwkv_wkv7),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, bool, bool,
            bool)>(&ggml_solve_tri),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, ggml_custom1_op_t, int,
            void *)>(&ggml_map_custom1),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, ggml_custom1_op_t, int,
            void *)>(&ggml_map_custom1_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, ggml_custom2_op_t, int,
            void *)>(&ggml_map_custom2),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, ggml_custom2_op_t, int,
            void *)>(&ggml_map_custom2_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            ggml_custom3_op_t, int, void *)>(&ggml_map_custom3),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            ggml_custom3_op_t, int, void *)>(&ggml_map_custom3_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, enum ggml_type, int64_t, int64_t, int64_t, int64_t,
            struct ggml_tensor **, int, ggml_custom_op_t, int, void *)>(&ggml_custom_4d),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor **, int, ggml_custom_op_t,
            int, void *)>(&ggml_custom_inplace),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_cross_entropy_loss),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_cross_entropy_loss_back),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *, struct ggml_tensor *)>(&ggml_opt_step_adamw),
    fn<struct ggml_tensor *(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_opt_step_sgd),
    fn<void(struct ggml_cgraph *, struct ggml_tensor *)>(&ggml_build_forward_expand),
    fn<void(struct ggml_context *, struct ggml_cgraph *, struct ggml_tensor **)>(&ggml_build_backward_expand),
    fn<struct ggml_cgraph *(struct ggml_context *)>(&ggml_new_graph),
    fn<struct ggml_cgraph *(struct ggml_context *, size_t, bool)>(&ggml_new_graph_custom),
    fn<struct ggml_cgraph *(struct ggml_context *, struct ggml_cgraph *, bool)>(&ggml_graph_dup),
    fn<void(struct ggml_cgraph *, struct ggml_cgraph *)>(&ggml_graph_cpy),
    fn<void(struct ggml_cgraph *)>(&ggml_graph_reset),
    fn<void(struct ggml_cgraph *)>(&ggml_graph_clear),
    fn<int(struct ggml_cgraph *)>(&ggml_graph_size),
    fn<struct ggml_tensor *(struct ggml_cgraph *, int)>(&ggml_graph_node),
    fn<struct ggml_tensor **(struct ggml_cgraph *)>(&ggml_graph_nodes),
    fn<int(struct ggml_cgraph *)>(&ggml_graph_n_nodes),
    fn<void(struct ggml_cgraph *, struct ggml_tensor *)>(&ggml_graph_add_node),
    fn<size_t(void)>(&ggml_graph_overhead),
    fn<size_t(size_t, bool)>(&ggml_graph_overhead_custom),
    fn<struct ggml_tensor *(const struct ggml_cgraph *, const char *)>(&ggml_graph_get_tensor),
    fn<struct ggml_tensor *(const struct ggml_cgraph *, const struct ggml_tensor *)>(&ggml_graph_get_grad),
    fn<struct ggml_tensor *(const struct ggml_cgraph *, const struct ggml_tensor *)>(&ggml_graph_get_grad_acc),
    fn<void(const struct ggml_cgraph *)>(&ggml_graph_print),
    fn<void(const struct ggml_cgraph *, const struct ggml_cgraph *, const char *)>(&ggml_graph_dump_dot),
    fn<void(ggml_log_callback *, void **)>(&ggml_log_get),
    fn<void(ggml_log_callback, void *)>(&ggml_log_set),
    fn<struct ggml_tensor *(struct ggml_tensor *)>(&ggml_set_zero),
    fn<void(enum ggml_type)>(&ggml_quantize_init),
    fn<void(void)>(&ggml_quantize_free),
    fn<bool(enum ggml_type)>(&ggml_quantize_requires_imatrix),
    fn<size_t(enum ggml_type, const float *, void *, int64_t, int64_t, int64_t, const float *)>(&ggml_quantize_chunk),
    fn<const struct ggml_type_traits *(enum ggml_type)>(&ggml_get_type_traits),
    fn<struct ggml_threadpool_params(int)>(&ggml_threadpool_params_default),
    fn<void(struct ggml_threadpool_params *, int)>(&ggml_threadpool_params_init),
    fn<bool(const struct ggml_threadpool_params *,
            const struct ggml_threadpool_params *)>(&ggml_threadpool_params_match),
    // declared by Switchyard beyond the upstream copies this list was made from (newer upstream API or
    // Switchyard additions): checked to exist and be exported, with the type our header gives
    fn(&ggml_is_view),
    fn(&ggml_is_contiguous_to_1),
    fn(&ggml_is_contiguous_to_2),
    fn(&ggml_is_contiguous_to_3),
    fn(&ggml_mul_mat_set_hint),
    fn(&ggml_col2im_1d),
    fn(&ggml_gated_delta_net),
    fn(&ggml_lightning_indexer),
    fn(&ggml_dsv4_hc_comb),
    fn(&ggml_dsv4_hc_pre),
    fn(&ggml_dsv4_hc_post),
    fn(&ggml_build_forward_select),
    fn(&ggml_build_forward_order),
};

// ggml-alloc.h: 13 functions with upstream's types
const void * const k_ggml_alloc[] = {
    fn<struct ggml_tallocr(ggml_backend_buffer_t)>(&ggml_tallocr_new),
    fn<enum ggml_status(struct ggml_tallocr *, struct ggml_tensor *)>(&ggml_tallocr_alloc),
    fn<ggml_gallocr_t(ggml_backend_buffer_type_t)>(&ggml_gallocr_new),
    fn<ggml_gallocr_t(ggml_backend_buffer_type_t *, int)>(&ggml_gallocr_new_n),
    fn<void(ggml_gallocr_t)>(&ggml_gallocr_free),
    fn<bool(ggml_gallocr_t, struct ggml_cgraph *)>(&ggml_gallocr_reserve),
    // HEAD form (the stored copy, an intermediate state, had a trailing bool dry_run)
    fn<bool(ggml_gallocr_t, struct ggml_cgraph *, const int *, const int *)>(&ggml_gallocr_reserve_n),
    // [NEW 2025-12]
    fn<void(ggml_gallocr_t, struct ggml_cgraph *, const int *, const int *, size_t *)>(&ggml_gallocr_reserve_n_size),
    fn<bool(ggml_gallocr_t, struct ggml_cgraph *)>(&ggml_gallocr_alloc_graph),
    fn<size_t(ggml_gallocr_t, int)>(&ggml_gallocr_get_buffer_size),
    fn<size_t(struct ggml_context *, ggml_backend_buffer_type_t)>(&ggml_backend_alloc_ctx_tensors_from_buft_size),
    fn<struct ggml_backend_buffer *(struct ggml_context *,
            ggml_backend_buffer_type_t)>(&ggml_backend_alloc_ctx_tensors_from_buft),
    fn<struct ggml_backend_buffer *(struct ggml_context *, ggml_backend_t)>(&ggml_backend_alloc_ctx_tensors),
};

// ggml-backend.h: 115 functions with upstream's types
const void * const k_ggml_backend[] = {
    fn<const char *(ggml_backend_buffer_type_t)>(&ggml_backend_buft_name),
    fn<ggml_backend_buffer_t(ggml_backend_buffer_type_t, size_t)>(&ggml_backend_buft_alloc_buffer),
    fn<size_t(ggml_backend_buffer_type_t)>(&ggml_backend_buft_get_alignment),
    fn<size_t(ggml_backend_buffer_type_t)>(&ggml_backend_buft_get_max_size),
    fn<size_t(ggml_backend_buffer_type_t, const struct ggml_tensor *)>(&ggml_backend_buft_get_alloc_size),
    fn<bool(ggml_backend_buffer_type_t)>(&ggml_backend_buft_is_host),
    fn<ggml_backend_dev_t(ggml_backend_buffer_type_t)>(&ggml_backend_buft_get_device),
    fn<const char *(ggml_backend_buffer_t)>(&ggml_backend_buffer_name),
    fn<void(ggml_backend_buffer_t)>(&ggml_backend_buffer_free),
    fn<void *(ggml_backend_buffer_t)>(&ggml_backend_buffer_get_base),
    fn<size_t(ggml_backend_buffer_t)>(&ggml_backend_buffer_get_size),
    fn<enum ggml_status(ggml_backend_buffer_t, struct ggml_tensor *)>(&ggml_backend_buffer_init_tensor),
    fn<size_t(ggml_backend_buffer_t)>(&ggml_backend_buffer_get_alignment),
    fn<size_t(ggml_backend_buffer_t)>(&ggml_backend_buffer_get_max_size),
    fn<size_t(ggml_backend_buffer_t, const struct ggml_tensor *)>(&ggml_backend_buffer_get_alloc_size),
    fn<void(ggml_backend_buffer_t, uint8_t)>(&ggml_backend_buffer_clear),
    fn<bool(ggml_backend_buffer_t)>(&ggml_backend_buffer_is_host),
    fn<void(ggml_backend_buffer_t, enum ggml_backend_buffer_usage)>(&ggml_backend_buffer_set_usage),
    fn<enum ggml_backend_buffer_usage(ggml_backend_buffer_t)>(&ggml_backend_buffer_get_usage),
    fn<ggml_backend_buffer_type_t(ggml_backend_buffer_t)>(&ggml_backend_buffer_get_type),
    fn<void(ggml_backend_buffer_t)>(&ggml_backend_buffer_reset),
    // [CHG 2026-04] src became const (the stored copy predates it)
    fn<void(const struct ggml_tensor *, struct ggml_tensor *)>(&ggml_backend_tensor_copy),
    fn<ggml_guid_t(ggml_backend_t)>(&ggml_backend_guid),
    fn<const char *(ggml_backend_t)>(&ggml_backend_name),
    fn<void(ggml_backend_t)>(&ggml_backend_free),
    fn<ggml_backend_buffer_type_t(ggml_backend_t)>(&ggml_backend_get_default_buffer_type),
    fn<ggml_backend_buffer_t(ggml_backend_t, size_t)>(&ggml_backend_alloc_buffer),
    fn<size_t(ggml_backend_t)>(&ggml_backend_get_alignment),
    fn<size_t(ggml_backend_t)>(&ggml_backend_get_max_size),
    fn<void(ggml_backend_t, struct ggml_tensor *, const void *, size_t, size_t)>(&ggml_backend_tensor_set_async),
    fn<void(ggml_backend_t, const struct ggml_tensor *, void *, size_t, size_t)>(&ggml_backend_tensor_get_async),
    fn<void(struct ggml_tensor *, const void *, size_t, size_t)>(&ggml_backend_tensor_set),
    fn<void(const struct ggml_tensor *, void *, size_t, size_t)>(&ggml_backend_tensor_get),
    fn<void(struct ggml_tensor *, uint8_t, size_t, size_t)>(&ggml_backend_tensor_memset),
    fn<void(ggml_backend_t)>(&ggml_backend_synchronize),
    fn<ggml_backend_graph_plan_t(ggml_backend_t, struct ggml_cgraph *)>(&ggml_backend_graph_plan_create),
    fn<void(ggml_backend_t, ggml_backend_graph_plan_t)>(&ggml_backend_graph_plan_free),
    fn<enum ggml_status(ggml_backend_t, ggml_backend_graph_plan_t)>(&ggml_backend_graph_plan_compute),
    fn<enum ggml_status(ggml_backend_t, struct ggml_cgraph *)>(&ggml_backend_graph_compute),
    fn<enum ggml_status(ggml_backend_t, struct ggml_cgraph *)>(&ggml_backend_graph_compute_async),
    fn<bool(ggml_backend_t, const struct ggml_tensor *)>(&ggml_backend_supports_op),
    fn<bool(ggml_backend_t, ggml_backend_buffer_type_t)>(&ggml_backend_supports_buft),
    fn<bool(ggml_backend_t, const struct ggml_tensor *)>(&ggml_backend_offload_op),
    // [CHG 2026-04] src became const (the stored copy predates it)
    fn<void(ggml_backend_t, ggml_backend_t, const struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_backend_tensor_copy_async),
    fn<ggml_backend_dev_t(ggml_backend_t)>(&ggml_backend_get_device),
    fn<ggml_backend_event_t(ggml_backend_dev_t)>(&ggml_backend_event_new),
    fn<void(ggml_backend_event_t)>(&ggml_backend_event_free),
    fn<void(ggml_backend_event_t, ggml_backend_t)>(&ggml_backend_event_record),
    fn<void(ggml_backend_event_t)>(&ggml_backend_event_synchronize),
    fn<void(ggml_backend_t, ggml_backend_event_t)>(&ggml_backend_event_wait),
    fn<const char *(ggml_backend_dev_t)>(&ggml_backend_dev_name),
    fn<const char *(ggml_backend_dev_t)>(&ggml_backend_dev_description),
    fn<void(ggml_backend_dev_t, size_t *, size_t *)>(&ggml_backend_dev_memory),
    fn<enum ggml_backend_dev_type(ggml_backend_dev_t)>(&ggml_backend_dev_type),
    fn<void(ggml_backend_dev_t, struct ggml_backend_dev_props *)>(&ggml_backend_dev_get_props),
    fn<ggml_backend_reg_t(ggml_backend_dev_t)>(&ggml_backend_dev_backend_reg),
    fn<ggml_backend_t(ggml_backend_dev_t, const char *)>(&ggml_backend_dev_init),
    fn<ggml_backend_buffer_type_t(ggml_backend_dev_t)>(&ggml_backend_dev_buffer_type),
    fn<ggml_backend_buffer_type_t(ggml_backend_dev_t)>(&ggml_backend_dev_host_buffer_type),
    fn<ggml_backend_buffer_t(ggml_backend_dev_t, void *, size_t, size_t)>(&ggml_backend_dev_buffer_from_host_ptr),
    fn<bool(ggml_backend_dev_t, const struct ggml_tensor *)>(&ggml_backend_dev_supports_op),
    fn<bool(ggml_backend_dev_t, ggml_backend_buffer_type_t)>(&ggml_backend_dev_supports_buft),
    fn<bool(ggml_backend_dev_t, const struct ggml_tensor *)>(&ggml_backend_dev_offload_op),
    fn<const char *(ggml_backend_reg_t)>(&ggml_backend_reg_name),
    fn<size_t(ggml_backend_reg_t)>(&ggml_backend_reg_dev_count),
    fn<ggml_backend_dev_t(ggml_backend_reg_t, size_t)>(&ggml_backend_reg_dev_get),
    fn<void *(ggml_backend_reg_t, const char *)>(&ggml_backend_reg_get_proc_address),
    fn<void(ggml_backend_reg_t)>(&ggml_backend_register),  // [NEW 2024-10] (missing from the stored copy)
    fn<void(ggml_backend_dev_t)>(&ggml_backend_device_register),
    fn<size_t(void)>(&ggml_backend_reg_count),
    fn<ggml_backend_reg_t(size_t)>(&ggml_backend_reg_get),
    fn<ggml_backend_reg_t(const char *)>(&ggml_backend_reg_by_name),
    fn<size_t(void)>(&ggml_backend_dev_count),
    fn<ggml_backend_dev_t(size_t)>(&ggml_backend_dev_get),
    fn<ggml_backend_dev_t(const char *)>(&ggml_backend_dev_by_name),
    fn<ggml_backend_dev_t(enum ggml_backend_dev_type)>(&ggml_backend_dev_by_type),
    fn<ggml_backend_t(const char *, const char *)>(&ggml_backend_init_by_name),
    fn<ggml_backend_t(enum ggml_backend_dev_type, const char *)>(&ggml_backend_init_by_type),
    fn<ggml_backend_t(void)>(&ggml_backend_init_best),
    fn<ggml_backend_reg_t(const char *)>(&ggml_backend_load),
    fn<void(ggml_backend_reg_t)>(&ggml_backend_unload),
    fn<void(void)>(&ggml_backend_load_all),
    fn<void(const char *)>(&ggml_backend_load_all_from_path),
    fn<ggml_backend_sched_t(ggml_backend_t *, ggml_backend_buffer_type_t *, int, size_t, bool,
            bool)>(&ggml_backend_sched_new),
    fn<void(ggml_backend_sched_t)>(&ggml_backend_sched_free),
    fn<void(ggml_backend_sched_t, struct ggml_cgraph *, size_t *)>(&ggml_backend_sched_reserve_size),
    fn<bool(ggml_backend_sched_t, struct ggml_cgraph *)>(&ggml_backend_sched_reserve),
    fn<int(ggml_backend_sched_t)>(&ggml_backend_sched_get_n_backends),
    fn<ggml_backend_t(ggml_backend_sched_t, int)>(&ggml_backend_sched_get_backend),
    fn<int(ggml_backend_sched_t)>(&ggml_backend_sched_get_n_splits),
    fn<int(ggml_backend_sched_t)>(&ggml_backend_sched_get_n_copies),
    // [NEW 2025-09]
    fn<ggml_backend_buffer_type_t(ggml_backend_sched_t, ggml_backend_t)>(&ggml_backend_sched_get_buffer_type),
    fn<size_t(ggml_backend_sched_t, ggml_backend_t)>(&ggml_backend_sched_get_buffer_size),
    fn<void(ggml_backend_sched_t, struct ggml_tensor *, ggml_backend_t)>(&ggml_backend_sched_set_tensor_backend),
    fn<ggml_backend_t(ggml_backend_sched_t, struct ggml_tensor *)>(&ggml_backend_sched_get_tensor_backend),
    fn<void(ggml_backend_sched_t, struct ggml_cgraph *)>(&ggml_backend_sched_split_graph),  // [NEW 2025-08]
    fn<bool(ggml_backend_sched_t, struct ggml_cgraph *)>(&ggml_backend_sched_alloc_graph),
    fn<enum ggml_status(ggml_backend_sched_t, struct ggml_cgraph *)>(&ggml_backend_sched_graph_compute),
    fn<enum ggml_status(ggml_backend_sched_t, struct ggml_cgraph *)>(&ggml_backend_sched_graph_compute_async),
    fn<void(ggml_backend_sched_t)>(&ggml_backend_sched_synchronize),
    fn<void(ggml_backend_sched_t)>(&ggml_backend_sched_reset),
    fn<void(ggml_backend_sched_t, ggml_backend_sched_eval_callback, void *)>(&ggml_backend_sched_set_eval_callback),
    fn<struct ggml_backend_graph_copy(ggml_backend_t, struct ggml_cgraph *)>(&ggml_backend_graph_copy),
    fn<void(struct ggml_backend_graph_copy)>(&ggml_backend_graph_copy_free),
    // [CHG 2026-01] gained test_nodes, num_test_nodes (the stored copy predates it)
    fn<bool(ggml_backend_t, ggml_backend_t, struct ggml_cgraph *, ggml_backend_eval_callback, void *,
            const struct ggml_tensor * const *, size_t)>(&ggml_backend_compare_graph_backend),
    fn<enum ggml_status(ggml_backend_buffer_t, struct ggml_tensor *, void *)>(&ggml_backend_tensor_alloc),
    fn<enum ggml_status(struct ggml_tensor *)>(&ggml_backend_view_init),
    fn<ggml_backend_buffer_t(void *, size_t)>(&ggml_backend_cpu_buffer_from_ptr),
    fn<ggml_backend_buffer_type_t(void)>(&ggml_backend_cpu_buffer_type),
    // [NEW 2026-04]
    fn<void(ggml_backend_t, struct ggml_tensor *, const void *, size_t, size_t, size_t, size_t,
            size_t)>(&ggml_backend_tensor_set_2d_async),
    // [NEW 2026-04]
    fn<void(ggml_backend_t, const struct ggml_tensor *, void *, size_t, size_t, size_t, size_t,
            size_t)>(&ggml_backend_tensor_get_2d_async),
    // [NEW 2026-04]
    fn<void(struct ggml_tensor *, const void *, size_t, size_t, size_t, size_t, size_t)>(&ggml_backend_tensor_set_2d),
    // [NEW 2026-04]
    fn<void(const struct ggml_tensor *, void *, size_t, size_t, size_t, size_t, size_t)>(&ggml_backend_tensor_get_2d),
    fn<const char *(enum ggml_backend_meta_split_axis)>(&ggml_backend_meta_split_axis_name),  // [NEW 2026-04]
    // [NEW 2026-04]
    fn<ggml_backend_dev_t(ggml_backend_dev_t *, size_t, ggml_backend_meta_get_split_state_t,
            void *)>(&ggml_backend_meta_device),
    // declared by Switchyard beyond the upstream copies this list was made from (newer upstream API or
    // Switchyard additions): checked to exist and be exported, with the type our header gives
    fn(&ggml_backend_reg_get_count),
    fn(&ggml_backend_reg_find_by_name),
    fn(&ggml_backend_reg_init_backend_from_str),
    fn(&ggml_backend_reg_get_name),
    fn(&ggml_backend_reg_init_backend),
    fn(&ggml_backend_reg_get_default_buffer_type),
    fn(&ggml_backend_reg_alloc_buffer),
    fn(&ggml_backend_sched_plan_json),
    fn(&ggml_backend_sched_set_trace),
};

// ggml-cpu.h: 64 functions with upstream's types
const void * const k_ggml_cpu[] = {
    fn<void(enum ggml_numa_strategy)>(&ggml_numa_init),
    fn<bool(void)>(&ggml_is_numa),
    fn<struct ggml_tensor *(struct ggml_context *, int32_t)>(&ggml_new_i32),
    fn<struct ggml_tensor *(struct ggml_context *, float)>(&ggml_new_f32),
    fn<struct ggml_tensor *(struct ggml_tensor *, int32_t)>(&ggml_set_i32),
    fn<struct ggml_tensor *(struct ggml_tensor *, float)>(&ggml_set_f32),
    fn<int32_t(const struct ggml_tensor *, int)>(&ggml_get_i32_1d),
    fn<void(const struct ggml_tensor *, int, int32_t)>(&ggml_set_i32_1d),
    fn<int32_t(const struct ggml_tensor *, int, int, int, int)>(&ggml_get_i32_nd),
    fn<void(const struct ggml_tensor *, int, int, int, int, int32_t)>(&ggml_set_i32_nd),
    fn<float(const struct ggml_tensor *, int)>(&ggml_get_f32_1d),
    fn<void(const struct ggml_tensor *, int, float)>(&ggml_set_f32_1d),
    fn<float(const struct ggml_tensor *, int, int, int, int)>(&ggml_get_f32_nd),
    fn<void(const struct ggml_tensor *, int, int, int, int, float)>(&ggml_set_f32_nd),
    fn<struct ggml_threadpool *(struct ggml_threadpool_params *)>(&ggml_threadpool_new),
    fn<void(struct ggml_threadpool *)>(&ggml_threadpool_free),
    fn<int(struct ggml_threadpool *)>(&ggml_threadpool_get_n_threads),
    fn<void(struct ggml_threadpool *)>(&ggml_threadpool_pause),
    fn<void(struct ggml_threadpool *)>(&ggml_threadpool_resume),
    fn<struct ggml_cplan(const struct ggml_cgraph *, int, struct ggml_threadpool *)>(&ggml_graph_plan),
    fn<enum ggml_status(struct ggml_cgraph *, struct ggml_cplan *)>(&ggml_graph_compute),
    fn<enum ggml_status(struct ggml_context *, struct ggml_cgraph *, int)>(&ggml_graph_compute_with_ctx),
    fn<int(void)>(&ggml_cpu_has_sse3),
    fn<int(void)>(&ggml_cpu_has_ssse3),
    fn<int(void)>(&ggml_cpu_has_avx),
    fn<int(void)>(&ggml_cpu_has_avx_vnni),
    fn<int(void)>(&ggml_cpu_has_avx2),
    fn<int(void)>(&ggml_cpu_has_bmi2),
    fn<int(void)>(&ggml_cpu_has_f16c),
    fn<int(void)>(&ggml_cpu_has_fma),
    fn<int(void)>(&ggml_cpu_has_avx512),
    fn<int(void)>(&ggml_cpu_has_avx512_vbmi),
    fn<int(void)>(&ggml_cpu_has_avx512_vnni),
    fn<int(void)>(&ggml_cpu_has_avx512_bf16),
    fn<int(void)>(&ggml_cpu_has_amx_int8),
    fn<int(void)>(&ggml_cpu_has_neon),
    fn<int(void)>(&ggml_cpu_has_arm_fma),
    fn<int(void)>(&ggml_cpu_has_fp16_va),
    fn<int(void)>(&ggml_cpu_has_dotprod),
    fn<int(void)>(&ggml_cpu_has_matmul_int8),
    fn<int(void)>(&ggml_cpu_has_sve),
    fn<int(void)>(&ggml_cpu_get_sve_cnt),
    fn<int(void)>(&ggml_cpu_has_sme),
    fn<int(void)>(&ggml_cpu_has_riscv_v),
    // upstream HEAD name (the stored copy, older, spells it ggml_cpu_get_riscv_vlen)
    fn<int(void)>(&ggml_cpu_get_rvv_vlen),
    fn<int(void)>(&ggml_cpu_has_vsx),
    fn<int(void)>(&ggml_cpu_has_vxe),
    fn<int(void)>(&ggml_cpu_has_wasm_simd),
    fn<int(void)>(&ggml_cpu_has_llamafile),
    fn<const struct ggml_type_traits_cpu *(enum ggml_type)>(&ggml_get_type_traits_cpu),
    fn<void(void)>(&ggml_cpu_init),
    fn<ggml_backend_t(void)>(&ggml_backend_cpu_init),
    fn<bool(ggml_backend_t)>(&ggml_backend_is_cpu),
    fn<void(ggml_backend_t, int)>(&ggml_backend_cpu_set_n_threads),
    fn<void(ggml_backend_t, ggml_threadpool_t)>(&ggml_backend_cpu_set_threadpool),
    fn<void(ggml_backend_t, ggml_abort_callback, void *)>(&ggml_backend_cpu_set_abort_callback),
    // [NEW 2026-02] (the note gives no parameter types: these are ours)
    fn<void(ggml_backend_t, bool)>(&ggml_backend_cpu_set_use_ref),
    fn<ggml_backend_reg_t(void)>(&ggml_backend_cpu_reg),
    fn<void(const float *, float *, int64_t)>(&ggml_cpu_fp32_to_fp32),
    fn<void(const float *, int32_t *, int64_t)>(&ggml_cpu_fp32_to_i32),
    fn<void(const float *, ggml_fp16_t *, int64_t)>(&ggml_cpu_fp32_to_fp16),
    fn<void(const ggml_fp16_t *, float *, int64_t)>(&ggml_cpu_fp16_to_fp32),
    fn<void(const float *, ggml_bf16_t *, int64_t)>(&ggml_cpu_fp32_to_bf16),
    fn<void(const ggml_bf16_t *, float *, int64_t)>(&ggml_cpu_bf16_to_fp32),
    // declared by Switchyard beyond the upstream copies this list was made from (newer upstream API or
    // Switchyard additions): checked to exist and be exported, with the type our header gives
    fn(&ggml_cpu_has_sme2),
};

// gguf.h: 56 functions with upstream's types
const void * const k_gguf[] = {
    fn<struct gguf_context *(void)>(&gguf_init_empty),
    fn<struct gguf_context *(const char *, struct gguf_init_params)>(&gguf_init_from_file),
    fn<void(struct gguf_context *)>(&gguf_free),
    fn<const char *(enum gguf_type)>(&gguf_type_name),
    fn<uint32_t(const struct gguf_context *)>(&gguf_get_version),
    fn<size_t(const struct gguf_context *)>(&gguf_get_alignment),
    fn<size_t(const struct gguf_context *)>(&gguf_get_data_offset),
    fn<int64_t(const struct gguf_context *)>(&gguf_get_n_kv),
    fn<int64_t(const struct gguf_context *, const char *)>(&gguf_find_key),
    fn<const char *(const struct gguf_context *, int64_t)>(&gguf_get_key),
    fn<enum gguf_type(const struct gguf_context *, int64_t)>(&gguf_get_kv_type),
    fn<enum gguf_type(const struct gguf_context *, int64_t)>(&gguf_get_arr_type),
    fn<uint8_t(const struct gguf_context *, int64_t)>(&gguf_get_val_u8),
    fn<int8_t(const struct gguf_context *, int64_t)>(&gguf_get_val_i8),
    fn<uint16_t(const struct gguf_context *, int64_t)>(&gguf_get_val_u16),
    fn<int16_t(const struct gguf_context *, int64_t)>(&gguf_get_val_i16),
    fn<uint32_t(const struct gguf_context *, int64_t)>(&gguf_get_val_u32),
    fn<int32_t(const struct gguf_context *, int64_t)>(&gguf_get_val_i32),
    fn<float(const struct gguf_context *, int64_t)>(&gguf_get_val_f32),
    fn<uint64_t(const struct gguf_context *, int64_t)>(&gguf_get_val_u64),
    fn<int64_t(const struct gguf_context *, int64_t)>(&gguf_get_val_i64),
    fn<double(const struct gguf_context *, int64_t)>(&gguf_get_val_f64),
    fn<bool(const struct gguf_context *, int64_t)>(&gguf_get_val_bool),
    fn<const char *(const struct gguf_context *, int64_t)>(&gguf_get_val_str),
    fn<const void *(const struct gguf_context *, int64_t)>(&gguf_get_val_data),
    fn<size_t(const struct gguf_context *, int64_t)>(&gguf_get_arr_n),
    fn<const void *(const struct gguf_context *, int64_t)>(&gguf_get_arr_data),
    fn<const char *(const struct gguf_context *, int64_t, size_t)>(&gguf_get_arr_str),
    fn<int64_t(const struct gguf_context *)>(&gguf_get_n_tensors),
    fn<int64_t(const struct gguf_context *, const char *)>(&gguf_find_tensor),
    fn<size_t(const struct gguf_context *, int64_t)>(&gguf_get_tensor_offset),
    fn<const char *(const struct gguf_context *, int64_t)>(&gguf_get_tensor_name),
    fn<enum ggml_type(const struct gguf_context *, int64_t)>(&gguf_get_tensor_type),
    fn<size_t(const struct gguf_context *, int64_t)>(&gguf_get_tensor_size),
    fn<int64_t(struct gguf_context *, const char *)>(&gguf_remove_key),
    fn<void(struct gguf_context *, const char *, uint8_t)>(&gguf_set_val_u8),
    fn<void(struct gguf_context *, const char *, int8_t)>(&gguf_set_val_i8),
    fn<void(struct gguf_context *, const char *, uint16_t)>(&gguf_set_val_u16),
    fn<void(struct gguf_context *, const char *, int16_t)>(&gguf_set_val_i16),
    fn<void(struct gguf_context *, const char *, uint32_t)>(&gguf_set_val_u32),
    fn<void(struct gguf_context *, const char *, int32_t)>(&gguf_set_val_i32),
    fn<void(struct gguf_context *, const char *, float)>(&gguf_set_val_f32),
    fn<void(struct gguf_context *, const char *, uint64_t)>(&gguf_set_val_u64),
    fn<void(struct gguf_context *, const char *, int64_t)>(&gguf_set_val_i64),
    fn<void(struct gguf_context *, const char *, double)>(&gguf_set_val_f64),
    fn<void(struct gguf_context *, const char *, bool)>(&gguf_set_val_bool),
    fn<void(struct gguf_context *, const char *, const char *)>(&gguf_set_val_str),
    fn<void(struct gguf_context *, const char *, enum gguf_type, const void *, size_t)>(&gguf_set_arr_data),
    fn<void(struct gguf_context *, const char *, const char **, size_t)>(&gguf_set_arr_str),
    fn<void(struct gguf_context *, const struct gguf_context *)>(&gguf_set_kv),
    fn<void(struct gguf_context *, const struct ggml_tensor *)>(&gguf_add_tensor),
    fn<void(struct gguf_context *, const char *, enum ggml_type)>(&gguf_set_tensor_type),
    fn<void(struct gguf_context *, const char *, const void *)>(&gguf_set_tensor_data),
    fn<bool(const struct gguf_context *, const char *, bool)>(&gguf_write_to_file),
    fn<size_t(const struct gguf_context *)>(&gguf_get_meta_size),
    fn<void(const struct gguf_context *, void *)>(&gguf_get_meta_data),
    // declared by Switchyard beyond the upstream copies this list was made from (newer upstream API or
    // Switchyard additions): checked to exist and be exported, with the type our header gives
    fn(&gguf_init_from_file_ptr),
    fn(&gguf_init_from_buffer),
    fn(&gguf_init_from_callback),
    fn(&gguf_write_to_file_ptr),
};


#if CONSUMER_HAS_GGML_OPT
// ggml-opt.h: 37 functions with upstream's types
const void * const k_ggml_opt[] = {
    fn<ggml_opt_dataset_t(enum ggml_type, enum ggml_type, int64_t, int64_t, int64_t, int64_t)>(&ggml_opt_dataset_init),
    fn<void(ggml_opt_dataset_t)>(&ggml_opt_dataset_free),
    fn<int64_t(ggml_opt_dataset_t)>(&ggml_opt_dataset_ndata),
    fn<struct ggml_tensor *(ggml_opt_dataset_t)>(&ggml_opt_dataset_data),
    fn<struct ggml_tensor *(ggml_opt_dataset_t)>(&ggml_opt_dataset_labels),
    fn<void(ggml_opt_context_t, ggml_opt_dataset_t, int64_t)>(&ggml_opt_dataset_shuffle),
    fn<void(ggml_opt_dataset_t, struct ggml_tensor *, struct ggml_tensor *, int64_t)>(&ggml_opt_dataset_get_batch),
    fn<void(ggml_opt_dataset_t, void *, size_t, void *, int64_t)>(&ggml_opt_dataset_get_batch_host),
    fn<struct ggml_opt_optimizer_params(void *)>(&ggml_opt_get_default_optimizer_params),
    fn<struct ggml_opt_optimizer_params(void *)>(&ggml_opt_get_constant_optimizer_params),
    fn<struct ggml_opt_params(ggml_backend_sched_t, enum ggml_opt_loss_type)>(&ggml_opt_default_params),
    fn<ggml_opt_context_t(struct ggml_opt_params)>(&ggml_opt_init),
    fn<void(ggml_opt_context_t)>(&ggml_opt_free),
    fn<void(ggml_opt_context_t, bool)>(&ggml_opt_reset),
    fn<bool(ggml_opt_context_t)>(&ggml_opt_static_graphs),
    fn<struct ggml_tensor *(ggml_opt_context_t)>(&ggml_opt_inputs),
    fn<struct ggml_tensor *(ggml_opt_context_t)>(&ggml_opt_outputs),
    fn<struct ggml_tensor *(ggml_opt_context_t)>(&ggml_opt_labels),
    fn<struct ggml_tensor *(ggml_opt_context_t)>(&ggml_opt_loss),
    fn<struct ggml_tensor *(ggml_opt_context_t)>(&ggml_opt_pred),
    fn<struct ggml_tensor *(ggml_opt_context_t)>(&ggml_opt_ncorrect),
    fn<struct ggml_tensor *(ggml_opt_context_t, struct ggml_tensor *)>(&ggml_opt_grad_acc),
    fn<enum ggml_opt_optimizer_type(ggml_opt_context_t)>(&ggml_opt_context_optimizer_type),
    fn<const char *(enum ggml_opt_optimizer_type)>(&ggml_opt_optimizer_name),
    fn<ggml_opt_result_t(void)>(&ggml_opt_result_init),
    fn<void(ggml_opt_result_t)>(&ggml_opt_result_free),
    fn<void(ggml_opt_result_t)>(&ggml_opt_result_reset),
    fn<void(ggml_opt_result_t, int64_t *)>(&ggml_opt_result_ndata),
    fn<void(ggml_opt_result_t, double *, double *)>(&ggml_opt_result_loss),
    fn<void(ggml_opt_result_t, int32_t *)>(&ggml_opt_result_pred),
    fn<void(ggml_opt_result_t, double *, double *)>(&ggml_opt_result_accuracy),
    fn<void(ggml_opt_context_t, struct ggml_context *, struct ggml_cgraph *, struct ggml_tensor *,
            struct ggml_tensor *)>(&ggml_opt_prepare_alloc),
    fn<void(ggml_opt_context_t, bool)>(&ggml_opt_alloc),
    fn<void(ggml_opt_context_t, ggml_opt_result_t)>(&ggml_opt_eval),
    fn<void(ggml_opt_context_t, ggml_opt_dataset_t, ggml_opt_result_t, ggml_opt_result_t, int64_t,
            ggml_opt_epoch_callback, ggml_opt_epoch_callback)>(&ggml_opt_epoch),
    fn<void(bool, ggml_opt_context_t, ggml_opt_dataset_t, ggml_opt_result_t, int64_t, int64_t,
            int64_t)>(&ggml_opt_epoch_callback_progress_bar),
    fn<void(ggml_backend_sched_t, struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, ggml_opt_dataset_t,
            enum ggml_opt_loss_type, enum ggml_opt_optimizer_type, ggml_opt_get_optimizer_params, int64_t, int64_t,
            float, bool)>(&ggml_opt_fit),
};

#endif

#if defined(__GNUC__)
#    pragma GCC diagnostic pop
#endif

int g_failures = 0;

void check(bool ok, const char * what) {
    if (!ok) {
        std::fprintf(stderr, "all_functions: check failed: %s\n", what);
        ++g_failures;
    }
}

void check_table(std::span<const void * const> table, const char * header) {
    size_t n_null = 0;
    for (const void * p : table) {
        n_null += p == nullptr;
    }
    if (n_null != 0) {
        std::fprintf(stderr, "all_functions: %zu null function addresses in the %s table\n", n_null, header);
        ++g_failures;
    }
}

// c = a + b, computed on the CPU through ggml_graph_compute_with_ctx, in a context that owns the tensor data.
void compute_in_context() {
    const ggml_init_params params = {16 * 1024 * 1024, nullptr, false};
    ggml_context_ptr ctx(ggml_init(params));
    check(ctx != nullptr, "ggml_init");
    if (!ctx) {
        return;
    }
    ggml_tensor * a = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    ggml_tensor * b = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    check(a != nullptr && b != nullptr && ggml_nelements(a) == 4, "ggml_new_tensor_1d");
    for (int i = 0; i < 4; ++i) {
        ggml_set_f32_1d(a, i, float(i));
        ggml_set_f32_1d(b, i, 10.0f * float(i));
    }
    ggml_tensor * c = ggml_add(ctx.get(), a, b);
    ggml_cgraph * graph = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(graph, c);
    check(ggml_graph_compute_with_ctx(ctx.get(), graph, 1) == GGML_STATUS_SUCCESS, "ggml_graph_compute_with_ctx");
    for (int i = 0; i < 4; ++i) {
        check(ggml_get_f32_1d(c, i) == 11.0f * float(i), "ggml_add computed in a context");
    }
}

// The same sum on a CPU backend: tensors in a no_alloc context placed in a backend buffer, through a graph
// allocator and then a scheduler, every handle held by a ggml-cpp.h owner.
void compute_on_backend() {
    ggml_backend_ptr backend(ggml_backend_cpu_init());
    check(backend != nullptr, "ggml_backend_cpu_init");
    if (!backend) {
        return;
    }
    const ggml_init_params params = {ggml_tensor_overhead() * 8 + 2 * ggml_graph_overhead(), nullptr, true};
    ggml_context_ptr ctx(ggml_init(params));
    ggml_tensor * a = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    ggml_tensor * b = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 4);
    ggml_backend_buffer_ptr inputs(ggml_backend_alloc_ctx_tensors(ctx.get(), backend.get()));
    check(inputs != nullptr, "ggml_backend_alloc_ctx_tensors");
    if (!inputs) {
        return;
    }
    const float va[4] = {1, 2, 3, 4};
    const float vb[4] = {0.5f, 0.25f, 0.125f, 0.0625f};
    ggml_backend_tensor_set(a, va, 0, sizeof(va));
    ggml_backend_tensor_set(b, vb, 0, sizeof(vb));

    ggml_tensor * c = ggml_mul(ctx.get(), a, b);
    ggml_cgraph * graph = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(graph, c);

    ggml_gallocr_ptr galloc(ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend.get())));
    check(galloc != nullptr && ggml_gallocr_alloc_graph(galloc.get(), graph), "ggml_gallocr_alloc_graph");
    check(ggml_backend_graph_compute(backend.get(), graph) == GGML_STATUS_SUCCESS, "ggml_backend_graph_compute");
    float vc[4] = {};
    ggml_backend_tensor_get(c, vc, 0, sizeof(vc));
    for (int i = 0; i < 4; ++i) {
        check(vc[i] == va[i] * vb[i], "ggml_mul on the CPU backend (graph allocator)");
    }

    ggml_backend_t backends[] = {backend.get()};
    ggml_backend_sched_ptr sched(ggml_backend_sched_new(backends, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, true));
    check(sched != nullptr, "ggml_backend_sched_new");
    if (sched) {
        ggml_tensor * d = ggml_add(ctx.get(), c, a);
        ggml_cgraph * graph2 = ggml_new_graph(ctx.get());
        ggml_build_forward_expand(graph2, d);
        check(ggml_backend_sched_graph_compute(sched.get(), graph2) == GGML_STATUS_SUCCESS,
              "ggml_backend_sched_graph_compute");
        float vd[4] = {};
        ggml_backend_tensor_get(d, vd, 0, sizeof(vd));
        for (int i = 0; i < 4; ++i) {
            check(vd[i] == va[i] * vb[i] + va[i], "ggml_add through the scheduler");
        }
    }

    // a CPU device may have no events: the owner must hold a null handle as well as a real one
    ggml_backend_event_ptr event(ggml_backend_event_new(ggml_backend_get_device(backend.get())));
    if (event) {
        ggml_backend_event_record(event.get(), backend.get());
        ggml_backend_event_synchronize(event.get());
    }
}

void gguf_round_trip() {
    gguf_context_ptr gguf(gguf_init_empty());
    check(gguf != nullptr, "gguf_init_empty");
    if (!gguf) {
        return;
    }
    gguf_set_val_u32(gguf.get(), "consumer.answer", 42);
    const int64_t key = gguf_find_key(gguf.get(), "consumer.answer");
    check(key >= 0 && gguf_get_val_u32(gguf.get(), key) == 42, "gguf_set_val_u32 / gguf_get_val_u32");
}

#if CONSUMER_HAS_GGML_OPT
void opt_result() {
    ggml_opt_result_t result = ggml_opt_result_init();
    check(result != nullptr, "ggml_opt_result_init");
    if (result != nullptr) {
        int64_t ndata = -1;
        ggml_opt_result_ndata(result, &ndata);
        check(ndata == 0, "ggml_opt_result_ndata of a new result");
        ggml_opt_result_free(result);
    }
}
#endif

} // namespace

int main() {
    check_table(k_ggml, "ggml.h");
    check_table(k_ggml_alloc, "ggml-alloc.h");
    check_table(k_ggml_backend, "ggml-backend.h");
    check_table(k_ggml_cpu, "ggml-cpu.h");
    check_table(k_gguf, "gguf.h");
    size_t n_functions = std::size(k_ggml) + std::size(k_ggml_alloc) + std::size(k_ggml_backend) +
                         std::size(k_ggml_cpu) + std::size(k_gguf);
#if CONSUMER_HAS_GGML_OPT
    check_table(k_ggml_opt, "ggml-opt.h");
    n_functions += std::size(k_ggml_opt);
#endif

    compute_in_context();
    compute_on_backend();
    gguf_round_trip();
#if CONSUMER_HAS_GGML_OPT
    opt_result();
#endif

    std::printf("all_functions: %zu functions referenced (ggml-opt.h %s), %d failed checks\n", n_functions,
                CONSUMER_HAS_GGML_OPT ? "included" : "not installed", g_failures);
    return g_failures == 0 ? 0 : 1;
}
