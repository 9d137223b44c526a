#include "runtime/conv_scalar.h"

#include "runtime/error.h"

namespace jitconv {

ConvScalar::ConvScalar(const ConvParams& params, const float* weights, const float* bias) : params_(params) {
  weights_.assign(weights, weights + static_cast<long>(params.oc) * params.ic * params.kh * params.kw);
  if (params.bias) bias_.assign(bias, bias + params.oc);
}

void ConvScalar::forward(const Mat& bottom, Mat& top, const Option& opt) const {
  if (bottom.dims != 3 || bottom.elempack != 1 || bottom.c != params_.ic)
    fail("scalar convolution expects a 3-D elempack-1 input with ", params_.ic, " channels");
  const ConvParams& p = params_;
  const ConvPads pads = p.pads_for(bottom.h, bottom.w);
  int oh, ow;
  p.output_size(bottom.h, bottom.w, oh, ow);
  top.create(ow, oh, p.oc, 4u, 1, opt.blob_allocator);
  const int ih = bottom.h, iw = bottom.w;
#pragma omp parallel for num_threads(opt.num_threads)
  for (int o = 0; o < p.oc; o++) {
    float* out = top.channel(o);
    const float* w_oc = weights_.data() + static_cast<long>(o) * p.ic * p.kh * p.kw;
    for (int y = 0; y < oh; y++)
      for (int x = 0; x < ow; x++) {
        float sum = p.bias ? bias_[o] : 0.f;
        for (int i = 0; i < p.ic; i++) {
          const float* in = bottom.channel(i);
          const float* w = w_oc + static_cast<long>(i) * p.kh * p.kw;
          for (int ky = 0; ky < p.kh; ky++) {
            const int iy = y * p.sh - pads.top + ky * p.dh;
            for (int kx = 0; kx < p.kw; kx++) {
              const int ix = x * p.sw - pads.left + kx * p.dw;
              const bool inside = iy >= 0 && iy < ih && ix >= 0 && ix < iw;
              sum += (inside ? in[iy * iw + ix] : p.pad_value) * w[ky * p.kw + kx];
            }
          }
        }
        out[y * ow + x] = p.act.apply(sum);
      }
  }
}

}  // namespace jitconv
