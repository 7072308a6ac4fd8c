// The float side of upstream's x86 dot products (its AVX2 vec_dot functions, which every x86 CPU with AVX2 runs,
// AVX-512 and AMX machines included), which our matrix-vector kernels of every level follow so that they give
// upstream's results bit for bit (the scalar ones in portable code, the x86 ones through upstream_sums_x86.h).
// The integer side is exact, so a kernel may compute it its own way, as long as it ends in upstream's eight int32
// lanes:
//
//   lane l (0..7) = the products of the elements e with (e % 32) / 4 == l (times their sub-block scale for the
//   K-quants), summed over a 32-element block or a 256-element super-block
//
// and then follows upstream's float operations exactly:
//
//   per block / super-block   acc_l = fma(d, float(lane_l), acc_l), d = d_a * d_w (one float product)
//   at the end                ((acc_0 + acc_4) + (acc_2 + acc_6)) + ((acc_1 + acc_5) + (acc_3 + acc_7))
//
// plus each format's min or offset term (dmin = -d_a * dmin_w; mins_l = bsums[2 l] * f[2 l] + bsums[2 l + 1] *
// f[2 l + 1], f the per-16 mins or, for q6_K, 32 * scale):
//
//   q2_K  acc_l = fma(dmin, float(mins_l), acc_l) before the lanes' fma, in the same accumulators
//   q3_K  none: the levels are signed (code - 4) per element, inside the lanes
//   q4_K  four more accumulators, quad_k = fma(dmin, float(mins_2k + mins_2k+1), quad_k); the result adds
//         (quad_0 + quad_2) + (quad_1 + quad_3)
//   q5_K  one float, total = fma(dmin, float(sum of the mins_l), total) (upstream's compiler fuses its
//         `summs += dmin * sum`); the result adds it
//   q6_K  lane_l -= mins_l (integers) before the fma
//   tq1_0 / tq2_0  as q6_K with f = 1 (lane_l = sum t q - bsums[2 l] - bsums[2 l + 1], t the stored trits)
//   iq1_s          as q5_K with f = (2 s + 1) * delta and the term's factor d / 8 (positive): total / 8 exactly
//   iq1_m          eight more lanes (the shifts, per element) into eight more accumulators, fma(d / 8, ...), whose
//                  final sum is added to the lanes' (ternary_levels.h)
//   q4_1 / q5_1    total = fma(m_w, s_a, total) per block (fused as above), added at the end
//   iq4_nl / mxfp4 blocks alternate between two sets of accumulators, added lane by lane before the final sum;
//                  an odd last block: result = result + d * float(its sum), two roundings (upstream's compiler
//                  does not fuse that one)
//
// (The fusing is that of upstream built with GCC, as its release builds are; the products d and dmin are single
// float products of the two scales, in either order.)
#pragma once

namespace switchyard::cpu::quants {

// How a format's min / offset term enters the floats (see above): q2_K kLanes, q3_K kNone, q4_K kQuads, q5_K
// kTotal, q6_K kSubtract; iq1_s kTotal, iq1_m kDeltaLanes, tq1_0 / tq2_0 kSubtract (ternary_levels.h).
enum class MinTerm { kNone, kLanes, kQuads, kTotal, kSubtract, kDeltaLanes };

} // namespace switchyard::cpu::quants
