// Setting and getting tensors in meta buffers: values round-trip through the devices' slices, and each device
// holds exactly its part (checked against index arithmetic written out here, not against the meta code).
#include "backend/meta/meta.h"

#include "meta_fixture.h"

namespace switchyard::testing {
namespace {

class MetaTransferTest : public ::testing::TestWithParam<DeviceKind> {
protected:
    void SetUp() override {
        ggml_init_params params{32 * ggml_tensor_overhead(), nullptr, true};
        ctx_ = ggml_init(params);
    }
    void TearDown() override {
        ggml_backend_buffer_free(buffer_);
        ggml_free(ctx_);
    }

    ggml_tensor * add(const char * name, ggml_type type, std::vector<int64_t> ne, const SplitState & s) {
        ggml_tensor * t = ggml_new_tensor(ctx_, type, static_cast<int>(ne.size()), ne.data());
        ggml_set_name(t, name);
        table_.states[name] = s;
        return t;
    }

    void allocate(int n) {
        dev_    = make_meta(GetParam(), n, table_);
        buffer_ = ggml_backend_alloc_ctx_tensors_from_buft(ctx_, ggml_backend_dev_buffer_type(dev_));
        ASSERT_NE(buffer_, nullptr);
        ASSERT_TRUE(ggml_backend_buffer_is_meta(buffer_));
    }

    static std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
        std::mt19937         rng(seed);
        std::vector<uint8_t> b(n);
        for (uint8_t & v : b) {
            v = static_cast<uint8_t>(rng() >> 24);
        }
        return b;
    }

    static std::vector<uint8_t> get(const ggml_tensor * t, size_t offset, size_t size) {
        std::vector<uint8_t> b(size);
        ggml_backend_tensor_get(t, b.data(), offset, size);
        return b;
    }

    // The bytes device d holds for t.
    static std::vector<uint8_t> slice(const ggml_tensor * t, int d) {
        const meta::Record * rec = meta::find_record(t);
        EXPECT_NE(rec, nullptr);
        return get(rec->simple[static_cast<size_t>(d)], 0, ggml_nbytes(rec->simple[static_cast<size_t>(d)]));
    }

