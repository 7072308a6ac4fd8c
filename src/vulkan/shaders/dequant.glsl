// Reading weights of any supported type from a byte view `w8` the including shader declares
// (layout(binding = N) readonly buffer ... { uint8_t w8[]; }): element j of the block starting at byte `blk`.
// Type codes are the backend's (ops/types.h, quant_type_code): float types 0-2, block formats from 10.
#define QTYPE_Q4_0   10u
#define QTYPE_Q4_1   11u
#define QTYPE_Q5_0   12u
#define QTYPE_Q5_1   13u
#define QTYPE_Q8_0   14u
#define QTYPE_IQ4_NL 15u
#define QTYPE_MXFP4  16u
#define QTYPE_Q2_K   20u
#define QTYPE_Q3_K   21u
#define QTYPE_Q4_K   22u
#define QTYPE_Q5_K   23u
#define QTYPE_Q6_K   24u

uint  wbyte(uint i) { return uint(w8[i]); }
uint  wu16(uint i) { return wbyte(i) | (wbyte(i + 1) << 8); }
uint  wu32(uint i) { return wu16(i) | (wu16(i + 2) << 16); }
float wf16(uint i) { return unpackHalf2x16(wu16(i)).x; }
int   wi8(uint i) { return bitfieldExtract(int(wbyte(i)), 0, 8); }

