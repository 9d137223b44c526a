// Channels-last <-> channels-first reorders, written as plain loops with compile-time
// elempack so each ISA build (cmake/simd.cmake) vectorizes them. Included once per ISA
// with JITCONV_SIMD_NS set.
#include <algorithm>

#include "runtime/nhwc_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

// Packed: each pixel's EP channels of one group are contiguous on both sides, so a row
// is EP-float block copies.
template <int EP>
void reorder_packed(const NhwcJob& job) {
  const long groups = job.channels / EP;
  const long c = job.channels;
#pragma omp parallel for collapse(2) num_threads(job.num_threads) schedule(static)
  for (long g = 0; g < groups; g++) {
    for (long r = 0; r < job.rows; r++) {
      float* nhwc = job.nhwc + r * job.row_stride + g * EP;
      float* blob = job.blob + g * job.group_stride + r * job.row_pixels * EP;
      if (job.to_blob) {
        for (long i = 0; i < job.row_pixels; i++)
          for (int j = 0; j < EP; j++) blob[i * EP + j] = nhwc[i * c + j];
      } else {
        for (long i = 0; i < job.row_pixels; i++)
          for (int j = 0; j < EP; j++) nhwc[i * c + j] = blob[i * EP + j];
      }
    }
  }
}

constexpr long kTile = 16;

// Elempack 1 is a transpose of each row (pixels x channels): done in kTile x kTile tiles
// so both sides are touched a cache line at a time.
void reorder_plain(const NhwcJob& job) {
  const long c = job.channels;
  const long pixel_tiles = (job.row_pixels + kTile - 1) / kTile;
#pragma omp parallel for collapse(2) num_threads(job.num_threads) schedule(static)
  for (long r = 0; r < job.rows; r++) {
    for (long t = 0; t < pixel_tiles; t++) {
      const long i0 = t * kTile;
      const long pixels = std::min(kTile, job.row_pixels - i0);
      float* nhwc = job.nhwc + r * job.row_stride + i0 * c;
      float* blob = job.blob + r * job.row_pixels + i0;
      for (long c0 = 0; c0 < c; c0 += kTile) {
        const long c1 = std::min(c, c0 + kTile);
        if (job.to_blob) {
          for (long q = c0; q < c1; q++)
            for (long i = 0; i < pixels; i++) blob[q * job.group_stride + i] = nhwc[i * c + q];
        } else {
          for (long i = 0; i < pixels; i++)
            for (long q = c0; q < c1; q++) nhwc[i * c + q] = blob[q * job.group_stride + i];
        }
      }
    }
  }
}

}  // namespace

void nhwc_reorder_kernel(const NhwcJob& job) {
  switch (job.elempack) {
    case 4: return reorder_packed<4>(job);
    case 8: return reorder_packed<8>(job);
    case 16: return reorder_packed<16>(job);
    default: return reorder_plain(job);
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
