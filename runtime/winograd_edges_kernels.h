// Internal: the edge tiles of ConvWinograd (winograd_edges_simd.inl, per ISA). Tiles whose
// input window crosses the border are transformed from a patch (padding filled in), and
// output tiles that cross it or are stored in a narrower elempack go through a scratch tile.
// Compiled per ISA so that each pixel is one vector move: the library itself is built for
// baseline x86-64, where these copies were SSE moves and libc calls.
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {

// Builds an alpha x alpha patch of vlen-lane pixels from the window whose top-left input
// pixel is (y0, x0); pixels outside [0, h) x [0, w) take pad_value.
struct WinogradPatchJob {
  const float* src;  // one channel pack: [h][w][vlen]
  int h, w;
  int vlen, alpha;
  int y0, x0;
  float pad_value;
  float* patch;      // [alpha][alpha][vlen]
};

// Moves the valid rows x cols pixels of a scratch tile ([m][m][vlen]) to / from a tensor
// of out_pack-lane planes (only the `valid_lanes` first lanes; out_pack divides vlen).
struct WinogradScatterJob {
  float* tensor;     // first plane of the chunk: [planes][h * w][out_pack], plane stride below
  long plane_floats; // floats between out_pack planes (cstep * out_pack)
  int w;             // tensor width
  int oy0, ox0;      // tile origin in the tensor
  int rows, cols;    // valid part of the tile
  int m, vlen, out_pack, valid_lanes;
  float* scratch;    // [m][m][vlen]
};

JITCONV_SIMD_DECLARE(void, build_winograd_patch, (const WinogradPatchJob& job))
// scratch -> tensor (the transformed output tile).
JITCONV_SIMD_DECLARE(void, scatter_winograd_tile, (const WinogradScatterJob& job))
// tensor -> scratch (an edge tile's residual); the rest of the scratch tile is zeroed.
JITCONV_SIMD_DECLARE(void, gather_winograd_tile, (const WinogradScatterJob& job))

}  // namespace jitconv
