// <immintrin.h> for the ISA translation units. g++ 12 reports its own _mm512_undefined_* placeholders inside the
// AVX-512 intrinsics as (maybe) uninitialized once they are inlined (GCC bug 105593, fixed in 13); the warning's
// location is the header, so it is silenced for the header only.
#pragma once

#if defined(__x86_64__)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
#endif
