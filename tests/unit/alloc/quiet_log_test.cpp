// Routine planning is logged at DEBUG, which the default log sink does not print unless GGML_LOG_DEBUG=1: a
// program that reserves, allocates and computes successfully prints nothing (as with upstream). A callback set
// with ggml_log_set still receives the DEBUG messages.
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

// Everything written to stderr while `body` runs.
template <class F>
std::string capture_stderr(F && body) {
    std::fflush(stderr);
    std::FILE * tmp   = std::tmpfile();
    const int   saved = dup(STDERR_FILENO);
    dup2(fileno(tmp), STDERR_FILENO);
    body();
    std::fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    std::string text;
    std::rewind(tmp);
    for (int c = std::fgetc(tmp); c != EOF; c = std::fgetc(tmp)) {
        text += static_cast<char>(c);
    }
    std::fclose(tmp);
    return text;
}

void plan_and_compute() {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_context * ctx = ggml_init({64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true});
    ggml_tensor *  a   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 8);
    ggml_tensor *  b   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 4);
    ggml_set_input(a);
    ggml_set_input(b);
    ggml_tensor * out = ggml_soft_max(ctx, ggml_mul_mat(ctx, a, b));
    ggml_set_output(out);
    ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, out);
    ggml_backend_t       backends[1] = {cpu};
    ggml_backend_sched_t sched       = ggml_backend_sched_new(backends, nullptr, 1, 64, false, true);
    EXPECT_TRUE(ggml_backend_sched_reserve(sched, graph));
    EXPECT_TRUE(ggml_backend_sched_alloc_graph(sched, graph));
    ggml_backend_tensor_memset(a, 0, 0, ggml_nbytes(a));
    ggml_backend_tensor_memset(b, 0, 0, ggml_nbytes(b));
    EXPECT_EQ(ggml_backend_sched_graph_compute(sched, graph), GGML_STATUS_SUCCESS);
    ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(cpu));
    ggml_backend_sched_reset(sched);
    EXPECT_TRUE(ggml_gallocr_reserve(galloc, graph));
    EXPECT_TRUE(ggml_gallocr_alloc_graph(galloc, graph));
    ggml_gallocr_free(galloc);
    ggml_backend_sched_free(sched);
    ggml_free(ctx);
    ggml_backend_free(cpu);
}

TEST(QuietLog, SuccessfulPlanningPrintsNothingWithTheDefaultSink) {
    if (std::getenv("GGML_LOG_DEBUG") != nullptr) {
        GTEST_SKIP() << "GGML_LOG_DEBUG is set: the default sink prints DEBUG messages";
    }
    const std::string printed = capture_stderr(plan_and_compute);
    EXPECT_EQ(printed, "");
}

TEST(QuietLog, CallbacksStillReceiveDebugMessages) {
    static int debug_lines = 0;
    debug_lines            = 0;
    ggml_log_set([](ggml_log_level level, const char *, void *) { debug_lines += level == GGML_LOG_LEVEL_DEBUG; },
                 nullptr);
    plan_and_compute();
    ggml_log_set(nullptr, nullptr);
    EXPECT_GT(debug_lines, 0);
}

} // namespace
