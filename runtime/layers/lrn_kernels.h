// Internal: per-ISA kernel of LRN (lrn_simd.inl).
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {

// x[i] *= (bias + alpha_div_size * square_sum[i]) ^ -beta
JITCONV_SIMD_DECLARE(void, lrn_normalize,
                     (float* x, const float* square_sum, long n, float bias, float alpha_div_size, float beta))

}  // namespace jitconv
