// The objects behind the MPI reg (include/ggml-mpi.h, docs/distributed.md):
//   Device   one device of one rank, "MPI<r>:<name>": on its own rank it wraps the local device `inner`;
//            elsewhere it is a stand-in that answers as this rank's device of the same name (`analog`) would
//            (device.cpp, with the reg and the buffer type)
//   Buffer   memory on the owner (a buffer of inner's buffer type), a placeholder elsewhere (buffer.cpp)
//   Backend  a stream: the owner computes on inner's backend, the others return at once (backend.cpp)
#pragma once

#include "ggml-backend-impl.h"
#include "ggml-mpi.h"

#include <string>
#include <vector>

namespace switchyard::mpi {

struct Device {
    int                        rank = 0;
    std::string                name, description;
    size_t                     memory_free = 0, memory_total = 0;
    ggml_backend_dev_t         inner       = nullptr; // the local device on its own rank, else NULL
    ggml_backend_dev_t         analog      = nullptr; // the local device that answers for it
    ggml_backend_buffer_type_t analog_buft = nullptr;
    ggml_backend_device        device{};
    ggml_backend_buffer_type   buft{};
    std::string                buft_name;

    bool owned() const { return inner != nullptr; }
};

// The reg over the local devices of every rank (registry.cpp passes this rank's); NULL without MPI.
ggml_backend_reg_t make_reg(const std::vector<ggml_backend_dev_t> & local);

ggml_backend_reg_t current_reg();             // the reg make_reg made, or NULL
Device *           device_of(ggml_backend_dev_t dev); // NULL if dev is not an MPI device

// buffer.cpp
ggml_backend_buffer_t new_buffer(Device & dev, size_t size);
bool                  is_mpi_buffer(ggml_backend_buffer_t buffer);
// The buffer holding t's bytes (its view source's for a view); the owner's rank of an MPI buffer; on the owner,
// the local buffer behind it (NULL elsewhere).
ggml_backend_buffer_t root_buffer(const ggml_tensor * t);
int                   owner_of(ggml_backend_buffer_t mpi_buffer);
ggml_backend_buffer_t inner_of(ggml_backend_buffer_t mpi_buffer);

// backend.cpp
ggml_backend_t new_backend(Device & dev, const char * params);
void *         comm_proc_address(const char * name); // the meta device's all-reduce entry points, or NULL
void           set_n_threads(ggml_backend_t backend, int n_threads);

} // namespace switchyard::mpi
