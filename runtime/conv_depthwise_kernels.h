// Internal: the portable depthwise convolution (conv_depthwise_simd.inl, compiled per
// ISA). It serves what the generated kernels do not: elempack 1 (vectorized along the
// output row), the scalar ISA, and kernels too wide for the JIT's register block.
//
//   src     = packs - [ih][iw][lanes]      (channel pack q at src + q * src_cstep)
//   weights = packs - [kh][kw][lanes]
//   bias    = [packs * lanes], or null
//   dst     = packs - [oh][ow][lanes]
#pragma once
#include "runtime/activation.h"
#include "runtime/simd_dispatch.h"

namespace jitconv {

struct DepthwiseJob {
  const float* src;
  long src_cstep;  // floats between channel packs
  int ih, iw;
  float* dst;
  long dst_cstep;
  int oh, ow;
  const float* weights;
  const float* bias;
  int packs, lanes;  // lanes: 1, 4, 8 or 16
  int kh, kw, sh, sw, dh, dw;
  int pad_top, pad_left;  // taps outside the input are skipped (zero padding)
  Activation act;
  int rows_per_task;  // output rows per parallel work item
  int num_threads;
};

JITCONV_SIMD_DECLARE(void, conv_depthwise_simd, (const DepthwiseJob& job))

}  // namespace jitconv