    ggml_context *        ctx_    = nullptr;
    ggml_backend_buffer_t buffer_ = nullptr;
    ggml_backend_dev_t    dev_    = nullptr;
    SplitTable            table_;
};

TEST_P(MetaTransferTest, SplitTensorsRoundTrip) {
    SplitState nr_state = state_segments(0, {{2, 1, 1}, {1, 0, 1}});
    nr_state.nr[1]      = 2;
    std::vector<ggml_tensor *> ts = {
        add("a", GGML_TYPE_F32, {5, 7, 2}, state_split(1, {3, 0, 4})),
        add("b", GGML_TYPE_F32, {6, 4}, state_split(0, {1, 2, 3})),
        add("c", GGML_TYPE_F32, {8, 3}, nr_state),
        add("d", GGML_TYPE_F16, {4, 6}, state_split(1, {2, 2, 2})),
        add("q", GGML_TYPE_Q8_0, {64, 3}, state_split(1, {1, 1, 1})),
        add("e", GGML_TYPE_F32, {3, 2, 6, 2}, state_split(3, {1, 0, 1})),
        add("m", GGML_TYPE_F32, {5}, state_mirrored()),
    };
    allocate(3);
    uint32_t seed = 1;
    for (ggml_tensor * t : ts) {
        const std::vector<uint8_t> data = random_bytes(ggml_nbytes(t), seed++);
        ggml_backend_tensor_set(t, data.data(), 0, data.size());
        EXPECT_EQ(get(t, 0, data.size()), data) << t->name;
        // a part in the middle, overwritten and read back
        const size_t               off  = ggml_nbytes(t) / 3;
        const std::vector<uint8_t> part = random_bytes(ggml_nbytes(t) / 2, seed++);
        ggml_backend_tensor_set(t, part.data(), off, part.size());
        EXPECT_EQ(get(t, off, part.size()), part) << t->name;
        EXPECT_EQ(get(t, 0, off), std::vector<uint8_t>(data.begin(), data.begin() + static_cast<long>(off))) << t->name;
    }
}

TEST_P(MetaTransferTest, EachDeviceHoldsItsSlice) {
    ggml_tensor * b = add("b", GGML_TYPE_F32, {6, 4}, state_split(0, {1, 2, 3}));
    ggml_tensor * a = add("a", GGML_TYPE_F32, {2, 5}, state_split(1, {3, 0, 2}));
    allocate(3);
    std::vector<float> vb(24), va(10);
    for (size_t i = 0; i < vb.size(); ++i) vb[i] = static_cast<float>(i);
    for (size_t i = 0; i < va.size(); ++i) va[i] = 100.0f + static_cast<float>(i);
    ggml_backend_tensor_set(b, vb.data(), 0, vb.size() * sizeof(float));
    ggml_backend_tensor_set(a, va.data(), 0, va.size() * sizeof(float));

    auto floats = [](const std::vector<uint8_t> & bytes) {
        std::vector<float> f(bytes.size() / sizeof(float));
        std::memcpy(f.data(), bytes.data(), bytes.size());
        return f;
    };
    // b: columns [0], [1, 2], [3, 4, 5] of every one of the 4 rows
    EXPECT_EQ(floats(slice(b, 0)), (std::vector<float>{0, 6, 12, 18}));
    EXPECT_EQ(floats(slice(b, 1)), (std::vector<float>{1, 2, 7, 8, 13, 14, 19, 20}));
    EXPECT_EQ(floats(slice(b, 2)), (std::vector<float>{3, 4, 5, 9, 10, 11, 15, 16, 17, 21, 22, 23}));
    // a: rows 0..2 on device 0, none on device 1, rows 3..4 on device 2
    EXPECT_EQ(floats(slice(a, 0)), (std::vector<float>{100, 101, 102, 103, 104, 105}));
    EXPECT_TRUE(slice(a, 1).empty());
    EXPECT_EQ(floats(slice(a, 2)), (std::vector<float>{106, 107, 108, 109}));
}

TEST_P(MetaTransferTest, MirroredAndPartial) {
    ggml_tensor * m = add("m", GGML_TYPE_F32, {4}, state_mirrored());
    ggml_tensor * p = add("p", GGML_TYPE_F32, {4}, state_partial());
    allocate(2);
    const std::vector<float> v = {1.5f, -2.0f, 3.25f, 8.0f};
    ggml_backend_tensor_set(m, v.data(), 0, 16);
    ggml_backend_tensor_set(p, v.data(), 0, 16);
    for (int d = 0; d < 2; ++d) {
        std::vector<float> got(4);
        std::memcpy(got.data(), slice(m, d).data(), 16);
        EXPECT_EQ(got, v);
    }
    std::vector<float> sum(4);
    ggml_backend_tensor_get(p, sum.data(), 0, 16);
    EXPECT_EQ(sum, v); // device 0 holds the value, device 1 zeros
    std::vector<float> d1(4);
    std::memcpy(d1.data(), slice(p, 1).data(), 16);
    EXPECT_EQ(d1, (std::vector<float>{0, 0, 0, 0}));
}

TEST_P(MetaTransferTest, ViewsGoThroughTheirRoot) {
    ggml_tensor * a = add("a", GGML_TYPE_F32, {4, 6}, state_split(1, {4, 2}));
    ggml_tensor * v = ggml_view_2d(ctx_, a, 4, 3, a->nb[1], 2 * a->nb[1]); // rows 2..4, across the boundary
    allocate(2);
    std::vector<float> base(24, 0.0f), rows(12);
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(i + 1);
    ggml_backend_tensor_set(a, base.data(), 0, 96);
    ggml_backend_tensor_set(v, rows.data(), 0, 48);
    std::vector<float> all(24);
    ggml_backend_tensor_get(a, all.data(), 0, 96);
    for (size_t i = 0; i < 24; ++i) {
        EXPECT_EQ(all[i], i >= 8 && i < 20 ? static_cast<float>(i - 7) : 0.0f) << i;
    }
    std::vector<float> back(12);
    ggml_backend_tensor_get(v, back.data(), 0, 48);
    EXPECT_EQ(back, rows);
}

TEST_P(MetaTransferTest, MemsetFillsEveryDevicePart) {
    ggml_tensor * a = add("a", GGML_TYPE_F32, {3, 5}, state_split(1, {2, 3}));
    allocate(2);
    std::vector<uint8_t> ones(60, 0x11);
    ggml_backend_tensor_set(a, ones.data(), 0, 60);
    ggml_backend_tensor_memset(a, 0x7f, 8, 40);
    const std::vector<uint8_t> got = get(a, 0, 60);
    for (size_t i = 0; i < 60; ++i) {
        EXPECT_EQ(got[i], i >= 8 && i < 48 ? 0x7f : 0x11) << i;
    }
}

// A buffer the caller fills with ggml_tallocr: splits still come from the callback, slices sit at the tensors'
// own offsets.
TEST_P(MetaTransferTest, TallocrPlacedTensorsRoundTrip) {
    ggml_tensor * a = add("a", GGML_TYPE_F32, {5, 6}, state_split(1, {4, 2}));
    ggml_tensor * m = add("m", GGML_TYPE_F32, {7}, state_mirrored());
    dev_            = make_meta(GetParam(), 2, table_);
    buffer_         = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(dev_), 4096);
    ASSERT_NE(buffer_, nullptr);
    ggml_tallocr talloc = ggml_tallocr_new(buffer_);
    ASSERT_EQ(ggml_tallocr_alloc(&talloc, a), GGML_STATUS_SUCCESS);
    ASSERT_EQ(ggml_tallocr_alloc(&talloc, m), GGML_STATUS_SUCCESS);
    for (ggml_tensor * t : {a, m}) {
        const std::vector<uint8_t> data = random_bytes(ggml_nbytes(t), 17);
        ggml_backend_tensor_set(t, data.data(), 0, data.size());
        EXPECT_EQ(get(t, 0, data.size()), data) << t->name;
    }
    EXPECT_EQ(slice(a, 1).size(), 2u * 5 * sizeof(float));
}

