// Lifetime index for the planner: among the blocks placed so far, which ones are alive at some time of a query
// interval? The set of blocks is known up front (they are placed one by one in any order).
//
// Blocks in graphs are mostly short-lived (a tensor dies a few nodes after it is made), with a few that live
// long (inputs, tensors kept for a later layer). So the index splits them: the kLongBudget longest intervals are
// kept in a list of their own, scanned whole by every query; the others, at most max_short_ long, sit in start
// order, where an interval meeting [start, end] must start within [start - max_short_, end]: a query scans that
// window of the sorted array (found in O(1) through the first position of each start time). A query costs
// O(window + placed long intervals), sequential reads without recursion; insert is O(1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard::alloc {

class IntervalIndex {
public:
    // How many of the longest intervals the index keeps apart (fewer when ties would split a length).
    static constexpr size_t kLongBudget = 32;

    // Indexes the intervals [starts[i], ends[i]] (0 <= starts[i] <= ends[i]), i in [0, n); nothing is placed yet.
    void build(const std::vector<int32_t> & starts, const std::vector<int32_t> & ends);
    // Forgets all placements (keeps the structure).
    void clear();
    // Marks interval i as placed (once).
    void insert(int32_t i);
    // Appends to out every placed i with starts[i] <= end and ends[i] >= start (closed intervals meet), in no
    // particular order.
    void overlapping(int32_t start, int32_t end, std::vector<int32_t> & out) const;

private:
    int32_t first_position(int32_t time) const; // first sorted position whose start is >= time

    std::vector<int32_t> order_;         // short interval ids sorted by start
    std::vector<int32_t> sorted_starts_; // their starts, in that order
    std::vector<int32_t> sorted_ends_;   // their ends, in that order (kUnplaced until placed)
    std::vector<int32_t> position_;      // id -> position in order_, -1 for a long interval
    std::vector<int32_t> time_first_;    // time -> first position with start >= time
    std::vector<int32_t> starts_;        // id -> start
    std::vector<int32_t> ends_;          // id -> end
    std::vector<int32_t> long_placed_;   // placed long interval ids
    int32_t              max_short_ = 0; // the longest short interval (end - start)
};

} // namespace switchyard::alloc
