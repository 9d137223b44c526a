// Internal: the argument block of the per-ISA channels-last reorder (nhwc_simd.inl).
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {

// One reorder between a channels-last buffer and a channels-first blob:
//
//   nhwc:  rows x [row_pixels][channels]             row r at nhwc + r * row_stride
//   blob:  channels/elempack x [rows*row_pixels][elempack]   group g at blob + g * group_stride
struct NhwcJob {
  float* nhwc;
  float* blob;
  bool to_blob;  // direction
  int channels;
  int elempack;
  long rows;
  long row_pixels;
  long row_stride;    // floats
  long group_stride;  // floats (cstep * elempack)
  int num_threads;
};

JITCONV_SIMD_DECLARE(void, nhwc_reorder_kernel, (const NhwcJob& job))

}  // namespace jitconv
