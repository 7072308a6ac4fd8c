// Data sets: data and labels in one host buffer, a shard order that shuffles, and batch copies in that order.
#include "opt/opt.h"

#include "ggml-alloc.h"

#include "base/log.h"

#include <algorithm>
#include <cstring>
#include <new>

using namespace switchyard;

namespace {

// Shards per batch for a batch of nb_data bytes of data, or -1 (logged) when it does not fit the data set.
int64_t shards_per_batch(const ggml_opt_dataset * ds, size_t nb_data, int64_t ibatch, const char * caller) {
    if (nb_data == 0 || nb_data % ds->nbs_data != 0) {
        log_error("[%s] a batch of %zu bytes of data is not a whole number of shards (%zu bytes each)\n", caller,
                  nb_data, ds->nbs_data);
        return -1;
    }
    const auto n = static_cast<int64_t>(nb_data / ds->nbs_data);
    if (ibatch < 0 || (ibatch + 1) * n > static_cast<int64_t>(ds->permutation.size())) {
        log_error("[%s] batch %lld of %lld shards is out of range (%zu shards)\n", caller,
                  static_cast<long long>(ibatch), static_cast<long long>(n), ds->permutation.size());
        return -1;
    }
    return n;
}

// Calls copy(shard_in_batch, shard) for every shard of batch ibatch.
template <typename Copy> void for_each_shard(const ggml_opt_dataset * ds, int64_t n, int64_t ibatch, Copy copy) {
    for (int64_t i = 0; i < n; ++i) {
        copy(i, ds->permutation[static_cast<size_t>(ibatch * n + i)]);
    }
}

const char * shard_ptr(const ggml_tensor * t, size_t nbs, int64_t shard) {
    return static_cast<const char *>(t->data) + static_cast<size_t>(shard) * nbs;
}

} // namespace

