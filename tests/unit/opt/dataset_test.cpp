// Data sets: layout, batches in order, reproducible shuffles of all or the first part of the shards.
#include "opt_fixture.h"
#include "unit/bad_input/bad_input.h"

#include <algorithm>
#include <numeric>

using namespace switchyard;
using namespace switchyard::opt_test;

namespace {

// 12 datapoints of 3 floats (point i holds 10i, 10i+1, 10i+2) with one label each (i), shards of 2.
ggml_opt_dataset_t make_counting() {
    ggml_opt_dataset_t ds = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_I32, 3, 1, 12, 2);
    auto *             x  = static_cast<float *>(ggml_opt_dataset_data(ds)->data);
    auto *             y  = static_cast<int32_t *>(ggml_opt_dataset_labels(ds)->data);
    for (int i = 0; i < 12; ++i) {
        for (int j = 0; j < 3; ++j) {
            x[3 * i + j] = static_cast<float>(10 * i + j);
        }
        y[i] = i;
    }
    return ds;
}

// The label order of the whole data set, read back batch by batch (4 datapoints per batch).
std::vector<int32_t> order(ggml_opt_dataset_t ds) {
    std::vector<int32_t> all;
    for (int64_t b = 0; b < 3; ++b) {
        float   x[12];
        int32_t y[4];
        ggml_opt_dataset_get_batch_host(ds, x, sizeof(x), y, b);
        for (int i = 0; i < 4; ++i) {
            EXPECT_EQ(x[3 * i], static_cast<float>(10 * y[i])) << "data and labels travel together";
        }
        all.insert(all.end(), y, y + 4);
    }
    return all;
}

} // namespace

TEST(OptDataset, LayoutAndAccessors) {
    ggml_opt_dataset_t ds = make_counting();
    ASSERT_NE(ds, nullptr);
    EXPECT_EQ(ggml_opt_dataset_ndata(ds), 12);
    const ggml_tensor * data   = ggml_opt_dataset_data(ds);
    const ggml_tensor * labels = ggml_opt_dataset_labels(ds);
    EXPECT_EQ(data->type, GGML_TYPE_F32);
    EXPECT_EQ(data->ne[0], 3);
    EXPECT_EQ(data->ne[1], 12);
    EXPECT_EQ(labels->type, GGML_TYPE_I32);
    EXPECT_EQ(labels->ne[0], 1);
    EXPECT_EQ(labels->ne[1], 12);
    ggml_opt_dataset_free(ds);

    ggml_opt_dataset_t unlabelled = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, 4, 0, 8, 1);
    ASSERT_NE(unlabelled, nullptr);
    EXPECT_EQ(ggml_opt_dataset_labels(unlabelled), nullptr);
    ggml_opt_dataset_free(unlabelled);
}

// ndata need not be a multiple of the shard size (upstream's test-opt uses 6 datapoints in shards of 4): the whole
// shards make the batches, the datapoints after them are in none.
TEST(OptDataset, DatapointsPastTheLastWholeShardAreInNoBatch) {
    ggml_opt_dataset_t ds = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, 1, 0, 6, 4);
    ASSERT_NE(ds, nullptr);
    EXPECT_EQ(ggml_opt_dataset_ndata(ds), 6);
    ggml_tensor * data = ggml_opt_dataset_data(ds);
    for (int i = 0; i < 6; ++i) {
        static_cast<float *>(data->data)[i] = static_cast<float>(i);
    }
    ContextPtr    ctx(ggml_init({2 * ggml_tensor_overhead(), nullptr, true}));
    ggml_tensor * x = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 1, 4);
    BufferPtr     buf(ggml_backend_alloc_ctx_tensors_from_buft(ctx.get(), ggml_backend_cpu_buffer_type()));
    ggml_opt_dataset_get_batch(ds, x, nullptr, 0);
    std::vector<float> xv(4);
    ggml_backend_tensor_get(x, xv.data(), 0, sizeof(float) * 4);
    EXPECT_EQ(xv, (std::vector<float>{0, 1, 2, 3}));
    switchyard::bad_input::LogCapture log;
    ggml_opt_dataset_get_batch(ds, x, nullptr, 1); // datapoints 4 and 5 make no whole shard
    EXPECT_TRUE(log.has_error("ggml_opt_dataset_get_batch")) << switchyard::bad_input::logged(log);
    ggml_opt_dataset_free(ds);
}

TEST(OptDataset, BatchesFollowTheOrder) {
    ggml_opt_dataset_t ds = make_counting();
    std::vector<int32_t> expected(12);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(order(ds), expected);

    // the same through tensors in a backend buffer: batch 1 = datapoints 4..7
    ContextPtr    ctx(ggml_init({2 * ggml_tensor_overhead(), nullptr, true}));
    ggml_tensor * x = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 3, 4);
    ggml_tensor * y = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_I32, 1, 4);
    BufferPtr     buf(ggml_backend_alloc_ctx_tensors_from_buft(ctx.get(), ggml_backend_cpu_buffer_type()));
    ggml_opt_dataset_get_batch(ds, x, y, 1);
    std::vector<float>   xv(12);
    std::vector<int32_t> yv(4);
    ggml_backend_tensor_get(x, xv.data(), 0, sizeof(float) * 12);
    ggml_backend_tensor_get(y, yv.data(), 0, sizeof(int32_t) * 4);
    EXPECT_EQ(yv, (std::vector<int32_t>{4, 5, 6, 7}));
    EXPECT_EQ(xv[0], 40.0f);
    EXPECT_EQ(xv[11], 72.0f);
    ggml_opt_dataset_free(ds);
}

TEST(OptDataset, ShuffleIsSeededAndKeepsShardsWhole) {
    CpuSched sched;
    ggml_opt_context_t opt_a = ggml_opt_init(ggml_opt_default_params(sched.get(), GGML_OPT_LOSS_TYPE_SUM));
    ggml_opt_context_t opt_b = ggml_opt_init(ggml_opt_default_params(sched.get(), GGML_OPT_LOSS_TYPE_SUM));
    ASSERT_NE(opt_a, nullptr);
    ASSERT_NE(opt_b, nullptr);
    ggml_opt_dataset_t a = make_counting();
    ggml_opt_dataset_t b = make_counting();

    ggml_opt_dataset_shuffle(opt_a, a, -1);
    ggml_opt_dataset_shuffle(opt_b, b, -1);
    const std::vector<int32_t> first = order(a);
    EXPECT_EQ(first, order(b)) << "two new contexts shuffle alike (fixed seed)";
    std::vector<int32_t> sorted = first;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int32_t> expected(12);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(sorted, expected) << "a permutation";
    EXPECT_NE(first, expected) << "6 shards keep their order with probability 1/720; the fixed seed does not";
    for (int i = 0; i < 12; i += 2) {
        EXPECT_EQ(first[i] % 2, 0) << "shards of 2 stay whole";
        EXPECT_EQ(first[i + 1], first[i] + 1);
    }

    // shuffling the first 8 datapoints (4 shards) leaves the last 4 where they are
    ggml_opt_dataset_shuffle(opt_a, a, 8);
    const std::vector<int32_t> partial = order(a);
    EXPECT_TRUE(std::equal(partial.begin() + 8, partial.end(), first.begin() + 8));
    EXPECT_TRUE(std::is_permutation(partial.begin(), partial.begin() + 8, first.begin()));

    ggml_opt_dataset_free(a);
    ggml_opt_dataset_free(b);
    ggml_opt_free(opt_a);
    ggml_opt_free(opt_b);
}
