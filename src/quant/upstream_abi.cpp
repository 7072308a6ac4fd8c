// Upstream ggml's internal quantization symbols that out-of-tree backend modules link against.
//
// These are not in any public header: upstream declares them in its private ggml-quants.h, and a backend built
// against upstream's tree (its CPU backend built with GGML_BACKEND_DL, for one) calls them from ggml-base. We
// export them with upstream's names, C linkage and meaning so such a module loads (dlopen with RTLD_NOW
// resolves every symbol up front) and runs on this library. Do not declare them in include/.
//
//   void quantize_row_<type>_ref(const float * x, block_<type> * y, int64_t k)
//       The reference quantizer of <type>: k floats (a multiple of the block size) into k / block_size blocks,
//       the same bytes as ggml_get_type_traits(type)->from_float_ref. The block pointer is opaque to the linker,
//       so it is void * here. Upstream asserts on a bad k; we log an error naming the function and write nothing.
//   size_t quantize_iq4_xs(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix)
//       nrows rows of n_per_row floats (a multiple of 256) into IQ4_XS rows, as ggml_quantize_chunk; returns the
//       bytes written. Bad sizes or a NULL buffer: an error naming the function, 0, nothing written.
#include "base/log.h"
#include "quant/blocks.h"
#include "quant/formats.h"
#include "quant/types.h"

#include <cstddef>
#include <cstdint>

#define SWITCHYARD_UPSTREAM_ABI __attribute__((visibility("default")))

namespace {

using switchyard::log_error;

// One exported reference quantizer: the upstream function name it answers to and its type (whose format, block
// size included, comes from the type's own row: quant/formats.h, quant/types.h).
struct RowRef {
    const char * function;
    ggml_type    type;
};

constexpr RowRef kQ4_0{"quantize_row_q4_0_ref", GGML_TYPE_Q4_0};
constexpr RowRef kQ4_1{"quantize_row_q4_1_ref", GGML_TYPE_Q4_1};
constexpr RowRef kQ5_0{"quantize_row_q5_0_ref", GGML_TYPE_Q5_0};
constexpr RowRef kQ5_1{"quantize_row_q5_1_ref", GGML_TYPE_Q5_1};
constexpr RowRef kQ8_0{"quantize_row_q8_0_ref", GGML_TYPE_Q8_0};
constexpr RowRef kQ8_1{"quantize_row_q8_1_ref", GGML_TYPE_Q8_1};
constexpr RowRef kQ2_K{"quantize_row_q2_K_ref", GGML_TYPE_Q2_K};
constexpr RowRef kQ3_K{"quantize_row_q3_K_ref", GGML_TYPE_Q3_K};
constexpr RowRef kQ4_K{"quantize_row_q4_K_ref", GGML_TYPE_Q4_K};
constexpr RowRef kQ5_K{"quantize_row_q5_K_ref", GGML_TYPE_Q5_K};
constexpr RowRef kQ6_K{"quantize_row_q6_K_ref", GGML_TYPE_Q6_K};
constexpr RowRef kQ8_K{"quantize_row_q8_K_ref", GGML_TYPE_Q8_K};
constexpr RowRef kIQ4_NL{"quantize_row_iq4_nl_ref", GGML_TYPE_IQ4_NL};
constexpr RowRef kMXFP4{"quantize_row_mxfp4_ref", GGML_TYPE_MXFP4};
constexpr RowRef kNVFP4{"quantize_row_nvfp4_ref", GGML_TYPE_NVFP4};
constexpr RowRef kQ1_0{"quantize_row_q1_0_ref", GGML_TYPE_Q1_0};
constexpr RowRef kQ2_0{"quantize_row_q2_0_ref", GGML_TYPE_Q2_0};
constexpr RowRef kTQ1_0{"quantize_row_tq1_0_ref", GGML_TYPE_TQ1_0};
constexpr RowRef kTQ2_0{"quantize_row_tq2_0_ref", GGML_TYPE_TQ2_0};

// Validates the call, then runs the format's from_float_ref; every failure is one error line naming the function.
void quantize_row_ref(const RowRef & row, const float * x, void * y, int64_t k) {
    const switchyard::quant::Format * format = switchyard::quant::find_format(row.type);
    if (format == nullptr || format->from_float_ref == nullptr) {
        log_error("[%s] this library does not implement the format; nothing is written\n", row.function);
        return;
    }
    const int64_t block_size = switchyard::type_info(row.type).blck_size;
    if (k < 0 || k % block_size != 0) {
        log_error("[%s] k = %lld is not a multiple of the block size %lld; nothing is written\n", row.function,
                  static_cast<long long>(k), static_cast<long long>(block_size));
        return;
    }
    if (k > 0 && (x == nullptr || y == nullptr)) {
        log_error("[%s] %s is NULL\n", row.function, x == nullptr ? "x" : "y");
        return;
    }
    format->from_float_ref(x, y, k);
}

} // namespace

