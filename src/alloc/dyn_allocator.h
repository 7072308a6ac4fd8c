// The address space the planner places blocks in: one allocator group's virtual buffer, made of chunks (each
// becomes one backend buffer) no larger than the buffer type's max size, except a chunk opened for a single
// block that is larger on its own. Each chunk tracks its high-water mark, which is the size its buffer needs.
//
// Unlike a run-time allocator it keeps no free list: the planner hands it the address ranges occupied by the
// blocks already placed whose lifetimes meet the new block's, and it picks a hole among them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard::alloc {

struct Address {
    int32_t chunk  = 0;
    size_t  offset = 0;
};

// An address range occupied at the same time as the block being placed.
struct BusyRange {
    int32_t chunk;
    size_t  offset;
    size_t  size;
};

enum class FitPolicy {
    BestFit,  // the hole that grows no chunk and wastes least; otherwise the least growth
    FirstFit, // the lowest address that fits
};

class DynAllocator {
public:
    explicit DynAllocator(size_t max_chunk_size) : max_chunk_size_(max_chunk_size) {}

    // A hole search for one block: feed the busy ranges in ascending (chunk, offset) order, stop early when
    // done() says the answer is known, then finish() commits and returns the address. Sizes and offsets are
    // multiples of the group's alignment already.
    class Search {
    public:
        Search(DynAllocator & space, size_t size, FitPolicy policy);
        // inline: the planner calls it for every range in use at the same time
        void busy(int32_t chunk, size_t offset, size_t size) {
            if (chunk != chunk_) {
                advance_to(chunk);
                if (done_) {
                    return;
                }
            }
            if (offset >= cursor_ + size_ && cursor_ + size_ <= capacity_) {
                offer_hole(offset);
            }
            cursor_ = offset + size > cursor_ ? offset + size : cursor_;
        }
        bool    done() const { return done_; }
        Address finish();

    private:
        struct Candidate {
            Address address;
            size_t  growth = 0; // bytes the chunk's high-water mark grows by
            size_t  waste  = 0; // hole bytes left unused (holes below the high-water mark only)
            bool    valid  = false;
        };
        static bool better(const Candidate & a, const Candidate & b);
        void        offer(const Candidate & c);
        void        close_chunk(); // the tail of the current chunk, then move to the next
        void        advance_to(int32_t chunk);
        void        offer_hole(size_t end);

        DynAllocator & space_;
        size_t         size_;
        FitPolicy      policy_;
        int32_t        chunk_    = 0;
        size_t         cursor_   = 0;
        size_t         capacity_ = 0; // of chunk_
        Candidate      best_;
        bool           done_ = false;
    };

    // The whole search at once; busy is sorted in place. Zero bytes go to chunk 0, offset 0.
    Address place(size_t size, std::vector<BusyRange> & busy, FitPolicy policy);

    // Bytes each chunk's buffer needs (at least one chunk, possibly of size 0).
    std::vector<size_t> chunk_sizes() const;
    size_t              total_size() const;

private:
    struct Chunk {
        size_t capacity   = 0; // the most this chunk may grow to
        size_t high_water = 0;
    };

    std::vector<Chunk> chunks_;
    size_t             max_chunk_size_;
};

} // namespace switchyard::alloc
