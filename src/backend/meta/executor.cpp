// Running a Program: scratch memory for its temporaries, then its steps in order. Compute steps run on all
// devices at once: each device's nodes become one graph, submitted by its own worker thread (a synchronous
// backend such as the CPU computes during the call, so the devices work in parallel). Gather steps wait for
// the devices, read the tensor's logical value and write it whole to every device; AllReduce steps wait for the
// devices, zero the parts of devices that skipped the node, and sum (allreduce.cpp).
#include "backend/meta/backend.h"

#include "base/log.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace switchyard::meta {

//
// Workers
//

Workers::Workers(int n) {
    try {
        threads_.reserve(static_cast<size_t>(n > 1 ? n - 1 : 0));
        for (int d = 1; d < n; ++d) {
            threads_.emplace_back(&Workers::loop, this, d);
        }
    } catch (...) {
        // a thread that cannot be started: stop the ones that did (a joinable std::thread must not be destroyed)
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        start_cv_.notify_all();
        for (std::thread & t : threads_) {
            t.join();
        }
        throw;
    }
}

Workers::~Workers() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    start_cv_.notify_all();
    for (std::thread & t : threads_) {
        t.join();
    }
}

void Workers::run(const std::function<void(int)> & fn) {
    if (threads_.empty()) {
        fn(0);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        job_     = &fn;
        pending_ = static_cast<int>(threads_.size());
        ++generation_;
    }
    start_cv_.notify_all();
    fn(0);
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
    job_ = nullptr;
}

void Workers::loop(int d) {
    uint64_t seen = 0;
    for (;;) {
        const std::function<void(int)> * job = nullptr;
        {
            std::unique_lock lock(mutex_);
            start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) {
                return;
            }
            seen = generation_;
            job  = job_;
        }
        (*job)(d);
        std::lock_guard lock(mutex_);
        if (--pending_ == 0) {
            done_cv_.notify_all();
        }
    }
}

