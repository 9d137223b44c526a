// Internal: per-ISA pooling kernels (pooling_simd.inl). One call handles one packed
// channel: `lanes` interleaved channels, [h][w][lanes] floats.
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {
namespace layers {

// A 2-D window sweep over one channel. Coordinates are those of the input padded by
// (pad_top, pad_left); nothing is materialized: windows are clipped to the input's
// [x_begin, x_end) x [y_begin, y_end) (the whole input, or for an average that excludes
// padding the input inside the counted region), the rest counting as padding.
struct PoolWindowJob {
  const float* src;
  float* dst;
  int w, h, lanes;
  int outw, outh;
  int kernel_w, kernel_h, stride_w, stride_h;
  int pad_left, pad_top;
  bool max;                // else average
  bool count_include_pad;  // average divisor: kernel area, else the count inside [lo, hi)
  int lo_x, hi_x, lo_y, hi_y;  // padded-coordinate region counted when !count_include_pad
  int x_begin, x_end, y_begin, y_end;  // input columns / rows read (row stride stays w)
};

// ncnn's adaptive pooling: window [floor(i*in/out), ceil((i+1)*in/out)) per axis.
struct PoolAdaptiveJob {
  const float* src;
  float* dst;
  int w, h, lanes;
  int outw, outh;
  bool max;
};

}  // namespace layers

JITCONV_SIMD_DECLARE(void, pool_window_channel, (const layers::PoolWindowJob& job))
JITCONV_SIMD_DECLARE(void, pool_adaptive_channel, (const layers::PoolAdaptiveJob& job))
// dst[l] = max or mean over the `count` elements of src ([count][lanes]).
JITCONV_SIMD_DECLARE(void, pool_global_channel, (const float* src, long count, int lanes, bool max, float* dst))

}  // namespace jitconv
