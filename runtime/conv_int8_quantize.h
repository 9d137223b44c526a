// Quantization to int8 the way ncnn does it (float2int8 in src/layer/convolution.cpp):
// q = round(v), half away from zero, saturated to [-127, 127]. One definition for the
// weights, the pad value, the input quantizer (conv_int8_simd.inl) and the scalar kernel.
#pragma once
#include <cmath>
#include <cstdint>

#include "runtime/simd_dispatch.h"

namespace jitconv {

// The largest float below 0.5: truncating v + copysign(kInt8RoundBias, v) rounds half
// away from zero exactly for |v| < 2^23 (adding 0.5 itself would round 0.49999997 up).
// The truncation is the float-to-int conversion, which compilers vectorize (std::trunc
// stays a libm call under the default -ftrapping-math).
constexpr float kInt8RoundBias = 0.49999997f;

// v clamped to [-127, 127] (NaN gives -127, as x86 ncnn's int conversion saturates
// it to INT_MIN), then rounded half away from zero.
inline int int8_round_clamp(float v) {
  v = v > -127.f ? v : -127.f;
  v = v < 127.f ? v : 127.f;
  return static_cast<int>(v + std::copysign(kInt8RoundBias, v));
}

inline int8_t float_to_int8(float v) { return static_cast<int8_t>(int8_round_clamp(v)); }

// Quantizes an fp32 blob (c, src_h, src_w) packed by in_pack, sampled every y_step rows
// and x_step columns, into an interleaved image of h x w pixels
//
//   dst = [h][w][pixel_elems]   element = q + offset (uint8 with offset 128, or int16 with 0)
//
// channel c of pixel (y, x) at dst + y * dst_row_stride + x * pixel_elems + c (elements)
// holds source pixel (y * y_step, x * x_step); channels ic..pixel_elems-1 get `fill`.
struct Int8QuantizeJob {
  const float* src;
  int in_pack;
  long src_channel_stride;  // floats between packed channels (cstep * in_pack)
  int src_w;                // source row length in pixels
  int x_step, y_step;
  int w, h, ic;
  float scale;
  void* dst;
  int elem_bytes;  // 1 (uint8) or 2 (int16)
  int offset;      // added to q: 128 for uint8, 0 for int16
  long pixel_elems;
  long dst_row_stride;  // elements
  int fill;
  int num_threads;
};

JITCONV_SIMD_DECLARE(void, quantize_to_image, (const Int8QuantizeJob& job))

// The variant compiled for `isa` (every variant gives identical results).
void run_quantize_to_image(Isa isa, const Int8QuantizeJob& job);

}  // namespace jitconv
