// CPU_REPACK: the CPU device's extra buffer type (ggml_backend_dev_get_extra_bufts, as upstream's), host memory
// in which 2-D weights of q4_0, q4_1, q5_0, q5_1, q8_0, iq4_nl, mxfp4, q2_K .. q6_K, iq4_xs, tq1_0, tq2_0, the grid
// i-quants, iq1_s, iq1_m and (where
// the CPU has their tile and does not take them on AMX) f32, f16 and bf16, and the experts (3-D) of the integer
// types, are stored in the repacked layout of format.h, so that MUL_MAT and MUL_MAT_ID read them without packing per
// call, and sum each output in one order whatever the batch (repack/mul_mat.h).
//
// Which tensors are repacked: a tensor allocated in such a buffer (not a view) of a repackable type (format.h:
// repacks), contiguous, and either 2-D (ne[2] = ne[3] = 1; for the floats more than one row) or, for the integer
// types, 3-D (ne[3] = 1) with ne[1] a multiple of 16: a mixture of experts' weights, stored as the ne[1] x ne[2] rows
// one after another, expert i's panels from panel i x ne[1] / 16 on. Any other tensor is stored plainly (the
// original bytes at tensor->data) and behaves as in a CPU buffer: every op the CPU has reads it. The repacked ones:
//   - take repacked_bytes (get_alloc_size; q4_K slightly more than ggml_nbytes, a partial last panel of 16 rows
//     up to 15 rows more);
//   - set_tensor repacks (any byte range: a partial one unpacks, patches and repacks only the panels it falls in,
//     so loading a weight in pieces costs in proportion to its bytes), get_tensor unpacks: the bytes read are the
//     bytes written;
//   - memset_tensor and cpy_tensor refuse with a log message (ggml_backend_tensor_copy into or out of a repacked
//     tensor goes through set_tensor / get_tensor when the other side is in host memory);
//   - only MUL_MAT, MUL_MAT_ID and GET_ROWS read them, as their src0 (the device's supports_op refuses every other
//     use, views included): GET_ROWS unpacks each row it reads, so a tied output matrix, which is also the token
//     embedding, can be repacked.
// is_host is false: the bytes at tensor->data are not the tensor's standard layout.
#pragma once

#include "ggml-backend.h"

namespace switchyard::cpu::repack {

// The buffer type (one object; its device is the CPU device).
ggml_backend_buffer_type_t repack_buffer_type();

// true when t itself is stored repacked (allocated in a CPU_REPACK buffer and repackable, see above).
bool is_repacked(const ggml_tensor * t);

// true when reading t reads repacked bytes: t is repacked, or a view of a repacked tensor.
bool reads_repacked(const ggml_tensor * t);

// The rows a repacked tensor stores: ne[1] x ne[2] (every expert's), in whole panels per expert.
int64_t repacked_rows(const ggml_tensor * t);

// true when the tensor lives in a CPU_REPACK buffer (repacked or not).
bool in_repack_buffer(const ggml_tensor * t);

// true when t (or the tensor it views) is in a CPU_REPACK buffer and of a type and shape stored repacked there:
// decided by buffer type, type and shape alone, so it answers the same before the tensor is initialised (a
// placement probe: a tensor in a 0-byte buffer, as llama.cpp's) as after (reads_repacked).
bool placed_repacked(const ggml_tensor * t);

} // namespace switchyard::cpu::repack
