// The CPU communicator's converted sums (F16, BF16) over more elements than one stack chunk (256): every element
// of every tensor holds the float sum, rounded once. Small sums and the meta backend's use are in
// tests/unit/meta/comm_test.cpp.
#include "cpu/comm.h"

#include "base/fp16.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using namespace switchyard;

TEST(CpuCommChunks, ConvertedSumsCoverEveryElementPastOneChunk) {
    constexpr int     kBackends = 3;
    constexpr int64_t kCount    = 600; // two full chunks and a part
    std::vector<ggml_backend_t> backends;
    for (int i = 0; i < kBackends; ++i) {
        backends.push_back(ggml_backend_cpu_init());
    }
    void * comm = cpu::comm_init(backends.data(), backends.size());
    ASSERT_NE(comm, nullptr);
    for (ggml_type type : {GGML_TYPE_F16, GGML_TYPE_BF16}) {
        SCOPED_TRACE(ggml_type_name(type));
        const auto     encode = [type](float v) { return type == GGML_TYPE_F16 ? fp32_to_fp16(v) : fp32_to_bf16(v); };
        const auto     decode = [type](uint16_t h) { return type == GGML_TYPE_F16 ? fp16_to_fp32(h) : bf16_to_fp32(h); };
        ggml_context * ctx    = ggml_init({kBackends * (ggml_tensor_overhead() + kCount * 2 + 64), nullptr, false});
        std::vector<ggml_tensor *> ts;
        for (int i = 0; i < kBackends; ++i) {
            ts.push_back(ggml_new_tensor_1d(ctx, type, kCount));
            for (int64_t k = 0; k < kCount; ++k) {
                static_cast<uint16_t *>(ts.back()->data)[k] = encode(static_cast<float>((k % 50) * (i + 1)) * 0.5f);
            }
        }
        ASSERT_TRUE(cpu::comm_allreduce_tensor(comm, ts.data()));
        for (int i = 0; i < kBackends; ++i) {
            for (int64_t k = 0; k < kCount; ++k) {
                // (k % 50) * 0.5 * (1 + 2 + 3): exact in both formats
                ASSERT_EQ(decode(static_cast<uint16_t *>(ts[static_cast<size_t>(i)]->data)[k]),
                          static_cast<float>(k % 50) * 3.0f)
                    << "tensor " << i << ", element " << k;
            }
        }
        ggml_free(ctx);
    }
    cpu::comm_free(comm);
    for (ggml_backend_t b : backends) {
        ggml_backend_free(b);
    }
}

} // namespace
