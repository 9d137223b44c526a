// The int8 convolution's input quantizer, written as plain loops with compile-time
// elempacks so each ISA build (cmake/simd.cmake) vectorizes them. Included once per ISA
// with JITCONV_SIMD_NS set.
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports its own AVX-512 intrinsics' _mm512_undefined_* sources as "maybe
// uninitialized"; the state at the header lines decides, so it is set before including.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/conv_int8_quantize.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

// int8_round_clamp (conv_int8_quantize.h) restated here: an inline function shared with
// TUs built for other ISAs could be linked in from the wrong one.
inline int quantize_one(float x, float scale) {
  float v = x * scale;
  v = v > -127.f ? v : -127.f;
  v = v < 127.f ? v : 127.f;
  return static_cast<int>(v + std::copysign(kInt8RoundBias, v));
}

// Quantizes n contiguous floats into n contiguous elements. Spelled out with intrinsics:
// compilers turn quantize_one's NaN-exact selects into mask juggling.
template <typename T>
void quantize_span(const float* in, T* out, long n, float scale, int offset) {
  long i = 0;
#if defined(__AVX512F__)
  const __m512 vscale = _mm512_set1_ps(scale), lo = _mm512_set1_ps(-127.f), hi = _mm512_set1_ps(127.f);
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  const __m512i round_bias = _mm512_castps_si512(_mm512_set1_ps(kInt8RoundBias));
  const __m512i voffset = _mm512_set1_epi32(offset);
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_mul_ps(_mm512_loadu_ps(in + i), vscale);
    v = _mm512_max_ps(v, lo);  // vmaxps returns the second operand for a NaN
    v = _mm512_min_ps(v, hi);
    const __m512i bias = _mm512_or_si512(_mm512_and_si512(_mm512_castps_si512(v), sign), round_bias);
    v = _mm512_add_ps(v, _mm512_castsi512_ps(bias));
    const __m512i q = _mm512_add_epi32(_mm512_cvttps_epi32(v), voffset);
    if (sizeof(T) == 1)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(q));
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_cvtepi32_epi16(q));
  }
#elif defined(__AVX2__)
  const __m256 vscale = _mm256_set1_ps(scale), lo = _mm256_set1_ps(-127.f), hi = _mm256_set1_ps(127.f);
  const __m256i sign = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  const __m256i round_bias = _mm256_castps_si256(_mm256_set1_ps(kInt8RoundBias));
  const __m256i voffset = _mm256_set1_epi32(offset);
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_mul_ps(_mm256_loadu_ps(in + i), vscale);
    v = _mm256_max_ps(v, lo);
    v = _mm256_min_ps(v, hi);
    const __m256i bias = _mm256_or_si256(_mm256_and_si256(_mm256_castps_si256(v), sign), round_bias);
    v = _mm256_add_ps(v, _mm256_castsi256_ps(bias));
    const __m256i q = _mm256_add_epi32(_mm256_cvttps_epi32(v), voffset);
    // int16 per 128-bit lane, then the two lanes' low halves side by side: q0..q7.
    const __m128i q16 = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packs_epi32(q, q), 0x08));
    if (sizeof(T) == 1)
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), _mm_packus_epi16(q16, q16));
    else
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), q16);
  }
#endif
  for (; i < n; i++) out[i] = static_cast<T>(quantize_one(in[i], scale) + offset);
}

// One channel group of one row at a time: quantize the group's w * P contiguous floats
// into a buffer, then move P elements per pixel to the interleaved image.
template <typename T, int P>
void quantize_rows(const Int8QuantizeJob& job) {
  constexpr long kChunkPixels = 256;  // the buffer stays in L1
  T* dst = static_cast<T*>(job.dst);
  const int groups = job.ic / P;
  const long pixel = job.pixel_elems;
#pragma omp parallel for num_threads(job.num_threads) schedule(static)
  for (int y = 0; y < job.h; y++) {
    T buffer[kChunkPixels * P];
    T* row = dst + y * job.dst_row_stride;
    for (int g = 0; g < groups; g++) {
      const float* in = job.src + g * job.src_channel_stride + static_cast<long>(y) * job.y_step * job.src_w * P;
      for (long x0 = 0; x0 < job.w; x0 += kChunkPixels) {
        const long n = std::min<long>(kChunkPixels, job.w - x0);
        if (job.x_step == 1) {
          quantize_span(in + x0 * P, buffer, n * P, job.scale, job.offset);
        } else {
          float gathered[kChunkPixels * P];
          for (long x = 0; x < n; x++) memcpy(gathered + x * P, in + (x0 + x) * job.x_step * P, sizeof(float) * P);
          quantize_span(gathered, buffer, n * P, job.scale, job.offset);
        }
        T* out = row + x0 * pixel + g * P;
        for (long x = 0; x < n; x++) memcpy(out + x * pixel, buffer + x * P, sizeof(T) * P);
      }
    }
    if (pixel > job.ic)
      for (int x = 0; x < job.w; x++)
        for (long c = job.ic; c < pixel; c++) row[x * pixel + c] = static_cast<T>(job.fill);
  }
}

template <typename T>
void quantize_typed(const Int8QuantizeJob& job) {
  switch (job.in_pack) {
    case 1: return quantize_rows<T, 1>(job);
    case 4: return quantize_rows<T, 4>(job);
    case 8: return quantize_rows<T, 8>(job);
    case 16: return quantize_rows<T, 16>(job);
  }
}

}  // namespace

void quantize_to_image(const Int8QuantizeJob& job) {
  if (job.elem_bytes == 1)
    quantize_typed<uint8_t>(job);
  else
    quantize_typed<int16_t>(job);
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
