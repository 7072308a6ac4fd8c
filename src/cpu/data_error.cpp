// DataErrorSlot and the kernels' side of it (report_data_error in kernel.h).
#include "cpu/data_error.h"

#include "cpu/kernel.h"

#include "base/log.h"

#include <cstdio>

namespace switchyard::cpu {

void DataErrorSlot::record(int step, const char * fmt, va_list args) {
    int expected = -1;
    if (step_.load(std::memory_order_relaxed) != -1 ||
        !step_.compare_exchange_strong(expected, step, std::memory_order_acq_rel)) {
        return; // an earlier report wins
    }
    std::vsnprintf(message_, sizeof(message_), fmt, args);
}

void report_data_error(const ComputeParams & params, const char * fmt, ...) {
    va_list args;
    va_start(args, fmt);
    if (params.errors != nullptr) {
        params.errors->record(params.step, fmt, args);
    } else {
        // a kernel called outside a graph computation (tests): there is no slot, only the log
        char message[DataErrorSlot::kMessageSize];
        std::vsnprintf(message, sizeof(message), fmt, args);
        log_error("[cpu kernel] data error: %s\n", message);
    }
    va_end(args);
}

} // namespace switchyard::cpu
