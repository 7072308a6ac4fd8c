// Events: a timeline semaphore per event and the value its latest record will signal. Recording submits the
// stream's work so far with the signal; waiting makes the stream's next submission wait on the device; the host
// waits with event_synchronize. Lets the scheduler overlap copies and computation (pipeline parallelism).
#include "vulkan/backend.h"

#include "base/log.h"

#include <new>

namespace switchyard::vulkan {

namespace {

struct EventContext {
    Device *    device    = nullptr;
    VkSemaphore semaphore = VK_NULL_HANDLE;
    uint64_t    value     = 0; // signalled by the latest record; 0: never recorded
};

EventContext * ctx_of(ggml_backend_event_t event) { return static_cast<EventContext *>(event->context); }

} // namespace

ggml_backend_event_t event_new(ggml_backend_dev_t dev) {
    Device * device = device_of(dev);
    if (!device->open()) {
        return nullptr;
    }
    VkSemaphoreTypeCreateInfo ti{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &ti};
    auto *                ctx = new (std::nothrow) EventContext{device};
    if (ctx == nullptr || vkCreateSemaphore(device->handle(), &si, nullptr, &ctx->semaphore) != VK_SUCCESS) {
        log_error("[ggml_backend_event_new] %s: cannot create a semaphore\n", device->name().c_str());
        delete ctx;
        return nullptr;
    }
    auto * event = new (std::nothrow) ggml_backend_event{dev, ctx};
    if (event == nullptr) {
        vkDestroySemaphore(device->handle(), ctx->semaphore, nullptr);
        delete ctx;
    }
    return event;
}

void event_free(ggml_backend_dev_t, ggml_backend_event_t event) {
    EventContext * ctx = ctx_of(event);
    event_synchronize(event->device, event); // the device may still signal it
    vkDestroySemaphore(ctx->device->handle(), ctx->semaphore, nullptr);
    delete ctx;
    delete event;
}

void event_synchronize(ggml_backend_dev_t, ggml_backend_event_t event) {
    EventContext * ctx = ctx_of(event);
    if (ctx->value == 0) {
        return;
    }
    VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wi.semaphoreCount = 1;
    wi.pSemaphores    = &ctx->semaphore;
    wi.pValues        = &ctx->value;
    const VkResult r  = vkWaitSemaphores(ctx->device->handle(), &wi, UINT64_MAX);
    if (r != VK_SUCCESS) {
        log_error("[ggml_backend_event_synchronize] %s: device error %d\n", ctx->device->name().c_str(),
                  static_cast<int>(r));
    }
}

void event_record(ggml_backend_t backend, ggml_backend_event_t event) {
    EventContext * ctx    = ctx_of(event);
    Stream &       stream = static_cast<Backend *>(backend->context)->stream;
    if (stream.flush({ctx->semaphore, ctx->value + 1})) {
        ++ctx->value;
    }
}

void event_wait(ggml_backend_t backend, ggml_backend_event_t event) {
    EventContext * ctx = ctx_of(event);
    if (ctx->value == 0) {
        return; // never recorded: nothing to wait for
    }
    if (event->device != backend->device) {
        event_synchronize(event->device, event); // another device's semaphore: wait on the host
        return;
    }
    Stream & stream = static_cast<Backend *>(backend->context)->stream;
    stream.flush(); // work queued before the wait need not wait
    stream.wait_for({ctx->semaphore, ctx->value});
}

} // namespace switchyard::vulkan
