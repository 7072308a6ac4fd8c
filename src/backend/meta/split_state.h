// Split states: which part of a tensor each simple device of a meta device holds (the public struct is
// ggml_backend_meta_split_state in ggml-backend.h). Pure value helpers, no devices or buffers involved:
// constructors, comparison, extents, scaling, validation of user-supplied states, the compact per-device shape
// of a tensor with its own memory, and how a state maps through a view or a reshape (view_map.cpp).
//
// Terms used throughout src/backend/meta:
//   share    ne[s * n + d] (n: the meta device's number of devices, as upstream lays the array out: segments
//            outer, devices inner): device d's part of one occurrence of segment s along the split axis
//   block    one occurrence of a segment (segment s occurs nr[s] times in a row)
//   portion  a device's range inside one block; a device's slice is its portions, in order, back to back
#pragma once

#include "ggml-backend.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace switchyard::meta {

inline constexpr int kMaxDevices  = GGML_BACKEND_META_MAX_DEVICES;
inline constexpr int kMaxSegments = 16;

using SplitState = ggml_backend_meta_split_state;

SplitState mirrored_state();
SplitState partial_state();
SplitState none_state(); // no per-device representation: only reachable by gathering the root

// One segment split along `axis` with extents[0..n-1].
SplitState dim_state(int axis, const int64_t * extents, int n);

inline bool is_dim_split(const SplitState & s) { return s.axis >= GGML_BACKEND_SPLIT_AXIS_0 && s.axis <= GGML_BACKEND_SPLIT_AXIS_3; }
inline int  axis_of(const SplitState & s) { return static_cast<int>(s.axis); }
inline int64_t share(const SplitState & s, int n, int seg, int d) { return s.ne[seg * n + d]; }
inline int64_t & share(SplitState & s, int n, int seg, int d) { return s.ne[seg * n + d]; }

// Device d's extent along the split axis (all segments, all repetitions).
int64_t device_extent(const SplitState & s, int n, int d);
// The tensor's extent along the split axis.
int64_t total_extent(const SplitState & s, int n);
// The same layout with consecutive equal segments merged into repetitions.
SplitState canonical(SplitState s, int n);
// Same axis and, for dimension splits, the same layout (compared in canonical form).
bool same_state(const SplitState & a, const SplitState & b, int n);
// One segment occurring once: every device holds one contiguous range of the split axis.
bool is_single_box(const SplitState & s);
// For single-box states: the first index of device d's range.
int64_t box_start(const SplitState & s, int n, int d);

// A device's range inside one block, in indices along the split axis.
struct Portion {
    int64_t start; // global index (within one period of the pattern)
    int64_t end;
    int64_t local; // index on the device where the portion starts
    int     device;
    int     block; // running number of the segment occurrence
    int     segment;
};

// The non-empty portions of a dimension split, in order along the axis.
std::vector<Portion> portions_of(const SplitState & s, int n);

SplitState with_axis(SplitState s, int axis);
// Multiplies every share by num and divides it by den; false if some share is not divisible.
bool scale_shares(SplitState & s, int n, int64_t num, int64_t den);
// Appends b's segments after a's (concatenation along the split axis); false beyond kMaxSegments.
bool concat_segments(const SplitState & a, const SplitState & b, int n, SplitState & out);
// Whether some device holds nothing of the tensor while others do.
bool has_empty_device(const SplitState & s, int n);

// Completes a state returned by the user's callback for tensor t (nr 0 -> 1, n_segments 0 -> 1) and checks it:
// known axis, shares summing to t's extent, axis-0 shares in whole quantization blocks. False (logged) if invalid.
bool normalize_user_state(SplitState & s, const ggml_tensor * t, int n);

// The extents of device d's slice of t (t's own memory, stored compactly on the device).
void device_shape(const SplitState & s, int n, int d, const ggml_tensor * t, int64_t ne[GGML_MAX_DIMS]);
// Contiguous strides for extents ne of type.
void contiguous_strides(ggml_type type, const int64_t ne[GGML_MAX_DIMS], size_t nb[GGML_MAX_DIMS]);

// "{"axis": "0", "extents": [[...], ...], "nr": [...]}"
std::string state_json(const SplitState & s, int n);

//
// Views (view_map.cpp)
//

// The geometry of a view on one device, relative to the root's slice there.
struct DeviceView {
    int64_t ne[GGML_MAX_DIMS];
    size_t  nb[GGML_MAX_DIMS];
    size_t  offs;
};

struct ViewMap {
    bool                                 ok = false;
    SplitState                           state{};
    std::array<DeviceView, kMaxDevices>  dev{};
};

// The state and per-device geometry of the view (ne, nb, offs bytes) of root, whose state is root_state. The
// root has its own memory (contiguous). Not ok when the view's elements cannot be described per device.
ViewMap map_view(const SplitState & root_state, int n, const ggml_tensor * root, const int64_t * ne, const size_t * nb,
                 size_t offs);

// The state of a contiguous tensor of extents ne that holds, in memory order, the elements of a contiguous
// tensor of extents src_ne and state src (a reshape). False if it cannot be described per device.
bool map_reshape(const SplitState & src, int n, ggml_type type, const int64_t * src_ne, const int64_t * ne,
                 SplitState & out);

} // namespace switchyard::meta
