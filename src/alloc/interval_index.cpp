// The planner's lifetime index: short intervals in start order, the longest few apart.
#include "alloc/interval_index.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace switchyard::alloc {

namespace {
constexpr int32_t kUnplaced = std::numeric_limits<int32_t>::min(); // an end no query start is below
}

void IntervalIndex::build(const std::vector<int32_t> & starts, const std::vector<int32_t> & ends) {
    const size_t n = starts.size();
    starts_        = starts;
    ends_          = ends;
    long_placed_.clear();
    long_placed_.reserve(std::min(n, kLongBudget));
    // the longest kLongBudget lengths go apart, unless that would split equal lengths
    std::vector<int32_t> lengths(n);
    for (size_t i = 0; i < n; ++i) {
        lengths[i] = ends[i] - starts[i];
    }
    max_short_ = 0;
    if (n > kLongBudget) {
        std::nth_element(lengths.begin(), lengths.end() - static_cast<std::ptrdiff_t>(kLongBudget) - 1,
                         lengths.end());
        max_short_ = lengths[n - kLongBudget - 1];
    }
    position_.assign(n, -1);
    order_.clear();
    for (size_t i = 0; i < n; ++i) {
        if (n <= kLongBudget || ends[i] - starts[i] <= max_short_) {
            order_.push_back(static_cast<int32_t>(i));
        }
    }
    std::stable_sort(order_.begin(), order_.end(), [&](int32_t a, int32_t b) { return starts[a] < starts[b]; });
    if (n <= kLongBudget) {
        max_short_ = std::numeric_limits<int32_t>::max() / 2; // everything is short: scan all
    }
    sorted_starts_.resize(order_.size());
    sorted_ends_.assign(order_.size(), kUnplaced);
    for (size_t p = 0; p < order_.size(); ++p) {
        sorted_starts_[p]    = starts[order_[p]];
        position_[order_[p]] = static_cast<int32_t>(p);
    }
    const int32_t last_start = order_.empty() ? 0 : sorted_starts_.back();
    time_first_.assign(static_cast<size_t>(last_start) + 2, 0);
    size_t p = 0;
    for (int32_t t = 0; t <= last_start + 1; ++t) {
        while (p < sorted_starts_.size() && sorted_starts_[p] < t) {
            ++p;
        }
        time_first_[t] = static_cast<int32_t>(p);
    }
}

void IntervalIndex::clear() {
    std::fill(sorted_ends_.begin(), sorted_ends_.end(), kUnplaced);
    long_placed_.clear();
}

void IntervalIndex::insert(int32_t i) {
    if (position_[i] < 0) {
        long_placed_.push_back(i);
    } else {
        sorted_ends_[position_[i]] = ends_[i];
    }
}

int32_t IntervalIndex::first_position(int32_t time) const {
    if (time <= 0) {
        return 0;
    }
    if (time >= static_cast<int32_t>(time_first_.size())) {
        return static_cast<int32_t>(order_.size());
    }
    return time_first_[time];
}

void IntervalIndex::overlapping(int32_t start, int32_t end, std::vector<int32_t> & out) const {
    // a short interval meeting [start, end] starts no earlier than start - max_short_ and no later than end
    const int32_t lo = first_position(start - std::min(start, max_short_));
    const int32_t hi = end == std::numeric_limits<int32_t>::max() ? static_cast<int32_t>(order_.size())
                                                                   : first_position(end + 1);
    for (int32_t p = lo; p < hi; ++p) {
        if (sorted_ends_[p] >= start) {
            out.push_back(order_[p]);
        }
    }
    for (int32_t i : long_placed_) {
        if (starts_[i] <= end && ends_[i] >= start) {
            out.push_back(i);
        }
    }
}

} // namespace switchyard::alloc
