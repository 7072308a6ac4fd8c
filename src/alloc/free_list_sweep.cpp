// Creation-order placement into a free list, sweeping over time.
#include "alloc/free_list_sweep.h"

#include <algorithm>

namespace switchyard::alloc {

namespace {

// Free address ranges below the high-water mark, sorted by offset and merged.
class FreeList {
public:
    // Offset for `size` bytes: the free range with the least waste (the lowest among equals), else the end of
    // the space (taking a free range that reaches the high-water mark). The order of preference is DynAllocator's
    // best fit in one chunk: no growth first, then least waste, then lowest address.
    size_t take(size_t size) {
        size_t best = ranges_.size();
        for (size_t i = 0; i < ranges_.size(); ++i) {
            const Range & r = ranges_[i];
            if (r.size >= size && (best == ranges_.size() || r.size < ranges_[best].size)) {
                best = i;
                if (r.size == size) {
                    break; // an exact fit: no later range is better
                }
            }
        }
        if (best < ranges_.size()) {
            Range &      r      = ranges_[best];
            const size_t offset = r.offset;
            r.offset += size;
            r.size -= size;
            if (r.size == 0) {
                ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(best));
            }
            return offset;
        }
        size_t offset = high_water_;
        if (!ranges_.empty() && ranges_.back().offset + ranges_.back().size == high_water_) {
            offset = ranges_.back().offset; // grow the last free range instead of leaving it behind
            ranges_.pop_back();
        }
        high_water_ = offset + size;
        return offset;
    }

    void give_back(size_t offset, size_t size) {
        auto next = std::lower_bound(ranges_.begin(), ranges_.end(), offset,
                                     [](const Range & r, size_t off) { return r.offset < off; });
        const bool joins_prev = next != ranges_.begin() && std::prev(next)->offset + std::prev(next)->size == offset;
        const bool joins_next = next != ranges_.end() && offset + size == next->offset;
        if (joins_prev && joins_next) {
            std::prev(next)->size += size + next->size;
            ranges_.erase(next);
        } else if (joins_prev) {
            std::prev(next)->size += size;
        } else if (joins_next) {
            next->offset = offset;
            next->size += size;
        } else {
            ranges_.insert(next, Range{offset, size});
        }
    }

    size_t high_water() const { return high_water_; }

private:
    struct Range {
        size_t offset;
        size_t size;
    };
    std::vector<Range> ranges_;
    size_t             high_water_ = 0;
};

// Member positions grouped by a time key (counting sort, stable): positions of key t are
// order[first[t] .. first[t + 1]).
struct ByTime {
    std::vector<int32_t> first;
    std::vector<int32_t> order;
};

template <typename Key> ByTime group_by_time(size_t n, int32_t n_times, Key key) {
    ByTime g;
    g.first.assign(static_cast<size_t>(n_times) + 2, 0);
    for (size_t pos = 0; pos < n; ++pos) {
        ++g.first[static_cast<size_t>(key(pos)) + 2];
    }
    for (size_t t = 2; t < g.first.size(); ++t) {
        g.first[t] += g.first[t - 1];
    }
    g.order.resize(n);
    for (size_t pos = 0; pos < n; ++pos) {
        g.order[static_cast<size_t>(g.first[static_cast<size_t>(key(pos)) + 1]++)] = static_cast<int32_t>(pos);
    }
    return g;
}

} // namespace

bool free_list_sweep(const std::vector<Block> & blocks, const std::vector<int32_t> & members,
                     size_t max_chunk_size, int32_t n_times, PackResult & result) {
    const size_t n      = members.size();
    auto         start  = [&](size_t pos) { return blocks[members[pos]].start; };
    auto         end    = [&](size_t pos) { return blocks[members[pos]].end; };
    const ByTime born   = group_by_time(n, n_times, start);
    const ByTime dying  = group_by_time(n, n_times, end);
    result.addresses.assign(n, Address{});
    FreeList free;
    for (int32_t t = 0; t < n_times; ++t) {
        for (int32_t i = born.first[t]; i < born.first[t + 1]; ++i) {
            const int32_t pos  = born.order[i];
            const size_t  size = blocks[members[pos]].size;
            if (size > 0) {
                result.addresses[pos].offset = free.take(size);
                if (free.high_water() > max_chunk_size) {
                    return false;
                }
            }
        }
        for (int32_t i = dying.first[t]; i < dying.first[t + 1]; ++i) {
            const int32_t pos  = dying.order[i];
            const size_t  size = blocks[members[pos]].size;
            if (size > 0) {
                free.give_back(result.addresses[pos].offset, size);
            }
        }
    }
    result.chunk_sizes = {free.high_water()};
    result.total       = free.high_water();
    return true;
}

} // namespace switchyard::alloc
