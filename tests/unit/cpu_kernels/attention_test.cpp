// FLASH_ATTN_EXT against the scalar reference of tools/conformance, at shapes that divide nothing evenly: key counts
// off the tile size (and long enough to be cut into chunks), 1 / 3 / 17 queries, GQA ratios 1 and 4, head sizes off
// the vector width, causal and random masks, softcap, ALiBi and sinks. The result must also be bit for bit the same
// for 1, 2 and 3 threads, and a query's output the same bits alone as in a batch.
#include "kernel_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace switchyard::kernel_test;

struct FaCase {
    int64_t   d, n_q, n_kv, n_head, n_head_kv;
    ggml_type kv;
    bool      mask, causal;
    float     softcap, max_bias;
    bool      sinks;
};

std::string name(const FaCase & c) {
    return "d " + std::to_string(c.d) + ", n_q " + std::to_string(c.n_q) + ", n_kv " + std::to_string(c.n_kv) + ", heads " +
           std::to_string(c.n_head) + "/" + std::to_string(c.n_head_kv) + ", " + ggml_type_name(c.kv) + (c.mask ? ", mask" : "") +
           (c.causal ? " causal" : "") + ", softcap " + std::to_string(c.softcap) + ", max_bias " + std::to_string(c.max_bias) +
           (c.sinks ? ", sinks" : "");
}

// Builds the node in ctx with random inputs (a masked key: -inf) and returns it.
ggml_tensor * build(ggml_context * ctx, const FaCase & c) {
    std::mt19937  rng(5);
    ggml_tensor * q = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, c.d, c.n_q, c.n_head, 1);
    ggml_tensor * k = ggml_new_tensor_4d(ctx, c.kv, c.d, c.n_kv, c.n_head_kv, 1);
    ggml_tensor * v = ggml_new_tensor_4d(ctx, c.kv, c.d, c.n_kv, c.n_head_kv, 1);
    fill(q, rng);
    fill(k, rng);
    fill(v, rng);
    ggml_tensor * mask = nullptr;
    if (c.mask) {
        mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, c.n_kv, c.n_q); // unpadded: no rows past n_q to read
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for_each(mask, [&](int64_t j, int64_t i, int64_t, int64_t) {
            const bool hidden = c.causal ? j > c.n_kv - c.n_q + i : u(rng) < 0.3;
            set(mask, hidden ? -INFINITY : u(rng) - 0.5, j, i);
        });
    }
    ggml_tensor * out = ggml_flash_attn_ext(ctx, q, k, v, mask, 1.0f / std::sqrt(static_cast<float>(c.d)), c.max_bias, c.softcap);
    if (c.sinks) {
        ggml_tensor * s = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, c.n_head);
        fill(s, rng, -1.0, 2.0);
        ggml_flash_attn_ext_add_sinks(out, s);
    }
    return out;
}

std::vector<float> raw(const ggml_tensor * t) {
    std::vector<float> v(static_cast<size_t>(ggml_nelements(t)));
    std::memcpy(v.data(), t->data, ggml_nbytes(t));
    return v;
}

TEST(FlashAttnKernel, MatchesReferenceAndIgnoresThreadCount) {
    const FaCase cases[] = {
        {64, 1, 37, 4, 4, GGML_TYPE_F16, true, false, 0.0f, 0.0f, false},
        {128, 1, 1100, 8, 2, GGML_TYPE_F16, true, true, 0.0f, 0.0f, false},  // few items: chunks on several threads
        {72, 3, 150, 4, 1, GGML_TYPE_F16, true, true, 0.0f, 0.0f, true},
        {72, 17, 150, 8, 2, GGML_TYPE_BF16, true, false, 0.0f, 8.0f, false},
        {128, 17, 65, 4, 4, GGML_TYPE_F32, false, false, 0.0f, 0.0f, false},
        {40, 17, 129, 4, 1, GGML_TYPE_F16, true, true, 20.0f, 0.0f, true},
        {64, 40, 1, 4, 1, GGML_TYPE_F16, true, false, 0.0f, 0.0f, false},
        {64, 3, 2100, 4, 4, GGML_TYPE_F16, true, false, 0.0f, 0.0f, false}, // few items: chunks on several threads
    };
    for (const FaCase & c : cases) {
        SCOPED_TRACE(name(c));
        Ctx                       ctx(128);
        ggml_tensor *             out = build(ctx, c);
        ggml_cgraph *             gf  = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        const std::vector<double> want = reference_values(gf, out);
        std::vector<float>        first;
        for (int n : {1, 2, 3}) {
            SCOPED_TRACE(std::to_string(n) + " threads");
            ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gf, n), GGML_STATUS_SUCCESS);
            expect_all_near(out, from_values(out, want), c.kv == GGML_TYPE_F32 ? Tol{1e-5, 1e-4} : Tol{1e-4, 1e-3});
            if (first.empty()) {
                first = raw(out);
            } else {
                EXPECT_EQ(std::memcmp(first.data(), raw(out).data(), first.size() * sizeof(float)), 0) << "differs from 1 thread";
            }
        }
    }
}

