// How a split maps through a view. The root R (own memory, contiguous) is split along axis a: a byte of R sits
// at r + u*(j + E*q) with u = R->nb[a], E = R->ne[a], r < u the offset inside one step of the axis, j the index
// along the axis (which decides the device) and q the outer index. A view V (extents ne, byte strides nb, byte
// offset offs) is describable per device when its device depends on one of its dimensions only, b:
//   - b is V's dimension with the largest stride below one full axis (u*E); every other dimension either stays
//     inside one step of b ("lower" dimensions: their footprint fits between two consecutive b indices) or
//     moves q only ("outer" dimensions: strides that are multiples of u*E);
//   - when b's stride is F steps of the axis (F >= 1), every portion boundary the view crosses is a multiple of
//     F from its start; when it is a fraction 1/G of a step, the view starts on a step and covers whole steps;
//   - when b runs past the end of the axis into q (a reshape that merges the axis with outer dimensions), it
//     starts at j = 0 and covers whole periods, which repeat the segment pattern.
// This covers reshapes, permutes, transposes, sub-range views and head views of a fused QKV tensor. A view
// inside one step of the axis lives on one device: it gets a split along one of its size-1 dimensions.
#include "backend/meta/split_state.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace switchyard::meta {

namespace {

// The split axis of the root in bytes: step u, E steps per period, hi = u * E bytes per period. A pattern of
// segments that repeats along the axis (a reshape merged outer dimensions into it) is unfolded: one period
// becomes the axis and the repetitions outer indices, on every device alike.
struct Axis {
    size_t     u  = 0;
    int64_t    E  = 0;
    size_t     hi = 0;
    int64_t    local_E[kMaxDevices] = {};
    SplitState state{};
};

Axis unfold(const SplitState & s, int n, const ggml_tensor * root) {
    const int                            a = axis_of(s);
    std::vector<std::array<int64_t, kMaxDevices>> blocks;
    for (uint32_t seg = 0; seg < s.n_segments; ++seg) {
        std::array<int64_t, kMaxDevices> shares{};
        for (int d = 0; d < n; ++d) {
            shares[static_cast<size_t>(d)] = share(s, n, static_cast<int>(seg), d);
        }
        blocks.insert(blocks.end(), s.nr[seg], shares);
    }
    size_t period = blocks.size();
    for (size_t p = 1; p < blocks.size(); ++p) {
        bool ok = blocks.size() % p == 0;
        for (size_t i = p; ok && i < blocks.size(); ++i) {
            ok = blocks[i] == blocks[i - p];
        }
        if (ok) {
            period = p;
            break;
        }
    }
    const int64_t reps = static_cast<int64_t>(blocks.size() / period);
    Axis          ax;
    ax.u     = root->nb[a];
    ax.E     = root->ne[a] / reps;
    ax.hi    = ax.u * static_cast<size_t>(ax.E);
    ax.state = s;
    ax.state.n_segments = static_cast<uint32_t>(period);
    for (size_t b = 0; b < period; ++b) {
        ax.state.nr[b] = 1;
        for (int d = 0; d < n; ++d) {
            share(ax.state, n, static_cast<int>(b), d) = blocks[b][static_cast<size_t>(d)];
        }
    }
    for (int d = 0; d < n; ++d) {
        ax.local_E[d] = device_extent(s, n, d) / reps;
    }
    return ax;
}

// The view's parameters reduced to what the mapping needs.
struct Geometry {
    int     b      = -1;    // the dimension that decides the device; -1: the view stays inside one step
    int64_t f_num  = 1;     // b's stride in axis steps is f_num / f_den
    int64_t f_den  = 1;
    int64_t j0     = 0;     // first axis index touched
    int64_t span   = 0;     // axis indices covered (before the period check)
    size_t  r_off  = 0;
    int64_t q0     = 0;
    bool    repeat = false; // b runs past the axis into q
    int64_t periods = 1;
};

size_t footprint(const ggml_tensor * root, const int64_t * ne, const size_t * nb, int skip, size_t below) {
    const bool quant = ggml_blck_size(root->type) > 1;
    size_t     w     = quant ? ggml_row_size(root->type, ne[0]) : ggml_type_size(root->type);
    for (int k = quant ? 1 : 0; k < GGML_MAX_DIMS; ++k) {
        if (k != skip && ne[k] > 1 && nb[k] < below) {
            w += nb[k] * static_cast<size_t>(ne[k] - 1);
        }
    }
    return w;
}

// Picks b, the dimension with the largest stride below one period; false if a dimension fits no class.
bool choose_b(const Axis & ax, const ggml_tensor * root, const int64_t * ne, const size_t * nb, Geometry & g) {
    const int k0 = ggml_blck_size(root->type) > 1 ? 1 : 0;
    for (int k = k0; k < GGML_MAX_DIMS; ++k) {
        if (ne[k] <= 1) {
            continue;
        }
        if (nb[k] >= ax.hi) {
            if (nb[k] % ax.hi != 0) {
                return false;
            }
        } else if (g.b < 0 || nb[k] > nb[g.b]) {
            g.b = k;
        } else if (nb[k] == nb[g.b]) {
            return false;
        }
    }
    return true;
}

// The axis steps covered along b (g.span), b's stride in steps and whether b runs past the axis; w is the
// footprint of the lower dimensions in bytes.
bool measure_b(const Axis & ax, int64_t n_b, size_t stride_b, size_t w, Geometry & g) {
    const size_t u = ax.u;
    if (stride_b >= u) {
        if (stride_b % u != 0 || g.r_off + w > stride_b) {
            return false;
        }
        g.f_num = static_cast<int64_t>(stride_b / u);
        g.span  = g.f_num * (n_b - 1) + static_cast<int64_t>((g.r_off + w + u - 1) / u);
    } else {
        if (u % stride_b != 0 || w > stride_b) {
            return false;
        }
        g.f_den = static_cast<int64_t>(u / stride_b);
        if (static_cast<size_t>(n_b) * stride_b + g.r_off <= u) {
            g.b    = -1; // inside one step after all
            g.span = 1;
            return g.j0 + 1 <= ax.E;
        }
        if (g.r_off != 0 || n_b % g.f_den != 0) {
            return false;
        }
        g.span = n_b / g.f_den;
    }
    if (g.j0 + g.span <= ax.E) {
        return true;
    }
    // b runs into the outer dimensions: whole periods only, with the pattern aligned to b's stride. An offset
    // inside a step (the lower dimensions' window, checked above to fit in b's stride) moves no boundary.
    g.repeat  = true;
    g.periods = (g.f_num * n_b / g.f_den) / ax.E;
    return g.j0 == 0 && (g.r_off == 0 || g.f_den == 1) && (g.f_num * n_b) % (g.f_den * ax.E) == 0 &&
           ax.E % g.f_num == 0;
}

// Classifies the view's dimensions; false if the view cannot be described per device.
bool classify(const Axis & ax, const ggml_tensor * root, const int64_t * ne, const size_t * nb, size_t offs, Geometry & g) {
    g.r_off = offs % ax.u;
    g.j0    = static_cast<int64_t>((offs / ax.u) % static_cast<size_t>(ax.E));
    g.q0    = static_cast<int64_t>(offs / ax.hi);
    if (!choose_b(ax, root, ne, nb, g)) {
        return false;
    }
    const size_t stride_b = g.b >= 0 ? nb[g.b] : ax.hi;
    const size_t w        = footprint(root, ne, nb, g.b, stride_b);
    if (g.b < 0) {
        g.span = static_cast<int64_t>((g.r_off + w + ax.u - 1) / ax.u);
        return g.j0 + g.span <= ax.E;
    }
    return measure_b(ax, ne[g.b], stride_b, w, g);
}

// Per-device coverage of the global axis range [js, je) in view units along b.
struct Coverage {
    int64_t count[kMaxDevices] = {};
    int64_t local_start[kMaxDevices];
    bool    seen[kMaxDevices] = {};
    std::vector<std::array<int64_t, kMaxDevices>> segments; // per touched block: view units per device
};

bool cover(const std::vector<Portion> & portions, const Geometry & g, int64_t js, int64_t je, Coverage & c) {
    int last_block = -1;
    for (const Portion & p : portions) {
        const int64_t s = std::max(js, p.start), e = std::min(je, p.end);
        if (s >= e) {
            continue;
        }
        if (g.f_num > 1 && ((p.start > js && (p.start - js) % g.f_num != 0) || (p.end < je && (p.end - js) % g.f_num != 0))) {
            return false; // a device boundary inside one step of b
        }
        const int64_t units = g.f_num > 1 ? (e - s + g.f_num - 1) / g.f_num : (e - s) * g.f_den;
        if (p.block != last_block) {
            c.segments.push_back({});
            last_block = p.block;
        }
        c.segments.back()[p.device] += units;
        if (!c.seen[p.device]) {
            c.seen[p.device]        = true;
            c.local_start[p.device] = p.local + (s - p.start);
        }
        c.count[p.device] += units;
    }
    return true;
}

// Builds the view's state from the touched blocks (merging equal neighbours into repetitions), repeated
// `periods` times.
bool build_state(const Coverage & c, int n, int axis, int64_t periods, SplitState & out) {
    std::vector<std::array<int64_t, kMaxDevices>> segs;
    std::vector<uint32_t>                         reps;
    for (int64_t p = 0; p < periods; ++p) {
        for (const auto & s : c.segments) {
            if (!segs.empty() && std::equal(s.begin(), s.begin() + n, segs.back().begin())) {
                ++reps.back();
            } else {
                segs.push_back(s);
                reps.push_back(1);
            }
        }
    }
    if (segs.empty() || segs.size() > static_cast<size_t>(kMaxSegments)) {
        return false;
    }
    std::memset(&out, 0, sizeof(out));
    out.axis       = static_cast<ggml_backend_meta_split_axis>(axis);
    out.n_segments = static_cast<uint32_t>(segs.size());
    for (size_t s = 0; s < segs.size(); ++s) {
        out.nr[s] = reps[s];
        for (int d = 0; d < n; ++d) {
            share(out, n, static_cast<int>(s), d) = segs[s][static_cast<size_t>(d)];
        }
    }
    return true;
}

// A view inside one step of the axis: it lives on the device owning that step.
bool single_device(const std::vector<Portion> & portions, const Geometry & g, int n, const int64_t * ne, ViewMap & m,
                   int & owner, int64_t & local) {
    owner = -1;
    for (const Portion & p : portions) {
        if (g.j0 >= p.start && g.j0 + g.span <= p.end) {
            owner = p.device;
            local = p.local + (g.j0 - p.start);
        }
    }
    int axis = -1;
    for (int k = GGML_MAX_DIMS - 1; k >= 0; --k) {
        axis = axis < 0 && ne[k] == 1 ? k : axis;
    }
    if (owner < 0 || axis < 0) {
        return false;
    }
    int64_t extents[kMaxDevices] = {};
    extents[owner]               = 1;
    m.state                      = dim_state(axis, extents, n);
    return true;
}

} // namespace

