// The planner's parts on their own: the lifetime index, the chunked address space and the packing of blocks.
#include "alloc/dyn_allocator.h"
#include "alloc/free_list_sweep.h"
#include "alloc/interval_index.h"
#include "alloc/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

namespace switchyard::alloc {
namespace {

TEST(IntervalIndex, ReportsExactlyThePlacedIntervalsThatMeetTheQuery) {
    std::mt19937         rng(7);
    std::vector<int32_t> starts(300);
    std::vector<int32_t> ends(300);
    for (size_t i = 0; i < starts.size(); ++i) {
        starts[i] = static_cast<int32_t>(rng() % 100);
        ends[i]   = starts[i] + static_cast<int32_t>(rng() % 30);
    }
    IntervalIndex index;
    index.build(starts, ends);
    std::vector<bool> placed(starts.size(), false);
    for (int round = 0; round < 300; ++round) {
        int32_t i = static_cast<int32_t>(rng() % starts.size());
        if (!placed[i]) {
            index.insert(i);
            placed[i] = true;
        }
        int32_t              qs = static_cast<int32_t>(rng() % 120);
        int32_t              qe = qs + static_cast<int32_t>(rng() % 20);
        std::vector<int32_t> got;
        index.overlapping(qs, qe, got);
        std::sort(got.begin(), got.end());
        std::vector<int32_t> want;
        for (int32_t j = 0; j < static_cast<int32_t>(starts.size()); ++j) {
            if (placed[j] && starts[j] <= qe && ends[j] >= qs) {
                want.push_back(j);
            }
        }
        ASSERT_EQ(got, want) << "query [" << qs << ", " << qe << "]";
    }
    index.clear();
    std::vector<int32_t> none;
    index.overlapping(0, 1000, none);
    EXPECT_TRUE(none.empty());
}

TEST(DynAllocator, BestFitTakesTheSmallestHoleThatFits) {
    DynAllocator           space(SIZE_MAX / 2);
    std::vector<BusyRange> busy;
    // build a high-water mark of 1000 with nothing busy: one block at 0
    EXPECT_EQ(space.place(1000, busy, FitPolicy::BestFit).offset, 0u);
    // busy: [0,100) [300,400) [450,1000): holes of 200 at 100 and 50 at 400
    busy = {{0, 0, 100}, {0, 300, 100}, {0, 450, 550}};
    Address a = space.place(40, busy, FitPolicy::BestFit);
    EXPECT_EQ(a.offset, 400u); // the 50-byte hole wastes least
    busy = {{0, 0, 100}, {0, 300, 100}, {0, 450, 550}};
    a = space.place(40, busy, FitPolicy::FirstFit);
    EXPECT_EQ(a.offset, 100u); // the lowest hole
    busy = {{0, 0, 100}, {0, 300, 100}, {0, 450, 550}};
    a = space.place(300, busy, FitPolicy::BestFit);
    EXPECT_EQ(a.offset, 1000u); // no hole is large enough: grows the chunk
    EXPECT_EQ(space.total_size(), 1300u);
}

TEST(DynAllocator, ChunksRespectTheMaxSize) {
    DynAllocator           space(1000);
    std::vector<BusyRange> busy;
    Address                a = space.place(600, busy, FitPolicy::BestFit);
    busy                     = {{a.chunk, a.offset, 600}};
    Address b                = space.place(600, busy, FitPolicy::BestFit);
    EXPECT_EQ(a.chunk, 0);
    EXPECT_EQ(b.chunk, 1); // 600 + 600 > 1000: second chunk
    busy      = {{a.chunk, a.offset, 600}, {b.chunk, b.offset, 600}};
    Address c = space.place(400, busy, FitPolicy::BestFit);
    EXPECT_EQ(c.chunk, 0);
    EXPECT_EQ(c.offset, 600u);
    busy      = {};
    Address d = space.place(5000, busy, FitPolicy::BestFit); // alone larger than the max: its own chunk
    EXPECT_EQ(d.chunk, 2);
    EXPECT_EQ(space.chunk_sizes(), (std::vector<size_t>{1000, 600, 5000}));
}

TEST(DynAllocator, ZeroBytesNeedNoSpace) {
    DynAllocator           space(64);
    std::vector<BusyRange> busy;
    Address                a = space.place(0, busy, FitPolicy::BestFit);
    EXPECT_EQ(a.chunk, 0);
    EXPECT_EQ(a.offset, 0u);
    EXPECT_EQ(space.chunk_sizes(), (std::vector<size_t>{0}));
}

std::vector<Block> random_blocks(std::mt19937 & rng, int n, int32_t times) {
    std::vector<Block> blocks(n);
    for (Block & b : blocks) {
        b.start = static_cast<int32_t>(rng() % times);
        b.end   = std::min<int32_t>(times - 1, b.start + static_cast<int32_t>(rng() % 12));
        b.size  = 32 * (rng() % 40);
    }
    return blocks;
}

void expect_valid_packing(const std::vector<Block> & blocks, const PackResult & r, size_t max_chunk) {
    for (size_t i = 0; i < blocks.size(); ++i) {
        const Address & a = r.addresses[i];
        ASSERT_LT(static_cast<size_t>(a.chunk), r.chunk_sizes.size());
        ASSERT_LE(a.offset + blocks[i].size, r.chunk_sizes[a.chunk]) << "block " << i << " outside its chunk";
        if (blocks[i].size <= max_chunk) {
            ASSERT_LE(a.offset + blocks[i].size, max_chunk);
        }
        for (size_t j = 0; j < i; ++j) {
            const Address & b       = r.addresses[j];
            bool            in_time = blocks[i].start <= blocks[j].end && blocks[j].start <= blocks[i].end;
            bool in_space = a.chunk == b.chunk && a.offset < b.offset + blocks[j].size &&
                            b.offset < a.offset + blocks[i].size;
            ASSERT_FALSE(in_time && in_space && blocks[i].size > 0 && blocks[j].size > 0)
                << "blocks " << i << " and " << j << " overlap";
        }
    }
}

TEST(PackBlocks, RandomBlocksNeverOverlapAndStayNearTheBound) {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 200; ++trial) {
        const int32_t        times  = 40;
        std::vector<Block>   blocks = random_blocks(rng, 1 + static_cast<int>(rng() % 60), times);
        std::vector<int32_t> members(blocks.size());
        for (size_t i = 0; i < blocks.size(); ++i) {
            members[i] = static_cast<int32_t>(i);
        }
        const size_t max_chunk = trial % 3 == 0 ? 2048 : SIZE_MAX / 2;
        PackResult   r         = pack_blocks(blocks, members, max_chunk, times);
        expect_valid_packing(blocks, r, max_chunk);
        EXPECT_EQ(r.lower_bound, live_lower_bound(blocks, members, times));
        if (max_chunk == SIZE_MAX / 2) {
            EXPECT_GE(r.total, r.lower_bound);
            EXPECT_LE(static_cast<double>(r.total), 1.5 * static_cast<double>(r.lower_bound) + 1);
        }
    }
}

TEST(PackBlocks, ManyBlocksUseBothWaysOfFindingNeighbours) {
    // short-lived blocks (found through the lifetime index) among long-lived ones (found by address walk)
    std::mt19937         rng(5);
    const int32_t        times = 600;
    std::vector<Block>   blocks(1500);
    std::vector<int32_t> members(blocks.size());
    for (size_t i = 0; i < blocks.size(); ++i) {
        Block & b  = blocks[i];
        b.start    = static_cast<int32_t>(rng() % (times - 1));
        int32_t len = i % 10 == 0 ? static_cast<int32_t>(rng() % times) : static_cast<int32_t>(rng() % 4);
        b.end      = std::min(times - 1, b.start + len);
        b.size     = 64 * (1 + rng() % 16);
        members[i] = static_cast<int32_t>(i);
    }
    PackResult r = pack_blocks(blocks, members, SIZE_MAX / 2, times);
    expect_valid_packing(blocks, r, SIZE_MAX / 2);
    EXPECT_LE(static_cast<double>(r.total), 1.2 * static_cast<double>(r.lower_bound));
}

TEST(PackBlocks, ReachesTheBoundOnASimpleChain) {
    // a -> b -> c -> d, each alive from its creation to its consumer: two alive at a time
    std::vector<Block>   blocks = {{0, 1, 2, 1024}, {0, 2, 3, 512}, {0, 3, 4, 1024}, {0, 4, 5, 512}};
    std::vector<int32_t> members = {0, 1, 2, 3};
    PackResult           r       = pack_blocks(blocks, members, SIZE_MAX / 2, 6);
    EXPECT_EQ(r.lower_bound, 1536u);
    EXPECT_EQ(r.total, 1536u);
}

TEST(IntervalIndex, LongIntervalsKeptApartAreReportedToo) {
    // many short intervals and more long ones than the index keeps apart: both ways of reporting are used
    std::mt19937         rng(3);
    const size_t         n = 2000;
    std::vector<int32_t> starts(n);
    std::vector<int32_t> ends(n);
    for (size_t i = 0; i < n; ++i) {
        starts[i] = static_cast<int32_t>(rng() % 1000);
        ends[i]   = starts[i] + static_cast<int32_t>(i % 40 == 0 ? rng() % 1000 : rng() % 5);
    }
    IntervalIndex index;
    index.build(starts, ends);
    std::vector<bool> placed(n, false);
    for (int round = 0; round < 1500; ++round) {
        int32_t i = static_cast<int32_t>(rng() % n);
        if (!placed[i]) {
            index.insert(i);
            placed[i] = true;
        }
        if (round % 10 != 0) {
            continue;
        }
        int32_t              qs = static_cast<int32_t>(rng() % 2100);
        int32_t              qe = qs + static_cast<int32_t>(rng() % 8);
        std::vector<int32_t> got;
        index.overlapping(qs, qe, got);
        std::sort(got.begin(), got.end());
        std::vector<int32_t> want;
        for (int32_t j = 0; j < static_cast<int32_t>(n); ++j) {
            if (placed[j] && starts[j] <= qe && ends[j] >= qs) {
                want.push_back(j);
            }
        }
        ASSERT_EQ(got, want) << "query [" << qs << ", " << qe << "]";
    }
    index.clear();
    std::vector<int32_t> got;
    index.overlapping(0, 3000, got);
    EXPECT_TRUE(got.empty());
}

TEST(FreeListSweep, PlacesInCreationOrderAndReusesFreedRanges) {
    // a [0,1] 256 B, b [1,2] 128 B, c [2,3] 256 B, d [3,4] 64 B (block = {group, start, end, size})
    // a at 0, b at 256 (a is busy at time 1), c: a's range [0,256) is free again at time 2 -> 0;
    // d: b's range [256,384) is free at time 3, the least waste -> 256
    std::vector<Block>   blocks  = {{0, 0, 1, 256}, {0, 1, 2, 128}, {0, 2, 3, 256}, {0, 3, 4, 64}};
    std::vector<int32_t> members = {0, 1, 2, 3};
    PackResult           r;
    ASSERT_TRUE(free_list_sweep(blocks, members, SIZE_MAX / 2, 5, r));
    ASSERT_EQ(r.addresses.size(), 4u);
    EXPECT_EQ(r.addresses[0].offset, 0u);
    EXPECT_EQ(r.addresses[1].offset, 256u);
    EXPECT_EQ(r.addresses[2].offset, 0u);
    EXPECT_EQ(r.addresses[3].offset, 256u);
    EXPECT_EQ(r.total, 384u);
    EXPECT_EQ(r.chunk_sizes, (std::vector<size_t>{384}));
}

TEST(FreeListSweep, TakesTheSmallestFreeRangeThatFitsAndGrowsTheLastOne) {
    // at time 1 the live blocks 0..4 leave holes of 96 B (block 1 freed) and 32 B (block 3 freed):
    // 0 [0,0] no; layout: b0 [0,5] 64 @0, b1 [0,0] 96 @64, b2 [0,5] 64 @160, b3 [0,0] 32 @224, b4 [0,5] 64 @256
    // then at time 1: b5 32 B -> the 32 B hole at 224 (exact); b6 64 B -> the 96 B hole at 64;
    // b7 128 B fits no hole -> the end, 320
    std::vector<Block> blocks = {{0, 0, 5, 64}, {0, 0, 0, 96},  {0, 0, 5, 64},  {0, 0, 0, 32},
                                 {0, 0, 5, 64}, {0, 1, 5, 32},  {0, 1, 5, 64},  {0, 1, 5, 128}};
    std::vector<int32_t> members = {0, 1, 2, 3, 4, 5, 6, 7};
    PackResult           r;
    ASSERT_TRUE(free_list_sweep(blocks, members, SIZE_MAX / 2, 6, r));
    const std::vector<size_t> want = {0, 64, 160, 224, 256, 224, 64, 320};
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(r.addresses[i].offset, want[i]) << "block " << i;
    }
    EXPECT_EQ(r.total, 448u);
}

