// Internal: per-ISA resampling passes of Interp (interp_simd.inl). A pass combines
// `taps` source elements (of `lanes` floats) per output element with per-output weights.
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {

// dst[x] = sum_t src[offset[x*taps + t]] * weight[x*taps + t] for x < outw, per lane;
// offsets count elements.
JITCONV_SIMD_DECLARE(void, interp_horizontal, (const float* src, float* dst, const int* offset, const float* weight,
                                               int outw, int taps, int lanes))
// dst[i] = sum_t rows[t][i] * weight[t] for i < n.
JITCONV_SIMD_DECLARE(void, interp_vertical, (const float* const* rows, const float* weight, int taps, float* dst, long n))

}  // namespace jitconv
