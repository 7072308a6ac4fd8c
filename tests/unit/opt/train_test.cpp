// Training: gradients and optimizer steps against values computed by hand, then an MLP learning two blobs
// through ggml_opt_fit (AdamW and SGD), ggml_opt_epoch and graphs rebuilt for every batch.
#include "opt_fixture.h"

using namespace switchyard;
using namespace switchyard::opt_test;

namespace {

// out = w * x (element-wise, w a parameter [2], x an input [2, 1]) with the SUM loss: d loss / d w = x.
struct Linear {
    ContextPtr    ctx_static{ggml_init({4 * ggml_tensor_overhead(), nullptr, true})};
    ggml_tensor * w = ggml_new_tensor_2d(ctx_static.get(), GGML_TYPE_F32, 2, 1);
    ggml_tensor * x = ggml_new_tensor_2d(ctx_static.get(), GGML_TYPE_F32, 2, 1);
    BufferPtr     buf;
    ContextPtr    ctx{ggml_init({256 * ggml_tensor_overhead() + 4 * ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, true),
                                 nullptr, true})};
    ggml_tensor * out = nullptr;

    Linear() {
        ggml_set_param(w);
        ggml_set_name(w, "w");
        buf.reset(ggml_backend_alloc_ctx_tensors_from_buft(ctx_static.get(), ggml_backend_cpu_buffer_type()));
        const float w0[2] = {1.0f, -1.0f};
        ggml_backend_tensor_set(w, w0, 0, sizeof(w0));
        out = ggml_mul(ctx.get(), x, w);
    }

    ggml_opt_params params(ggml_backend_sched_t sched) {
        ggml_opt_params p = ggml_opt_default_params(sched, GGML_OPT_LOSS_TYPE_SUM);
        p.ctx_compute     = ctx.get();
        p.inputs          = x;
        p.outputs         = out;
        return p;
    }

    void step(ggml_opt_context_t opt, float x0, float x1) {
        const float xv[2] = {x0, x1};
        ggml_opt_alloc(opt, /*backward =*/true);
        ggml_backend_tensor_set(x, xv, 0, sizeof(xv));
        ggml_opt_eval(opt, nullptr);
    }
};

std::vector<float> values(const ggml_tensor * t) {
    std::vector<float> v(static_cast<size_t>(ggml_nelements(t)));
    ggml_backend_tensor_get(t, v.data(), 0, ggml_nbytes(t));
    return v;
}

ggml_opt_optimizer_params g_params; // read by the constant-parameter callbacks below

ggml_opt_optimizer_params fixed_params(void *) {
    return g_params;
}

} // namespace

TEST(OptTrain, GradientsAddUpOverThePeriod) {
    CpuSched        sched;
    Linear          model;
    ggml_opt_params p = model.params(sched.get());
    p.build_type      = GGML_OPT_BUILD_TYPE_GRAD;
    p.opt_period      = 2;
    ggml_opt_context_t opt = ggml_opt_init(p);
    ASSERT_NE(opt, nullptr);
    ggml_tensor * acc = ggml_opt_grad_acc(opt, model.w);
    ASSERT_NE(acc, nullptr);

    model.step(opt, 1.0f, 2.0f);
    EXPECT_EQ(values(acc), (std::vector<float>{1.0f, 2.0f}));
    model.step(opt, 3.0f, 5.0f);
    EXPECT_EQ(values(acc), (std::vector<float>{4.0f, 7.0f})) << "x1 + x2";
    model.step(opt, -1.0f, 0.5f);
    EXPECT_EQ(values(acc), (std::vector<float>{-1.0f, 0.5f})) << "a new period starts from zero";
    EXPECT_EQ(values(model.w), (std::vector<float>{1.0f, -1.0f})) << "GRAD does not step";

    ggml_opt_reset(opt, /*optimizer =*/false);
    EXPECT_EQ(values(acc), (std::vector<float>{0.0f, 0.0f}));
    EXPECT_EQ(values(ggml_opt_grad_acc(opt, ggml_opt_loss(opt))), (std::vector<float>{1.0f}));
    ggml_opt_free(opt);
}

