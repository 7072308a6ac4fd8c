// Events: a point in a backend's stream that the host (synchronize) or another stream (wait) can wait for.
// Events are optional: a device without them answers ggml_backend_event_new with NULL, and every other
// function accepts a NULL event as a logged no-op, so callers can degrade to full synchronization.
// Creation, destruction and host waits go through the device; record and stream waits through the backend.
#include "ggml-backend-impl.h"

#include "base/guard.h"
#include "base/log.h"

using namespace switchyard;

extern "C" {

ggml_backend_event_t ggml_backend_event_new(ggml_backend_dev_t device) {
    if (device == nullptr || device->iface.event_new == nullptr) {
        return nullptr;
    }
    return guard("ggml_backend_event_new", nullptr, [&] { return device->iface.event_new(device); });
}

void ggml_backend_event_free(ggml_backend_event_t event) {
    if (event == nullptr) {
        return;
    }
    ggml_backend_dev_t device = event->device;
    if (device == nullptr || device->iface.event_free == nullptr) {
        log_error("[ggml_backend_event_free] the event's device cannot free events\n");
        return;
    }
    device->iface.event_free(device, event);
}

void ggml_backend_event_record(ggml_backend_event_t event, ggml_backend_t backend) {
    if (event == nullptr || backend == nullptr) {
        log_error("[ggml_backend_event_record] %s is NULL\n", event == nullptr ? "event" : "backend");
        return;
    }
    if (backend->iface.event_record == nullptr) {
        log_error("[ggml_backend_event_record] backend %s does not support events\n", ggml_backend_name(backend));
        return;
    }
    backend->iface.event_record(backend, event);
}

void ggml_backend_event_synchronize(ggml_backend_event_t event) {
    if (event == nullptr) {
        log_error("[ggml_backend_event_synchronize] event is NULL\n");
        return;
    }
    ggml_backend_dev_t device = event->device;
    if (device == nullptr || device->iface.event_synchronize == nullptr) {
        log_error("[ggml_backend_event_synchronize] the event's device cannot wait for events\n");
        return;
    }
    device->iface.event_synchronize(device, event);
}

void ggml_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event) {
    if (event == nullptr || backend == nullptr) {
        log_error("[ggml_backend_event_wait] %s is NULL\n", event == nullptr ? "event" : "backend");
        return;
    }
    if (backend->iface.event_wait == nullptr) {
        log_error("[ggml_backend_event_wait] backend %s does not support events\n", ggml_backend_name(backend));
        return;
    }
    backend->iface.event_wait(backend, event);
}

} // extern "C"
