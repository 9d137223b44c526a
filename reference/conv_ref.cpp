#include "reference/conv_ref.h"

#include <vector>

namespace jitconv {

void reference_conv2d(const ConvDesc& d, const float* src, const float* weights, const float* bias, float* dst,
                      const Activation& act, float pad_value, int num_threads) {
  const int icg = d.ic / d.g, ocg = d.oc / d.g;
  const long src_plane = static_cast<long>(d.ih) * d.iw;
  const long dst_plane = static_cast<long>(d.oh) * d.ow;
#pragma omp parallel for collapse(2) num_threads(num_threads) schedule(static)
  for (int n = 0; n < d.mb; n++) {
    for (int o = 0; o < d.oc; o++) {
      const int group = o / ocg;
      const float* w_oc = weights + static_cast<long>(o) * icg * d.kh * d.kw;
      float* out = dst + (static_cast<long>(n) * d.oc + o) * dst_plane;
      for (int y = 0; y < d.oh; y++) {
        for (int x = 0; x < d.ow; x++) {
          double sum = bias ? bias[o] : 0.0;
          for (int c = 0; c < icg; c++) {
            const float* in = src + (static_cast<long>(n) * d.ic + group * icg + c) * src_plane;
            const float* w = w_oc + static_cast<long>(c) * d.kh * d.kw;
            for (int ky = 0; ky < d.kh; ky++) {
              const int iy = y * d.sh - d.pad_top + ky * d.dilation_h;
              for (int kx = 0; kx < d.kw; kx++) {
                const int ix = x * d.sw - d.pad_left + kx * d.dilation_w;
                const bool inside = iy >= 0 && iy < d.ih && ix >= 0 && ix < d.iw;
                const double v = inside ? in[static_cast<long>(iy) * d.iw + ix] : pad_value;
                sum += v * w[ky * d.kw + kx];
              }
            }
          }
          out[static_cast<long>(y) * d.ow + x] = static_cast<float>(act.apply(sum));
        }
      }
    }
  }
}

}  // namespace jitconv
