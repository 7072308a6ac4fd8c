// Struct layouts that code compiled against upstream ggml's headers relies on. A backend module built in
// upstream's tree (its CPU backend built with GGML_BACKEND_DL) reads tensors, graphs and the backend objects
// directly, by offsets compiled into it; it runs on this library only while ours match. The expected numbers are
// literals for x86-64 / AArch64 (LP64), worked out by hand from upstream's declarations (ggml.h, ggml-impl.h,
// ggml-backend-impl.h at GGML_BACKEND_API_VERSION 2), never computed from our headers. A failure here means a
// header change broke binary compatibility with such modules: fix the header, not the number.
#include "core/graph.h"

#include "ggml-backend-impl.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <cstddef>

namespace {

constexpr bool kLp64 = sizeof(void *) == 8 && sizeof(size_t) == 8 && sizeof(int) == 4;

TEST(AbiLayout, Tensor) {
    if (!kLp64) {
        GTEST_SKIP() << "the pinned numbers are for 64-bit (LP64) targets";
    }
    EXPECT_EQ(offsetof(ggml_tensor, type), 0u);
    EXPECT_EQ(offsetof(ggml_tensor, buffer), 8u);
    EXPECT_EQ(offsetof(ggml_tensor, ne), 16u);
    EXPECT_EQ(offsetof(ggml_tensor, nb), 48u);
    EXPECT_EQ(offsetof(ggml_tensor, op), 80u);
    EXPECT_EQ(offsetof(ggml_tensor, op_params), 84u);
    EXPECT_EQ(offsetof(ggml_tensor, flags), 148u);
    EXPECT_EQ(offsetof(ggml_tensor, src), 152u);
    EXPECT_EQ(offsetof(ggml_tensor, view_src), 232u);
    EXPECT_EQ(offsetof(ggml_tensor, view_offs), 240u);
    EXPECT_EQ(offsetof(ggml_tensor, data), 248u);
    EXPECT_EQ(offsetof(ggml_tensor, name), 256u);
    EXPECT_EQ(offsetof(ggml_tensor, extra), 320u);
    EXPECT_EQ(offsetof(ggml_tensor, padding), 328u);
    EXPECT_EQ(sizeof(ggml_tensor), 336u);
    EXPECT_EQ(GGML_TENSOR_SIZE, 336u);
}

TEST(AbiLayout, HashSet) {
    if (!kLp64) {
        GTEST_SKIP() << "the pinned numbers are for 64-bit (LP64) targets";
    }
    EXPECT_EQ(offsetof(ggml_hash_set, size), 0u);
    EXPECT_EQ(offsetof(ggml_hash_set, used), 8u);
    EXPECT_EQ(offsetof(ggml_hash_set, keys), 16u);
    EXPECT_EQ(sizeof(ggml_hash_set), 24u);
}

// The fields upstream declares: up to `order` in older versions, `uid` behind it in newer ones. Members added
// after those would be harmless (graphs are always allocated by ggml-base, never by a module).
TEST(AbiLayout, GraphLeadingFields) {
    if (!kLp64) {
        GTEST_SKIP() << "the pinned numbers are for 64-bit (LP64) targets";
    }
    EXPECT_EQ(offsetof(ggml_cgraph, size), 0u);
    EXPECT_EQ(offsetof(ggml_cgraph, n_nodes), 4u);
    EXPECT_EQ(offsetof(ggml_cgraph, n_leafs), 8u);
    EXPECT_EQ(offsetof(ggml_cgraph, nodes), 16u);
    EXPECT_EQ(offsetof(ggml_cgraph, grads), 24u);
    EXPECT_EQ(offsetof(ggml_cgraph, grad_accs), 32u);
    EXPECT_EQ(offsetof(ggml_cgraph, leafs), 40u);
    EXPECT_EQ(offsetof(ggml_cgraph, use_counts), 48u);
    EXPECT_EQ(offsetof(ggml_cgraph, visited_hash_set), 56u);
    EXPECT_EQ(offsetof(ggml_cgraph, visited_hash_set.size), 56u);
    EXPECT_EQ(offsetof(ggml_cgraph, visited_hash_set.used), 64u);
    EXPECT_EQ(offsetof(ggml_cgraph, visited_hash_set.keys), 72u);
    EXPECT_EQ(offsetof(ggml_cgraph, order), 80u);
    EXPECT_EQ(offsetof(ggml_cgraph, uid), 88u);
    EXPECT_GE(sizeof(ggml_cgraph), 96u);
}

TEST(AbiLayout, BufferTypeAndBuffer) {
    if (!kLp64) {
        GTEST_SKIP() << "the pinned numbers are for 64-bit (LP64) targets";
    }
    EXPECT_EQ(sizeof(ggml_backend_buffer_type_i), 6 * 8u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_type, iface), 0u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_type, device), 48u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_type, context), 56u);

    EXPECT_EQ(sizeof(ggml_backend_buffer_i), 11 * 8u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, free_buffer), 0u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, get_base), 8u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, init_tensor), 16u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, memset_tensor), 24u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, set_tensor), 32u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, get_tensor), 40u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, set_tensor_2d), 48u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, get_tensor_2d), 56u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, cpy_tensor), 64u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, clear), 72u);
    EXPECT_EQ(offsetof(ggml_backend_buffer_i, reset), 80u);
    EXPECT_EQ(offsetof(ggml_backend_buffer, iface), 0u);
    EXPECT_EQ(offsetof(ggml_backend_buffer, buft), 88u);
    EXPECT_EQ(offsetof(ggml_backend_buffer, context), 96u);
    EXPECT_EQ(offsetof(ggml_backend_buffer, size), 104u);
    EXPECT_EQ(offsetof(ggml_backend_buffer, usage), 112u);
}

