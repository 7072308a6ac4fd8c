// The one table of ops the Vulkan backend computes (see ops.h).
#include "core/op_traits.h"
#include "vulkan/ops.h"

#include <array>
#include <vector>

namespace switchyard::vulkan {

namespace {

constexpr std::array<OpInfo, GGML_OP_COUNT> make_table() {
    std::array<OpInfo, GGML_OP_COUNT> t{};
    auto set = [&](ggml_op op, SupportsFn s, RecordFn r, MapFn m = nullptr) { t[op] = {s, r, m}; };
    for (ggml_op op : {GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV}) {
        set(op, ops::supports_binary, ops::record_binary, ops::map_binary);
    }
    for (ggml_op op : {GGML_OP_UNARY, GGML_OP_SCALE, GGML_OP_CLAMP, GGML_OP_SQR, GGML_OP_SQRT, GGML_OP_LOG,
                       GGML_OP_SIN, GGML_OP_COS, GGML_OP_LEAKY_RELU}) {
        set(op, ops::supports_unary, ops::record_unary, ops::map_unary);
    }
    for (ggml_op op : {GGML_OP_CPY, GGML_OP_CONT, GGML_OP_DUP}) {
        set(op, ops::supports_copy, ops::record_copy, ops::map_copy);
    }
    for (ggml_op op : {GGML_OP_NORM, GGML_OP_RMS_NORM, GGML_OP_L2_NORM}) {
        set(op, ops::supports_norm, ops::record_norm, ops::map_norm);
    }
    set(GGML_OP_GLU, ops::supports_glu, ops::record_glu, ops::map_glu);
    set(GGML_OP_SOFT_MAX, ops::supports_softmax, ops::record_softmax, ops::map_softmax);
    set(GGML_OP_ROPE, ops::supports_rope, ops::record_rope, ops::map_rope);
    set(GGML_OP_GET_ROWS, ops::supports_get_rows, ops::record_get_rows, ops::map_get_rows);
    set(GGML_OP_SET_ROWS, ops::supports_set_rows, ops::record_set_rows);
    set(GGML_OP_MUL_MAT, ops::supports_mul_mat, ops::record_mul_mat, ops::map_mul_mat);
    set(GGML_OP_MUL_MAT_ID, ops::supports_mul_mat_id, ops::record_mul_mat_id, ops::map_mul_mat_id);
    for (ggml_op op : {GGML_OP_SUM_ROWS, GGML_OP_MEAN, GGML_OP_SUM, GGML_OP_ARGMAX}) {
        set(op, ops::supports_reduce, ops::record_reduce, ops::map_reduce);
    }
    for (ggml_op op : {GGML_OP_ARGSORT, GGML_OP_TOP_K}) {
        set(op, ops::supports_sort, ops::record_sort, ops::map_sort);
    }
    for (ggml_op op : {GGML_OP_CONCAT, GGML_OP_PAD, GGML_OP_REPEAT, GGML_OP_ARANGE, GGML_OP_ROLL, GGML_OP_FILL,
                       GGML_OP_DIAG_MASK_INF, GGML_OP_DIAG_MASK_ZERO, GGML_OP_TRI, GGML_OP_DIAG}) {
        set(op, ops::supports_layout, ops::record_layout);
    }
    for (ggml_op op : {GGML_OP_SSM_CONV, GGML_OP_CUMSUM, GGML_OP_PAD_REFLECT_1D, GGML_OP_TIMESTEP_EMBEDDING}) {
        set(op, ops::supports_misc, ops::record_misc);
    }
    set(GGML_OP_ADD_ID, ops::supports_add_id, ops::record_add_id, ops::map_add_id);
    set(GGML_OP_IM2COL, ops::supports_im2col, ops::record_im2col);
    set(GGML_OP_FLASH_ATTN_EXT, ops::supports_flash_attn, ops::record_flash_attn);
    return t;
}

constexpr std::array<OpInfo, GGML_OP_COUNT> kTable = make_table();

} // namespace

const OpInfo & op_info(ggml_op op) { return kTable[op]; }

bool fits_windows(const Device & device, const ggml_tensor * node) {
    const uint64_t limit = device.max_window();
    if (!fits_window(node, limit)) {
        return false;
    }
    for (const ggml_tensor * src : node->src) {
        if (src != nullptr && !fits_window(src, limit)) {
            return false;
        }
    }
    return true;
}

namespace {

// Whether node can be recorded on device, and how: in one piece (pieces left empty) or in the pieces listed
// (pieces may be nullptr).
bool plan(const Device & device, const ggml_tensor * node, std::vector<Piece> * pieces, SplitMap & map) {
    const OpInfo & info = op_info(node->op);
    if (info.map == nullptr || !info.map(node, map)) {
        return fits_windows(device, node);
    }
    bool whole = fits_windows(device, node);
    for (int s = 0; s < GGML_MAX_SRC && whole; ++s) {
        whole = node->src[s] == nullptr || fits_window(node->src[s], device.max_window(), map.scratch_bytes[s]);
    }
    if (whole) {
        return true;
    }
    std::vector<Piece> list;
    if (!split_node(node, map, device.max_window(), &list)) {
        return false;
    }
    if (pieces != nullptr && list.size() > 1) {
        *pieces = std::move(list);
    }
    return true;
}

} // namespace

bool fits_device(const Device & device, const ggml_tensor * node) {
    const size_t largest = device.max_buffer_size();
    if (ggml_nbytes(node) > largest) {
        return false;
    }
    for (const ggml_tensor * src : node->src) {
        if (src != nullptr && ggml_nbytes(src) > largest) {
            return false;
        }
    }
    SplitMap map;
    return plan(device, node, nullptr, map);
}

bool record_node(Recorder & rec, const ggml_tensor * node) {
    const OpInfo &     info = op_info(node->op);
    SplitMap           map;
    std::vector<Piece> pieces;
    if (!plan(rec.device(), node, &pieces, map)) {
        return false; // fits_device keeps this from happening
    }
    if (pieces.empty()) {
        return info.record(rec, node);
    }
    for (const Piece & piece : pieces) {
        Part part;
        make_part(node, map, piece, part);
        rec.set_gather(part.gather);
        const bool ok = info.record(rec, &part.node);
        rec.set_gather({});
        if (!ok) {
            return false;
        }
    }
    return true;
}

bool is_empty_op(ggml_op op) { return op_is_empty(op); }

} // namespace switchyard::vulkan
