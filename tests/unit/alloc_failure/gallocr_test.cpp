// Allocation failures inside the graph allocator: creating one, reserving (planning + compute buffers) and
// placing a graph. A failed call leaves an allocator that works on the next try.
#include "graphs.h"

namespace switchyard::alloc_failure {
namespace {

struct GallocrState {
    ElementwiseGraph g;
    GallocrPtr       galloc{ggml_gallocr_new(ggml_backend_cpu_buffer_type())};
};

std::unique_ptr<GallocrState> fresh() {
    auto state = std::make_unique<GallocrState>();
    EXPECT_NE(state->galloc, nullptr);
    return state;
}

// After a failed call the allocator must still reserve, place and compute the graph.
void expect_recovers(GallocrState & s) {
    ASSERT_TRUE(ggml_gallocr_reserve(s.galloc.get(), s.g.graph));
    ASSERT_TRUE(ggml_gallocr_alloc_graph(s.galloc.get(), s.g.graph));
    s.g.compute_and_check();
}

TEST(AllocFailure, GallocrNew) {
    struct State {
        ggml_backend_buffer_type_t bufts[2] = {ggml_backend_cpu_buffer_type(), ggml_backend_cpu_buffer_type()};
        GallocrPtr                 galloc;
    };
    inject_each(
        {"ggml_gallocr_new_n"}, [] { return std::make_unique<State>(); },
        [](State & s) {
            s.galloc.reset(ggml_gallocr_new_n(s.bufts, 2));
            return s.galloc != nullptr;
        },
        [](State & s, bool ok) { EXPECT_EQ(s.galloc != nullptr, ok); });
}

TEST(AllocFailure, GallocrReserve) {
    inject_each(
        {"ggml_gallocr_reserve"}, fresh, [](GallocrState & s) { return ggml_gallocr_reserve(s.galloc.get(), s.g.graph); },
        [](GallocrState & s, bool ok) {
            if (ok) {
                EXPECT_GT(ggml_gallocr_get_buffer_size(s.galloc.get(), 0), 0u);
                ASSERT_TRUE(ggml_gallocr_alloc_graph(s.galloc.get(), s.g.graph));
                s.g.compute_and_check();
            } else {
                expect_recovers(s);
            }
        });
}

TEST(AllocFailure, GallocrAllocGraph) {
    // without a reserve first: alloc_graph plans and allocates the buffers itself
    inject_each(
        {"ggml_gallocr_alloc_graph", "ggml_gallocr_reserve"}, fresh,
        [](GallocrState & s) { return ggml_gallocr_alloc_graph(s.galloc.get(), s.g.graph); },
        [](GallocrState & s, bool ok) {
            if (ok) {
                s.g.compute_and_check();
            } else {
                expect_recovers(s);
            }
        });
}

TEST(AllocFailure, GallocrAllocGraphAfterReserve) {
    // reserved first (not injected): the placement itself, which may well allocate nothing at all
    const Summary summary = inject_each(
        {"ggml_gallocr_alloc_graph"},
        [] {
            auto state = fresh();
            EXPECT_TRUE(ggml_gallocr_reserve(state->galloc.get(), state->g.graph));
            return state;
        },
        [](GallocrState & s) { return ggml_gallocr_alloc_graph(s.galloc.get(), s.g.graph); },
        [](GallocrState & s, bool ok) {
            if (ok) {
                s.g.compute_and_check();
            } else {
                expect_recovers(s);
            }
        },
        Options{.must_allocate = false});
    RecordProperty("allocations", static_cast<int>(summary.n_allocations));
}

} // namespace
} // namespace switchyard::alloc_failure