// SGD with alpha 0.5 and opt_period 2 steps once per two batches with the summed gradient:
// w = (1, -1) - 0.5 * ((1, 2) + (3, 5)) = (-1, -4.5).
TEST(OptTrain, SgdStepByHand) {
    CpuSched        sched;
    Linear          model;
    ggml_opt_params p = model.params(sched.get());
    p.opt_period      = 2;
    p.optimizer       = GGML_OPT_OPTIMIZER_TYPE_SGD;
    g_params          = ggml_opt_get_default_optimizer_params(nullptr);
    g_params.sgd      = {0.5f, 0.0f};
    p.get_opt_pars    = ggml_opt_get_constant_optimizer_params;
    p.get_opt_pars_ud = &g_params;
    ggml_opt_context_t opt = ggml_opt_init(p);
    ASSERT_NE(opt, nullptr);
    EXPECT_EQ(ggml_opt_context_optimizer_type(opt), GGML_OPT_OPTIMIZER_TYPE_SGD);
    EXPECT_STREQ(ggml_opt_optimizer_name(GGML_OPT_OPTIMIZER_TYPE_SGD), "sgd");
    EXPECT_STREQ(ggml_opt_optimizer_name(GGML_OPT_OPTIMIZER_TYPE_ADAMW), "adamw");

    model.step(opt, 1.0f, 2.0f);
    EXPECT_EQ(values(model.w), (std::vector<float>{1.0f, -1.0f})) << "no step after the first batch";
    model.step(opt, 3.0f, 5.0f);
    EXPECT_EQ(values(model.w), (std::vector<float>{-1.0f, -4.5f}));
    ggml_opt_free(opt);
}

// AdamW's first step moves every weight by alpha against the sign of its gradient (bias-corrected m / sqrt(v)
// is g / |g|, up to eps): w = (1, -1) - 0.1 * (1, 1) = (0.9, -1.1).
TEST(OptTrain, AdamwFirstStepByHand) {
    CpuSched           sched;
    Linear             model;
    ggml_opt_params    p = model.params(sched.get());
    g_params             = ggml_opt_get_default_optimizer_params(nullptr);
    g_params.adamw.alpha = 0.1f;
    p.get_opt_pars       = fixed_params;
    ggml_opt_context_t opt = ggml_opt_init(p);
    ASSERT_NE(opt, nullptr);
    model.step(opt, 2.0f, 3.0f);
    const std::vector<float> w = values(model.w);
    EXPECT_NEAR(w[0], 0.9f, 1e-6);
    EXPECT_NEAR(w[1], -1.1f, 1e-6);
    ggml_opt_free(opt);
}

namespace {

ggml_opt_optimizer_params blob_params(void * userdata) {
    ggml_opt_optimizer_params p = ggml_opt_get_default_optimizer_params(userdata);
    p.adamw.alpha               = 0.01f;
    p.sgd.alpha                 = 0.1f;
    return p;
}

// Trains on 1000 points with 20% validation and checks the accuracy on the validation part (the last 200
// datapoints of the final order: ggml_opt_fit shuffles once over everything, then only the training part).
void fit_blobs(ggml_opt_optimizer_type optimizer, int64_t nbatch_logical) {
    CpuSched           sched;
    ggml_opt_dataset_t ds = make_blobs(1000, 42);
    Mlp                mlp(10);
    const double       before = mlp.accuracy(ds, 800, 1000);
    ggml_opt_fit(sched.get(), mlp.ctx_compute.get(), mlp.inputs, mlp.outputs, ds, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY,
                 optimizer, blob_params, /*nepoch =*/8, nbatch_logical, /*val_split =*/0.2f, /*silent =*/true);
    const double after = mlp.accuracy(ds, 800, 1000);
    EXPECT_GE(after, 0.95) << ggml_opt_optimizer_name(optimizer) << ": validation accuracy " << after << " (before "
                           << before << ")";
    ggml_opt_dataset_free(ds);
}

} // namespace

TEST(OptTrain, FitMlpAdamw) {
    fit_blobs(GGML_OPT_OPTIMIZER_TYPE_ADAMW, 10);
}

TEST(OptTrain, FitMlpSgd) {
    fit_blobs(GGML_OPT_OPTIMIZER_TYPE_SGD, 10);
}

