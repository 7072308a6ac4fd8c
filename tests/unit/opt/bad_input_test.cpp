// Bad input: where upstream asserts (and aborts), these return NULL / do nothing and log an error naming the
// function; the objects stay usable afterwards.
#include "opt_fixture.h"

#include "opt/opt.h"
#include "unit/bad_input/bad_input.h"

using namespace switchyard;
using namespace switchyard::opt_test;
using switchyard::bad_input::LogCapture;
using switchyard::bad_input::logged;

TEST(OptBadInput, NullHandles) {
    LogCapture log;
    ggml_opt_dataset_free(nullptr);
    ggml_opt_free(nullptr);
    ggml_opt_result_free(nullptr);
    EXPECT_EQ(ggml_opt_dataset_ndata(nullptr), 0);
    EXPECT_EQ(ggml_opt_dataset_data(nullptr), nullptr);
    EXPECT_EQ(ggml_opt_dataset_labels(nullptr), nullptr);
    ggml_opt_dataset_shuffle(nullptr, nullptr, -1);
    EXPECT_TRUE(log.has_error("ggml_opt_dataset_shuffle")) << logged(log);
    ggml_opt_dataset_get_batch(nullptr, nullptr, nullptr, 0);
    ggml_opt_dataset_get_batch_host(nullptr, nullptr, 0, nullptr, 0);
    ggml_opt_reset(nullptr, true);
    ggml_opt_alloc(nullptr, true);
    ggml_opt_eval(nullptr, nullptr);
    EXPECT_TRUE(log.has_error("ggml_opt_eval")) << logged(log);
    ggml_opt_prepare_alloc(nullptr, nullptr, nullptr, nullptr, nullptr);
    ggml_opt_epoch(nullptr, nullptr, nullptr, nullptr, -1, nullptr, nullptr);
    ggml_opt_fit(nullptr, nullptr, nullptr, nullptr, nullptr, GGML_OPT_LOSS_TYPE_SUM, GGML_OPT_OPTIMIZER_TYPE_ADAMW,
                 nullptr, 1, 1, 0.0f, true);
    EXPECT_TRUE(log.has_error("ggml_opt_fit")) << logged(log);
    EXPECT_FALSE(ggml_opt_static_graphs(nullptr));
    EXPECT_EQ(ggml_opt_inputs(nullptr), nullptr);
    EXPECT_EQ(ggml_opt_grad_acc(nullptr, nullptr), nullptr);
    EXPECT_EQ(ggml_opt_context_optimizer_type(nullptr), GGML_OPT_OPTIMIZER_TYPE_COUNT);
    EXPECT_STREQ(ggml_opt_optimizer_name(GGML_OPT_OPTIMIZER_TYPE_COUNT), "undefined");
    double  d = 0;
    int64_t n = 0;
    ggml_opt_result_loss(nullptr, &d, &d);
    ggml_opt_result_accuracy(nullptr, &d, &d);
    ggml_opt_result_ndata(nullptr, &n);
    ggml_opt_result_pred(nullptr, nullptr);
    ggml_opt_result_reset(nullptr);
    EXPECT_TRUE(log.has_error("ggml_opt_result_loss")) << logged(log);

    const ggml_opt_optimizer_params p = ggml_opt_get_constant_optimizer_params(nullptr);
    EXPECT_EQ(p.adamw.alpha, ggml_opt_get_default_optimizer_params(nullptr).adamw.alpha);
    EXPECT_TRUE(log.has_error("ggml_opt_get_constant_optimizer_params")) << logged(log);
}

TEST(OptBadInput, DatasetSizes) {
    LogCapture log;
    EXPECT_EQ(ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, 0, 1, 10, 1), nullptr);
    EXPECT_EQ(ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, 2, -1, 10, 1), nullptr);
    EXPECT_EQ(ggml_opt_dataset_init(GGML_TYPE_COUNT, GGML_TYPE_F32, 2, 1, 10, 1), nullptr);
    EXPECT_EQ(ggml_opt_dataset_init(GGML_TYPE_Q4_0, GGML_TYPE_F32, 2, 1, 10, 1), nullptr) << "2 is not a block";
    EXPECT_TRUE(log.has_error("ggml_opt_dataset_init")) << logged(log);
}

