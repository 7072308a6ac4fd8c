// Cutting a node into parts whose operands each fit one descriptor window (split.h). The destination's box is
// cut from the outermost splittable dimension inwards: along a dimension, the longest run of indices whose
// operands fit is taken repeatedly; where even one step does not fit, each step is cut along the next dimension
// in. A gathered source dimension is then cut into the longest windows that fit, for each box.
#include "vulkan/split.h"

#include <numeric>

namespace switchyard::vulkan {

namespace {

// The sizes of the views a box reads: the destination's and every source's extents (a gathered dimension at
// `gather_count`).
struct Extents {
    int64_t dst[4];
    int64_t src[GGML_MAX_SRC][4];
};

// [begin, end) of dimension k of source s that the box reads
void source_range(const ggml_tensor * node, const ggml_tensor * src, SourceDim m, int k, const Piece & box,
                  int64_t & begin, int64_t & end) {
    begin = 0;
    end   = src->ne[k];
    if (src->ne[k] == 1) {
        return; // broadcast: whole whatever the rule
    }
    const int     d  = m.dst_dim;
    const int64_t nd = node->ne[d];
    switch (m.follow) {
        case Follow::Same:
            begin = box.begin[d], end = box.end[d];
            return;
        case Follow::Repeat:
            if (src->ne[k] == nd) {
                begin = box.begin[d], end = box.end[d];
            }
            return;
        case Follow::Ratio: {
            const int64_t r = nd / src->ne[k];
            begin = box.begin[d] / r, end = (box.end[d] + r - 1) / r;
            return;
        }
        default: return;
    }
}

// A view of t with extents ne (same strides, no data): what fits_window measures.
ggml_tensor with_extents(const ggml_tensor * t, const int64_t ne[4]) {
    ggml_tensor v = *t;
    for (int i = 0; i < 4; ++i) {
        v.ne[i] = ne[i];
    }
    return v;
}

class Splitter {
public:
    Splitter(const ggml_tensor * node, const SplitMap & map, uint64_t limit, std::vector<Piece> * out, size_t max)
        : node_(node), map_(map), limit_(limit), out_(out), max_(max) {
        for (int s = 0; s < GGML_MAX_SRC; ++s) {
            for (int k = 0; k < 4; ++k) {
                if (node->src[s] != nullptr && map.src[s][k].follow == Follow::Gather) {
                    gather_src_ = s, gather_dim_ = k;
                }
            }
        }
    }

    bool run() {
        Piece whole;
        for (int d = 0; d < 4; ++d) {
            whole.end[d] = node_->ne[d];
        }
        return cut(whole, 3);
    }

private:
    // the step a range of destination dimension d must be a multiple of (ne when d cannot be cut)
    int64_t step(int d) const {
        if (!map_.splits[d]) {
            return node_->ne[d];
        }
        int64_t st = 1;
        for (int s = 0; s < GGML_MAX_SRC; ++s) {
            const ggml_tensor * src = node_->src[s];
            for (int k = 0; src != nullptr && k < 4; ++k) {
                const SourceDim m = map_.src[s][k];
                if (m.dst_dim != d || src->ne[k] == 1 || src->ne[k] == node_->ne[d]) {
                    continue;
                }
                if (m.follow == Follow::Repeat) {
                    st = std::lcm(st, src->ne[k]);
                } else if (m.follow == Follow::Ratio) {
                    st = std::lcm(st, node_->ne[d] / src->ne[k]);
                }
            }
        }
        return std::min(st, node_->ne[d]);
    }

    bool fits(const Piece & box, int64_t gather_count) const {
        int64_t ne[4];
        for (int d = 0; d < 4; ++d) {
            ne[d] = box.end[d] - box.begin[d];
        }
        const ggml_tensor dst = with_extents(node_, ne);
        if (!fits_window(&dst, limit_)) {
            return false;
        }
        for (int s = 0; s < GGML_MAX_SRC; ++s) {
            const ggml_tensor * src = node_->src[s];
            if (src == nullptr) {
                continue;
            }
            for (int k = 0; k < 4; ++k) {
                int64_t b, e;
                source_range(node_, src, map_.src[s][k], k, box, b, e);
                ne[k] = s == gather_src_ && k == gather_dim_ ? gather_count : e - b;
            }
            const ggml_tensor view = with_extents(src, ne);
            if (!fits_window(&view, limit_, map_.scratch_bytes[s])) {
                return false;
            }
        }
        return true;
    }

