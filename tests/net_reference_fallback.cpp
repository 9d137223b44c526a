// A scalar Convolution for the reference executor while reference/layers has none (the
// reference Convolution layers arrive with the depthwise work). Used only when
// create_reference_layer("Convolution") returns nullptr; built on reference_conv2d.
#include <memory>
#include <vector>

#include "reference/conv_ref.h"
#include "reference/layer_ref_registry.h"
#include "runtime/conv_params.h"
#include "runtime/error.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {

namespace {

class FallbackConvolution final : public Layer {
 public:
  FallbackConvolution() { one_blob_only = true; }

  void load_param(const ParamDict& pd) override {
    p_.oc = pd.get(0, 0);
    p_.kw = pd.get(1, 0);
    p_.kh = pd.get(11, p_.kw);
    p_.dw = pd.get(2, 1);
    p_.dh = pd.get(12, p_.dw);
    p_.sw = pd.get(3, 1);
    p_.sh = pd.get(13, p_.sw);
    p_.pad_left = pd.get(4, 0);
    p_.pad_right = pd.get(15, p_.pad_left);
    p_.pad_top = pd.get(14, p_.pad_left);
    p_.pad_bottom = pd.get(16, p_.pad_top);
    p_.pad_value = pd.get(18, 0.f);
    p_.bias = pd.get(5, 0) != 0;
    weight_size_ = pd.get(6, 0);
    p_.act = Activation::from_ncnn(pd.get(9, 0), pd.get_floats(10));
    if (pd.get(8, 0) || pd.get(19, 0)) fail("fallback reference Convolution: no int8 or dynamic weights");
    if (p_.oc <= 0 || p_.kw <= 0 || p_.kh <= 0 || weight_size_ % (p_.oc * p_.kw * p_.kh) != 0)
      fail("fallback reference Convolution: bad geometry");
    p_.ic = weight_size_ / (p_.oc * p_.kw * p_.kh);
  }

  void load_model(const ModelBin& mb) override {
    weights_ = mb.load(weight_size_, 0);
    if (p_.bias) bias_ = mb.load(p_.oc, 1);
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    if (bottom.dims != 3 || bottom.elempack != 1 || bottom.c != p_.ic)
      fail("fallback reference Convolution ", name, ": expects a 3-D elempack-1 input of ", p_.ic, " channels");
    ConvDesc d;
    d.mb = 1;
    d.ic = p_.ic;
    d.ih = bottom.h;
    d.iw = bottom.w;
    d.oc = p_.oc;
    d.kh = p_.kh;
    d.kw = p_.kw;
    d.sh = p_.sh;
    d.sw = p_.sw;
    d.dilation_h = p_.dh;
    d.dilation_w = p_.dw;
    const ConvPads pads = p_.pads_for(d.ih, d.iw);
    d.pad_top = pads.top;
    d.pad_left = pads.left;
    d.pad_bottom = pads.bottom;
    d.pad_right = pads.right;
    p_.output_size(d.ih, d.iw, d.oh, d.ow);
    const std::vector<float> src = plain_values(bottom);
    std::vector<float> dst(static_cast<size_t>(d.oc) * d.oh * d.ow);
    reference_conv2d(d, src.data(), weights_, p_.bias ? static_cast<const float*>(bias_) : nullptr, dst.data(),
                     p_.act, p_.pad_value, opt.num_threads);
    top.create(d.ow, d.oh, d.oc, 4u, 1, opt.blob_allocator);
    for (int q = 0; q < d.oc; q++) {
      float* out = top.channel(q);
      for (int i = 0; i < d.oh * d.ow; i++) out[i] = dst[static_cast<size_t>(q) * d.oh * d.ow + i];
    }
  }

 private:
  ConvParams p_;
  int weight_size_ = 0;
  Mat weights_, bias_;
};

}  // namespace

std::unique_ptr<Layer> create_reference_layer_for_tests(const std::string& type) {
  std::unique_ptr<Layer> layer = create_reference_layer(type);
  if (!layer && type == "Convolution") layer = std::make_unique<FallbackConvolution>();
  return layer;
}

}  // namespace test
}  // namespace jitconv
