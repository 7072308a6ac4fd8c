// Hole search in a chunked address space, given the ranges in use at the same time.
#include "alloc/dyn_allocator.h"

#include <algorithm>

namespace switchyard::alloc {

DynAllocator::Search::Search(DynAllocator & space, size_t size, FitPolicy policy)
    : space_(space), size_(size), policy_(policy) {
    if (space_.chunks_.empty()) {
        space_.chunks_.push_back({std::max(space_.max_chunk_size_, size), 0});
    }
    capacity_ = space_.chunks_[0].capacity;
    if (size == 0) {
        best_.valid = true; // chunk 0, offset 0: zero bytes overlap nothing
        done_       = true;
    }
}

bool DynAllocator::Search::better(const Candidate & a, const Candidate & b) {
    if (!b.valid) {
        return a.valid;
    }
    if (a.growth != b.growth) {
        return a.growth < b.growth;
    }
    if (a.waste != b.waste) {
        return a.waste < b.waste;
    }
    if (a.address.chunk != b.address.chunk) {
        return a.address.chunk < b.address.chunk;
    }
    return a.address.offset < b.address.offset;
}

void DynAllocator::Search::offer(const Candidate & c) {
    if (policy_ == FitPolicy::FirstFit) {
        best_ = c;
        done_ = true; // candidates arrive in address order: the first is the lowest
    } else if (better(c, best_)) {
        best_ = c;
        done_ = c.growth == 0 && c.waste == 0; // an exact hole: nothing later in address order is better
    }
}

void DynAllocator::Search::close_chunk() {
    if (!done_ && cursor_ + size_ <= capacity_ && cursor_ + size_ >= cursor_) {
        const Chunk & c = space_.chunks_[chunk_];
        Candidate     tail{{chunk_, cursor_}, 0, 0, true};
        if (cursor_ + size_ > c.high_water) {
            tail.growth = cursor_ + size_ - c.high_water;
        } else {
            tail.waste = c.high_water - cursor_ - size_;
        }
        offer(tail);
    }
    ++chunk_;
    cursor_   = 0;
    capacity_ = chunk_ < static_cast<int32_t>(space_.chunks_.size()) ? space_.chunks_[chunk_].capacity : 0;
}

void DynAllocator::Search::advance_to(int32_t chunk) {
    while (chunk_ < chunk && !done_) {
        close_chunk();
    }
}

void DynAllocator::Search::offer_hole(size_t end) {
    offer({{chunk_, cursor_}, 0, end - cursor_ - size_, true});
}

Address DynAllocator::Search::finish() {
    while (!done_ && chunk_ < static_cast<int32_t>(space_.chunks_.size())) {
        close_chunk();
    }
    if (!best_.valid) {
        // no room in any chunk: open one (larger than the max size only for a block that is larger by itself)
        space_.chunks_.push_back({std::max(space_.max_chunk_size_, size_), 0});
        best_.address = {static_cast<int32_t>(space_.chunks_.size() - 1), 0};
    }
    Chunk & chunk    = space_.chunks_[best_.address.chunk];
    chunk.high_water = std::max(chunk.high_water, best_.address.offset + size_);
    return best_.address;
}

Address DynAllocator::place(size_t size, std::vector<BusyRange> & busy, FitPolicy policy) {
    Search search(*this, size, policy);
    std::sort(busy.begin(), busy.end(), [](const BusyRange & a, const BusyRange & b) {
        return a.chunk != b.chunk ? a.chunk < b.chunk : a.offset < b.offset;
    });
    for (const BusyRange & r : busy) {
        if (search.done()) {
            break;
        }
        search.busy(r.chunk, r.offset, r.size);
    }
    return search.finish();
}

std::vector<size_t> DynAllocator::chunk_sizes() const {
    std::vector<size_t> sizes;
    for (const Chunk & c : chunks_) {
        sizes.push_back(c.high_water);
    }
    if (sizes.empty()) {
        sizes.push_back(0);
    }
    return sizes;
}

size_t DynAllocator::total_size() const {
    size_t total = 0;
    for (const Chunk & c : chunks_) {
        total += c.high_water;
    }
    return total;
}

} // namespace switchyard::alloc
