// The full specialization of one generated depthwise-convolution kernel.
// init_conv_dw_conf() computes it from the problem; ConvDwGenerator only emits code from
// it; the driver (runtime/conv_depthwise.cpp) only prepares buffers and threads.
//
// Depthwise means every channel is convolved with its own kh x kw filter, so the kernel
// is a per-lane multiply-add over taps. A vector register holds `pixels` consecutive
// output pixels of `pack` channels (pixels * pack lanes):
//
//   pack = vector       1 pixel per vector (pack 16 on AVX-512, pack 8 on AVX2)
//   pack < vector       vector/pack pixels per vector (AVX-512: 2 / 4 / 16 for pack 8 /
//                       4 / 1; AVX2: 2 / 8 for pack 4 / 1) at stride 1, and at stride 2
//                       when that is 4 or more: taps and bias are broadcast across the
//                       pixels; stride 1 on AVX-512 slides a window of input vectors
//                       along the row (conv_dw_window_vectors), stride 2 picks the even
//                       pixels of two loads (vpermt2ps; vshufps + vpermpd on AVX2)
//   otherwise           1 pixel per narrower vector (xmm for pack 4, ymm for 8)
//
// One call computes `rows` output rows (all ow) of one channel pack; every row in the
// call uses the same valid kernel-row range (the driver calls top/bottom edge rows on
// their own). Left/right padding taps are skipped in generated edge blocks (with masked
// loads where a vector straddles the edge).
//
//   src     = [ih][iw][pack]      (one channel pack of a packed Mat; pack 1: one channel)
//   weights = [kh][kw][pack]      (the pack's taps)
//   dst     = [oh][ow][pack]
#pragma once
#include <string>

#include "runtime/activation.h"
#include "runtime/cpu.h"

namespace jitconv {

struct ConvDwConf {
  Isa isa = Isa::avx512;  // encoding and register file (32 vector registers on AVX-512)
  int pack = 16;          // elempack of src and dst
  int pixels = 1;         // output pixels per vector register (pixels * pack lanes)

  int iw = 0, ow = 0;  // unpadded input width, output width
  int kw = 1;          // taps per kernel row (for kh see below)
  int sw = 1, dw = 1;  // stride and dilation along w (h ones are runtime strides)
  int pad_left = 0;

  int ur_w = 1;  // vector registers of output held at once (ur_w * pixels output pixels)
  // Partial sums per output vector (taps kx go to set kx % acc_sets, added at the end):
  // short rows would otherwise wait on one FMA chain of kh * kw latencies per vector.
  int acc_sets = 1;
  // 0: any call's kh_count, the taps of each kernel row loaded as it is reached.
  // > 0: a kernel for interior rows only (kh_count == kh in every call): all kh * kw taps
  // are loaded once per call and the kernel rows unrolled.
  int kh = 0;

  bool bias = false;
  Activation act;

  int lanes() const { return pixels * pack; }
  // e.g. conv_dw_avx512_p16x1_kw3_s1_d1_iw56ow56pl1_ur28a1_bias_relu
  std::string name() const;
};

struct ConvDwProblem {
  int iw = 0, ow = 0;
  int kw = 1, sw = 1, dw = 1, pad_left = 0;
  int pack = 16;
  bool bias = false;
  Activation act;
};

// Output pixels per vector for a pack and stride on `isa` (0: no kernel, which is
// elempack 1 with a stride above 2).
int conv_dw_pixels_per_vector(Isa isa, int pack, int sw);
// Whether a generated kernel can serve this kernel width, stride and pack on `isa` (the
// kw tap registers, the input registers and at least one accumulator must fit).
bool conv_dw_jit_supported(Isa isa, int kw, int sw, int pack, const Activation& act);
// AVX-512, stride 1, several pixels per vector: the input vectors the taps of one output
// vector span. They slide along the row (one new load per output vector) and each tap's
// input is cut from two of them with valignd, instead of an unaligned load per tap
// (which splits a cache line 15 times in 16). 0 for the other forms and for windows of
// more than a few vectors (long dilated rows).
int conv_dw_window_vectors(Isa isa, int pack, int pixels, int sw, int kw, int dw);

ConvDwConf init_conv_dw_conf(Isa isa, const ConvDwProblem& p);
// The interior-rows form of `edge` for kh kernel rows, when its kh * kw taps fit in
// registers beside the accumulators (with fewer partial sums if need be); false when
// they do not.
bool conv_dw_interior_conf(const ConvDwConf& edge, int kh, ConvDwConf& interior);

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
