#include "reference/conv_int8_ref.h"

#include <cmath>

#include "runtime/error.h"

namespace jitconv {

int8_t reference_float2int8(float v) {
  if (std::isnan(v)) return -127;
  const float r = std::round(v);
  if (r > 127.f) return 127;
  if (r < -127.f) return -127;
  return static_cast<int8_t>(r);
}

std::vector<int8_t> reference_quantize_weights(const float* weights, int oc, long per_oc, const float* scales) {
  std::vector<int8_t> out(static_cast<size_t>(oc) * per_oc);
  for (int o = 0; o < oc; o++)
    for (long k = 0; k < per_oc; k++) out[o * per_oc + k] = reference_float2int8(weights[o * per_oc + k] * scales[o]);
  return out;
}

void reference_conv2d_int8(const ConvDesc& d, const float* src, const int8_t* weights, const Int8RefScales& scales,
                           const float* bias, float* dst, const Activation& act, float pad_value, int32_t* sums) {
  if (d.mb != 1 || d.g != 1) fail("reference_conv2d_int8: one image and one group only");
  const long plane = static_cast<long>(d.ih) * d.iw;
  std::vector<int> q(static_cast<size_t>(d.ic) * plane);
  for (size_t i = 0; i < q.size(); i++) q[i] = reference_float2int8(src[i] * scales.bottom);
  const int q_pad = reference_float2int8(pad_value * scales.bottom);
  const long out_plane = static_cast<long>(d.oh) * d.ow;
  for (int o = 0; o < d.oc; o++) {
    const int8_t* w_oc = weights + static_cast<long>(o) * d.ic * d.kh * d.kw;
    const float scale_in = scales.weight[o] == 0.f ? 0.f : 1.f / (scales.bottom * scales.weight[o]);
    for (int y = 0; y < d.oh; y++)
      for (int x = 0; x < d.ow; x++) {
        int64_t sum = 0;
        for (int c = 0; c < d.ic; c++)
          for (int ky = 0; ky < d.kh; ky++)
            for (int kx = 0; kx < d.kw; kx++) {
              const int iy = y * d.sh - d.pad_top + ky * d.dilation_h;
              const int ix = x * d.sw - d.pad_left + kx * d.dilation_w;
              const bool inside = iy >= 0 && iy < d.ih && ix >= 0 && ix < d.iw;
              const int v = inside ? q[c * plane + static_cast<long>(iy) * d.iw + ix] : q_pad;
              sum += static_cast<int64_t>(v) * w_oc[(static_cast<long>(c) * d.kh + ky) * d.kw + kx];
            }
        if (sum > INT32_MAX || sum < INT32_MIN) fail("reference_conv2d_int8: the int32 sum overflows");
        const long at = o * out_plane + static_cast<long>(y) * d.ow + x;
        if (sums) sums[at] = static_cast<int32_t>(sum);
        float v = static_cast<float>(static_cast<int32_t>(sum)) * scale_in;
        if (bias) v += bias[o];
        v = act.apply(v);
        if (scales.requantize) v = reference_float2int8(v * scales.top) * (1.f / scales.top);
        dst[at] = v;
      }
  }
}

}  // namespace jitconv
