// Branch-free float math that the compiler vectorizes inside plain loops: included only
// by *_simd.inl files, so each ISA build (cmake/simd.cmake) gets its own copy in its
// JITCONV_SIMD_NS namespace (never one shared symbol compiled with AVX-512 flags).
//
// exp: Cody-Waite range reduction x = n*ln2 + r, |r| <= ln2/2, a degree-6 polynomial
// for e^r (relative error ~2 ulp), and 2^n assembled in the exponent bits.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#ifndef JITCONV_SIMD_NS
#error "simd_math.h is for *_simd.inl files only"
#endif

namespace jitconv {
namespace JITCONV_SIMD_NS {
namespace simd_math {

inline float min_f(float a, float b) { return b < a ? b : a; }
inline float max_f(float a, float b) { return a < b ? b : a; }

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// The range where expf is a normal float: kExpMin is the smallest x with expf(x) >= FLT_MIN,
// kExpMax the largest with expf(x) finite.
constexpr float kExpMin = -87.33654022216797f;
constexpr float kExpMax = 88.72283172607422f;

// e^x over the whole of float's range (the clamps [-87.3, 88] gave e^88 = 1.65e38 for every
// x in (88, 88.72] and 0 down from -87.3, where expf is still a normal float).
inline float exp_f(float x_in) {
  const float x = min_f(max_f(x_in, kExpMin), kExpMax);
  // Round x/ln2 to nearest with the 1.5*2^23 trick: vectorizes without roundps. The sum's
  // low mantissa bits hold n itself, so 2^n below is built from them, without a
  // float-to-int conversion (undefined for the NaN a NaN x carries; p stays NaN then).
  const float t = x * 1.44269504088896341f;
  const float shifted = t + 12582912.f;
  const float n = shifted - 12582912.f;
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.f;
  // 2^n as 2^(n - 1) * 2 for n > 0: n reaches 128 near kExpMax, past the exponent field.
  const bool high = n > 0.f;
  const uint32_t biased_exponent =
      float_to_bits(shifted) - float_to_bits(12582912.f) + (high ? 126u : 127u);  // n + 127 - high, mod 2^32
  float y = p * bits_to_float(biased_exponent << 23) * (high ? 2.f : 1.f);
  // Past the clamp, what expf gives: 0 below (results that would be denormal are flushed,
  // as ncnn flushes them by default) and inf past float's range, so that -inf logits get
  // no probability and sigmoid / swish / mish of huge negative inputs reach 0 instead of
  // x times the clamp's floor (swish(-1e35) was -6e-4). A NaN stays NaN.
  y = x_in < kExpMin ? 0.f : y;
  y = x_in > kExpMax ? INFINITY : y;
  return y;
}

// ln(x) for positive x: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), then a degree-8
// polynomial in m - 1 (Cephes logf, ~2 ulp). A subnormal x is scaled by 2^23 first (its
// exponent field does not hold its exponent; log(1e-40) came out as -88.0, not -92.1).
inline float log_f(float x) {
  const bool subnormal = x > 0.f && x < 1.17549435e-38f;
  const uint32_t u = float_to_bits(subnormal ? x * 8388608.f : x);
  float e = static_cast<float>(static_cast<int32_t>(u >> 23) - (subnormal ? 149 : 126));
  float m = bits_to_float((u & 0x007fffffu) | 0x3f000000u);  // [0.5, 1)
  const bool small = m < 0.707106781186547524f;
  e = small ? e - 1.f : e;
  m = small ? m + m - 1.f : m - 1.f;
  const float z = m * m;
  float p = 7.0376836292e-2f;
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  float y = p * m * z;
  y += e * -2.12194440e-4f;
  y -= 0.5f * z;
  float r = m + y + e * 0.693359375f;
  // Outside (0, inf), what logf gives (LRN's window of a NaN or inf must not turn finite).
  r = x == INFINITY ? INFINITY : r;
  r = x == 0.f ? -INFINITY : r;
  r = x < 0.f || x != x ? NAN : r;
  return r;
}

inline float sigmoid_f(float x) { return 1.f / (1.f + exp_f(-x)); }

// tanh(x) (Cephes tanhf) on |x|, then x's sign: below 0.625 an odd polynomial,
// |x| + |x|^3 P(x^2); above, 1 - 2 / (e^2|x| + 1) (e^2|x| is inf past 44, giving exactly
// 1). Both arms are computed and one selected, so loops over it vectorize. NaN stays
// NaN, -0 stays -0, +-inf give +-1.
inline float tanh_f(float x) {
  const float ax = std::fabs(x);
  const float e = exp_f(ax + ax);
  const float large = 1.f - 2.f / (e + 1.f);
  const float z = ax * ax;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = ax + ax * z * p;
  return std::copysign(ax < 0.625f ? small : large, x);
}

// Round half to even without the floating-point environment: x - trunc(x) is exact, so
// the tie test is too (nearbyint would follow whatever rounding mode the thread has).
inline float round_half_even_f(float x) {
  const float t = std::trunc(x);
  const float frac = std::fabs(x - t);
  const float half = t * 0.5f;
  const bool odd = std::trunc(half) != half;
  const bool away = frac > 0.5f || (frac == 0.5f && odd);
  return away ? t + std::copysign(1.f, x) : t;
}

// x * tanh(softplus(x)) = x * n / (n + 2) with n = e^x (e^x + 2); beyond x = 20 the
// ratio is 1 in fp32, so the clamp only avoids overflow. The ratio first, as the JIT
// epilogue computes it: x * n overflowed to inf from x = 1.5e21 (n is up to 2.4e17).
inline float mish_f(float x) {
  const float e = exp_f(min_f(x, 20.f));
  const float n = e * (e + 2.f);
  return x * (n / (n + 2.f));
}

}  // namespace simd_math
}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