// Batch invariance: each query of a batch gives the same bits as the same query alone (its mask row, the same keys),
// on 2 threads. The batches have many items (each one thread's, its key chunks folded in turn) or few (the chunks
// of an item on several threads); the lone queries have few. Keys past one chunk, causal and random masks, f16,
// bf16 and f32 K / V, GQA 4 and 1, softcap and sinks.
TEST(FlashAttnKernel, QueriesGiveTheSameBitsAloneAndInABatch) {
    const FaCase cases[] = {
        {128, 100, 1500, 16, 4, GGML_TYPE_F16, true, true, 0.0f, 0.0f, false}, // 28 items: chunks folded in turn
        {128, 9, 1500, 8, 2, GGML_TYPE_F16, true, true, 0.0f, 0.0f, false},    // 2 items: chunks on several threads
        {72, 40, 1100, 4, 4, GGML_TYPE_BF16, true, false, 20.0f, 0.0f, true},
        {64, 33, 300, 4, 1, GGML_TYPE_F32, true, true, 0.0f, 0.0f, false},
    };
    for (const FaCase & c : cases) {
        SCOPED_TRACE(name(c));
        Ctx           ctx(512);
        ggml_tensor * batch = build(ctx, c);
        ggml_tensor * q = batch->src[0], *k = batch->src[1], *v = batch->src[2], *mask = batch->src[3], *sinks = batch->src[4];
        const float   scale = 1.0f / std::sqrt(static_cast<float>(c.d)); // as build() sets it
        ggml_cgraph * gf      = ggml_new_graph_custom(ctx, 1024, false);
        ggml_build_forward_expand(gf, batch);
        std::vector<ggml_tensor *> alone;
        for (int64_t i = 0; i < c.n_q; ++i) {
            ggml_tensor * qi = ggml_view_3d(ctx, q, c.d, 1, c.n_head, q->nb[1], q->nb[2], static_cast<size_t>(i) * q->nb[1]);
            ggml_tensor * mi = ggml_view_2d(ctx, mask, c.n_kv, 1, mask->nb[1], static_cast<size_t>(i) * mask->nb[1]);
            ggml_tensor * oi = ggml_flash_attn_ext(ctx, qi, k, v, mi, scale, c.max_bias, c.softcap);
            if (sinks != nullptr) {
                ggml_flash_attn_ext_add_sinks(oi, sinks);
            }
            ggml_build_forward_expand(gf, oi);
            alone.push_back(oi);
        }
        ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gf, 2), GGML_STATUS_SUCCESS);
        int failures = 0;
        for (int64_t i = 0; i < c.n_q; ++i) {
            const auto * a = static_cast<const float *>(alone[static_cast<size_t>(i)]->data); // [d, n_head, 1]
            const auto * b = reinterpret_cast<const float *>(static_cast<const char *>(batch->data) + i * batch->nb[2]);
            for (int64_t e = 0; e < c.d * c.n_head; ++e) {
                if (std::memcmp(&a[e], &b[e], sizeof(float)) != 0 && failures++ < 3) {
                    ADD_FAILURE() << "query " << i << ", element " << e << ": " << b[e] << " in the batch, " << a[e]
                                  << " alone";
                }
            }
        }
    }
}

// Keys hidden from every query by the mask may hold anything (a KV cache's unused cells): NaN there must not
// reach the result, whether K and V are converted into scratch (many rows per item) or read in place as f16 (one
// query).
TEST(FlashAttnKernel, HiddenKeysMayHoldNaN) {
    for (const FaCase & c : {FaCase{64, 5, 100, 4, 2, GGML_TYPE_F16, true, true, 0.0f, 0.0f, false},
                             FaCase{64, 1, 100, 4, 2, GGML_TYPE_F16, true, true, 0.0f, 0.0f, false}}) {
        SCOPED_TRACE(name(c));
        Ctx           ctx;
        ggml_tensor * out = build(ctx, c);
        ggml_tensor * k = out->src[1], *v = out->src[2], *mask = out->src[3];
        constexpr int64_t kFirstHidden = 80; // inside the second tile of keys, so the tile is not skipped as a whole
        for (int64_t i = 0; i < c.n_q; ++i) {
            for (int64_t j = kFirstHidden; j < c.n_kv; ++j) set(mask, -INFINITY, j, i);
        }
        ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        const std::vector<double> want = reference_values(gf, out);
        for (int64_t j = kFirstHidden; j < c.n_kv; ++j) {
            for (int64_t h = 0; h < c.n_head_kv; ++h) {
                for (int64_t d = 0; d < c.d; ++d) {
                    set(k, NAN, d, j, h);
                    set(v, NAN, d, j, h);
                }
            }
        }
        ASSERT_EQ(ggml_graph_compute_with_ctx(ctx, gf, 2), GGML_STATUS_SUCCESS);
        expect_all_near(out, from_values(out, want), Tol{1e-4, 1e-3});
    }
}

} // namespace