namespace {

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Places the program's temporaries in the devices' scratch buffers (grown as needed; the devices are idle).
bool bind_temps(MetaBackend & mb, Program & prog) {
    for (int d = 0; d < mb.n(); ++d) {
        ggml_backend_buffer_type_t buft  = mb.dev->bufts[static_cast<size_t>(d)];
        const size_t               align = ggml_backend_buft_get_alignment(buft);
        size_t                     total = 0;
        for (const ggml_tensor * t : prog.temps[static_cast<size_t>(d)]) {
            total += align_up(ggml_backend_buft_get_alloc_size(buft, t), align);
        }
        if (total == 0) {
            continue;
        }
        ggml_backend_buffer_t & scratch = mb.scratch[static_cast<size_t>(d)];
        if (scratch == nullptr || ggml_backend_buffer_get_size(scratch) < total) {
            ggml_backend_buffer_free(scratch);
            scratch = ggml_backend_buft_alloc_buffer(buft, total);
            if (scratch == nullptr) {
                return false;
            }
        }
        char * at = static_cast<char *>(ggml_backend_buffer_get_base(scratch));
        for (ggml_tensor * t : prog.temps[static_cast<size_t>(d)]) {
            if (ggml_backend_tensor_alloc(scratch, t, at) != GGML_STATUS_SUCCESS) {
                return false;
            }
            at += align_up(ggml_backend_buft_get_alloc_size(buft, t), align);
        }
    }
    for (ggml_tensor * v : prog.views) {
        v->buffer = v->view_src->buffer;
        v->data   = static_cast<char *>(v->view_src->data) + v->view_offs;
    }
    return true;
}

// One context for the graphs of all Compute steps: it stays alive until the next run, as asynchronous devices
// may still work on them.
bool make_graph_context(MetaBackend & mb, const Program & prog) {
    size_t ctx_size = 1024;
    for (const Step & step : prog.steps) {
        for (const auto & list : step.nodes) {
            ctx_size += ggml_graph_overhead_custom(std::max<size_t>(list.size(), 1), false);
        }
    }
    ggml_free(mb.graph_ctx);
    ggml_init_params params{ctx_size, nullptr, true};
    mb.graph_ctx = ggml_init(params);
    return mb.graph_ctx != nullptr;
}

ggml_status run_compute(MetaBackend & mb, const Step & step) {
    std::vector<ggml_cgraph *> graphs(static_cast<size_t>(mb.n()), nullptr);
    for (int d = 0; d < mb.n(); ++d) {
        const auto & list = step.nodes[static_cast<size_t>(d)];
        graphs[static_cast<size_t>(d)] = ggml_new_graph_custom(mb.graph_ctx, std::max<size_t>(list.size(), 1), false);
        for (ggml_tensor * node : list) {
            ggml_graph_add_node(graphs[static_cast<size_t>(d)], node);
        }
    }
    std::vector<ggml_status> status(static_cast<size_t>(mb.n()), GGML_STATUS_SUCCESS);
    mb.workers->run([&](int d) {
        if (!step.nodes[static_cast<size_t>(d)].empty()) {
            status[static_cast<size_t>(d)] =
                ggml_backend_graph_compute_async(mb.simple[static_cast<size_t>(d)], graphs[static_cast<size_t>(d)]);
        }
    });
    for (int d = 0; d < mb.n(); ++d) {
        if (status[static_cast<size_t>(d)] != GGML_STATUS_SUCCESS) {
            log_error("[ggml_backend_meta] computation on %s failed: %s\n", ggml_backend_name(mb.simple[static_cast<size_t>(d)]),
                      ggml_status_to_string(status[static_cast<size_t>(d)]));
            return status[static_cast<size_t>(d)];
        }
    }
    return GGML_STATUS_SUCCESS;
}

// The logical value of a tensor with its own memory, wherever it lives.
bool read_whole(const ggml_tensor * root, std::vector<uint8_t> & image) {
    image.resize(ggml_nbytes(root));
    if (meta_buffer_of(root) != nullptr) {
        return transfer_get(root, image.data(), 0, image.size());
    }
    if (root->buffer != nullptr) {
        ggml_backend_tensor_get(root, image.data(), 0, image.size());
        return true;
    }
    if (root->data != nullptr) {
        std::memcpy(image.data(), root->data, image.size());
        return true;
    }
    log_error("[ggml_backend_meta] tensor '%s' has no data to gather\n", root->name);
    return false;
}

ggml_status run_gather(MetaBackend & mb, const Step & step) {
    synchronize_all(mb);
    std::vector<uint8_t> image;
    if (!read_whole(step.source, image)) {
        return GGML_STATUS_FAILED;
    }
    for (int d = 0; d < mb.n(); ++d) {
        ggml_backend_tensor_set(step.tensors[static_cast<size_t>(d)], image.data(), 0, image.size());
    }
    return GGML_STATUS_SUCCESS;
}

ggml_status run_allreduce(MetaBackend & mb, const Step & step) {
    synchronize_all(mb);
    for (int d = 0; d < mb.n(); ++d) {
        ggml_tensor * t = step.tensors[static_cast<size_t>(d)];
        if (step.zero[static_cast<size_t>(d)]) {
            std::vector<uint8_t> zeros(ggml_nbytes(t), 0);
            ggml_backend_tensor_set(t, zeros.data(), 0, zeros.size());
        }
    }
    return allreduce(mb, step.tensors);
}

} // namespace

void synchronize_all(MetaBackend & mb) {
    for (ggml_backend_t backend : mb.simple) {
        ggml_backend_synchronize(backend);
    }
}

ggml_status run_program(MetaBackend & mb, Program & prog) {
    if (!bind_temps(mb, prog) || !make_graph_context(mb, prog)) {
        log_error("[ggml_backend_meta] out of memory for temporaries\n");
        return GGML_STATUS_ALLOC_FAILED;
    }
    for (const Step & step : prog.steps) {
        ggml_status status = GGML_STATUS_SUCCESS;
        switch (step.kind) {
            case Step::Kind::Compute:   status = run_compute(mb, step); break;
            case Step::Kind::Gather:    status = run_gather(mb, step); break;
            case Step::Kind::AllReduce: status = run_allreduce(mb, step); break;
        }
        if (status != GGML_STATUS_SUCCESS) {
            return status;
        }
    }
    return GGML_STATUS_SUCCESS;
}

} // namespace switchyard::meta
