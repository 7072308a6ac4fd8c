// The MPI reg, its devices and their buffer type. At creation every rank describes its local devices (the CPU,
// and each GPU-type device) and gathers every other rank's descriptions, so all ranks list the same devices in
// the same order: rank 0's, then rank 1's, and so on.
#include "mpi/comm.h"
#include "mpi/mpi.h"

#include "base/log.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

namespace switchyard::mpi {

namespace {

constexpr int kMaxLocal = 8; // devices a rank offers

struct Descriptor {
    char     name[64];
    char     description[128];
    uint64_t memory_free, memory_total;
};

struct Reg {
    std::vector<std::unique_ptr<Device>> devices;
    ggml_backend_reg                     reg{};
};

Reg * g_reg = nullptr;

Device & dev_ctx(ggml_backend_dev_t dev) { return *static_cast<Device *>(dev->context); }

// ---- buffer type ----

const char * buft_get_name(ggml_backend_buffer_type_t buft) { return static_cast<Device *>(buft->context)->buft_name.c_str(); }

ggml_backend_buffer_t buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    return new_buffer(*static_cast<Device *>(buft->context), size);
}

size_t buft_get_alignment(ggml_backend_buffer_type_t buft) {
    return ggml_backend_buft_get_alignment(static_cast<Device *>(buft->context)->analog_buft);
}

size_t buft_get_max_size(ggml_backend_buffer_type_t buft) {
    return ggml_backend_buft_get_max_size(static_cast<Device *>(buft->context)->analog_buft);
}

size_t buft_get_alloc_size(ggml_backend_buffer_type_t buft, const ggml_tensor * tensor) {
    return ggml_backend_buft_get_alloc_size(static_cast<Device *>(buft->context)->analog_buft, tensor);
}

bool buft_is_host(ggml_backend_buffer_type_t) { return false; }

// ---- device ----

const char * dev_get_name(ggml_backend_dev_t dev) { return dev_ctx(dev).name.c_str(); }
const char * dev_get_description(ggml_backend_dev_t dev) { return dev_ctx(dev).description.c_str(); }

void dev_get_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) {
    const Device & d = dev_ctx(dev);
    if (d.owned()) {
        ggml_backend_dev_memory(d.inner, free, total);
        return;
    }
    *free  = d.memory_free;
    *total = d.memory_total;
}

// GPU, as upstream's remote (RPC) devices: a place to offload layers to, not the host.
enum ggml_backend_dev_type dev_get_type(ggml_backend_dev_t) { return GGML_BACKEND_DEVICE_TYPE_GPU; }

void dev_get_props(ggml_backend_dev_t dev, ggml_backend_dev_props * props) {
    props->name        = dev_get_name(dev);
    props->description = dev_get_description(dev);
    dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->type      = dev_get_type(dev);
    props->device_id = nullptr;
    props->caps      = {.async = false, .host_buffer = false, .buffer_from_host_ptr = false, .events = false};
}

ggml_backend_t dev_init_backend(ggml_backend_dev_t dev, const char * params) { return new_backend(dev_ctx(dev), params); }

ggml_backend_buffer_type_t dev_get_buffer_type(ggml_backend_dev_t dev) { return &dev_ctx(dev).buft; }

// Whether buffer is of an MPI buffer type: an MPI buffer, or a stand-in of one (the meta device asks its simple
// devices about ops with empty buffers of their types in place of its own).
bool of_mpi_type(ggml_backend_buffer_t buffer) {
    return buffer != nullptr && buffer->buft != nullptr && buffer->buft->iface.alloc_buffer == buft_alloc_buffer;
}

// A copy of t that shows no MPI buffer (its own or its view source's): to the analog device the op's tensors then
// look not yet allocated, as the scheduler asks before allocating, and every backend answers for its own memory.
const ggml_tensor * probed(const ggml_tensor * t, ggml_tensor & copy, ggml_tensor & view_copy) {
    if (t == nullptr) {
        return nullptr;
    }
    copy = *t;
    if (of_mpi_type(copy.buffer)) {
        copy.buffer = nullptr;
    }
    if (t->view_src != nullptr) {
        view_copy = *t->view_src;
        if (of_mpi_type(view_copy.buffer)) {
            view_copy.buffer = nullptr;
        }
        copy.view_src = &view_copy;
    }
    return &copy;
}

bool dev_supports_op(ggml_backend_dev_t dev, const ggml_tensor * op) {
    Device &                              d = dev_ctx(dev);
    ggml_tensor                           node, node_view;
    std::array<ggml_tensor, GGML_MAX_SRC> srcs, views;
    probed(op, node, node_view);
    for (int j = 0; j < GGML_MAX_SRC; ++j) {
        node.src[j] = const_cast<ggml_tensor *>(probed(op->src[j], srcs[static_cast<size_t>(j)], views[static_cast<size_t>(j)]));
    }
    return ggml_backend_dev_supports_op(d.analog, &node);
}

bool dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) { return buft == &dev_ctx(dev).buft; }

// ---- reg ----

const char * reg_get_name(ggml_backend_reg_t) { return GGML_MPI_NAME; }
size_t       reg_get_device_count(ggml_backend_reg_t reg) { return static_cast<Reg *>(reg->context)->devices.size(); }

ggml_backend_dev_t reg_get_device(ggml_backend_reg_t reg, size_t index) {
    auto & devices = static_cast<Reg *>(reg->context)->devices;
    return index < devices.size() ? &devices[index]->device : nullptr;
}