TEST(FreeListSweep, GivesUpWhenOneChunkIsNotEnough) {
    std::vector<Block>   blocks  = {{0, 0, 2, 1024}, {0, 1, 2, 1024}};
    std::vector<int32_t> members = {0, 1};
    PackResult           r;
    EXPECT_FALSE(free_list_sweep(blocks, members, 1536, 3, r));
    PackResult packed = pack_blocks(blocks, members, 1536, 3); // the chunk-aware placement takes over
    EXPECT_EQ(packed.chunk_sizes.size(), 2u);
    EXPECT_EQ(packed.total, 2048u);
}

TEST(PackBlocks, KeepsTheQuickPlanOnlyWhenItReachesTheBound) {
    // creation order: a(0..1, 64) @0, b(0..3, 64) @64, c(2..3, 128) cannot use a's 64 B hole -> 128, total 256;
    // the bound is 192 (b + c at time 2), which largest-first reaches: c @0, a and b above it
    std::vector<Block>   blocks  = {{0, 0, 1, 64}, {0, 0, 3, 64}, {0, 2, 3, 128}};
    std::vector<int32_t> members = {0, 1, 2};
    PackResult           quick;
    ASSERT_TRUE(free_list_sweep(blocks, members, SIZE_MAX / 2, 4, quick));
    EXPECT_EQ(quick.total, 256u);
    PackResult packed = pack_blocks(blocks, members, SIZE_MAX / 2, 4);
    EXPECT_EQ(packed.lower_bound, 192u);
    EXPECT_EQ(packed.total, 192u);
    EXPECT_NE(packed.strategy, kFreeListStrategy);

    // a plain chain: the quick plan is optimal and kept
    std::vector<Block> chain = {{0, 0, 1, 1024}, {0, 1, 2, 512}, {0, 2, 3, 1024}, {0, 3, 4, 512}};
    std::vector<int32_t> chain_members = {0, 1, 2, 3};
    PackResult           r             = pack_blocks(chain, chain_members, SIZE_MAX / 2, 5);
    EXPECT_EQ(r.total, 1536u);
    EXPECT_EQ(r.strategy, kFreeListStrategy);
}