const int kIq4nlValues[16] = int[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
const int kMxfp4Values[16] = int[16](0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);

// the 4-bit code of element j (0..31) of nibbles packed as Q4_0: low nibbles first, then high ones
uint nibble(uint qs, uint j) { return j < 16u ? wbyte(qs + j) & 15u : wbyte(qs + j - 16u) >> 4; }

// (scale, min) pair `j` (0..7) of the 12-byte packed scales of Q4_K / Q5_K
uvec2 kquant_scale_min(uint q, uint j) {
    if (j < 4u) {
        return uvec2(wbyte(q + j) & 63u, wbyte(q + j + 4u) & 63u);
    }
    return uvec2((wbyte(q + j + 4u) & 15u) | ((wbyte(q + j - 4u) >> 6) << 4),
                 (wbyte(q + j + 4u) >> 4) | ((wbyte(q + j) >> 6) << 4));
}

// the 6-bit signed scale `j` (0..15) of Q3_K's packed scales
int q3k_scale(uint q, uint j) {
    const uint low  = j < 8u ? wbyte(q + j) & 15u : wbyte(q + j - 8u) >> 4;
    const uint high = (wbyte(q + 8u + j % 4u) >> (2u * (j / 4u))) & 3u;
    return int(low | (high << 4)) - 32;
}

uint block_elements(uint t) { return t >= QTYPE_Q2_K ? 256u : t >= QTYPE_Q4_0 ? 32u : 1u; }

uint block_bytes(uint t) {
    switch (t) {
        case QTYPE_Q4_0:   return 18u;
        case QTYPE_Q4_1:   return 20u;
        case QTYPE_Q5_0:   return 22u;
        case QTYPE_Q5_1:   return 24u;
        case QTYPE_Q8_0:   return 34u;
        case QTYPE_IQ4_NL: return 18u;
        case QTYPE_MXFP4:  return 17u;
        case QTYPE_Q2_K:   return 84u;
        case QTYPE_Q3_K:   return 110u;
        case QTYPE_Q4_K:   return 144u;
        case QTYPE_Q5_K:   return 176u;
        case QTYPE_Q6_K:   return 210u;
        case 0u:           return 4u;
        default:           return 2u;
    }
}

float dequant(uint t, uint blk, uint j) {
    switch (t) {
        case 0u: return uintBitsToFloat(wu32(blk));
        case 1u: return wf16(blk);
        case 2u: return uintBitsToFloat(wu16(blk) << 16);
        case QTYPE_Q4_0: return wf16(blk) * (float(nibble(blk + 2u, j)) - 8.0);
        case QTYPE_Q4_1: return wf16(blk) * float(nibble(blk + 4u, j)) + wf16(blk + 2u);
        case QTYPE_Q5_0: {
            const uint q = nibble(blk + 6u, j) | (((wu32(blk + 2u) >> j) & 1u) << 4);
            return wf16(blk) * (float(q) - 16.0);
        }
        case QTYPE_Q5_1: {
            const uint q = nibble(blk + 8u, j) | (((wu32(blk + 4u) >> j) & 1u) << 4);
            return wf16(blk) * float(q) + wf16(blk + 2u);
        }
        case QTYPE_Q8_0:   return wf16(blk) * float(wi8(blk + 2u + j));
        case QTYPE_IQ4_NL: return wf16(blk) * float(kIq4nlValues[nibble(blk + 2u, j)]);
        case QTYPE_MXFP4:  return float(kMxfp4Values[nibble(blk + 1u, j)]) * ldexp(1.0, int(wbyte(blk)) - 128);
        case QTYPE_Q2_K: { // scales[16] qs[64] d dmin
            const uint  half_ = j / 128u, r = j % 128u, shift = 2u * (r / 32u), l = r % 32u;
            const uint  sc    = wbyte(blk + j / 16u);
            const float q     = float((wbyte(blk + 16u + 32u * half_ + l) >> shift) & 3u);
            return wf16(blk + 80u) * float(sc & 15u) * q - wf16(blk + 82u) * float(sc >> 4);
        }
        case QTYPE_Q3_K: { // hmask[32] qs[64] scales[12] d
            const uint half_ = j / 128u, r = j % 128u, shift = 2u * (r / 32u), l = r % 32u;
            const int  low   = int((wbyte(blk + 32u + 32u * half_ + l) >> shift) & 3u);
            const int  hbit  = int((wbyte(blk + l) >> (4u * half_ + r / 32u)) & 1u);
            return wf16(blk + 108u) * float(q3k_scale(blk + 96u, j / 16u)) * float(low - (hbit != 0 ? 0 : 4));
        }
        case QTYPE_Q4_K: { // d dmin scales[12] qs[128]
            const uint  chunk = j / 64u, r = j % 64u;
            const uvec2 sm    = kquant_scale_min(blk + 4u, 2u * chunk + r / 32u);
            const uint  q     = (wbyte(blk + 16u + 32u * chunk + r % 32u) >> (4u * (r / 32u))) & 15u;
            return wf16(blk) * float(sm.x) * float(q) - wf16(blk + 2u) * float(sm.y);
        }
        case QTYPE_Q5_K: { // d dmin scales[12] qh[32] qs[128]
            const uint  chunk = j / 64u, r = j % 64u, sub = 2u * chunk + r / 32u;
            const uvec2 sm    = kquant_scale_min(blk + 4u, sub);
            const uint  q     = ((wbyte(blk + 48u + 32u * chunk + r % 32u) >> (4u * (r / 32u))) & 15u) |
                                (((wbyte(blk + 16u + r % 32u) >> sub) & 1u) << 4);
            return wf16(blk) * float(sm.x) * float(q) - wf16(blk + 2u) * float(sm.y);
        }
        case QTYPE_Q6_K: { // ql[128] qh[64] scales[16] d
            const uint half_ = j / 128u, r = j % 128u, quarter = r / 32u, l = r % 32u;
            const uint lo    = (wbyte(blk + 64u * half_ + l + 32u * (quarter & 1u)) >> (4u * (quarter / 2u))) & 15u;
            const uint hi    = (wbyte(blk + 128u + 32u * half_ + l) >> (2u * quarter)) & 3u;
            const int  sc    = wi8(blk + 192u + 8u * half_ + quarter * 2u + l / 16u);
            return wf16(blk + 208u) * float(sc) * float(int(lo | (hi << 4)) - 32);
        }
        default: return 0.0;
    }
}