TEST(OptTrain, FitMlpAccumulatingGradients) {
    fit_blobs(GGML_OPT_OPTIMIZER_TYPE_ADAMW, 20); // logical batches of 2 physical ones
}

// ggml_opt_epoch's evaluation part must agree with the host oracle on the final parameters.
TEST(OptTrain, EpochResultsMatchTheHost) {
    CpuSched           sched;
    ggml_opt_dataset_t ds = make_blobs(400, 3);
    Mlp                mlp(20);
    ggml_opt_params    p = ggml_opt_default_params(sched.get(), GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
    p.ctx_compute        = mlp.ctx_compute.get();
    p.inputs             = mlp.inputs;
    p.outputs            = mlp.outputs;
    p.get_opt_pars       = blob_params;
    ggml_opt_context_t opt = ggml_opt_init(p);
    ASSERT_NE(opt, nullptr);
    ggml_opt_result_t train = ggml_opt_result_init();
    ggml_opt_result_t val   = ggml_opt_result_init();
    for (int epoch = 0; epoch < 6; ++epoch) {
        ggml_opt_result_reset(train);
        ggml_opt_result_reset(val);
        ggml_opt_epoch(opt, ds, train, val, 300, nullptr, nullptr);
    }
    int64_t ndata = 0;
    double  acc = 0, loss = 0, loss_unc = 0;
    ggml_opt_result_ndata(val, &ndata);
    ggml_opt_result_accuracy(val, &acc, nullptr);
    ggml_opt_result_loss(val, &loss, &loss_unc);
    EXPECT_EQ(ndata, 100);
    EXPECT_DOUBLE_EQ(acc, mlp.accuracy(ds, 300, 400));
    EXPECT_GE(acc, 0.95);
    EXPECT_LT(loss, 0.3);
    EXPECT_GE(loss_unc, 0.0);
    std::vector<int32_t> pred(100);
    ggml_opt_result_pred(val, pred.data());
    for (int64_t i = 0; i < 100; ++i) {
        float x[2], y[2];
        ggml_opt_dataset_get_batch_host(ds, x, sizeof(x), y, 300 + i);
        ASSERT_EQ(pred[static_cast<size_t>(i)], mlp.predict(x[0], x[1])) << "datapoint " << i;
    }
    ggml_opt_result_free(train);
    ggml_opt_result_free(val);
    ggml_opt_free(opt);
    ggml_opt_dataset_free(ds);
}

// Without static graphs every batch builds a new forward graph (ggml_opt_prepare_alloc); gradients of
// opt_period 2 still add up across the rebuilt graphs and the optimizer's moments persist.
TEST(OptTrain, RebuiltGraphsTrain) {
    CpuSched           sched;
    ggml_opt_dataset_t ds = make_blobs(400, 5);
    Mlp                mlp(20);
    ggml_opt_params    p = ggml_opt_default_params(sched.get(), GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
    p.get_opt_pars       = blob_params;
    p.opt_period         = 2;
    ggml_opt_context_t opt = ggml_opt_init(p);
    ASSERT_NE(opt, nullptr);
    EXPECT_FALSE(ggml_opt_static_graphs(opt));
    const size_t mem = 512 * ggml_tensor_overhead() + 3 * ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, true);
    for (int epoch = 0; epoch < 6; ++epoch) {
        for (int64_t ibatch = 0; ibatch < 20; ++ibatch) {
            ContextPtr    ctx(ggml_init({mem, nullptr, true}));
            ggml_tensor * out = mlp.forward(ctx.get(), mlp.inputs);
            ggml_cgraph * gf  = ggml_new_graph_custom(ctx.get(), GGML_DEFAULT_GRAPH_SIZE, true);
            ggml_build_forward_expand(gf, out);
            ggml_opt_prepare_alloc(opt, ctx.get(), gf, mlp.inputs, out);
            ggml_opt_alloc(opt, /*backward =*/true);
            ggml_opt_dataset_get_batch(ds, mlp.inputs, ggml_opt_labels(opt), ibatch);
            ggml_opt_eval(opt, nullptr);
        }
    }
    EXPECT_GE(mlp.accuracy(ds, 0, 400), 0.95);
    ggml_opt_free(opt);
    ggml_opt_dataset_free(ds);
}
