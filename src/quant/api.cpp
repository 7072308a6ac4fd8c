// The quantization part of ggml.h's C API: ggml_quantize_chunk and its companions. The wrappers validate
// their arguments (a bad call logs and returns 0, it never aborts) and hand the rows to the format's
// quantizer (quant/formats.h).
#include "quant/formats.h"

#include "base/abort.h"
#include "base/log.h"
#include "quant/types.h"

#include "ggml.h"

namespace switchyard::quant {

namespace {

constexpr const char * kCaller = "ggml_quantize_chunk";

bool check_chunk_args(ggml_type type, const Format * fmt, const float * src, const void * dst, int64_t start,
                      int64_t nrows, int64_t n_per_row) {
    if (fmt == nullptr || fmt->quantize_rows == nullptr) {
        log_error("[%s] cannot quantize to type %d (%s): not supported\n", kCaller, static_cast<int>(type),
                  is_valid_type(type) ? ggml_type_name(type) : "invalid");
        return false;
    }
    const int64_t blck = ggml_blck_size(type);
    if (n_per_row <= 0 || nrows < 0 || start < 0) {
        log_error("[%s] bad sizes: start %lld, nrows %lld, n_per_row %lld\n", kCaller, static_cast<long long>(start),
                  static_cast<long long>(nrows), static_cast<long long>(n_per_row));
        return false;
    }
    if (n_per_row % blck != 0 || start % n_per_row != 0 || start % blck != 0) {
        log_error("[%s] %s: n_per_row (%lld) and start (%lld) must be multiples of the block size (%lld), start a "
                  "multiple of n_per_row\n",
                  kCaller, ggml_type_name(type), static_cast<long long>(n_per_row), static_cast<long long>(start),
                  static_cast<long long>(blck));
        return false;
    }
    if (nrows > 0 && (src == nullptr || dst == nullptr)) {
        log_error("[%s] %s buffer is NULL\n", kCaller, src == nullptr ? "source" : "destination");
        return false;
    }
    return true;
}

} // namespace

} // namespace switchyard::quant

using namespace switchyard;

extern "C" {

// Nothing to set up: the formats implemented here use only constant tables. Thread-safe.
void ggml_quantize_init(enum ggml_type type) {
    (void) type;
}

void ggml_quantize_free(void) {}

// As upstream: the formats that cannot be produced without an importance matrix (none of them is
// implemented here, so ggml_quantize_chunk rejects them anyway).
bool ggml_quantize_requires_imatrix(enum ggml_type type) {
    return type == GGML_TYPE_IQ2_XXS || type == GGML_TYPE_IQ2_XS || type == GGML_TYPE_IQ1_S;
}

size_t ggml_quantize_chunk(enum ggml_type type, const float * src, void * dst, int64_t start, int64_t nrows,
                           int64_t n_per_row, const float * imatrix) {
    const quant::Format * fmt = quant::find_format(type);
    if (!quant::check_chunk_args(type, fmt, src, dst, start, nrows, n_per_row)) {
        return 0;
    }
    if (nrows == 0) {
        return 0;
    }
    ggml_quantize_init(type);
    const size_t row_size  = ggml_row_size(type, n_per_row);
    const size_t start_row = static_cast<size_t>(start / n_per_row);
    const size_t written   = fmt->quantize_rows(src + start, static_cast<char *>(dst) + start_row * row_size, nrows,
                                                n_per_row, imatrix);
    check(written == static_cast<size_t>(nrows) * row_size, "quantize_rows wrote a whole number of rows");
    return written;
}

} // extern "C"
