// Execution: for each split, copy its inputs into the current pipeline slot's copies, then compute the split on
// its backend; events (where the device has them) order the copies against earlier uses of the same slot.
#include "backend/sched/sched.h"

#include "base/log.h"
#include "core/graph.h"

#include <cstdio>

namespace switchyard::sched {

namespace {

ggml_backend_event_t slot_event(ggml_backend_sched * sched, int backend_id) {
    return sched->events[backend_id][sched->cur_copy].get();
}

// Waits (on the host) until the split backend no longer uses this slot's copies.
void wait_slot_host(ggml_backend_sched * sched, int backend_id) {
    if (ggml_backend_event_t ev = slot_event(sched, backend_id)) {
        ggml_backend_event_synchronize(ev);
    } else {
        ggml_backend_synchronize(sched->backends[backend_id]);
    }
}

void copy_input(ggml_backend_sched * sched, const Split & split, ggml_tensor * input) {
    const int      split_id      = split.backend_id;
    ggml_backend_t split_backend = sched->backends[split_id];
    const int      input_id      = tensor_backend_id(sched, input->view_src ? input->view_src : input);
    ggml_backend_t input_backend = sched->backends[input_id >= 0 ? input_id : sched->n_backends - 1];
    ggml_tensor *  input_cpy     = sched->copies[input][split_id][sched->cur_copy];
    const int64_t  t0            = sched->trace ? ggml_time_us() : 0;

    if (input->flags & GGML_TENSOR_FLAG_INPUT) {
        // the user may overwrite the input right after compute_async returns: copy now, blocking
        wait_slot_host(sched, split_id);
        ggml_backend_tensor_copy(input, input_cpy);
    } else {
        if (ggml_backend_event_t ev = slot_event(sched, split_id)) {
            ggml_backend_event_wait(split_backend, ev);
        } else {
            ggml_backend_synchronize(split_backend);
        }
        const bool async = split_backend->iface.cpy_tensor_async &&
                           split_backend->iface.cpy_tensor_async(input_backend, split_backend, input, input_cpy);
        if (!async) {
            ggml_backend_synchronize(input_backend);
            wait_slot_host(sched, split_id);
            ggml_backend_tensor_copy(input, input_cpy);
        }
    }
    if (sched->trace) {
        trace_slice(sched, split_id, input->name, "copy", t0, ggml_time_us(), ggml_nbytes(input));
    }
}

// Computes the split node range by range, stopping after each node the callback wants to observe.
// Returns ABORTED when the callback cancels.
ggml_status compute_with_callback(ggml_backend_sched * sched, Split & split) {
    ggml_backend_t backend = sched->backends[split.backend_id];
    ggml_cgraph &  g       = split.graph;
    for (int j0 = 0; j0 < g.n_nodes;) {
        int  j1   = j0;
        bool want = sched->callback_eval(g.nodes[j1], true, sched->callback_eval_user_data);
        while (!want && j1 + 1 < g.n_nodes) {
            ++j1;
            want = sched->callback_eval(g.nodes[j1], true, sched->callback_eval_user_data);
        }
        ggml_cgraph       gv     = graph_view(&g, j0, j1 + 1);
        const ggml_status status = ggml_backend_graph_compute_async(backend, &gv);
        if (status != GGML_STATUS_SUCCESS) {
            return status;
        }
        ggml_backend_synchronize(backend);
        if (want && !sched->callback_eval(g.nodes[j1], false, sched->callback_eval_user_data)) {
            return GGML_STATUS_ABORTED;
        }
        j0 = j1 + 1;
    }
    return GGML_STATUS_SUCCESS;
}

ggml_status compute_split(ggml_backend_sched * sched, Split & split) {
    ggml_backend_t backend = sched->backends[split.backend_id];
    const int64_t  t0      = sched->trace ? ggml_time_us() : 0;
    ggml_status    status;
    if (sched->callback_eval) {
        status = compute_with_callback(sched, split);
    } else {
        status = ggml_backend_graph_compute_async(backend, &split.graph);
        if (sched->trace) {
            ggml_backend_synchronize(backend); // the trace measures the split, not its submission
        }
    }
    if (sched->trace) {
        char name[64];
        std::snprintf(name, sizeof(name), "split %d-%d", split.i_start, split.i_end);
        trace_slice(sched, split.backend_id, name, "compute", t0, ggml_time_us(), 0);
    }
    return status;
}

} // namespace

ggml_status compute_splits(ggml_backend_sched * sched) {
    if (sched->trace) {
        trace_begin(sched);
    }
    int prev_backend = -1;
    for (Split & split : sched->splits) {
        if (split.inputs.empty() && prev_backend >= 0 && prev_backend != split.backend_id) {
            // the allocator may reuse memory across splits: the previous backend must be done with it
            ggml_backend_synchronize(sched->backends[prev_backend]);
        }
        for (ggml_tensor * input : split.inputs) {
            copy_input(sched, split, input);
        }
        const ggml_status status = compute_split(sched, split);
        if (status != GGML_STATUS_SUCCESS) {
            if (status != GGML_STATUS_ABORTED) {
                log_error("[ggml_backend_sched_graph_compute] split on %s failed: %s\n",
                          ggml_backend_name(sched->backends[split.backend_id]), ggml_status_to_string(status));
            }
            if (sched->trace) {
                trace_end(sched);
            }
            return status;
        }
        if (ggml_backend_event_t ev = slot_event(sched, split.backend_id)) {
            ggml_backend_event_record(ev, sched->backends[split.backend_id]);
        }
        prev_backend = split.backend_id;
    }
    if (sched->trace) {
        for (int i = 0; i < sched->n_backends; ++i) {
            ggml_backend_synchronize(sched->backends[i]);
        }
        trace_end(sched);
    }
    return GGML_STATUS_SUCCESS;
}

} // namespace switchyard::sched
