// Lifetime-aware placement: orders, the placement loop and the lower bound.
#include "alloc/planner.h"

#include "alloc/free_list_sweep.h"
#include "alloc/interval_index.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace switchyard::alloc {

namespace {

enum class Order {
    SizeThenLength, // largest first; among equal sizes the longer-lived first
    LengthThenSize, // longest-lived first
    StartTime,      // creation order (what an allocator deciding at run time sees)
};

struct Strategy {
    const char * name;
    Order        order;
    FitPolicy    policy;
};

constexpr std::array<Strategy, 4> kStrategies = {{
    {"largest-first best-fit", Order::SizeThenLength, FitPolicy::BestFit},
    {"largest-first lowest-address", Order::SizeThenLength, FitPolicy::FirstFit},
    {"longest-lived-first best-fit", Order::LengthThenSize, FitPolicy::BestFit},
    {"creation-order best-fit", Order::StartTime, FitPolicy::BestFit},
}};

// The positions of members in placement order. The sort keys are gathered first and the last key is the
// position, so a plain sort gives the order a stable sort of the positions would, without indirection.
std::vector<int32_t> placement_order(const std::vector<Block> & blocks, const std::vector<int32_t> & members,
                                     Order order) {
    struct Key {
        size_t  size;
        int32_t length;
        int32_t start;
        int32_t pos;
    };
    std::vector<Key> keys(members.size());
    for (size_t pos = 0; pos < members.size(); ++pos) {
        const Block & b = blocks[members[pos]];
        keys[pos]       = {b.size, b.end - b.start, b.start, static_cast<int32_t>(pos)};
    }
    auto by_size = [](const Key & a, const Key & b) { // largest first; then longer-lived, earlier
        if (a.size != b.size) {
            return a.size > b.size;
        }
        if (a.length != b.length) {
            return a.length > b.length;
        }
        return a.start != b.start ? a.start < b.start : a.pos < b.pos;
    };
    auto by_length = [&](const Key & a, const Key & b) {
        return a.length != b.length ? a.length > b.length : by_size(a, b);
    };
    auto by_start = [](const Key & a, const Key & b) { return a.start != b.start ? a.start < b.start : a.pos < b.pos; };
    switch (order) {
        case Order::SizeThenLength: std::sort(keys.begin(), keys.end(), by_size); break;
        case Order::LengthThenSize: std::sort(keys.begin(), keys.end(), by_length); break;
        case Order::StartTime: std::sort(keys.begin(), keys.end(), by_start); break;
    }
    std::vector<int32_t> positions(members.size());
    for (size_t i = 0; i < keys.size(); ++i) {
        positions[i] = keys[i].pos;
    }
    return positions;
}

// Counts placed blocks by start and by end time (Fenwick trees), which gives the number of placed blocks alive
// during any interval in O(log n): those starting by its end minus those ended before its start.
class LiveCounter {
public:
    explicit LiveCounter(int32_t n_times) : starts_(static_cast<size_t>(n_times) + 1, 0), ends_(starts_) {}
    void add(const Block & b) {
        bump(starts_, b.start);
        bump(ends_, b.end);
    }
    int64_t overlapping(const Block & b) const { return prefix(starts_, b.end) - prefix(ends_, b.start - 1); }

private:
    static void bump(std::vector<int32_t> & tree, int32_t time) {
        for (size_t i = static_cast<size_t>(time) + 1; i < tree.size(); i += i & (~i + 1)) {
            ++tree[i];
        }
    }
    static int64_t prefix(const std::vector<int32_t> & tree, int32_t time) {
        int64_t sum = 0;
        for (size_t i = static_cast<size_t>(time + 1); i > 0; i -= i & (~i + 1)) {
            sum += tree[i];
        }
        return sum;
    }
    std::vector<int32_t> starts_;
    std::vector<int32_t> ends_;
};

// One placement pass. For each block the ranges in use during its lifetime are gathered either from the
// lifetime index (few overlapping blocks: report them, then sort by address) or by walking all placed blocks in
// address order and keeping those alive at the same time (many overlapping blocks, e.g. graphs whose tensors
// mostly survive: no sort). The count of overlapping blocks, known in O(log n), picks the cheaper way, so a
// pass costs O(n log n) for graphs of short-lived tensors and O(n^2) with a small constant at worst.
class PlacementPass {
public:
    PlacementPass(const std::vector<Block> & blocks, const std::vector<int32_t> & members, IntervalIndex & index,
                  size_t max_chunk_size, int32_t n_times)
        : blocks_(blocks), members_(members), index_(index), space_(max_chunk_size), live_(n_times) {
        addresses_.resize(members.size());
        index_.clear();
    }

