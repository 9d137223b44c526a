// The scalar reference of Convolution and ConvolutionDepthWise (one class; the
// depthwise type adds the group param 7): elempack-1 fp32 blobs, ncnn's semantics
// (explicit or SAME pads filled with pad_value, dynamic weights, fused activation), the
// arithmetic done by reference_conv2d in double.
#pragma once
#include <vector>

#include "reference/layers/ref_util.h"
#include "runtime/activation.h"

namespace jitconv {
namespace reference_layers {

class ConvolutionRef final : public Layer {
 public:
  explicit ConvolutionRef(bool has_group) : has_group_(has_group) { one_blob_only = true; }
  void load_param(const ParamDict& pd) override;
  void load_model(const ModelBin& mb) override;
  void create_pipeline(const Option& opt) override;
  void forward(const Mat& in, Mat& out, const Option& opt) const override;
  // dynamic_weight: {input, weights (num_output*(ic/group)*kh*kw values, any shape), [bias]}.
  void forward(const std::vector<Mat>& in, std::vector<Mat>& out, const Option& opt) const override;

 private:
  // One (c, h, w) image with the given weights (group, oc/group, ic/group, kh, kw) and bias.
  Mat convolve(const Mat& in, const float* weights, const float* bias) const;

  bool has_group_;
  int num_output_ = 0, kw_ = 0, kh_ = 0, dw_ = 1, dh_ = 1, sw_ = 1, sh_ = 1;
  int pad_left_ = 0, pad_right_ = 0, pad_top_ = 0, pad_bottom_ = 0;
  float pad_value_ = 0.f;
  int bias_term_ = 0, weight_size_ = 0, group_ = 1, int8_scale_term_ = 0, dynamic_weight_ = 0;
  Activation act_;
  Mat weight_, bias_;
};

}  // namespace reference_layers
}  // namespace jitconv