TEST(OptBadInput, DatasetBatches) {
    CpuSched           sched;
    ggml_opt_dataset_t ds = make_blobs(8, 1);
    ContextPtr         ctx(ggml_init({8 * ggml_tensor_overhead(), nullptr, true}));
    ggml_tensor *      x3 = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 3, 2); // 24 bytes: not whole points
    ggml_tensor *      xi = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_I32, 2, 2); // wrong type
    ggml_tensor *      x  = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 2, 4);
    ggml_tensor *      y  = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 2, 2); // labels for 2, data for 4
    BufferPtr          buf(ggml_backend_alloc_ctx_tensors_from_buft(ctx.get(), ggml_backend_cpu_buffer_type()));
    ggml_backend_buffer_clear(buf.get(), 0);
    {
        LogCapture log;
        ggml_opt_dataset_get_batch(ds, x3, nullptr, 0);
        EXPECT_TRUE(log.has_error({"ggml_opt_dataset_get_batch", "labels"})) << logged(log);
    }
    {
        LogCapture log;
        ggml_opt_dataset_get_batch(ds, xi, y, 0);
        EXPECT_TRUE(log.has_error({"ggml_opt_dataset_get_batch", "types"})) << logged(log);
    }
    {
        LogCapture log;
        ggml_opt_dataset_get_batch(ds, x, y, 0);
        EXPECT_TRUE(log.has_error({"ggml_opt_dataset_get_batch", "labels_batch has"})) << logged(log);
        ggml_opt_dataset_get_batch(ds, x, ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 2, 4), 0);
        EXPECT_TRUE(log.has_error({"ggml_opt_dataset_get_batch", "allocated"})) << logged(log);
    }
    {
        LogCapture log;
        float xv[8], yv[8];
        ggml_opt_dataset_get_batch_host(ds, xv, sizeof(xv), yv, 2); // points 8..11 of 8
        EXPECT_TRUE(log.has_error({"ggml_opt_dataset_get_batch_host", "out of range"})) << logged(log);
        ggml_opt_dataset_get_batch_host(ds, xv, 12, yv, 0);
        EXPECT_TRUE(log.has_error({"ggml_opt_dataset_get_batch_host", "whole number"})) << logged(log);
    }
    std::vector<float> xv(8);
    ggml_backend_tensor_get(x, xv.data(), 0, sizeof(float) * 8);
    EXPECT_EQ(xv, std::vector<float>(8, 0.0f)) << "nothing was written";

    ggml_opt_context_t opt = ggml_opt_init(ggml_opt_default_params(sched.get(), GGML_OPT_LOSS_TYPE_SUM));
    {
        LogCapture log;
        ggml_opt_dataset_shuffle(opt, ds, 9);
        EXPECT_TRUE(log.has_error("ggml_opt_dataset_shuffle")) << logged(log);
    }
    ggml_opt_free(opt);
    ggml_opt_dataset_free(ds);
}

