// Reference ops of SAM (Segment Anything's image encoder): WIN_PART, WIN_UNPART, GET_REL_POS, ADD_REL_POS, written
// from their definitions (element by element, no shared code with the kernels).
#include "conformance/reference/util.h"

namespace switchyard::testing::reference {

namespace {

bool win_part(ggml_tensor * node) {
    const ggml_tensor * a   = node->src[0];
    const int64_t       npx = param_i32(node, 0), w = param_i32(node, 2);
    for_each(node, [&](int64_t c, int64_t x, int64_t y, int64_t win) {
        const int64_t sx = (win % npx) * w + x, sy = (win / npx) * w + y;
        set(node, c, x, y, win, sx < a->ne[1] && sy < a->ne[2] ? get(a, c, sx, sy, 0) : 0.0f);
    });
    return true;
}

bool win_unpart(ggml_tensor * node) {
    const ggml_tensor * a   = node->src[0];
    const int64_t       w   = param_i32(node, 0);
    const int64_t       npx = (node->ne[1] + w - 1) / w;
    for_each(node, [&](int64_t c, int64_t x, int64_t y, int64_t) {
        set(node, c, x, y, 0, get(a, c, x % w, y % w, (y / w) * npx + x / w));
    });
    return true;
}

bool get_rel_pos(ggml_tensor * node) {
    const ggml_tensor * a  = node->src[0];
    const int64_t       kh = node->ne[1];
    for_each(node, [&](int64_t c, int64_t k, int64_t q, int64_t) { set(node, c, k, q, 0, get(a, c, kh - 1 - k + q, 0, 0)); });
    return true;
}

bool add_rel_pos(ggml_tensor * node) {
    const ggml_tensor * a = node->src[0], *pw = node->src[1], *ph = node->src[2];
    const int64_t       kw = pw->ne[0], qw = pw->ne[1];
    for_each(node, [&](int64_t c, int64_t r, int64_t h, int64_t) {
        const float v = get(a, c, r, h, 0) + get(ph, c / kw, r % qw, r / qw, h) + get(pw, c % kw, r % qw, r / qw, h);
        set(node, c, r, h, 0, v);
    });
    return true;
}

} // namespace

bool sam(ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_WIN_PART:       return win_part(node);
        case GGML_OP_WIN_UNPART:     return win_unpart(node);
        case GGML_OP_GET_REL_POS:    return get_rel_pos(node);
        case GGML_OP_ADD_REL_POS:    return add_rel_pos(node);
        default:                     return false;
    }
}

} // namespace switchyard::testing::reference
