// The CPU backend's communicator (all-reduce in host memory) on its own, through the CPU reg's proc addresses,
// and inside the meta backend, where it must agree bit for bit with the generic copy-and-add path.
#include "backend/meta/backend.h"
#include "cpu/comm.h"

#include "base/fp16.h"
#include "meta_models.h"

namespace switchyard::testing {
namespace {

struct HostTensors {
    ggml_context * ctx = nullptr;
    std::vector<ggml_tensor *> ts;

    HostTensors(ggml_type type, int n, int64_t count) {
        ggml_init_params params{static_cast<size_t>(n) * (ggml_tensor_overhead() + static_cast<size_t>(count) * 4 + 64),
                                nullptr, false};
        ctx = ggml_init(params);
        for (int i = 0; i < n; ++i) {
            ts.push_back(ggml_new_tensor_1d(ctx, type, count));
        }
    }
    ~HostTensors() { ggml_free(ctx); }
};

std::vector<ggml_backend_t> cpu_backends(int n) {
    std::vector<ggml_backend_t> b;
    for (int i = 0; i < n; ++i) {
        b.push_back(ggml_backend_cpu_init());
    }
    return b;
}

void free_all(std::vector<ggml_backend_t> & backends) {
    for (ggml_backend_t b : backends) {
        ggml_backend_free(b);
    }
}

TEST(CpuComm, SumsF32InEveryTensor) {
    std::vector<ggml_backend_t> backends = cpu_backends(3);
    void *                      comm     = cpu::comm_init(backends.data(), backends.size());
    ASSERT_NE(comm, nullptr);
    HostTensors h(GGML_TYPE_F32, 3, 5);
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 5; ++k) {
            static_cast<float *>(h.ts[static_cast<size_t>(i)]->data)[k] = static_cast<float>(10 * i + k);
        }
    }
    ASSERT_TRUE(cpu::comm_allreduce_tensor(comm, h.ts.data()));
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 5; ++k) {
            EXPECT_EQ(static_cast<float *>(h.ts[static_cast<size_t>(i)]->data)[k], static_cast<float>(30 + 3 * k));
        }
    }
    cpu::comm_free(comm);
    free_all(backends);
}

TEST(CpuComm, SumsF16InFloat) {
    std::vector<ggml_backend_t> backends = cpu_backends(2);
    void *                      comm     = cpu::comm_init(backends.data(), backends.size());
    HostTensors                 h(GGML_TYPE_F16, 2, 3);
    const float                 a[3] = {1.5f, -2.0f, 1000.0f}, b[3] = {0.25f, 2.0f, 24.0f};
    for (int k = 0; k < 3; ++k) {
        static_cast<uint16_t *>(h.ts[0]->data)[k] = fp32_to_fp16(a[k]);
        static_cast<uint16_t *>(h.ts[1]->data)[k] = fp32_to_fp16(b[k]);
    }
    ASSERT_TRUE(cpu::comm_allreduce_tensor(comm, h.ts.data()));
    const float want[3] = {1.75f, 0.0f, 1024.0f};
    for (int i = 0; i < 2; ++i) {
        for (int k = 0; k < 3; ++k) {
            EXPECT_EQ(fp16_to_fp32(static_cast<uint16_t *>(h.ts[static_cast<size_t>(i)]->data)[k]), want[k]);
        }
    }
    cpu::comm_free(comm);
    free_all(backends);
}

TEST(CpuComm, DeclinesWhatItCannotSum) {
    std::vector<ggml_backend_t> backends = cpu_backends(2);
    void *                      comm     = cpu::comm_init(backends.data(), backends.size());
    HostTensors                 q(GGML_TYPE_I32, 2, 4);
    EXPECT_FALSE(cpu::comm_allreduce_tensor(comm, q.ts.data()));
    HostTensors f(GGML_TYPE_F32, 2, 4);
    HostTensors g(GGML_TYPE_F32, 1, 3);
    ggml_tensor * mismatched[2] = {f.ts[0], g.ts[0]};
    EXPECT_FALSE(cpu::comm_allreduce_tensor(comm, mismatched));
    cpu::comm_free(comm);
    // a communicator only for CPU backends
    ggml_backend_t gpu   = ggml_backend_dev_init(simple_devices(DeviceKind::Test, 1)[0], nullptr);
    ggml_backend_t mix[2] = {backends[0], gpu};
    EXPECT_EQ(cpu::comm_init(mix, 2), nullptr);
    ggml_backend_free(gpu);
    free_all(backends);
}

// The CPU reg hands out the communicator under the conventional proc names.
TEST(CpuComm, ReachableThroughTheCpuReg) {
    ggml_backend_reg_t reg = ggml_backend_cpu_reg();
    EXPECT_EQ(ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_init"), reinterpret_cast<void *>(&cpu::comm_init));
    EXPECT_EQ(ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_free"), reinterpret_cast<void *>(&cpu::comm_free));
    EXPECT_EQ(ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_allreduce_tensor"),
              reinterpret_cast<void *>(&cpu::comm_allreduce_tensor));
}

// CPU devices reduce through the communicator; the generic path gives the same bits.
TEST(CpuComm, MetaBackendUsesItAndAgreesWithTheGenericPath) {
    const BlockDims b;
    const ModelSpec spec = block_spec(b);
    SplitTable      table;
    block_split(table, b, {1, 2, 1}, {48, 32, 16});
    ggml_backend_t      backend = ggml_backend_dev_init(make_meta(DeviceKind::Cpu, 3, table), nullptr);
    meta::MetaBackend * mb      = meta::meta_backend(backend);
    EXPECT_NE(mb->comm.ctx, nullptr);
    const std::vector<float> with_comm = run_model(spec, backend);
    const meta::Comm         saved     = mb->comm;
    mb->comm.ctx                       = nullptr;
    const std::vector<float> generic   = run_model(spec, backend);
    mb->comm                           = saved;
    EXPECT_EQ(with_comm, generic);
    ggml_backend_free(backend);

    ggml_backend_t test_backend = ggml_backend_dev_init(make_meta(DeviceKind::Test, 3, table), nullptr);
    EXPECT_EQ(meta::meta_backend(test_backend)->comm.ctx, nullptr); // separate regs: the generic path
    ggml_backend_free(test_backend);
}

} // namespace
} // namespace switchyard::testing