void * reg_get_proc_address(ggml_backend_reg_t, const char * name) {
    if (std::strcmp(name, "ggml_backend_set_n_threads") == 0) {
        return reinterpret_cast<void *>(&set_n_threads);
    }
    return comm_proc_address(name);
}

std::vector<Descriptor> describe(const std::vector<ggml_backend_dev_t> & local) {
    std::vector<Descriptor> out;
    for (ggml_backend_dev_t dev : local) {
        if (out.size() == kMaxLocal) {
            break;
        }
        Descriptor d{};
        std::snprintf(d.name, sizeof d.name, "%s", ggml_backend_dev_name(dev));
        std::snprintf(d.description, sizeof d.description, "%s", ggml_backend_dev_description(dev));
        size_t free = 0, total = 0;
        ggml_backend_dev_memory(dev, &free, &total);
        d.memory_free  = free;
        d.memory_total = total;
        out.push_back(d);
    }
    return out;
}

ggml_backend_dev_t find_local(const std::vector<ggml_backend_dev_t> & local, const char * name) {
    for (ggml_backend_dev_t dev : local) {
        if (std::strcmp(ggml_backend_dev_name(dev), name) == 0) {
            return dev;
        }
    }
    return nullptr;
}

std::unique_ptr<Device> make_device(int r, const Descriptor & desc, const std::vector<ggml_backend_dev_t> & local,
                                    ggml_backend_dev_t cpu) {
    auto d          = std::make_unique<Device>();
    d->rank         = r;
    d->name         = "MPI" + std::to_string(r) + ":" + desc.name;
    d->description  = "rank " + std::to_string(r) + ": " + desc.description;
    d->buft_name    = d->name;
    d->memory_free  = desc.memory_free;
    d->memory_total = desc.memory_total;
    ggml_backend_dev_t same = find_local(local, desc.name);
    d->inner        = r == rank() ? same : nullptr;
    d->analog       = same != nullptr ? same : cpu;
    d->analog_buft  = ggml_backend_dev_buffer_type(d->analog);
    d->buft         = {
                .iface =
            {
                        .get_name       = buft_get_name,
                        .alloc_buffer   = buft_alloc_buffer,
                        .get_alignment  = buft_get_alignment,
                        .get_max_size   = buft_get_max_size,
                        .get_alloc_size = buft_get_alloc_size,
                        .is_host        = buft_is_host,
            },
                .device  = &d->device,
                .context = d.get(),
    };
    d->device = {
        .iface =
            {
                .get_name             = dev_get_name,
                .get_description      = dev_get_description,
                .get_memory           = dev_get_memory,
                .get_type             = dev_get_type,
                .get_props            = dev_get_props,
                .init_backend         = dev_init_backend,
                .get_buffer_type      = dev_get_buffer_type,
                .get_host_buffer_type = nullptr,
                .buffer_from_host_ptr = nullptr,
                .supports_op          = dev_supports_op,
                .supports_buft        = dev_supports_buft,
                .offload_op           = nullptr,
                .event_new            = nullptr,
                .event_free           = nullptr,
                .event_synchronize    = nullptr,
            },
        .reg     = &g_reg->reg,
        .context = d.get(),
    };
    return d;
}

} // namespace

ggml_backend_reg_t make_reg(const std::vector<ggml_backend_dev_t> & local) {
    if (g_reg != nullptr) {
        return &g_reg->reg;
    }
    if (!active()) {
        return nullptr;
    }
    ggml_backend_dev_t cpu = nullptr;
    for (ggml_backend_dev_t dev : local) {
        if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU) {
            cpu = dev;
            break;
        }
    }
    if (cpu == nullptr) {
        log_error("[ggml_backend_mpi] no local CPU device: the MPI devices are left out\n");
        return nullptr;
    }
    // every rank's descriptions, kMaxLocal slots a rank (a count first)
    std::vector<Descriptor> mine = describe(local);
    std::vector<Descriptor> slots(kMaxLocal);
    std::copy(mine.begin(), mine.end(), slots.begin());
    const int32_t        count = static_cast<int32_t>(mine.size());
    std::vector<int32_t> counts(static_cast<size_t>(size()));
    std::vector<Descriptor> all(static_cast<size_t>(size()) * kMaxLocal);
    allgather(&count, counts.data(), sizeof count);
    allgather(slots.data(), all.data(), sizeof(Descriptor) * kMaxLocal);

    g_reg      = new Reg(); // lives as long as the process, as the registry
    g_reg->reg = {
        .api_version = GGML_BACKEND_API_VERSION,
        .iface =
            {
                .get_name         = reg_get_name,
                .get_device_count = reg_get_device_count,
                .get_device       = reg_get_device,
                .get_proc_address = reg_get_proc_address,
            },
        .context = g_reg,
    };
    for (int r = 0; r < size(); ++r) {
        for (int i = 0; i < counts[static_cast<size_t>(r)]; ++i) {
            g_reg->devices.push_back(make_device(r, all[static_cast<size_t>(r) * kMaxLocal + static_cast<size_t>(i)], local, cpu));
        }
    }
    return &g_reg->reg;
}

ggml_backend_reg_t current_reg() { return g_reg != nullptr ? &g_reg->reg : nullptr; }

Device * device_of(ggml_backend_dev_t dev) {
    if (dev == nullptr || g_reg == nullptr || dev->reg != &g_reg->reg) {
        return nullptr;
    }
    return &dev_ctx(dev);
}

} // namespace switchyard::mpi

using namespace switchyard;

extern "C" {

int ggml_backend_mpi_dev_rank(ggml_backend_dev_t dev) {
    const mpi::Device * d = mpi::device_of(dev);
    return d != nullptr ? d->rank : -1;
}

} // extern "C"