extern "C" {

SWITCHYARD_UPSTREAM_ABI void quantize_row_q4_0_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q4_1_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q5_0_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q5_1_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q8_0_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q8_1_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q2_K_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q3_K_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q4_K_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q5_K_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q6_K_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q8_K_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_iq4_nl_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_mxfp4_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_nvfp4_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q1_0_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_q2_0_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_tq1_0_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI void quantize_row_tq2_0_ref(const float * x, void * y, int64_t k);
SWITCHYARD_UPSTREAM_ABI size_t quantize_iq4_xs(const float * src, void * dst, int64_t nrows, int64_t n_per_row,
                                               const float * imatrix);

void quantize_row_q4_0_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ4_0, x, y, k); }
void quantize_row_q4_1_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ4_1, x, y, k); }
void quantize_row_q5_0_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ5_0, x, y, k); }
void quantize_row_q5_1_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ5_1, x, y, k); }
void quantize_row_q8_0_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ8_0, x, y, k); }
void quantize_row_q8_1_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ8_1, x, y, k); }
void quantize_row_q2_K_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ2_K, x, y, k); }
void quantize_row_q3_K_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ3_K, x, y, k); }
void quantize_row_q4_K_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ4_K, x, y, k); }
void quantize_row_q5_K_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ5_K, x, y, k); }
void quantize_row_q6_K_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ6_K, x, y, k); }
void quantize_row_q8_K_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ8_K, x, y, k); }
void quantize_row_iq4_nl_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kIQ4_NL, x, y, k); }
void quantize_row_mxfp4_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kMXFP4, x, y, k); }
void quantize_row_nvfp4_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kNVFP4, x, y, k); }
void quantize_row_q1_0_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ1_0, x, y, k); }
void quantize_row_q2_0_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kQ2_0, x, y, k); }
void quantize_row_tq1_0_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kTQ1_0, x, y, k); }
void quantize_row_tq2_0_ref(const float * x, void * y, int64_t k) { quantize_row_ref(kTQ2_0, x, y, k); }

size_t quantize_iq4_xs(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix) {
    const int64_t block_size = switchyard::type_info(GGML_TYPE_IQ4_XS).blck_size;
    if (nrows < 0 || n_per_row <= 0 || n_per_row % block_size != 0) {
        log_error("[quantize_iq4_xs] nrows = %lld, n_per_row = %lld: n_per_row must be a positive multiple of %lld; "
                  "nothing is written\n",
                  static_cast<long long>(nrows), static_cast<long long>(n_per_row), static_cast<long long>(block_size));
        return 0;
    }
    if (nrows > 0 && (src == nullptr || dst == nullptr)) {
        log_error("[quantize_iq4_xs] %s is NULL\n", src == nullptr ? "src" : "dst");
        return 0;
    }
    return switchyard::quant::find_format(GGML_TYPE_IQ4_XS)->quantize_rows(src, dst, nrows, n_per_row, imatrix);
}

} // extern "C"
