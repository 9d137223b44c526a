// Interp's separable passes: the horizontal one loops over lanes with a compile-time
// count, the vertical one over whole contiguous rows. Included per ISA.
#include "runtime/layers/interp_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

template <int L, int T>
void horizontal(const float* src, float* dst, const int* offset, const float* weight, int outw) {
  for (int x = 0; x < outw; x++) {
    float acc[L];
    for (int l = 0; l < L; l++) acc[l] = 0.f;
    for (int t = 0; t < T; t++) {
      const float* s = src + static_cast<long>(offset[x * T + t]) * L;
      const float a = weight[x * T + t];
      for (int l = 0; l < L; l++) acc[l] += s[l] * a;
    }
    for (int l = 0; l < L; l++) dst[x * L + l] = acc[l];
  }
}

template <int T>
void horizontal_lanes(const float* src, float* dst, const int* offset, const float* weight, int outw, int lanes) {
  switch (lanes) {
    case 1: return horizontal<1, T>(src, dst, offset, weight, outw);
    case 4: return horizontal<4, T>(src, dst, offset, weight, outw);
    case 8: return horizontal<8, T>(src, dst, offset, weight, outw);
    default: return horizontal<16, T>(src, dst, offset, weight, outw);
  }
}

}  // namespace

void interp_horizontal(const float* src, float* dst, const int* offset, const float* weight, int outw, int taps,
                       int lanes) {
  if (taps == 2) return horizontal_lanes<2>(src, dst, offset, weight, outw, lanes);
  horizontal_lanes<4>(src, dst, offset, weight, outw, lanes);
}

void interp_vertical(const float* const* rows, const float* weight, int taps, float* dst, long n) {
  if (taps == 2) {
    const float *r0 = rows[0], *r1 = rows[1];
    const float b0 = weight[0], b1 = weight[1];
    for (long i = 0; i < n; i++) dst[i] = r0[i] * b0 + r1[i] * b1;
    return;
  }
  const float *r0 = rows[0], *r1 = rows[1], *r2 = rows[2], *r3 = rows[3];
  const float b0 = weight[0], b1 = weight[1], b2 = weight[2], b3 = weight[3];
  for (long i = 0; i < n; i++) dst[i] = r0[i] * b0 + r1[i] * b1 + r2[i] * b2 + r3[i] * b3;
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
