// A ggml program across ranks (run under mpirun with 2 and 3 ranks, tests/mpi/CMakeLists.txt): the registry's
// MPI devices, tensor reads and writes by the owner rule, copies between ranks, the scheduler with weights on
// different ranks (pipeline parallel) and the meta device over one device of each rank (tensor parallel), each
// compared with the same model on this process's own CPU backend. Every rank runs every test, in one order.
#include "ggml-mpi.h"

#include "meta_models.h"

#include <numeric>

namespace switchyard::testing {
namespace {

int rank() { return ggml_backend_mpi_rank(); }
int n_ranks() { return ggml_backend_mpi_size(); }

ggml_backend_dev_t rank_cpu(int r) {
    const std::string name = "MPI" + std::to_string(r) + ":CPU";
    return ggml_backend_dev_by_name(name.c_str());
}

// Equal shares of n among the ranks (the first ones take the remainder).
std::vector<int64_t> shares(int64_t n) {
    std::vector<int64_t> s(static_cast<size_t>(n_ranks()), n / n_ranks());
    for (int64_t i = 0; i < n % n_ranks(); ++i) {
        ++s[static_cast<size_t>(i)];
    }
    return s;
}

TEST(MpiRegistry, EveryRankListsEveryRanksDevicesInOneOrder) {
    ASSERT_GE(n_ranks(), 2) << "run under mpirun -np 2 or more";
    ASSERT_NE(ggml_backend_mpi_reg(), nullptr);
    std::string names;
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
        names += std::string(ggml_backend_dev_name(ggml_backend_dev_get(i))) + ";";
    }
    for (int r = 0; r < n_ranks(); ++r) {
        ASSERT_NE(rank_cpu(r), nullptr) << names;
        EXPECT_EQ(ggml_backend_mpi_dev_rank(rank_cpu(r)), r);
    }
    EXPECT_EQ(ggml_backend_mpi_dev_rank(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)), -1);
    // the same list on every rank
    const uint64_t     mine = std::hash<std::string>{}(names);
    std::vector<uint64_t> all(static_cast<size_t>(n_ranks()));
    ASSERT_TRUE(ggml_backend_mpi_allgather(&mine, all.data(), sizeof mine));
    for (uint64_t h : all) {
        EXPECT_EQ(h, mine) << names;
    }
}

// A tensor on the last rank's device: only the owner keeps what is written (each rank writes its own rank
// number), every rank reads the owner's bytes, and a copy to rank 0's device arrives there.
TEST(MpiTensorIo, OwnerWritesEveryRankReadsCopiesTravel) {
    const int          last = n_ranks() - 1;
    ggml_init_params   p{4 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *     ctx = ggml_init(p);
    ggml_tensor *      a   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000);
    ggml_tensor *      b   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000);
    ggml_backend_buffer_t buf_a = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(rank_cpu(last)), 8192);
    ggml_backend_buffer_t buf_b = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(rank_cpu(0)), 8192);
    ASSERT_NE(buf_a, nullptr);
    ASSERT_NE(buf_b, nullptr);
    EXPECT_FALSE(ggml_backend_buffer_is_host(buf_a));
    ASSERT_EQ(ggml_backend_tensor_alloc(buf_a, a, ggml_backend_buffer_get_base(buf_a)), GGML_STATUS_SUCCESS);
    ASSERT_EQ(ggml_backend_tensor_alloc(buf_b, b, ggml_backend_buffer_get_base(buf_b)), GGML_STATUS_SUCCESS);

    std::vector<float> written(1000);
    std::iota(written.begin(), written.end(), static_cast<float>(1000 * rank()));
    ggml_backend_tensor_set(a, written.data(), 0, sizeof(float) * written.size());
    std::vector<float> read(1000, -1.0f);
    ggml_backend_tensor_get(a, read.data(), 0, sizeof(float) * read.size());
    for (size_t i = 0; i < read.size(); ++i) {
        ASSERT_EQ(read[i], static_cast<float>(1000 * last + static_cast<int>(i))) << "element " << i;
    }
    ggml_backend_tensor_copy(a, b);
    std::vector<float> copied(1000, -1.0f);
    ggml_backend_tensor_get(b, copied.data(), 0, sizeof(float) * copied.size());
    EXPECT_EQ(copied, read);
    // part of a tensor
    ggml_backend_tensor_get(a, read.data(), 400, 40);
    EXPECT_EQ(read[0], static_cast<float>(1000 * last + 100));

    ggml_backend_buffer_free(buf_a);
    ggml_backend_buffer_free(buf_b);
    ggml_free(ctx);
}

