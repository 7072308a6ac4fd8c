// The meta device, buffer type and backend objects: identity, properties, argument checks, op support.
#include "backend/meta/backend.h"

#include "meta_fixture.h"

namespace switchyard::testing {
namespace {

SplitTable g_table;

TEST(MetaDevice, SameInputsGiveTheSameDevice) {
    ggml_backend_dev_t a = make_meta(DeviceKind::Cpu, 2, g_table);
    ggml_backend_dev_t b = make_meta(DeviceKind::Cpu, 2, g_table);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a, b);
    SplitTable other;
    EXPECT_NE(make_meta(DeviceKind::Cpu, 2, other), a);
    EXPECT_NE(make_meta(DeviceKind::Cpu, 3, g_table), a);
}

TEST(MetaDevice, NameTypeAndProperties) {
    ggml_backend_dev_t dev = make_meta(DeviceKind::Test, 2, g_table);
    EXPECT_STREQ(ggml_backend_dev_name(dev), "Meta(TEST0,TEST1)");
    EXPECT_EQ(ggml_backend_dev_type(dev), GGML_BACKEND_DEVICE_TYPE_META);
    EXPECT_EQ(ggml_backend_dev_backend_reg(dev), nullptr);
    ggml_backend_dev_props props;
    ggml_backend_dev_get_props(dev, &props);
    EXPECT_STREQ(props.name, "Meta(TEST0,TEST1)");
    EXPECT_TRUE(props.caps.async); // both test devices are asynchronous
    EXPECT_FALSE(props.caps.events);
    EXPECT_FALSE(props.caps.buffer_from_host_ptr);
    size_t free = 0, total = 0, f0 = 0, t0 = 0;
    ggml_backend_dev_memory(dev, &free, &total);
    ggml_backend_dev_memory(simple_devices(DeviceKind::Test, 1)[0], &f0, &t0);
    EXPECT_EQ(total, 2 * t0);
    ggml_backend_dev_props cpu_props;
    ggml_backend_dev_get_props(make_meta(DeviceKind::Cpu, 2, g_table), &cpu_props);
    EXPECT_FALSE(cpu_props.caps.async); // the CPU is synchronous
}

TEST(MetaDevice, InvalidArgumentsGiveNull) {
    std::vector<ggml_backend_dev_t> devs = simple_devices(DeviceKind::Cpu, 17);
    EXPECT_EQ(ggml_backend_meta_device(devs.data(), 0, SplitTable::callback, &g_table), nullptr);
    EXPECT_EQ(ggml_backend_meta_device(devs.data(), 17, SplitTable::callback, &g_table), nullptr);
    EXPECT_EQ(ggml_backend_meta_device(devs.data(), 2, nullptr, &g_table), nullptr);
    ggml_backend_dev_t with_null[2] = {devs[0], nullptr};
    EXPECT_EQ(ggml_backend_meta_device(with_null, 2, SplitTable::callback, &g_table), nullptr);
    ggml_backend_dev_t nested[2] = {devs[0], make_meta(DeviceKind::Cpu, 2, g_table)};
    EXPECT_EQ(ggml_backend_meta_device(nested, 2, SplitTable::callback, &g_table), nullptr);
}

TEST(MetaDevice, BufferType) {
    ggml_backend_dev_t         dev  = make_meta(DeviceKind::Test, 3, g_table);
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(dev);
    EXPECT_TRUE(ggml_backend_buft_is_meta(buft));
    EXPECT_FALSE(ggml_backend_buft_is_meta(ggml_backend_cpu_buffer_type()));
    EXPECT_STREQ(ggml_backend_buft_name(buft), "Meta(TEST0,TEST1,TEST2)");
    EXPECT_EQ(ggml_backend_buft_get_alignment(buft), 64u); // the test devices' alignment
    EXPECT_FALSE(ggml_backend_buft_is_host(buft));
    EXPECT_EQ(ggml_backend_buft_get_device(buft), dev);
    EXPECT_TRUE(ggml_backend_dev_supports_buft(dev, buft));
    EXPECT_FALSE(ggml_backend_dev_supports_buft(dev, ggml_backend_dev_buffer_type(make_meta(DeviceKind::Test, 2, g_table))));
    EXPECT_FALSE(ggml_backend_dev_supports_buft(dev, ggml_backend_cpu_buffer_type()));
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, 1000);
    ASSERT_NE(buf, nullptr);
    EXPECT_TRUE(ggml_backend_buffer_is_meta(buf));
    EXPECT_NE(ggml_backend_buffer_get_base(buf), nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_size(buf), 1000u);
    ggml_backend_buffer_free(buf);
}

TEST(MetaDevice, BackendAndItsSimpleBackends) {
    ggml_backend_t backend = ggml_backend_dev_init(make_meta(DeviceKind::Cpu, 3, g_table), nullptr);
    ASSERT_NE(backend, nullptr);
    EXPECT_TRUE(ggml_backend_is_meta(backend));
    EXPECT_STREQ(ggml_backend_name(backend), "Meta(CPU,CPU,CPU)");
    ASSERT_EQ(ggml_backend_meta_n_backends(backend), 3u);
    for (size_t i = 0; i < 3; ++i) {
        ggml_backend_t simple = ggml_backend_meta_simple_backend(backend, i);
        ASSERT_NE(simple, nullptr);
        EXPECT_TRUE(ggml_backend_is_cpu(simple));
        EXPECT_FALSE(ggml_backend_is_meta(simple));
    }
    EXPECT_NE(ggml_backend_meta_simple_backend(backend, 0), ggml_backend_meta_simple_backend(backend, 1));
    EXPECT_EQ(ggml_backend_meta_simple_backend(backend, 3), nullptr);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    EXPECT_FALSE(ggml_backend_is_meta(cpu));
    EXPECT_EQ(ggml_backend_meta_n_backends(cpu), 0u);
    EXPECT_EQ(ggml_backend_meta_simple_backend(cpu, 0), nullptr);
    ggml_backend_free(cpu);
    ggml_backend_free(backend);
}

TEST(MetaDevice, SupportsWhatEveryDeviceSupports) {
    ggml_init_params params{8 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *   ctx = ggml_init(params);
    ggml_tensor *    a   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4);
    ggml_tensor *    mm  = ggml_mul_mat(ctx, a, a);
    ggml_tensor *    add = ggml_add(ctx, a, a);
    ggml_backend_dev_t dev = make_meta(DeviceKind::Test, 2, g_table);
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, mm));
    ggml_backend_dev_t second = simple_devices(DeviceKind::Test, 2)[1];
    test_device_set_supports_op(second, [](const ggml_tensor * op) { return op->op != GGML_OP_MUL_MAT; });
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, mm));
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, add));
    test_device_set_supports_op(second, nullptr);
    EXPECT_TRUE(ggml_backend_dev_supports_op(make_meta(DeviceKind::Cpu, 2, g_table), mm));
    ggml_free(ctx);
}

// Weights in a meta buffer: the op is asked of the simple devices as if its sources were in their own buffers.
TEST(MetaDevice, SupportsOpsOnMetaTensors) {
    SplitTable table;
    table.states["w"] = state_split(1, {4, 4});
    ggml_backend_dev_t dev = make_meta(DeviceKind::Cpu, 2, table);
    ggml_init_params   params{8 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *     ctx = ggml_init(params);
    ggml_tensor *      w   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 8);
    ggml_set_name(w, "w");
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(dev));
    ASSERT_NE(buf, nullptr);
    ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, ggml_mul_mat(ctx, w, x)));
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
}

} // namespace
} // namespace switchyard::testing
