// Internal: argument blocks of the per-ISA Winograd transforms (winograd_simd.inl).
//
//   input  (ic padded to vlen)  src  = [ic/vlen][ih][iw][vlen]
//   V      (GEMM B panels)      dst  = [alpha^2][ic/vlen][tiles][vlen]
//   M      (GEMM C panels)      src  = [alpha^2][oc/vlen][tiles][vlen]
//   output                      dst  = [oc/out_pack][oh][ow][out_pack]
// with alpha = m + 2 and tiles the m x m output tiles of a block, in row-major tile order.
#pragma once
#include "runtime/activation.h"
#include "runtime/simd_dispatch.h"

namespace jitconv {

struct WinogradInputJob {
  int m;                 // output tile size: 2, 4 or 6
  const float* src;
  long src_cstep;        // floats between channel packs
  int ih, iw;
  int pad_top, pad_left;
  float pad_value;
  int tiles_w;           // tiles per output row
  long tile_begin;       // first tile of the block (row-major over the output)
  int tile_count;
  int channel_packs;     // all packs (the panel stride)
  int pack_begin, pack_end;  // the packs this call transforms
  float* dst;
};

struct WinogradOutputJob {
  int m;
  const float* src;
  int chunks;             // chunk count of M
  int chunk_begin, chunk_end;
  const float* bias;      // chunks * vlen values or null
  Activation act;
  float* dst;
  long dst_plane_stride;  // floats between output planes
  int out_pack;
  int oc;
  int oh, ow;
  int tiles_w;
  long tile_begin;
  int tile_count;
};

// Lanes per vector of the variant in use (16 on AVX-512, 8 on AVX2).
JITCONV_SIMD_DECLARE(int, winograd_lanes, ())
JITCONV_SIMD_DECLARE(void, winograd_input_transform, (const WinogradInputJob& job))
JITCONV_SIMD_DECLARE(void, winograd_output_transform, (const WinogradOutputJob& job))

}  // namespace jitconv