ViewMap map_view(const SplitState & root_state, int n, const ggml_tensor * root, const int64_t * ne, const size_t * nb,
                 size_t offs) {
    ViewMap m;
    const bool empty = std::any_of(ne, ne + GGML_MAX_DIMS, [](int64_t v) { return v <= 0; });
    if (!is_dim_split(root_state) || empty) {
        m.ok    = root_state.axis != GGML_BACKEND_SPLIT_AXIS_NONE;
        m.state = empty ? mirrored_state() : root_state;
        for (int d = 0; d < n; ++d) {
            std::copy(ne, ne + GGML_MAX_DIMS, m.dev[d].ne);
            std::copy(nb, nb + GGML_MAX_DIMS, m.dev[d].nb);
            m.dev[d].offs = empty ? 0 : offs;
        }
        return m;
    }
    const bool identical = offs == 0 && std::equal(ne, ne + GGML_MAX_DIMS, root->ne) &&
                           std::equal(nb, nb + GGML_MAX_DIMS, root->nb);
    if (identical) {
        m.ok    = true;
        m.state = root_state;
        for (int d = 0; d < n; ++d) {
            device_shape(root_state, n, d, root, m.dev[d].ne);
            contiguous_strides(root->type, m.dev[d].ne, m.dev[d].nb);
            m.dev[d].offs = 0;
        }
        return m;
    }
    const int a = axis_of(root_state);
    Geometry  g;
    if (a == 0 && ggml_blck_size(root->type) > 1) {
        return m;
    }
    const Axis ax = unfold(root_state, n, root);
    if (!classify(ax, root, ne, nb, offs, g)) {
        return m;
    }
    const std::vector<Portion> portions = portions_of(ax.state, n);
    Coverage                   c;
    int                        owner = -1;
    int64_t                    owner_local = 0;
    if (g.b < 0) {
        if (!single_device(portions, g, n, ne, m, owner, owner_local)) {
            return m;
        }
        c.seen[owner]        = true;
        c.local_start[owner] = owner_local;
    } else {
        const int64_t js = g.repeat ? 0 : g.j0;
        const int64_t je = g.repeat ? ax.E : g.j0 + g.span;
        if (!cover(portions, g, js, je, c) || !build_state(c, n, g.b, g.periods, m.state)) {
            return m;
        }
    }
    const size_t u  = ax.u;
    const size_t hi = ax.hi;
    for (int d = 0; d < n; ++d) {
        DeviceView & v    = m.dev[d];
        const size_t hi_d = u * static_cast<size_t>(ax.local_E[d]);
        for (int k = 0; k < GGML_MAX_DIMS; ++k) {
            v.ne[k] = ne[k];
            v.nb[k] = nb[k] >= hi && nb[k] % hi == 0 ? nb[k] / hi * hi_d : nb[k];
        }
        const int ax = axis_of(m.state);
        v.ne[ax]     = g.b < 0 ? (d == owner ? ne[ax] : 0) : c.count[d] * g.periods;
        v.offs       = c.seen[d] ? g.r_off + u * static_cast<size_t>(c.local_start[d]) + static_cast<size_t>(g.q0) * hi_d : 0;
    }
    m.ok = true;
    return m;
}

bool map_reshape(const SplitState & src, int n, ggml_type type, const int64_t * src_ne, const int64_t * ne,
                 SplitState & out) {
    ggml_tensor root;
    std::memset(&root, 0, sizeof(root));
    root.type = type;
    std::copy(src_ne, src_ne + GGML_MAX_DIMS, root.ne);
    contiguous_strides(type, root.ne, root.nb);
    size_t nb[GGML_MAX_DIMS];
    contiguous_strides(type, ne, nb);
    const ViewMap m = map_view(src, n, &root, ne, nb, 0);
    out             = m.state;
    return m.ok;
}

} // namespace switchyard::meta
