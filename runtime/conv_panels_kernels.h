// Internal: builds the GEMM's B panels for ConvGemm (conv_panels_simd.inl, per ISA).
//   panel = [K / k_pack][pixels][k_pack], K ordered (icg, [ky, kx,] lane)
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {

struct ConvPanelJob {
  const float* src;  // packed input: [ic/in_pack][ih][iw][in_pack]
  long src_cstep;    // floats between channel packs
  int ih, iw, in_pack, channel_packs;
  int kh, kw, sh, sw, dh, dw;  // kh = kw = 1 for the subsample form
  int pad_top, pad_left;
  float pad_value;
  int ow;            // output width (pixel p is (p / ow, p % ow))
  long pixel_begin;
  int pixels;
  int k_pack;        // panel packing (in_pack for subsample, 16 for im2col)
  float* panel;
};

JITCONV_SIMD_DECLARE(void, build_conv_panel, (const ConvPanelJob& job))

}  // namespace jitconv
