// Reference data-movement ops: copies and conversions, repeat, concat, set/acc into views, padding, row
// gathers/scatters, ranges, embeddings, sorting and the diagonal masks.
#include "conformance/reference/util.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace switchyard::testing::reference {

namespace {

std::vector<float> flat_values(const ggml_tensor * a) {
    std::vector<float> v;
    v.reserve(static_cast<size_t>(ggml_nelements(a)));
    for_each(a, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { v.push_back(get(a, i0, i1, i2, i3)); });
    return v;
}

// Writes values (logical order) into t, row by row (block formats are quantized per row).
void write_flat(ggml_tensor * t, const std::vector<float> & v) {
    size_t k = 0;
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1, k += static_cast<size_t>(t->ne[0])) set_row(t, i1, i2, i3, &v[k]);
}

// A view of dst with b's shape at byte offset `offset` and strides (elem, nb1, nb2, nb3).
ggml_tensor strided_view(ggml_tensor * dst, const ggml_tensor * b, size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    ggml_tensor v = *dst;
    for (int i = 0; i < 4; ++i) v.ne[i] = b->ne[i];
    v.nb[1] = nb1, v.nb[2] = nb2, v.nb[3] = nb3;
    v.data  = static_cast<char *>(dst->data) + offset;
    return v;
}

bool set_or_acc(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *b = node->src[1];
    const bool          inplace = param_i32(node, 4) != 0;
    if (!inplace) {
        write_flat(node, flat_values(a));
    }
    ggml_tensor v = strided_view(node, b, static_cast<size_t>(param_i32(node, 0)), static_cast<size_t>(param_i32(node, 1)),
                                 static_cast<size_t>(param_i32(node, 2)), static_cast<size_t>(param_i32(node, 3)));
    for_each(b, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        const float x = get(b, i0, i1, i2, i3);
        set(&v, i0, i1, i2, i3, node->op == GGML_OP_ACC ? get(&v, i0, i1, i2, i3) + x : x);
    });
    return true;
}

bool concat(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *b = node->src[1];
    const int           dim = param_i32(node, 0);
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        int64_t i[4] = {i0, i1, i2, i3};
        float   v;
        if (i[dim] < a->ne[dim]) {
            v = get(a, i0, i1, i2, i3);
        } else {
            i[dim] -= a->ne[dim];
            v = get(b, i[0], i[1], i[2], i[3]);
        }
        set(node, i0, i1, i2, i3, v);
    });
    return true;
}

bool pad(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0];
    const int64_t       lp[4] = {param_i32(node, 0), param_i32(node, 2), param_i32(node, 4), param_i32(node, 6)};
    const bool          circular = param_i32(node, 8) != 0; // ggml_pad_ext_circular: a repeated around
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        int64_t j[4] = {i0 - lp[0], i1 - lp[1], i2 - lp[2], i3 - lp[3]};
        bool    in   = true;
        for (int d = 0; d < 4; ++d) {
            if (circular) j[d] = ((j[d] % a->ne[d]) + a->ne[d]) % a->ne[d];
            in = in && j[d] >= 0 && j[d] < a->ne[d];
        }
        set(node, i0, i1, i2, i3, in ? get(a, j[0], j[1], j[2], j[3]) : 0.0f);
    });
    return true;
}

bool get_rows(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *idx = node->src[1];
    for_each(node, [&](int64_t i0, int64_t r, int64_t i2, int64_t i3) {
        set(node, i0, r, i2, i3, get(a, i0, get_index(idx, r, i2, i3, 0), i2, i3));
    });
    return true;
}

bool set_rows(ggml_tensor * node) {
    // the result is a view of the destination; src[0] holds the rows, src[1] the row indices
    const ggml_tensor * b = node->src[0], *idx = node->src[1];
    std::vector<float>  row(static_cast<size_t>(b->ne[0]));
    for (int64_t i3 = 0; i3 < b->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < b->ne[2]; ++i2)
            for (int64_t r = 0; r < b->ne[1]; ++r) {
                const int64_t dst_row = get_index(idx, r, i2 % idx->ne[1], i3 % idx->ne[2], 0);
                for (int64_t i0 = 0; i0 < b->ne[0]; ++i0) row[static_cast<size_t>(i0)] = get(b, i0, r, i2, i3);
                set_row(node, dst_row, i2, i3, row.data());
            }
    return true;
}