extern "C" {

ggml_opt_dataset_t ggml_opt_dataset_init(enum ggml_type type_data, enum ggml_type type_label, int64_t ne_datapoint,
                                         int64_t ne_label, int64_t ndata, int64_t ndata_shard) {
    constexpr const char * kName = "ggml_opt_dataset_init";
    if (ne_datapoint <= 0 || ne_label < 0 || ndata <= 0 || ndata_shard <= 0) {
        log_error("[%s] invalid sizes: ne_datapoint %lld (> 0), ne_label %lld (>= 0), ndata %lld (> 0), "
                  "ndata_shard %lld (> 0)\n",
                  kName, static_cast<long long>(ne_datapoint), static_cast<long long>(ne_label),
                  static_cast<long long>(ndata), static_cast<long long>(ndata_shard));
        return nullptr;
    }
    if (type_data < 0 || type_data >= GGML_TYPE_COUNT || type_label < 0 || type_label >= GGML_TYPE_COUNT ||
        ggml_type_size(type_data) == 0 || ggml_type_size(type_label) == 0 || ne_datapoint % ggml_blck_size(type_data) ||
        (ne_label > 0 && ne_label % ggml_blck_size(type_label))) {
        log_error("[%s] invalid types %d / %d for rows of %lld / %lld elements\n", kName, static_cast<int>(type_data),
                  static_cast<int>(type_label), static_cast<long long>(ne_datapoint), static_cast<long long>(ne_label));
        return nullptr;
    }

    auto ds = std::unique_ptr<ggml_opt_dataset>(new (std::nothrow) ggml_opt_dataset);
    if (!ds) {
        log_error("[%s] out of memory\n", kName);
        return nullptr;
    }
    ds->ndata       = ndata;
    ds->ndata_shard = ndata_shard;
    ds->ctx.reset(ggml_init({2 * ggml_tensor_overhead(), nullptr, true}));
    if (!ds->ctx) {
        return nullptr;
    }
    ds->data     = ggml_new_tensor_2d(ds->ctx.get(), type_data, ne_datapoint, ndata);
    ds->nbs_data = ggml_row_size(type_data, ne_datapoint) * static_cast<size_t>(ndata_shard);
    if (ne_label > 0) {
        ds->labels     = ggml_new_tensor_2d(ds->ctx.get(), type_label, ne_label, ndata);
        ds->nbs_labels = ggml_row_size(type_label, ne_label) * static_cast<size_t>(ndata_shard);
    }
    if (!ds->data || (ne_label > 0 && !ds->labels)) {
        return nullptr;
    }
    ggml_set_name(ds->data, "dataset data");
    if (ds->labels) {
        ggml_set_name(ds->labels, "dataset labels");
    }
    ds->buf.reset(ggml_backend_alloc_ctx_tensors_from_buft(ds->ctx.get(), ggml_backend_cpu_buffer_type()));
    if (!ds->buf) {
        log_error("[%s] cannot allocate %lld datapoints\n", kName, static_cast<long long>(ndata));
        return nullptr;
    }
    try {
        // as upstream: ndata / ndata_shard whole shards; datapoints past the last whole shard are in no batch
        ds->permutation.resize(static_cast<size_t>(ndata / ndata_shard));
    } catch (const std::bad_alloc &) {
        log_error("[%s] out of memory\n", kName);
        return nullptr;
    }
    for (size_t i = 0; i < ds->permutation.size(); ++i) {
        ds->permutation[i] = static_cast<int64_t>(i);
    }
    return ds.release();
}

void ggml_opt_dataset_free(ggml_opt_dataset_t dataset) {
    delete dataset;
}

int64_t ggml_opt_dataset_ndata(ggml_opt_dataset_t dataset) {
    if (!dataset) {
        log_error("[ggml_opt_dataset_ndata] dataset is NULL\n");
        return 0;
    }
    return dataset->ndata;
}

struct ggml_tensor * ggml_opt_dataset_data(ggml_opt_dataset_t dataset) {
    if (!dataset) {
        log_error("[ggml_opt_dataset_data] dataset is NULL\n");
        return nullptr;
    }
    return dataset->data;
}

struct ggml_tensor * ggml_opt_dataset_labels(ggml_opt_dataset_t dataset) {
    if (!dataset) {
        log_error("[ggml_opt_dataset_labels] dataset is NULL\n");
        return nullptr;
    }
    return dataset->labels;
}

void ggml_opt_dataset_shuffle(ggml_opt_context_t opt_ctx, ggml_opt_dataset_t dataset, int64_t idata) {
    constexpr const char * kName = "ggml_opt_dataset_shuffle";
    if (!opt_ctx || !dataset) {
        log_error("[%s] %s is NULL\n", kName, opt_ctx ? "dataset" : "opt_ctx");
        return;
    }
    if (idata < 0) {
        std::shuffle(dataset->permutation.begin(), dataset->permutation.end(), opt_ctx->rng);
        return;
    }
    if (idata > dataset->ndata || idata % dataset->ndata_shard != 0) {
        log_error("[%s] idata %lld must be at most ndata %lld and a multiple of the shard size %lld\n", kName,
                  static_cast<long long>(idata), static_cast<long long>(dataset->ndata),
                  static_cast<long long>(dataset->ndata_shard));
        return;
    }
    const auto end = dataset->permutation.begin() + static_cast<ptrdiff_t>(idata / dataset->ndata_shard);
    std::shuffle(dataset->permutation.begin(), end, opt_ctx->rng);
}

void ggml_opt_dataset_get_batch(ggml_opt_dataset_t dataset, struct ggml_tensor * data_batch,
                                struct ggml_tensor * labels_batch, int64_t ibatch) {
    constexpr const char * kName = "ggml_opt_dataset_get_batch";
    if (!dataset || !data_batch) {
        log_error("[%s] %s is NULL\n", kName, dataset ? "data_batch" : "dataset");
        return;
    }
    if ((labels_batch == nullptr) != (dataset->labels == nullptr)) {
        log_error("[%s] labels_batch must be given exactly when the dataset has labels (it %s)\n", kName,
                  dataset->labels ? "has" : "has none");
        return;
    }
    if (!data_batch->data || !ggml_is_contiguous(data_batch) || data_batch->type != dataset->data->type ||
        (labels_batch &&
         (!labels_batch->data || !ggml_is_contiguous(labels_batch) || labels_batch->type != dataset->labels->type))) {
        log_error("[%s] the batch tensors must be allocated, contiguous and of the dataset's types (%s / %s)\n", kName,
                  ggml_type_name(dataset->data->type), dataset->labels ? ggml_type_name(dataset->labels->type) : "-");
        return;
    }
    const int64_t n = shards_per_batch(dataset, ggml_nbytes(data_batch), ibatch, kName);
    if (n < 0) {
        return;
    }
    if (labels_batch && ggml_nbytes(labels_batch) != static_cast<size_t>(n) * dataset->nbs_labels) {
        log_error("[%s] labels_batch has %zu bytes, the batch's labels %zu\n", kName, ggml_nbytes(labels_batch),
                  static_cast<size_t>(n) * dataset->nbs_labels);
        return;
    }
    for_each_shard(dataset, n, ibatch, [&](int64_t i, int64_t shard) {
        const size_t at = static_cast<size_t>(i);
        ggml_backend_tensor_set(data_batch, shard_ptr(dataset->data, dataset->nbs_data, shard), at * dataset->nbs_data,
                                dataset->nbs_data);
        if (labels_batch) {
            ggml_backend_tensor_set(labels_batch, shard_ptr(dataset->labels, dataset->nbs_labels, shard),
                                    at * dataset->nbs_labels, dataset->nbs_labels);
        }
    });
}

void ggml_opt_dataset_get_batch_host(ggml_opt_dataset_t dataset, void * data_batch, size_t nb_data_batch,
                                     void * labels_batch, int64_t ibatch) {
    constexpr const char * kName = "ggml_opt_dataset_get_batch_host";
    if (!dataset || !data_batch) {
        log_error("[%s] %s is NULL\n", kName, dataset ? "data_batch" : "dataset");
        return;
    }
    if ((labels_batch == nullptr) != (dataset->labels == nullptr)) {
        log_error("[%s] labels_batch must be given exactly when the dataset has labels (it %s)\n", kName,
                  dataset->labels ? "has" : "has none");
        return;
    }
    const int64_t n = shards_per_batch(dataset, nb_data_batch, ibatch, kName);
    if (n < 0) {
        return;
    }
    for_each_shard(dataset, n, ibatch, [&](int64_t i, int64_t shard) {
        const size_t at = static_cast<size_t>(i);
        std::memcpy(static_cast<char *>(data_batch) + at * dataset->nbs_data,
                    shard_ptr(dataset->data, dataset->nbs_data, shard), dataset->nbs_data);
        if (labels_batch) {
            std::memcpy(static_cast<char *>(labels_batch) + at * dataset->nbs_labels,
                        shard_ptr(dataset->labels, dataset->nbs_labels, shard), dataset->nbs_labels);
        }
    });
}

} // extern "C"