TEST_P(MetaTransferTest, InvalidUserStateFailsTheAllocation) {
    add("bad", GGML_TYPE_F32, {4, 4}, state_split(1, {3, 3}));
    dev_ = make_meta(GetParam(), 2, table_);
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx_, ggml_backend_dev_buffer_type(dev_)), nullptr);
}

// Multi-segment states written the way upstream's header describes them: with n devices, ne[s * n + d] is
// device d's share of segment s (segments outer, devices inner), segment s occurring nr[s] times. Each device
// must hold, in order, its part of every occurrence of every segment: rows listed here by hand.
struct FusedCase {
    int                        n_devices;
    std::vector<int64_t>       ne;        // the raw array, as a user fills it
    std::vector<uint32_t>      nr;
    std::vector<std::vector<int>> rows;   // per device: the tensor rows it holds, in order
};

TEST_P(MetaTransferTest, MultiSegmentStatesUseTheDeviceCountAsSegmentStride) {
    const std::vector<FusedCase> cases = {
        // fused QKV, 2 devices: Q (4 rows) once, then K and V (2 rows each) as one segment repeated twice
        {2, {2, 2, 1, 1}, {1, 2}, {{0, 1, 4, 6}, {2, 3, 5, 7}}},
        // 3 devices, 2 segments: [2, 1, 1] once, [1, 0, 1] twice
        {3, {2, 1, 1, 1, 0, 1}, {1, 2}, {{0, 1, 4, 6}, {2}, {3, 5, 7}}},
        // 2 devices, 3 segments (Q, K, V of different sizes)
        {2, {1, 2, 1, 1, 2, 1}, {1, 1, 1}, {{0, 3, 5, 6}, {1, 2, 4, 7}}},
        // 3 devices, 3 segments
        {3, {1, 1, 1, 0, 2, 1, 1, 0, 1}, {1, 1, 1}, {{0, 6}, {1, 3, 4}, {2, 5, 7}}},
    };
    for (const FusedCase & c : cases) {
        SCOPED_TRACE("devices " + std::to_string(c.n_devices) + ", segments " + std::to_string(c.nr.size()));
        TearDown();
        buffer_ = nullptr;
        SetUp();
        table_.states.clear();
        SplitState s;
        std::memset(&s, 0, sizeof(s));
        s.axis       = GGML_BACKEND_SPLIT_AXIS_1;
        s.n_segments = static_cast<uint32_t>(c.nr.size());
        for (size_t i = 0; i < c.ne.size(); ++i) {
            s.ne[i] = c.ne[i];
        }
        for (size_t i = 0; i < c.nr.size(); ++i) {
            s.nr[i] = c.nr[i];
        }
        int n_rows = 0;
        for (const auto & r : c.rows) {
            n_rows += static_cast<int>(r.size());
        }
        constexpr int kCols = 3;
        ggml_tensor * qkv   = add("attn_qkv", GGML_TYPE_F32, {kCols, n_rows}, s);
        allocate(c.n_devices);
        std::vector<float> v(static_cast<size_t>(kCols * n_rows));
        for (size_t i = 0; i < v.size(); ++i) {
            v[i] = static_cast<float>(i);
        }
        ggml_backend_tensor_set(qkv, v.data(), 0, v.size() * sizeof(float));
        for (int d = 0; d < c.n_devices; ++d) {
            std::vector<float> want;
            for (int row : c.rows[static_cast<size_t>(d)]) {
                for (int col = 0; col < kCols; ++col) {
                    want.push_back(static_cast<float>(row * kCols + col));
                }
            }
            const std::vector<uint8_t> bytes = slice(qkv, d);
            std::vector<float>         got(bytes.size() / sizeof(float));
            std::memcpy(got.data(), bytes.data(), bytes.size());
            EXPECT_EQ(got, want) << "device " << d;
        }
        std::vector<float> back(v.size());
        ggml_backend_tensor_get(qkv, back.data(), 0, back.size() * sizeof(float));
        EXPECT_EQ(back, v);
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, MetaTransferTest, ::testing::Values(DeviceKind::Cpu, DeviceKind::Test),
                         [](const ::testing::TestParamInfo<DeviceKind> & info) { return kind_name(info.param); });

} // namespace
} // namespace switchyard::testing
