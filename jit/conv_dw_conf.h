// The full specialization of one generated depthwise-convolution kernel.
// init_conv_dw_conf() computes it from the problem; ConvDwGenerator only emits code from
// it; the driver (runtime/conv_depthwise.cpp) only prepares buffers and threads.
//
// Depthwise means every channel is convolved with its own kh x kw filter. In a packed
// blob one vector holds the same pixel of `pack` channels, so the kernel is a per-lane
// multiply-add over taps: the vector width IS the elempack (zmm 16 / ymm 8 / xmm 4).
// One call computes `rows` output rows (all ow) of one channel pack; every row in the
// call uses the same valid kernel-row range (the driver calls top/bottom edge rows on
// their own). Left/right padding taps are skipped in generated edge blocks.
//
//   src     = [ih][iw][pack]      (one channel pack of a packed Mat)
//   weights = [kh][kw][pack]      (the pack's taps)
//   dst     = [oh][ow][pack]
#pragma once
#include <string>

#include "runtime/activation.h"
#include "runtime/cpu.h"

namespace jitconv {

struct ConvDwConf {
  Isa isa = Isa::avx512;  // encoding and register file (32 vector registers on AVX-512)
  int pack = 16;          // lanes per vector = elempack of src and dst

  int iw = 0, ow = 0;  // unpadded input width, output width
  int kw = 1;          // taps per kernel row (kh is a runtime count)
  int sw = 1, dw = 1;  // stride and dilation along w (h ones are runtime strides)
  int pad_left = 0;

  int ur_w = 1;  // output pixels held in registers at once

  bool bias = false;
  Activation act;

  // e.g. conv_dw_avx512_p16_kw3_s1_d1_iw56ow56pl1_ur28_bias_relu
  std::string name() const;
};

struct ConvDwProblem {
  int iw = 0, ow = 0;
  int kw = 1, sw = 1, dw = 1, pad_left = 0;
  int pack = 16;
  bool bias = false;
  Activation act;
};

// Whether a generated kernel can serve this kernel width and pack on `isa` (the kw
// weight registers, an input register and at least one accumulator must fit).
bool conv_dw_jit_supported(Isa isa, int kw, int pack, const Activation& act);

ConvDwConf init_conv_dw_conf(Isa isa, const ConvDwProblem& p);

// The runtime arguments of one kernel call.
struct ConvDwArgs {
  const float* src;      // first valid input row of the first output row, column 0
  const float* weights;  // the pack's weights, advanced to the first valid kernel row
  const float* bias;     // pack values, or null
  float* dst;            // first output row, column 0
  long kh_count;         // valid kernel rows (0: bias + activation only)
  long rows;             // output rows to compute (>= 1)
  long src_row_step;     // bytes between the inputs of consecutive output rows (sh * iw * pack * 4)
  long src_kh_step;      // bytes between consecutive kernel rows (dh * iw * pack * 4)
};

using ConvDwKernelFn = void (*)(const ConvDwArgs*);

}  // namespace jitconv