    void place(int32_t pos, FitPolicy policy) {
        const Block & block = block_at(pos);
        if (block.size > 0 && live_.overlapping(block) * 16 > static_cast<int64_t>(n_placed_)) {
            addresses_[pos] = place_by_address(block, policy);
        } else {
            busy_.clear();
            if (block.size > 0) {
                collect_from_index(block);
            }
            addresses_[pos] = space_.place(block.size, busy_, policy);
        }
        if (block.size > 0) {
            index_.insert(pos);
            live_.add(block);
            recent_.push_back({block.start, block.end, addresses_[pos].chunk, addresses_[pos].offset, block.size});
            ++n_placed_;
        }
    }

    PackResult finish(int strategy) {
        PackResult result;
        result.addresses   = std::move(addresses_);
        result.chunk_sizes = space_.chunk_sizes();
        result.total       = space_.total_size();
        result.strategy    = strategy;
        return result;
    }

private:
    const Block & block_at(int32_t pos) const { return blocks_[members_[pos]]; }

    void collect_from_index(const Block & block) {
        hits_.clear();
        index_.overlapping(block.start, block.end, hits_);
        for (int32_t other : hits_) {
            const Address & a = addresses_[other];
            busy_.push_back({a.chunk, a.offset, block_at(other).size});
        }
    }

    Address place_by_address(const Block & block, FitPolicy policy) {
        if (!recent_.empty()) { // bring the address-ordered list up to date
            auto less = [](const Placed & a, const Placed & b) {
                return a.chunk != b.chunk ? a.chunk < b.chunk : a.offset < b.offset;
            };
            std::sort(recent_.begin(), recent_.end(), less);
            size_t middle = by_address_.size();
            by_address_.insert(by_address_.end(), recent_.begin(), recent_.end());
            std::inplace_merge(by_address_.begin(), by_address_.begin() + static_cast<std::ptrdiff_t>(middle),
                               by_address_.end(), less);
            recent_.clear();
        }
        DynAllocator::Search search(space_, block.size, policy);
        for (size_t i = 0; i < by_address_.size() && !search.done(); ++i) {
            const Placed & p = by_address_[i];
            if (p.start <= block.end && block.start <= p.end) {
                search.busy(p.chunk, p.offset, p.size);
            }
        }
        return search.finish();
    }

    // A placed block as the address-ordered walk needs it (kept together for locality).
    struct Placed {
        int32_t start;
        int32_t end;
        int32_t chunk;
        size_t  offset;
        size_t  size;
    };

    const std::vector<Block> &   blocks_;
    const std::vector<int32_t> & members_;
    IntervalIndex &              index_;
    DynAllocator                 space_;
    LiveCounter                  live_;
    std::vector<Address>         addresses_;
    std::vector<BusyRange>       busy_;
    std::vector<int32_t>         hits_;
    std::vector<Placed>          by_address_; // placed blocks in address order
    std::vector<Placed>          recent_;     // placed since by_address_ was last updated
    size_t                       n_placed_ = 0;
};

PackResult run_strategy(int strategy, const std::vector<Block> & blocks, const std::vector<int32_t> & members,
                        IntervalIndex & index, size_t max_chunk_size, int32_t n_times) {
    const Strategy & s = kStrategies[strategy];
    PlacementPass    pass(blocks, members, index, max_chunk_size, n_times);
    for (int32_t pos : placement_order(blocks, members, s.order)) {
        pass.place(pos, s.policy);
    }
    return pass.finish(strategy);
}

// Runs the lifetime-aware strategies of kStrategies on one set of blocks; the lifetime index is built once,
// on the first run.
class LifetimePacks {
public:
    LifetimePacks(const std::vector<Block> & blocks, const std::vector<int32_t> & members, size_t max_chunk_size,
                  int32_t n_times)
        : blocks_(blocks), members_(members), max_chunk_size_(max_chunk_size), n_times_(n_times) {}

