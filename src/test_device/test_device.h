// The test device (library ggml-test-device): the minimal reference backend, as IREE's null driver is. A device
// that behaves like a discrete GPU, written only against ggml-backend-impl.h, so it is also the worked example of
// how to write a backend (device, buffer type, buffers, backend, events, reg, one file). It models what a GPU
// makes a program get right and a CPU forgives:
//   - its buffers are not host memory: tensor->data holds fake device addresses, so the data is reachable only
//     through the buffer interface (set/get/memset/copy); any code that dereferences it crashes;
//   - each backend (stream) executes work asynchronously, in order, on its own thread; graph_compute,
//     set/get_async and cpy_tensor_async return at once; synchronize waits;
//   - events are real: record marks a point in a stream, wait makes another stream wait for it;
//   - it reports a memory size and refuses allocations beyond it;
//   - the ops it supports are configurable; it never runs custom ops (MAP_CUSTOM1/2/3, CUSTOM), whose function
//     lives on the host.
// Computation itself is delegated to a CPU backend (the registry's CPU device, one thread per stream) working
// on the device's (real, private) memory, so results equal the CPU's.
// What it is for: the tests (scheduler, meta device, tensor I/O, the conformance suite) run every path a GPU
// takes without one; switchyard-run, switchyard-ops and switchyard-demo add it with --test-device, so the same
// paths can be shown and checked on any machine. It is never registered by the library itself: a program creates
// it (test_device_create) and registers it if it wants (ggml_backend_device_register).
#pragma once

#include "ggml-backend.h"

#include <cstddef>
#include <functional>

namespace switchyard::testing {

struct TestDeviceConfig {
    const char * name          = "TEST";
    size_t       memory_size   = size_t(1) << 30;
    bool         fail_alloc    = false; // refuse every allocation (as if out of memory)
    bool         events        = true;  // offer events (false: like a device without event support)
    bool         async_copies  = true;  // implement cpy_tensor_async
    // which ops the device can run; nullptr: everything the CPU backend can run (custom ops excepted)
    std::function<bool(const ggml_tensor *)> supports_op;
    // which ops with weights in host memory the scheduler should pull onto the device (op_offload);
    // nullptr: none
    std::function<bool(const ggml_tensor *)> offload_op;
};

// Creates a device (and a reg holding it) with the given configuration. The device lives until
// test_device_release; registering it in the global registry is optional (ggml_backend_device_register).
ggml_backend_dev_t test_device_create(const TestDeviceConfig & config);
void               test_device_release(ggml_backend_dev_t dev);

// Bytes currently allocated in the device's buffers.
size_t test_device_allocated(ggml_backend_dev_t dev);

// Number of graphs (or graph views) the device's backends have executed, and copies they performed.
size_t test_device_graphs_computed(ggml_backend_dev_t dev);
size_t test_device_async_copies(ggml_backend_dev_t dev);

// Changes the supported-op predicate at run time.
void test_device_set_supports_op(ggml_backend_dev_t dev, std::function<bool(const ggml_tensor *)> supports_op);

} // namespace switchyard::testing
