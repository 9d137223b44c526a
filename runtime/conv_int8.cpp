#include "runtime/conv_int8.h"

#include "runtime/conv_int8_impl.h"
#include "runtime/conv_int8_quantize.h"
#include "runtime/error.h"
#include "runtime/layers/convolution.h"

namespace jitconv {

std::vector<float> int8_scale_values(const Mat& m, long want, const char* what) {
  const long count = m.empty() ? 0 : static_cast<long>(m.w) * m.h * m.d * m.c * m.elempack;
  if (count != want) fail(what, " holds ", count, " values, expected ", want);
  if (m.elemsize != 4u * m.elempack || m.elempack != 1 || m.dims != 1)
    fail(what, " must be a 1-D fp32 blob, got dims ", m.dims, " elemsize ", m.elemsize);
  const float* v = static_cast<const float*>(m.data);
  return std::vector<float>(v, v + count);
}

std::vector<int8_t> quantize_conv_weights(const float* weights, int oc, long per_oc, const float* scales) {
  std::vector<int8_t> out(static_cast<size_t>(oc) * per_oc);
  for (int o = 0; o < oc; o++)
    for (long k = 0; k < per_oc; k++) out[o * per_oc + k] = float_to_int8(weights[o * per_oc + k] * scales[o]);
  return out;
}

std::unique_ptr<ConvImpl> make_conv_int8(const layers::Convolution& layer, Isa isa, const Option& opt) {
  try {
    const ConvParams p = layer.params();
    const long per_oc = static_cast<long>(p.ic) * p.kh * p.kw;
    Int8Scales scales;
    scales.weight = int8_scale_values(layer.weight_data_int8_scales, p.oc, "weight_data_int8_scales");
    scales.bottom = int8_scale_values(layer.bottom_blob_int8_scales, 1, "bottom_blob_int8_scales")[0];
    scales.requantize = layer.int8_scale_term > 100;
    if (scales.requantize) scales.top = int8_scale_values(layer.top_blob_int8_scales, 1, "top_blob_int8_scales")[0];
    const Mat& w = layer.weight_data;
    const long count = w.empty() ? 0 : static_cast<long>(w.w) * w.h * w.d * w.c * w.elempack;
    if (count != per_oc * p.oc) fail("weight_data holds ", count, " values, expected ", per_oc * p.oc);
    if (w.elempack != 1) fail("weight_data must be unpacked, got elempack ", w.elempack);
    std::vector<int8_t> quantized;
    const int8_t* weights = nullptr;
    if (w.elemsize == 1) {
      weights = static_cast<const int8_t*>(w.data);
    } else if (w.elemsize == 4) {
      quantized = quantize_conv_weights(static_cast<const float*>(w.data), p.oc, per_oc, scales.weight.data());
      weights = quantized.data();
    } else {
      fail("weight_data has elemsize ", w.elemsize, " (expected 1 for int8 or 4 for fp32)");
    }
    if (p.bias && layer.bias_data.w * layer.bias_data.elempack != p.oc)
      fail("bias_data holds ", layer.bias_data.w, " values, expected ", p.oc);
    const int in_pack = opt.use_packing_layout ? preferred_elempack(isa, p.ic) : 1;
    const int out_pack = opt.use_packing_layout ? preferred_elempack(isa, p.oc) : 1;
    ConvInt8::Tuning tuning;
    tuning.generate_only = layer.force_isa && layer.generate_only;
    return std::make_unique<ConvInt8>(p, weights, scales, p.bias ? static_cast<const float*>(layer.bias_data) : nullptr,
                                      isa, in_pack, out_pack, tuning);
  } catch (const Error& e) {
    fail("Convolution ", layer.name, ": ", e.what());
  }
}

}  // namespace jitconv
