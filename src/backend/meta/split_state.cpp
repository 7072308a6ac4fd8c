// Split state values: constructors, extents, comparison, scaling, validation of user states, JSON.
#include "backend/meta/split_state.h"

#include "base/log.h"

#include <cstring>

namespace switchyard::meta {

namespace {

SplitState blank(ggml_backend_meta_split_axis axis) {
    SplitState s;
    std::memset(&s, 0, sizeof(s));
    s.axis       = axis;
    s.n_segments = 1;
    s.nr[0]      = 1;
    return s;
}

} // namespace

SplitState mirrored_state() { return blank(GGML_BACKEND_SPLIT_AXIS_MIRRORED); }
SplitState partial_state() { return blank(GGML_BACKEND_SPLIT_AXIS_PARTIAL); }
SplitState none_state() { return blank(GGML_BACKEND_SPLIT_AXIS_NONE); }

SplitState dim_state(int axis, const int64_t * extents, int n) {
    SplitState s = blank(static_cast<ggml_backend_meta_split_axis>(axis));
    for (int d = 0; d < n; ++d) {
        share(s, n, 0, d) = extents[d];
    }
    return s;
}

int64_t device_extent(const SplitState & s, int n, int d) {
    if (!is_dim_split(s) || d >= n) {
        return 0;
    }
    int64_t total = 0;
    for (uint32_t seg = 0; seg < s.n_segments; ++seg) {
        total += static_cast<int64_t>(s.nr[seg]) * share(s, n, static_cast<int>(seg), d);
    }
    return total;
}

int64_t total_extent(const SplitState & s, int n) {
    int64_t total = 0;
    for (int d = 0; d < n; ++d) {
        total += device_extent(s, n, d);
    }
    return total;
}

SplitState canonical(SplitState s, int n) {
    if (!is_dim_split(s)) {
        return s;
    }
    uint32_t out = 0;
    for (uint32_t seg = 0; seg < s.n_segments; ++seg) {
        bool equal = out > 0;
        for (int d = 0; equal && d < n; ++d) {
            equal = share(s, n, static_cast<int>(seg), d) == share(s, n, static_cast<int>(out - 1), d);
        }
        if (equal) {
            s.nr[out - 1] += s.nr[seg];
            continue;
        }
        for (int d = 0; d < n; ++d) {
            share(s, n, static_cast<int>(out), d) = share(s, n, static_cast<int>(seg), d);
        }
        s.nr[out++] = s.nr[seg];
    }
    for (uint32_t seg = out; seg < s.n_segments; ++seg) {
        s.nr[seg] = 0;
        for (int d = 0; d < n; ++d) {
            share(s, n, static_cast<int>(seg), d) = 0;
        }
    }
    s.n_segments = out;
    return s;
}

bool same_state(const SplitState & x, const SplitState & y, int n) {
    if (x.axis != y.axis) {
        return false;
    }
    if (!is_dim_split(x)) {
        return true;
    }
    const SplitState a = canonical(x, n);
    const SplitState b = canonical(y, n);
    if (a.n_segments != b.n_segments) {
        return false;
    }
    for (uint32_t seg = 0; seg < a.n_segments; ++seg) {
        if (a.nr[seg] != b.nr[seg]) {
            return false;
        }
        for (int d = 0; d < n; ++d) {
            if (share(a, n, static_cast<int>(seg), d) != share(b, n, static_cast<int>(seg), d)) {
                return false;
            }
        }
    }
    return true;
}

std::vector<Portion> portions_of(const SplitState & s, int n) {
    std::vector<Portion> out;
    int64_t              global = 0;
    int64_t              local[kMaxDevices] = {};
    int                  block = 0;
    for (uint32_t seg = 0; seg < s.n_segments; ++seg) {
        for (uint32_t r = 0; r < s.nr[seg]; ++r, ++block) {
            for (int d = 0; d < n; ++d) {
                const int64_t len = share(s, n, static_cast<int>(seg), d);
                if (len > 0) {
                    out.push_back({global, global + len, local[d], d, block, static_cast<int>(seg)});
                }
                global += len;
                local[d] += len;
            }
        }
    }
    return out;
}

bool is_single_box(const SplitState & s) { return is_dim_split(s) && s.n_segments == 1 && s.nr[0] == 1; }

int64_t box_start(const SplitState & s, int n, int d) {
    int64_t start = 0;
    for (int e = 0; e < d; ++e) {
        start += share(s, n, 0, e);
    }
    return start;
}

SplitState with_axis(SplitState s, int axis) {
    s.axis = static_cast<ggml_backend_meta_split_axis>(axis);
    return s;
}

bool scale_shares(SplitState & s, int n, int64_t num, int64_t den) {
    if (!is_dim_split(s)) {
        return true;
    }
    for (uint32_t seg = 0; seg < s.n_segments; ++seg) {
        for (int d = 0; d < n; ++d) {
            const int64_t v = share(s, n, static_cast<int>(seg), d) * num;
            if (den == 0 || v % den != 0) {
                return false;
            }
            share(s, n, static_cast<int>(seg), d) = v / den;
        }
    }
    return true;
}

bool concat_segments(const SplitState & a, const SplitState & b, int n, SplitState & out) {
    if (a.n_segments + b.n_segments > static_cast<uint32_t>(kMaxSegments)) {
        return false;
    }
    out = a;
    for (uint32_t seg = 0; seg < b.n_segments; ++seg) {
        const int to = static_cast<int>(a.n_segments + seg);
        out.nr[to]   = b.nr[seg];
        for (int d = 0; d < n; ++d) {
            share(out, n, to, d) = share(b, n, static_cast<int>(seg), d);
        }
    }
    out.n_segments = a.n_segments + b.n_segments;
    return true;
}

bool has_empty_device(const SplitState & s, int n) {
    if (!is_dim_split(s)) {
        return false;
    }
    for (int d = 0; d < n; ++d) {
        if (device_extent(s, n, d) == 0) {
            return true;
        }
    }
    return false;
}

bool normalize_user_state(SplitState & s, const ggml_tensor * t, int n) {
    constexpr const char * kCaller = "ggml_backend_meta";
    if (s.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED || s.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL) {
        return true;
    }
    if (!is_dim_split(s)) {
        log_error("[%s] split state callback returned axis %d for tensor '%s'; expected 0..3, MIRRORED or PARTIAL\n",
                  kCaller, static_cast<int>(s.axis), t->name);
        return false;
    }
    if (s.n_segments == 0) {
        s.n_segments = 1;
    }
    if (s.n_segments > static_cast<uint32_t>(kMaxSegments)) {
        log_error("[%s] tensor '%s': %u segments, at most %d\n", kCaller, t->name, s.n_segments, kMaxSegments);
        return false;
    }
    const int64_t blck = s.axis == GGML_BACKEND_SPLIT_AXIS_0 ? ggml_blck_size(t->type) : 1;
    for (uint32_t seg = 0; seg < s.n_segments; ++seg) {
        s.nr[seg] = s.nr[seg] == 0 ? 1 : s.nr[seg];
        for (int d = 0; d < n; ++d) {
            const int64_t v = share(s, n, static_cast<int>(seg), d);
            if (v < 0 || v % blck != 0) {
                log_error("[%s] tensor '%s': share %lld of segment %u on device %d is negative or not a multiple of "
                          "the block size %lld\n",
                          kCaller, t->name, static_cast<long long>(v), seg, d, static_cast<long long>(blck));
                return false;
            }
        }
    }
    const int64_t total = total_extent(s, n);
    if (total != t->ne[s.axis]) {
        log_error("[%s] tensor '%s': the shares along axis %d add up to %lld, the tensor has %lld\n", kCaller, t->name,
                  static_cast<int>(s.axis), static_cast<long long>(total), static_cast<long long>(t->ne[s.axis]));
        return false;
    }
    s = canonical(s, n);
    return true;
}

void device_shape(const SplitState & s, int n, int d, const ggml_tensor * t, int64_t ne[GGML_MAX_DIMS]) {
    for (int i = 0; i < GGML_MAX_DIMS; ++i) {
        ne[i] = t->ne[i];
    }
    if (is_dim_split(s)) {
        ne[s.axis] = device_extent(s, n, d);
    }
}

void contiguous_strides(ggml_type type, const int64_t ne[GGML_MAX_DIMS], size_t nb[GGML_MAX_DIMS]) {
    nb[0] = ggml_type_size(type);
    nb[1] = ggml_row_size(type, ne[0]);
    for (int i = 2; i < GGML_MAX_DIMS; ++i) {
        nb[i] = nb[i - 1] * static_cast<size_t>(ne[i - 1] > 0 ? ne[i - 1] : 0);
    }
}

std::string state_json(const SplitState & s, int n) {
    std::string j = std::string("{\"axis\": \"") + ggml_backend_meta_split_axis_name(s.axis) + "\"";
    if (!is_dim_split(s)) {
        return j + "}";
    }
    j += ", \"extents\": [";
    for (uint32_t seg = 0; seg < s.n_segments; ++seg) {
        j += seg ? ", [" : "[";
        for (int d = 0; d < n; ++d) {
            j += (d ? ", " : "") + std::to_string(share(s, n, static_cast<int>(seg), d));
        }
        j += "]";
    }
    j += "], \"nr\": [";
    for (uint32_t seg = 0; seg < s.n_segments; ++seg) {
        j += (seg ? ", " : "") + std::to_string(s.nr[seg]);
    }
    return j + "]}";
}

} // namespace switchyard::meta

extern "C" const char * ggml_backend_meta_split_axis_name(enum ggml_backend_meta_split_axis split_axis) {
    switch (split_axis) {
        case GGML_BACKEND_SPLIT_AXIS_0:        return "0";
        case GGML_BACKEND_SPLIT_AXIS_1:        return "1";
        case GGML_BACKEND_SPLIT_AXIS_2:        return "2";
        case GGML_BACKEND_SPLIT_AXIS_3:        return "3";
        case GGML_BACKEND_SPLIT_AXIS_MIRRORED: return "MIRRORED";
        case GGML_BACKEND_SPLIT_AXIS_PARTIAL:  return "PARTIAL";
        case GGML_BACKEND_SPLIT_AXIS_NONE:     return "NONE";
        case GGML_BACKEND_SPLIT_AXIS_UNKNOWN:  return "UNKNOWN";
    }
    switchyard::log_error("[ggml_backend_meta_split_axis_name] invalid split axis %d\n", static_cast<int>(split_axis));
    return "INVALID";
}