TEST(PackBlocks, QuickPolicyKeepsTheSweepEvenAboveTheBound) {
    // the example above: the sweep needs 256 bytes, the bound is 192
    std::vector<Block>   blocks  = {{0, 0, 1, 64}, {0, 0, 3, 64}, {0, 2, 3, 128}};
    std::vector<int32_t> members = {0, 1, 2};
    PackResult           quick   = pack_blocks(blocks, members, SIZE_MAX / 2, 4, PlanPolicy::Quick);
    EXPECT_EQ(quick.total, 256u);
    EXPECT_EQ(quick.lower_bound, 192u);
    EXPECT_EQ(quick.strategy, kFreeListStrategy);
    // more than one chunk: the sweep cannot place it, the chunk-aware placement does
    std::vector<Block>   big         = {{0, 0, 2, 1024}, {0, 1, 2, 1024}};
    std::vector<int32_t> big_members = {0, 1};
    PackResult           chunked     = pack_blocks(big, big_members, 1536, 3, PlanPolicy::Quick);
    EXPECT_EQ(chunked.chunk_sizes.size(), 2u);
    EXPECT_NE(chunked.strategy, kFreeListStrategy);
}

TEST(PlanPolicy, ReadFromTheEnvironment) {
    ASSERT_EQ(setenv("SWITCHYARD_GALLOC_PLAN", "quick", 1), 0);
    EXPECT_EQ(plan_policy_from_env(), PlanPolicy::Quick);
    ASSERT_EQ(setenv("SWITCHYARD_GALLOC_PLAN", "smallest", 1), 0);
    EXPECT_EQ(plan_policy_from_env(), PlanPolicy::Smallest);
    ASSERT_EQ(unsetenv("SWITCHYARD_GALLOC_PLAN"), 0);
    EXPECT_EQ(plan_policy_from_env(), PlanPolicy::Smallest);
}

TEST(PackBlocks, LowerBoundCountsClosedIntervals) {
    std::vector<Block>   blocks  = {{0, 0, 2, 100}, {0, 2, 4, 10}, {0, 3, 3, 1}};
    std::vector<int32_t> members = {0, 1, 2};
    EXPECT_EQ(live_lower_bound(blocks, members, 5), 110u); // time 2: first two
}

} // namespace
} // namespace switchyard::alloc
