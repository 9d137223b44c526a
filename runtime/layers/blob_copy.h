// Moving scalars between blobs of any elempack and lane size: the one kernel behind
// Concat, Slice, Crop and ShuffleChannel.
//
// A blob is seen as groups along ncnn axis 0 (the packed axis), each group an inner box
// of packed elements:
//
//   dims 4:  [c / ep][d][h][w][ep]    group stride cstep
//   dims 3:  [c / ep][h][w][ep]       group stride cstep
//   dims 2:  [h / ep][w][ep]          group stride w
//   dims 1:  [w / ep][ep]             group stride 1
//
// Axis-0 scalar s lives in group s / ep, lane s % ep. A copy moves runs of consecutive
// lanes that stay inside one source group and one destination group: with equal
// elempacks and aligned offsets a run is a whole group and rows go out by memcpy.
#pragma once
#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

// A box over a blob's axes in ncnn order; axis 0 counts scalars.
struct Region {
  int off[4] = {0, 0, 0, 0};
  int len[4] = {1, 1, 1, 1};
};

// The whole of `shape`.
Region full_region(const AxisShape& shape);

// dst[dst_off + i] = src[region.off + i] for every i inside region.len (both blobs of the
// same dims and lane size; the caller checks bounds). Threads over destination groups.
void copy_region(const Mat& src, const Region& region, Mat& dst, const int* dst_off, int num_threads);

// Axis-0 permutation: destination axis-0 scalar o takes source axis-0 scalar
// src_index[o], over the full inner box (src and dst of identical inner shape).
void gather_axis0(const Mat& src, const long* src_index, Mat& dst, int num_threads);

}  // namespace layers
}  // namespace jitconv