bool timestep_embedding(ggml_tensor * node) {
    const ggml_tensor * ts         = node->src[0];
    const int           dim        = param_i32(node, 0);
    const int           max_period = param_i32(node, 1);
    const int           half       = dim / 2;
    for (int64_t i = 0; i < ts->ne[0]; ++i) {
        const double t = get(ts, i, 0, 0, 0);
        for (int j = 0; j < half; ++j) {
            const double freq = std::exp(-std::log(static_cast<double>(max_period)) * j / half);
            set(node, j, i, 0, 0, static_cast<float>(std::cos(t * freq)));
            set(node, j + half, i, 0, 0, static_cast<float>(std::sin(t * freq)));
        }
        for (int64_t j = 2 * half; j < node->ne[0]; ++j) set(node, j, i, 0, 0, 0.0f);
    }
    return true;
}

bool sort_rows(ggml_tensor * node) {
    const ggml_tensor * a    = node->src[0];
    const bool          desc = node->op == GGML_OP_TOP_K || param_i32(node, 0) == GGML_SORT_ORDER_DESC;
    std::vector<float>  vals(static_cast<size_t>(a->ne[0]));
    std::vector<int>    idx(vals.size());
    for (int64_t i3 = 0; i3 < a->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < a->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < a->ne[1]; ++i1) {
                for (int64_t i0 = 0; i0 < a->ne[0]; ++i0) vals[static_cast<size_t>(i0)] = get(a, i0, i1, i2, i3);
                std::iota(idx.begin(), idx.end(), 0);
                std::stable_sort(idx.begin(), idx.end(), [&](int x, int y) {
                    return desc ? vals[static_cast<size_t>(x)] > vals[static_cast<size_t>(y)] : vals[static_cast<size_t>(x)] < vals[static_cast<size_t>(y)];
                });
                for (int64_t i0 = 0; i0 < node->ne[0]; ++i0) set(node, i0, i1, i2, i3, static_cast<float>(idx[static_cast<size_t>(i0)]));
            }
    return true;
}

// DIAG_MASK_INF / DIAG_MASK_ZERO: elements past the diagonal shifted by n_past (op_params i32 [0]) become masked
bool diag_mask(ggml_tensor * node, float masked) {
    const ggml_tensor * a      = node->src[0];
    const int64_t       n_past = param_i32(node, 0);
    for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
        set(node, i0, i1, i2, i3, i0 > n_past + i1 ? masked : get(a, i0, i1, i2, i3));
    });
    return true;
}

} // namespace

bool layout(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_DUP:
        case GGML_OP_CONT:
        case GGML_OP_CPY: write_flat(node, flat_values(node->src[0])); return true;
        case GGML_OP_REPEAT: {
            const ggml_tensor * a = node->src[0];
            for_each(node, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
                set(node, i0, i1, i2, i3, get(a, i0 % a->ne[0], i1 % a->ne[1], i2 % a->ne[2], i3 % a->ne[3]));
            });
            return true;
        }
        case GGML_OP_CONCAT: return concat(node);
        case GGML_OP_SET:
        case GGML_OP_ACC: return set_or_acc(node);
        case GGML_OP_PAD: return pad(node);
        case GGML_OP_GET_ROWS: return get_rows(node);
        case GGML_OP_SET_ROWS: return set_rows(node);
        case GGML_OP_DIAG_MASK_INF: return diag_mask(node, -INFINITY);
        case GGML_OP_DIAG_MASK_ZERO: return diag_mask(node, 0.0f);
        case GGML_OP_ARANGE: {
            const float start = param_f32(node, 0), step = param_f32(node, 2);
            for (int64_t i = 0; i < node->ne[0]; ++i) set(node, i, 0, 0, 0, start + static_cast<float>(i) * step);
            return true;
        }
        case GGML_OP_TIMESTEP_EMBEDDING: return timestep_embedding(node);
        case GGML_OP_ARGSORT:
        case GGML_OP_TOP_K: return sort_rows(node);
        default: return false;
    }
}

} // namespace switchyard::testing::reference