// out = down @ gelu(up @ x + up_bias) + x with up (and its bias) on rank 0's CPU and down on the last rank's,
// under the scheduler with this rank's CPU last: the activation goes from rank 0 to the last rank.
TEST(MpiSched, LayersOnTwoRanksMatchOneCpu) {
    const MlpDims   m;
    const ModelSpec spec = mlp_spec(m);
    const int       last = n_ranks() - 1;
    ggml_init_params p{8 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *  first_ctx = ggml_init(p);
    ggml_context *  last_ctx  = ggml_init(p);
    std::map<std::string, ggml_tensor *> w;
    for (const WeightSpec & ws : spec.weights) {
        ggml_context * ctx = ws.name == "down" ? last_ctx : first_ctx;
        w[ws.name]         = ggml_new_tensor(ctx, ws.type, static_cast<int>(ws.ne.size()), ws.ne.data());
        ggml_set_name(w[ws.name], ws.name.c_str());
    }
    ggml_backend_buffer_t first_buf = ggml_backend_alloc_ctx_tensors_from_buft(first_ctx, ggml_backend_dev_buffer_type(rank_cpu(0)));
    ggml_backend_buffer_t last_buf  = ggml_backend_alloc_ctx_tensors_from_buft(last_ctx, ggml_backend_dev_buffer_type(rank_cpu(last)));
    ASSERT_NE(first_buf, nullptr);
    ASSERT_NE(last_buf, nullptr);
    ggml_backend_buffer_set_usage(first_buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS); // the scheduler runs ops where
    ggml_backend_buffer_set_usage(last_buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);  // their weights are
    for (const WeightSpec & ws : spec.weights) {
        PlacedModel::set_values(w[ws.name], weight_values(ws, spec.seed));
    }
    ggml_init_params gp{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *   gctx  = ggml_init(gp);
    ggml_tensor *    out   = spec.build(gctx, w);
    ggml_cgraph *    graph = ggml_new_graph(gctx);
    ggml_set_output(out);
    ggml_build_forward_expand(graph, out);

    ggml_backend_t       first    = ggml_backend_dev_init(rank_cpu(0), nullptr);
    ggml_backend_t       second   = ggml_backend_dev_init(rank_cpu(last), nullptr);
    ggml_backend_t       cpu      = ggml_backend_cpu_init();
    ggml_backend_t       list[3]  = {first, second, cpu};
    ggml_backend_sched_t sched    = ggml_backend_sched_new(list, nullptr, 3, GGML_DEFAULT_GRAPH_SIZE, false, true);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, graph));
    ggml_tensor * x = ggml_get_tensor(gctx, "x");
    ggml_backend_tensor_set(x, spec.inputs.at("x").data(), 0, spec.inputs.at("x").size());
    ggml_backend_mpi_reset_stats();
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, graph), GGML_STATUS_SUCCESS);
    EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), 2) << sched_plan(sched); // rank 0's, then the last rank's

    std::vector<float> got(static_cast<size_t>(ggml_nelements(out)));
    ggml_backend_tensor_get(out, got.data(), 0, got.size() * sizeof(float));
    expect_close(got, run_reference(spec), 1e-6f);
    // rank 0 sent the activation (ff x tokens floats) to the last rank, which sent nothing before the read
    ggml_backend_mpi_stats s{};
    ggml_backend_mpi_get_stats(&s);
    const uint64_t activation = static_cast<uint64_t>(m.ff * m.tokens) * sizeof(float);
    if (rank() == 0) {
        EXPECT_GE(s.bytes_sent, activation);
    }
    if (rank() == last) {
        EXPECT_GE(s.bytes_received, activation);
    }

    ggml_backend_sched_free(sched);
    ggml_backend_free(cpu);
    ggml_backend_free(second);
    ggml_backend_free(first);
    ggml_backend_buffer_free(first_buf);
    ggml_backend_buffer_free(last_buf);
    ggml_free(gctx);
    ggml_free(first_ctx);
    ggml_free(last_ctx);
}

ggml_backend_dev_t meta_over_ranks(SplitTable & table) {
    std::vector<ggml_backend_dev_t> devs;
    for (int r = 0; r < n_ranks(); ++r) {
        devs.push_back(rank_cpu(r));
    }
    return ggml_backend_meta_device(devs.data(), devs.size(), SplitTable::callback, &table);
}

// The meta device over one CPU of each rank: up split by columns, down by rows, the partial sums all-reduced
// with MPI. Each rank holds its share of the split weights only.
TEST(MpiMeta, MlpSplitOverTheRanksMatchesOneCpu) {
    const MlpDims   m;
    const ModelSpec spec = mlp_spec(m);
    SplitTable      table;
    mlp_split(table, shares(m.ff));
    ggml_backend_dev_t meta = meta_over_ranks(table);
    ASSERT_NE(meta, nullptr);
    ggml_backend_t backend = ggml_backend_dev_init(meta, nullptr);
    ASSERT_NE(backend, nullptr);
    const size_t before = ggml_backend_mpi_local_bytes();
    ggml_backend_mpi_reset_stats();
    expect_close(run_model(spec, backend), run_reference(spec), 1e-5f);
    ggml_backend_mpi_stats s{};
    ggml_backend_mpi_get_stats(&s);
    EXPECT_GT(s.bytes_sent, 0u); // the all-reduce
    EXPECT_EQ(ggml_backend_mpi_local_bytes(), before); // everything freed again
    RunOptions opt;
    opt.sched = true;
    expect_close(run_model(spec, backend, opt), run_reference(spec), 1e-5f);
    ggml_backend_free(backend);
}

// A LLaMA-style block (attention split by KV heads, FFN by hidden units) over the ranks, with the scheduler.
TEST(MpiMeta, TransformerBlockSplitOverTheRanksMatchesOneCpu) {
    BlockDims       b;
    const ModelSpec spec = block_spec(b);
    SplitTable      table;
    block_split(table, b, shares(b.n_head_kv), shares(b.ff));
    ggml_backend_t backend = ggml_backend_dev_init(meta_over_ranks(table), nullptr);
    ASSERT_NE(backend, nullptr);
    RunOptions opt;
    opt.sched = true;
    expect_close(run_model(spec, backend, opt), run_reference(spec), 1e-4f);
    ggml_backend_free(backend);
}

} // namespace
} // namespace switchyard::testing
