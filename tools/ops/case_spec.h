// switchyard-ops perf --case SPEC: throughput cases given on the command line instead of the built-in perf list,
// for sizes and types the list does not hold (bench/gpu.sh uses them). A spec names an op and its sizes:
//
//   mul_mat:type=q4_K,m=4096,n=1,k=4096[,type_b=f32][,copies=N | ,mib=N]   weights m x k of type, n columns
//   flash_attn:d=128,n_q=512,n_kv=512,heads=32/8[,kv=f16][,copies=N]       f16 mask, scale 1/sqrt(d)
//   dup:mib=N                                                              an f32 copy of N MiB (reads + writes)
//
// copies=N stacks N independent instances along dim 3 in one op, so that one compute moves enough data to
// hide the submission cost of a GPU and the weights do not stay in its cache; mib=N picks the copies that give
// at least N MiB of weights. Every copy holds the same bytes: the inputs of one copy are made once (quantized on
// all cores) and written N times, so even GiB-sized cases are ready in seconds. mul_mat with n = 1 and
// flash_attn with n_q = 1 are reported in GB/s (bytes read and written), the others in GFLOP/s.
#pragma once

#include "conformance/op_cases.h"
#include "conformance/op_harness.h"

#include "ggml-backend.h"

#include <string>

namespace switchyard::tools {

// Parses spec into c (its name, op, builder and flops). False with a message in error on a bad spec.
bool parse_case_spec(const std::string & spec, testing::OpCase & c, std::string & error);

// prepare_case for a spec case: builds the graph, allocates it on backend and fills its inputs, uniform in
// [-1, 1] (masks causal-like), one dim-3 slice made and written to every slice. .supported is false when the
// backend refuses a node or the allocation fails.
testing::PreparedCase prepare_spec_case(ggml_backend_t backend, const testing::OpCase & c);

} // namespace switchyard::tools
