// Result statistics against values computed by hand, first on a result filled directly, then on one filled by
// forward evaluations of a graph whose loss is known.
#include "opt_fixture.h"

#include "opt/opt.h"

using namespace switchyard;
using namespace switchyard::opt_test;

// Batch losses 1, 2, 3, 4 (per datapoint, opt_period 1): mean 2.5, population variance 1.25, standard error
// sqrt(1.25 / 3) = 0.6454972; 3 of 4 correct: accuracy 0.75, error sqrt(0.75 * 0.25 / 3) = 0.25.
TEST(OptResult, StatisticsByHand) {
    ggml_opt_result_t r = ggml_opt_result_init();
    r->loss               = {1.0f, 2.0f, 3.0f, 4.0f};
    r->ndata              = 4;
    r->ncorrect           = 3;
    r->pred               = {1, 0, 1, 1};
    r->opt_period         = 1;
    r->loss_per_datapoint = true;

    double loss = 0, unc = 0;
    ggml_opt_result_loss(r, &loss, &unc);
    EXPECT_DOUBLE_EQ(loss, 2.5);
    EXPECT_NEAR(unc, 0.6454972244, 1e-9);
    ggml_opt_result_loss(r, &loss, nullptr); // the uncertainty is optional

    double acc = 0, acc_unc = 0;
    ggml_opt_result_accuracy(r, &acc, &acc_unc);
    EXPECT_DOUBLE_EQ(acc, 0.75);
    EXPECT_NEAR(acc_unc, 0.25, 1e-12);

    int64_t ndata = 0;
    ggml_opt_result_ndata(r, &ndata);
    EXPECT_EQ(ndata, 4);
    int32_t pred[4] = {};
    ggml_opt_result_pred(r, pred);
    EXPECT_EQ(pred[0], 1);
    EXPECT_EQ(pred[1], 0);

    // per-datapoint losses of opt_period 2 were halved in the graph: the statistics double them back
    r->opt_period = 2;
    ggml_opt_result_loss(r, &loss, &unc);
    EXPECT_DOUBLE_EQ(loss, 5.0);
    EXPECT_NEAR(unc, 2 * 0.6454972244, 1e-9);

    // a summed loss reports the total, with the sample standard deviation sqrt(1.25 * 4 / 3) = 1.2909944
    r->opt_period         = 1;
    r->loss_per_datapoint = false;
    ggml_opt_result_loss(r, &loss, &unc);
    EXPECT_DOUBLE_EQ(loss, 10.0);
    EXPECT_NEAR(unc, 1.2909944487, 1e-9);

    // no predictions: accuracy unknown
    r->ncorrect = -1;
    ggml_opt_result_accuracy(r, &acc, &acc_unc);
    EXPECT_TRUE(std::isnan(acc));
    EXPECT_TRUE(std::isnan(acc_unc));

    ggml_opt_result_reset(r);
    ggml_opt_result_loss(r, &loss, &unc);
    EXPECT_EQ(loss, 0.0);
    EXPECT_TRUE(std::isnan(unc));
    ggml_opt_result_ndata(r, &ndata);
    EXPECT_EQ(ndata, 0);
    ggml_opt_result_free(r);
}

// A forward-only context whose outputs are 2 * inputs with the MEAN loss: batches {1, 2, 3, 4} and {5, 6, 7, 8}
// give losses 2 * 2.5 = 5 and 2 * 6.5 = 13; mean 9, standard error sqrt(16 / 1) = 4.
TEST(OptResult, ForwardEvaluationsAddUp) {
    CpuSched      sched;
    ContextPtr    ctx_in(ggml_init({ggml_tensor_overhead(), nullptr, true}));
    ggml_tensor * in = ggml_new_tensor_2d(ctx_in.get(), GGML_TYPE_F32, 2, 2);
    BufferPtr     buf(ggml_backend_alloc_ctx_tensors_from_buft(ctx_in.get(), ggml_backend_cpu_buffer_type()));
    ContextPtr    ctx(ggml_init({64 * ggml_tensor_overhead() + ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, true),
                                 nullptr, true}));
    ggml_tensor * out = ggml_scale(ctx.get(), in, 2.0f);

    ggml_opt_params params = ggml_opt_default_params(sched.get(), GGML_OPT_LOSS_TYPE_MEAN);
    params.ctx_compute     = ctx.get();
    params.inputs          = in;
    params.outputs         = out;
    params.build_type      = GGML_OPT_BUILD_TYPE_FORWARD;
    ggml_opt_context_t opt = ggml_opt_init(params);
    ASSERT_NE(opt, nullptr);
    EXPECT_TRUE(ggml_opt_static_graphs(opt));
    EXPECT_EQ(ggml_opt_labels(opt), nullptr);
    EXPECT_EQ(ggml_opt_pred(opt), nullptr);

    ggml_opt_result_t r = ggml_opt_result_init();
    for (float base : {1.0f, 5.0f}) {
        const float x[4] = {base, base + 1, base + 2, base + 3};
        ggml_opt_alloc(opt, /*backward =*/false);
        ggml_backend_tensor_set(in, x, 0, sizeof(x));
        ggml_opt_eval(opt, r);
    }
    double  loss = 0, unc = 0, acc = 0;
    int64_t ndata = 0;
    ggml_opt_result_loss(r, &loss, &unc);
    ggml_opt_result_ndata(r, &ndata);
    ggml_opt_result_accuracy(r, &acc, nullptr);
    EXPECT_NEAR(loss, 9.0, 1e-6);
    EXPECT_NEAR(unc, 4.0, 1e-6);
    EXPECT_EQ(ndata, 4) << "dimension 1 of the outputs counts datapoints";
    EXPECT_TRUE(std::isnan(acc)) << "the MEAN loss makes no predictions";
    ggml_opt_result_free(r);
    ggml_opt_free(opt);
}
