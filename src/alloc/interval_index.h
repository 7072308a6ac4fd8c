// Lifetime index for the planner: among the blocks placed so far, which ones are alive at some time of a query
// interval? The set of blocks is known up front (they are placed one by one in any order), so the index is a
// segment tree over the blocks sorted by start time holding, per subtree, the latest end of its placed blocks.
// A query visits only subtrees that start early enough and hold a block that ends late enough:
// O((k + 1) log n) for k reported blocks; insert is O(log n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard::alloc {

class IntervalIndex {
public:
    // Indexes the intervals [starts[i], ends[i]], i in [0, n); nothing is placed yet.
    void build(const std::vector<int32_t> & starts, const std::vector<int32_t> & ends);
    // Forgets all placements (keeps the structure).
    void clear();
    // Marks interval i as placed.
    void insert(int32_t i);
    // Appends to out every placed i with starts[i] <= end and ends[i] >= start (closed intervals meet).
    void overlapping(int32_t start, int32_t end, std::vector<int32_t> & out) const;

private:
    void visit(size_t node, size_t lo, size_t hi, size_t limit, int32_t start, std::vector<int32_t> & out) const;

    std::vector<int32_t> order_;         // interval ids sorted by start
    std::vector<int32_t> sorted_starts_; // starts in that order
    std::vector<int32_t> position_;      // id -> position in order_
    std::vector<int32_t> ends_;          // id -> end
    std::vector<int32_t> tree_;          // max end of placed intervals per subtree (INT32_MIN: none)
    size_t               leaves_ = 1;
};

} // namespace switchyard::alloc