    PackResult run(int strategy) {
        if (!built_) {
            std::vector<int32_t> starts(members_.size());
            std::vector<int32_t> ends(members_.size());
            for (size_t i = 0; i < members_.size(); ++i) {
                starts[i] = blocks_[members_[i]].start;
                ends[i]   = blocks_[members_[i]].end;
            }
            index_.build(starts, ends);
            built_ = true;
        }
        return run_strategy(strategy, blocks_, members_, index_, max_chunk_size_, n_times_);
    }

private:
    const std::vector<Block> &   blocks_;
    const std::vector<int32_t> & members_;
    size_t                       max_chunk_size_;
    int32_t                      n_times_;
    IntervalIndex                index_;
    bool                         built_ = false;
};

// The most bytes and the most blocks of nonzero size alive at one time (not necessarily the same time).
struct LivePeak {
    size_t bytes  = 0;
    size_t blocks = 0;
};

LivePeak live_peak(const std::vector<Block> & blocks, const std::vector<int32_t> & members, int32_t n_times) {
    struct Change {
        size_t  born = 0, dead = 0;
        int32_t count = 0;
    };
    std::vector<Change> at(static_cast<size_t>(n_times) + 1);
    for (int32_t m : members) {
        const Block & b = blocks[m];
        at[b.start].born += b.size;
        at[b.end + 1].dead += b.size;
        if (b.size > 0) {
            ++at[b.start].count;
            --at[b.end + 1].count;
        }
    }
    LivePeak peak;
    size_t   bytes = 0;
    int32_t  live  = 0;
    for (int32_t t = 0; t < n_times; ++t) {
        bytes += at[t].born;
        bytes -= at[t].dead;
        live += at[t].count;
        peak.bytes  = std::max(peak.bytes, bytes);
        peak.blocks = std::max(peak.blocks, static_cast<size_t>(live));
    }
    return peak;
}

} // namespace

size_t live_lower_bound(const std::vector<Block> & blocks, const std::vector<int32_t> & members, int32_t n_times) {
    return live_peak(blocks, members, n_times).bytes;
}

PackResult pack_blocks(const std::vector<Block> & blocks, const std::vector<int32_t> & members,
                       size_t max_chunk_size, int32_t n_times, PlanPolicy policy) {
    const LivePeak peak  = live_peak(blocks, members, n_times);
    const size_t   bound = peak.bytes;
    PackResult     best;
    bool         have = false;
    auto         keep = [&](PackResult && result) { // true once a plan reaches the bound
        if (!have || result.total < best.total) {
            best = std::move(result);
            have = true;
        }
        return best.total <= bound;
    };
    auto sweep = [&] {
        PackResult quick;
        if (!free_list_sweep(blocks, members, max_chunk_size, n_times, quick)) {
            return false; // needs several chunks: the lifetime-aware orders handle them
        }
        quick.strategy = kFreeListStrategy;
        return keep(std::move(quick));
    };
    // The largest-first pass costs O(n log n) when tensors die young and is then usually optimal: it goes
    // first. When many blocks are alive at once it grows towards O(n^2), and the O(n F) sweep, which reaches the
    // bound on such graphs (everything alive: no holes), goes first.
    const bool sweep_first =
        policy == PlanPolicy::Quick || peak.blocks * 16 > members.size();
    LifetimePacks lifetime(blocks, members, max_chunk_size, n_times);
    bool          done = sweep_first ? sweep() : keep(lifetime.run(0));
    if (policy == PlanPolicy::Quick && have) {
        done = true;
    }
    if (!done) {
        done = sweep_first ? keep(lifetime.run(0)) : sweep();
    }
    for (int s = 1; !done && s < static_cast<int>(kStrategies.size()); ++s) {
        done = keep(lifetime.run(s));
    }
    best.lower_bound = bound;
    return best;
}

PlanPolicy plan_policy_from_env() {
    const char * value = std::getenv("SWITCHYARD_GALLOC_PLAN");
    return value != nullptr && std::strcmp(value, "quick") == 0 ? PlanPolicy::Quick : PlanPolicy::Smallest;
}

const char * pack_strategy_name(int strategy) {
    if (strategy == kFreeListStrategy) {
        return "creation-order free-list";
    }
    if (strategy < 0 || strategy >= static_cast<int>(kStrategies.size())) {
        return "?";
    }
    return kStrategies[strategy].name;
}

} // namespace switchyard::alloc
