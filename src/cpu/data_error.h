// DataErrorSlot: the first data error of one graph computation on the CPU.
//
// A data error is input *data* (not shapes or types, which are checked before anything runs) that make a node
// impossible to compute: an index or id read from a tensor that falls outside the dimension it indexes. Kernels
// report it with report_data_error (kernel.h) from any of the node's threads; the executor owns one slot per
// computation, checks it at the barrier after every node, stops the computation there and has
// ggml_graph_compute return GGML_STATUS_FAILED with a log line naming the node and the message.
//
// Thread safety: record() may race with itself and with step(); the first record() wins (one compare-and-swap on
// the step), later ones are dropped. The winner writes the message after winning, so message() is complete only
// for a reader that synchronised with the reporting thread afterwards (the executor reads it after the graph's
// barrier, or after the thread pool has finished).
#pragma once

#include <atomic>
#include <cstdarg>
#include <cstddef>

namespace switchyard::cpu {

class DataErrorSlot {
public:
    static constexpr size_t kMessageSize = 256;

    DataErrorSlot()                                  = default;
    DataErrorSlot(const DataErrorSlot &)             = delete;
    DataErrorSlot & operator=(const DataErrorSlot &) = delete;

    // Records the error of the node at `step` (its position in the computation) unless one is recorded already;
    // the message is formatted by vsnprintf and cut to kMessageSize - 1 characters.
    void record(int step, const char * fmt, va_list args);

    // The step whose node reported the recorded error, or -1 while none is recorded.
    int step() const { return step_.load(std::memory_order_acquire); }

    // The recorded message ("" while none is recorded); see the thread-safety note above.
    const char * message() const { return message_; }

private:
    std::atomic<int> step_{-1};
    char             message_[kMessageSize] = {};
};

} // namespace switchyard::cpu
