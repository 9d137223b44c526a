// Output edge tiles of ConvWinograd, compiled per ISA (see winograd_edges_kernels.h). The pixel
// width is a template parameter so each pixel copy or fill is one or two vector moves.
#include <algorithm>
#include <cstring>

#include "runtime/winograd_edges_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

template <int V>
inline void fill_pixels(float* dst, int pixels, float value) {
  for (int p = 0; p < pixels; p++)
    for (int l = 0; l < V; l++) dst[p * V + l] = value;
}

template <int V>
inline void copy_pixels(float* dst, const float* src, int pixels) {
  for (int p = 0; p < pixels; p++)
    for (int l = 0; l < V; l++) dst[p * V + l] = src[p * V + l];
}

// Calls move(tensor_pixel, scratch_pixel) for every valid pixel and out_pack plane.
template <int P, typename Move>
void for_each_pixel(const WinogradScatterJob& job, Move move) {
  for (int i = 0; i < job.rows; i++)
    for (int j = 0; j < job.cols; j++) {
      const long pixel = static_cast<long>(job.oy0 + i * job.step_y) * job.w + job.ox0 + j * job.step_x;
      float* lanes = job.scratch + (i * job.m + j) * job.vlen;
      for (int l = 0; l < job.valid_lanes; l += P) move(job.tensor + (l / P) * job.plane_floats + pixel * P, lanes + l);
    }
}

template <int P>
void scatter(const WinogradScatterJob& job) {
  for_each_pixel<P>(job, [](float* t, const float* s) { copy_pixels<P>(t, s, 1); });
}

template <int P>
void gather(const WinogradScatterJob& job) {
  fill_pixels<1>(job.scratch, job.m * job.m * job.vlen, 0.f);
  for_each_pixel<P>(job, [](float* t, float* s) { copy_pixels<P>(s, t, 1); });
}

}  // namespace

void scatter_winograd_tile(const WinogradScatterJob& job) {
  switch (job.out_pack) {
    case 1: scatter<1>(job); break;
    case 4: scatter<4>(job); break;
    case 8: scatter<8>(job); break;
    default: scatter<16>(job); break;
  }
}

void gather_winograd_tile(const WinogradScatterJob& job) {
  switch (job.out_pack) {
    case 1: gather<1>(job); break;
    case 4: gather<4>(job); break;
    case 8: gather<8>(job); break;
    default: gather<16>(job); break;
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