TEST(AbiLayout, BackendAndEvent) {
    if (!kLp64) {
        GTEST_SKIP() << "the pinned numbers are for 64-bit (LP64) targets";
    }
    EXPECT_EQ(sizeof(ggml_backend_i), 16 * 8u);
    EXPECT_EQ(offsetof(ggml_backend_i, get_name), 0u);
    EXPECT_EQ(offsetof(ggml_backend_i, free), 8u);
    EXPECT_EQ(offsetof(ggml_backend_i, set_tensor_async), 16u);
    EXPECT_EQ(offsetof(ggml_backend_i, get_tensor_async), 24u);
    EXPECT_EQ(offsetof(ggml_backend_i, set_tensor_2d_async), 32u);
    EXPECT_EQ(offsetof(ggml_backend_i, get_tensor_2d_async), 40u);
    EXPECT_EQ(offsetof(ggml_backend_i, cpy_tensor_async), 48u);
    EXPECT_EQ(offsetof(ggml_backend_i, synchronize), 56u);
    EXPECT_EQ(offsetof(ggml_backend_i, graph_plan_create), 64u);
    EXPECT_EQ(offsetof(ggml_backend_i, graph_plan_free), 72u);
    EXPECT_EQ(offsetof(ggml_backend_i, graph_plan_update), 80u);
    EXPECT_EQ(offsetof(ggml_backend_i, graph_plan_compute), 88u);
    EXPECT_EQ(offsetof(ggml_backend_i, graph_compute), 96u);
    EXPECT_EQ(offsetof(ggml_backend_i, event_record), 104u);
    EXPECT_EQ(offsetof(ggml_backend_i, event_wait), 112u);
    EXPECT_EQ(offsetof(ggml_backend_i, graph_optimize), 120u);
    EXPECT_EQ(offsetof(ggml_backend, guid), 0u);
    EXPECT_EQ(offsetof(ggml_backend, iface), 8u);
    EXPECT_EQ(offsetof(ggml_backend, device), 136u);
    EXPECT_EQ(offsetof(ggml_backend, context), 144u);

    EXPECT_EQ(offsetof(ggml_backend_event, device), 0u);
    EXPECT_EQ(offsetof(ggml_backend_event, context), 8u);
}

TEST(AbiLayout, DeviceAndReg) {
    if (!kLp64) {
        GTEST_SKIP() << "the pinned numbers are for 64-bit (LP64) targets";
    }
    EXPECT_EQ(sizeof(ggml_backend_device_i), 15 * 8u);
    EXPECT_EQ(offsetof(ggml_backend_device_i, get_name), 0u);
    EXPECT_EQ(offsetof(ggml_backend_device_i, init_backend), 40u);
    EXPECT_EQ(offsetof(ggml_backend_device_i, supports_op), 72u);
    EXPECT_EQ(offsetof(ggml_backend_device_i, event_synchronize), 112u);
    EXPECT_EQ(offsetof(ggml_backend_device, iface), 0u);
    EXPECT_EQ(offsetof(ggml_backend_device, reg), 120u);
    EXPECT_EQ(offsetof(ggml_backend_device, context), 128u);

    EXPECT_EQ(sizeof(ggml_backend_reg_i), 4 * 8u);
    EXPECT_EQ(offsetof(ggml_backend_reg_i, get_proc_address), 24u);
    EXPECT_EQ(offsetof(ggml_backend_reg, api_version), 0u);
    EXPECT_EQ(offsetof(ggml_backend_reg, iface), 8u);
    EXPECT_EQ(offsetof(ggml_backend_reg, context), 40u);
    EXPECT_EQ(GGML_BACKEND_API_VERSION, 2);
}

} // namespace
