// Internal: per-ISA lane gathers and scatters between packed and pack-1 layouts
// (lane_copy_simd.inl), behind the data layers' blob copies (Concat, Slice, ShuffleChannel).
#pragma once
#include "runtime/simd_dispatch.h"

namespace jitconv {

// One row of `count` packed destination elements whose `lanes` lanes each come from
// their own source: dst[i * lanes + l] = src[l][i * src_step] (elements of lane_bytes
// bytes; lanes 4, 8 or 16; src_step 1, 4, 8 or 16).
struct LaneGatherJob {
  const void* const* src;
  int src_step;
  void* dst;
  int lanes;
  int lane_bytes;  // 4 or 2
  long count;
};

// The inverse into pack-1 planes: dst[l][i] = src[i * src_step + l] for l < lanes
// (src_step 4, 8 or 16; lanes at most src_step).
struct LaneScatterJob {
  const void* src;
  int src_step;
  void* const* dst;
  int lanes;
  int lane_bytes;  // 4 or 2
  long count;
};

JITCONV_SIMD_DECLARE(void, gather_lanes, (const LaneGatherJob& job))
JITCONV_SIMD_DECLARE(void, scatter_lanes, (const LaneScatterJob& job))

}  // namespace jitconv
