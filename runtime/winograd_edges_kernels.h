// Internal: the output edge tiles of ConvWinograd (winograd_edges_simd.inl, per ISA).
// Output tiles that cross the border or are stored in a narrower elempack go through a
// scratch tile. (Input windows that cross it need no copy: generated edge transforms read
// only their inside, jit/winograd_conf.h.) Compiled per ISA so that each pixel is one
// vector move: the library itself is built for baseline x86-64, where these copies were
// SSE moves and libc calls.
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {

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
  int step_y = 1, step_x = 1;  // tensor rows / pixels from one tile pixel to the next (dilation)
};

// scratch -> tensor (the transformed output tile).
JITCONV_SIMD_DECLARE(void, scatter_winograd_tile, (const WinogradScatterJob& job))
// tensor -> scratch (an edge tile's residual); the rest of the scratch tile is zeroed.
JITCONV_SIMD_DECLARE(void, gather_winograd_tile, (const WinogradScatterJob& job))

}  // namespace jitconv
