// B panels for ConvGemm's subsample and im2col forms, compiled per ISA: the per-pixel
// copies are in_pack floats (a whole zmm for elempack 16), walked row by row.
#include <algorithm>
#include <cstring>

#include "runtime/conv_panels_kernels.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

namespace {

// Into L2, the lines of input row iy of the plane at src (when inside the input).
template <int IP>
void prefetch_row(const ConvPanelJob& job, const float* src, int iy) {
  if (iy < 0 || iy >= job.ih) return;
  const char* row = reinterpret_cast<const char*>(src + static_cast<long>(iy) * job.iw * IP);
  for (long b = 0; b < static_cast<long>(job.iw) * IP * 4; b += 64) __builtin_prefetch(row + b, 0, 2);
}

template <int IP>
void build(const ConvPanelJob& job) {
  const int k_pack = job.k_pack;
  const long stride_k = static_cast<long>(job.pixels) * k_pack;  // floats between k groups of the panel
  const int oy_begin = static_cast<int>(job.pixel_begin / job.ow);
  for (int icg = 0; icg < job.channel_packs; icg++) {
    const float* src = job.src + icg * job.src_cstep;
    for (int y = 0; y < job.kh; y++)
      for (int x = 0; x < job.kw; x++) {
        const long k0 = ((static_cast<long>(icg) * job.kh + y) * job.kw + x) * IP;
        float* dst = job.panel + (k0 / k_pack) * stride_k + k0 % k_pack;
        int oy = oy_begin, ox = static_cast<int>(job.pixel_begin % job.ow);
        for (int j = 0; j < job.pixels;) {
          // One output-row segment: its input row and the columns that fall inside.
          const int run = std::min(job.pixels - j, job.ow - ox);
          const int iy = oy * job.sh - job.pad_top + y * job.dh;
          // The rows are read a few lines at a time with gaps (strided columns, skipped rows)
          // and plane after plane, which the hardware prefetchers leave to L3 latency (the
          // panel copy of 1x1 s2 512->256 @28 was a quarter of its time). The first tap's
          // pass over a plane prefetches, segment by segment, the rows the next plane's taps
          // will read: a whole plane's copy ahead (prefetching just the next segment's row
          // measured no better). x oneDNN, one / two threads (4 / 3 rounds): 512->256 @28
          // 0.90 -> 0.98 / 0.95 -> 1.07, 1024->512 @14 1.00 -> 1.05 / 1.05 -> 1.25.
          // After the first segment, the kernel rows the previous output row shared with this
          // one (all but sh / dh of them when sh is a multiple of dh) are on their way already.
          if (y == 0 && x == 0 && icg + 1 < job.channel_packs) {
            const int first_new = j > 0 && job.sh % job.dh == 0 ? std::max(0, job.kh - job.sh / job.dh) : 0;
            for (int r = first_new; r < job.kh; r++) prefetch_row<IP>(job, src + job.src_cstep, iy + r * job.dh);
          }
          float* out = dst + static_cast<long>(j) * k_pack;
          if (iy < 0 || iy >= job.ih) {
            for (int r = 0; r < run; r++)
              for (int l = 0; l < IP; l++) out[r * k_pack + l] = job.pad_value;
          } else {
            const float* row = src + static_cast<long>(iy) * job.iw * IP;
            for (int r = 0; r < run; r++) {
              const int ix = (ox + r) * job.sw - job.pad_left + x * job.dw;
              if (ix >= 0 && ix < job.iw) {
                std::memcpy(out + r * k_pack, row + static_cast<long>(ix) * IP, sizeof(float) * IP);
              } else {
                for (int l = 0; l < IP; l++) out[r * k_pack + l] = job.pad_value;
              }
            }
          }
          j += run;
          ox = 0;
          oy++;
        }
      }
  }
  // K padding of the last panel group (im2col packs K by 16 lanes).
  const long k_total = static_cast<long>(job.channel_packs) * job.kh * job.kw * IP;
  if (k_total % k_pack) {
    float* last = job.panel + (k_total / k_pack) * stride_k;
    for (int j = 0; j < job.pixels; j++)
      for (long l = k_total % k_pack; l < k_pack; l++) last[static_cast<long>(j) * k_pack + l] = 0.f;
  }
}

}  // namespace

void build_conv_panel(const ConvPanelJob& job) {
  switch (job.in_pack) {
    case 1: build<1>(job); break;
    case 4: build<4>(job); break;
    case 8: build<8>(job); break;
    case 16: build<16>(job); break;
  }
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
