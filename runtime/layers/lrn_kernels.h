// Internal: LRN's per-ISA kernels (lrn_simd.inl).
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {

// x *= (bias + alpha_div_size * square_sum)^-beta, elementwise over n values.
JITCONV_SIMD_DECLARE(void, lrn_normalize,
                     (float* x, const float* square_sum, long n, float bias, float alpha_div_size, float beta))

// Across channels: channel q of pixel i is normalized by the squares of channels
// q - local_size/2 .. q + local_size/2 (zero beyond the ends). pack 1, 4, 8 or 16 with
// local_size / 2 <= pack (wider windows on packed blobs: unpack first).
struct LrnAcrossJob {
  float* x;        // [channels / pack][pixels][pack], in place
  long cstep;      // floats between channel packs
  int packs, pack;
  long pixels;
  int local_size;
  float bias, alpha_div_size, beta;
  int num_threads;
};
JITCONV_SIMD_DECLARE(void, lrn_across_channels, (const LrnAcrossJob& job))

}  // namespace jitconv
