// The int8 convolution's input quantizer, written as plain loops with compile-time
// elempacks so each ISA build (cmake/simd.cmake) vectorizes them. Included once per ISA
// with JITCONV_SIMD_NS set.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/conv_int8_quantize.h"

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

// Quantizes n contiguous floats into n contiguous elements (vectorizes: no aliasing,
// unit strides).
template <typename T>
void quantize_span(const float* __restrict in, T* __restrict out, long n, float scale, int offset) {
  for (long i = 0; i < n; i++) out[i] = static_cast<T>(quantize_one(in[i], scale) + offset);
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