TEST(OptBadInput, InitParameters) {
    CpuSched   sched;
    Mlp        mlp(10);
    LogCapture log;
    ggml_opt_params p = ggml_opt_default_params(nullptr, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
    EXPECT_EQ(ggml_opt_init(p), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_opt_init", "backend_sched"})) << logged(log);

    p               = ggml_opt_default_params(sched.get(), GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
    p.opt_period    = 0;
    EXPECT_EQ(ggml_opt_init(p), nullptr);
    p.opt_period    = 1;
    p.optimizer     = GGML_OPT_OPTIMIZER_TYPE_COUNT;
    EXPECT_EQ(ggml_opt_init(p), nullptr);
    p.optimizer     = GGML_OPT_OPTIMIZER_TYPE_ADAMW;
    p.build_type    = static_cast<ggml_opt_build_type>(15);
    EXPECT_EQ(ggml_opt_init(p), nullptr);
    p.build_type    = GGML_OPT_BUILD_TYPE_OPT;
    p.ctx_compute   = mlp.ctx_compute.get(); // static graphs need inputs and outputs too
    EXPECT_EQ(ggml_opt_init(p), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_opt_init", "static graphs"})) << logged(log);

    // inputs not allocated
    ContextPtr    ctx(ggml_init({ggml_tensor_overhead(), nullptr, true}));
    ggml_tensor * unallocated = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 2, 10);
    p.inputs                  = unallocated;
    p.outputs                 = mlp.outputs;
    EXPECT_EQ(ggml_opt_init(p), nullptr);
    EXPECT_TRUE(log.has_error({"ggml_opt_init", "allocated"})) << logged(log);

    // a model without parameters cannot have gradients
    ggml_tensor * no_params = ggml_scale(mlp.ctx_compute.get(), mlp.inputs, 2.0f);
    p.inputs                = mlp.inputs;
    p.outputs               = no_params;
    EXPECT_EQ(ggml_opt_init(p), nullptr);
    EXPECT_TRUE(log.has_error("no trainable parameters")) << logged(log);

    // after all that, a valid context still works
    p.outputs              = mlp.outputs;
    ggml_opt_context_t opt = ggml_opt_init(p);
    EXPECT_NE(opt, nullptr);
    ggml_opt_free(opt);
}

namespace {

ggml_opt_optimizer_params bad_alpha(void *) {
    ggml_opt_optimizer_params p = ggml_opt_get_default_optimizer_params(nullptr);
    p.adamw.alpha               = -1.0f;
    return p;
}

} // namespace

TEST(OptBadInput, CallOrderAndHyperparameters) {
    CpuSched        sched;
    Mlp             mlp(10);
    ggml_opt_params p = ggml_opt_default_params(sched.get(), GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
    p.ctx_compute     = mlp.ctx_compute.get();
    p.inputs          = mlp.inputs;
    p.outputs         = mlp.outputs;
    p.get_opt_pars    = bad_alpha;
    ggml_opt_context_t opt = ggml_opt_init(p);
    ASSERT_NE(opt, nullptr);
    LogCapture log;
    ggml_opt_eval(opt, nullptr);
    EXPECT_TRUE(log.has_error({"ggml_opt_eval", "ggml_opt_alloc"})) << logged(log);
    ggml_opt_prepare_alloc(opt, mlp.ctx_compute.get(), nullptr, mlp.inputs, mlp.outputs);
    EXPECT_TRUE(log.has_error("ggml_opt_prepare_alloc")) << logged(log);

    std::vector<float> w1(ggml_nelements(mlp.w1));
    std::memcpy(w1.data(), mlp.w1->data, ggml_nbytes(mlp.w1));
    ggml_opt_alloc(opt, true);
    ggml_opt_alloc(opt, true);
    EXPECT_TRUE(log.has_error({"ggml_opt_alloc", "already allocated"})) << logged(log);
    ggml_opt_eval(opt, nullptr);
    EXPECT_TRUE(log.has_error({"ggml_opt_eval", "AdamW"})) << logged(log);
    EXPECT_EQ(std::memcmp(w1.data(), mlp.w1->data, ggml_nbytes(mlp.w1)), 0) << "no step was taken";

    // a result of another batch size is refused
    ggml_opt_result_t r = ggml_opt_result_init();
    r->ndata            = 3;
    r->loss             = {1.0f};
    r->loss_per_datapoint = true;
    r->opt_period         = 1;
    ggml_opt_dataset_t ds = make_blobs(20, 1);
    ggml_opt_epoch(opt, ds, nullptr, r, 0, nullptr, nullptr);
    EXPECT_TRUE(log.has_error({"ggml_opt_eval", "batch"})) << logged(log);
    ggml_opt_epoch(opt, ds, nullptr, nullptr, 5, nullptr, nullptr);
    EXPECT_TRUE(log.has_error({"ggml_opt_epoch", "idata_split"})) << logged(log);
    ggml_opt_fit(sched.get(), mlp.ctx_compute.get(), mlp.inputs, mlp.outputs, ds, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY,
                 GGML_OPT_OPTIMIZER_TYPE_ADAMW, ggml_opt_get_default_optimizer_params, 1, 15, 0.0f, true);
    EXPECT_TRUE(log.has_error({"ggml_opt_fit", "logical batch"})) << logged(log);
    ggml_opt_dataset_free(ds);
    ggml_opt_result_free(r);
    ggml_opt_free(opt);

    // a forward-only context refuses a backward pass
    p.build_type = GGML_OPT_BUILD_TYPE_FORWARD;
    opt          = ggml_opt_init(p);
    ASSERT_NE(opt, nullptr);
    ggml_opt_alloc(opt, true);
    EXPECT_TRUE(log.has_error({"ggml_opt_alloc", "FORWARD"})) << logged(log);
    ggml_opt_free(opt);

    // ggml_opt_epoch needs static graphs
    ggml_opt_context_t dynamic = ggml_opt_init(ggml_opt_default_params(sched.get(), GGML_OPT_LOSS_TYPE_SUM));
    ggml_opt_dataset_t ds2     = make_blobs(20, 1);
    ggml_opt_epoch(dynamic, ds2, nullptr, nullptr, -1, nullptr, nullptr);
    EXPECT_TRUE(log.has_error({"ggml_opt_epoch", "static"})) << logged(log);
    ggml_opt_alloc(dynamic, false);
    EXPECT_TRUE(log.has_error({"ggml_opt_alloc", "ggml_opt_prepare_alloc"})) << logged(log);
    ggml_opt_dataset_free(ds2);
    ggml_opt_free(dynamic);
}
