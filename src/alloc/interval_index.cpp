// Segment tree over intervals sorted by start, keyed by the latest end of the placed ones.
#include "alloc/interval_index.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace switchyard::alloc {

namespace {
constexpr int32_t kNone = std::numeric_limits<int32_t>::min();
}

void IntervalIndex::build(const std::vector<int32_t> & starts, const std::vector<int32_t> & ends) {
    const size_t n = starts.size();
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int32_t a, int32_t b) { return starts[a] < starts[b]; });
    sorted_starts_.resize(n);
    position_.resize(n);
    for (size_t p = 0; p < n; ++p) {
        sorted_starts_[p]      = starts[order_[p]];
        position_[order_[p]] = static_cast<int32_t>(p);
    }
    ends_   = ends;
    leaves_ = 1;
    while (leaves_ < n) {
        leaves_ *= 2;
    }
    tree_.assign(2 * leaves_, kNone);
}

void IntervalIndex::clear() {
    std::fill(tree_.begin(), tree_.end(), kNone);
}

void IntervalIndex::insert(int32_t i) {
    size_t node = leaves_ + static_cast<size_t>(position_[i]);
    tree_[node] = ends_[i];
    for (node /= 2; node >= 1; node /= 2) {
        int32_t best = std::max(tree_[2 * node], tree_[2 * node + 1]);
        if (tree_[node] == best) {
            break;
        }
        tree_[node] = best;
    }
}

void IntervalIndex::overlapping(int32_t start, int32_t end, std::vector<int32_t> & out) const {
    // only intervals starting at or before `end` can meet [start, end]: a prefix of the sorted order
    size_t limit = static_cast<size_t>(std::upper_bound(sorted_starts_.begin(), sorted_starts_.end(), end) -
                                       sorted_starts_.begin());
    if (limit > 0) {
        visit(1, 0, leaves_, limit, start, out);
    }
}

void IntervalIndex::visit(size_t node, size_t lo, size_t hi, size_t limit, int32_t start,
                          std::vector<int32_t> & out) const {
    if (lo >= limit || tree_[node] < start) {
        return;
    }
    if (node >= leaves_) {
        out.push_back(order_[lo]);
        return;
    }
    size_t mid = (lo + hi) / 2;
    visit(2 * node, lo, mid, limit, start, out);
    visit(2 * node + 1, mid, hi, limit, start, out);
}

} // namespace switchyard::alloc