    // the largest n in [0, most] for which fits(n) holds, fits being monotone (false from some n on)
    template <class F> static int64_t longest(int64_t most, F && fits_n) {
        int64_t lo = 0, hi = most;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo + 1) / 2;
            if (fits_n(mid)) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    bool emit(const Piece & box) {
        if (gather_src_ < 0) {
            return push(box);
        }
        const int64_t total = node_->src[gather_src_]->ne[gather_dim_];
        const int64_t n     = longest(total, [&](int64_t c) { return c == 0 || fits(box, c); });
        if (n == 0) {
            return false;
        }
        for (int64_t first = 0; first < total; first += n) {
            Piece piece  = box;
            piece.gather = {first, std::min(n, total - first), total};
            if (!push(piece)) {
                return false;
            }
        }
        return true;
    }

    bool push(const Piece & piece) {
        if (++count_ > max_) {
            return false;
        }
        if (out_ != nullptr) {
            out_->push_back(piece);
        }
        return true;
    }

    bool cut(const Piece & box, int d) {
        if (fits(box, 1)) {
            return emit(box);
        }
        while (d >= 0 && step(d) >= box.end[d] - box.begin[d]) {
            --d;
        }
        if (d < 0) {
            return false;
        }
        const int64_t st = step(d), begin = box.begin[d], end = box.end[d];
        const int64_t n  = longest((end - begin) / st, [&](int64_t c) {
            Piece sub  = box;
            sub.end[d] = begin + c * st;
            return c == 0 || fits(sub, 1);
        });
        for (int64_t b = begin; b < end; b += std::max<int64_t>(n, 1) * st) {
            Piece sub    = box;
            sub.begin[d] = b;
            sub.end[d]   = std::min(end, b + std::max<int64_t>(n, 1) * st);
            if (!(n > 0 ? emit(sub) : cut(sub, d - 1))) {
                return false;
            }
        }
        return true;
    }

    const ggml_tensor *  node_;
    const SplitMap &     map_;
    uint64_t             limit_;
    std::vector<Piece> * out_;
    size_t               max_;
    size_t               count_     = 0;
    int                  gather_src_ = -1, gather_dim_ = 0;
};

// t as a view: extents ne, data moved by begin[k] * nb[k]
void make_view(ggml_tensor & t, const int64_t begin[4], const int64_t ne[4]) {
    uintptr_t data = reinterpret_cast<uintptr_t>(t.data);
    for (int k = 0; k < 4; ++k) {
        data += static_cast<uintptr_t>(begin[k]) * t.nb[k];
        t.ne[k] = ne[k];
    }
    t.data = reinterpret_cast<void *>(data);
}

} // namespace

bool fits_window(const ggml_tensor * t, uint64_t limit, uint32_t scratch_bytes) {
    const uint64_t bytes = ggml_nbytes(t);
    const uint64_t extra = static_cast<uint64_t>(ggml_nelements(t)) * scratch_bytes;
    return bytes <= limit && extra <= limit;
}

void follow_rows(const ggml_tensor * node, Follow follow, SplitMap & map) {
    for (int d = 1; d < 4; ++d) {
        map.splits[d] = true;
        for (int s = 0; s < GGML_MAX_SRC; ++s) {
            if (node->src[s] != nullptr) {
                map.src[s][d] = {follow, static_cast<uint8_t>(d)};
            }
        }
    }
}

bool split_node(const ggml_tensor * node, const SplitMap & map, uint64_t limit, std::vector<Piece> * pieces,
                size_t max_pieces) {
    Splitter splitter(node, map, limit, pieces, max_pieces);
    return splitter.run();
}

void make_part(const ggml_tensor * node, const SplitMap & map, const Piece & piece, Part & out) {
    out.node   = *node;
    out.gather = piece.gather;
    int64_t begin[4], ne[4];
    for (int d = 0; d < 4; ++d) {
        begin[d] = piece.begin[d];
        ne[d]    = piece.end[d] - piece.begin[d];
    }
    make_view(out.node, begin, ne);
    for (int s = 0; s < GGML_MAX_SRC; ++s) {
        const ggml_tensor * src = node->src[s];
        if (src == nullptr) {
            continue;
        }
        out.sources[s] = *src;
        for (int k = 0; k < 4; ++k) {
            int64_t b, e;
            source_range(node, src, map.src[s][k], k, piece, b, e);
            if (map.src[s][k].follow == Follow::Gather) {
                b = piece.gather.first, e = b + piece.gather.count;
            }
            begin[k] = b, ne[k] = e - b;
        }
        make_view(out.sources[s], begin, ne);
        out.node.src[s] = &out.sources[s];
    }
}

} // namespace switchyard::vulkan
