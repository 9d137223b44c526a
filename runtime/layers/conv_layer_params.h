// The parameters Convolution and ConvolutionDepthWise share (ids 0-6 and 8-19 of ncnn's
// operation table; ConvolutionDepthWise adds 7 = group), read and checked in one place.
#pragma once
#include <string>
#include <vector>

#include "runtime/activation.h"
#include "runtime/conv_params.h"
#include "runtime/mat.h"
#include "loader/param_dict.h"

namespace jitconv {
namespace layers {

struct ConvLayerParams {
  int num_output = 0;
  int kernel_w = 0, kernel_h = 0;
  int dilation_w = 1, dilation_h = 1;
  int stride_w = 1, stride_h = 1;
  int pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;
  float pad_value = 0.f;
  int bias_term = 0;
  int weight_data_size = 0;
  int int8_scale_term = 0;
  int activation_type = 0;
  std::vector<float> activation_params;  // id 10, as floats (ints written as ints converted)
  int dynamic_weight = 0;

  // Reads every shared id (no checks). Pads follow ncnn's make_padding: without a positive
  // pad, anything but four -233 or four -234 means no padding and reads as 0.
  void read_conv_params(const ParamDict& pd);
  // Geometry: positive num_output, kernel, dilation, stride; pads >= 0 or SAME. label
  // starts each message ("Convolution conv1").
  void check_conv_geometry(const std::string& label) const;
  // weight_data_size against num_output and the kernel; the activation's parameters.
  void check_conv_weights(const std::string& label) const;
  // A positive pad: ncnn pads explicitly (the SAME markers need all four pads).
  bool explicit_pads() const { return pad_left > 0 || pad_right > 0 || pad_top > 0 || pad_bottom > 0; }
  // num_output * kernel_w * kernel_h: the weights per input channel. At most INT_MAX once
  // check_conv_weights has passed (a .param can give factors whose product overflows).
  long long weights_per_input() const { return static_cast<long long>(num_output) * kernel_w * kernel_h; }
  // The geometry for ic input channels in all (pads may hold ncnn's SAME markers).
  ConvParams conv_params(int ic) const;
  // Dynamic weights: these parameters with the kernel size and num_output of a 4-D weight
  // blob (w = kernel_w, h = kernel_h, d = input channels per group, c = num_output), as
  // ncnn takes them from the blob and not from the params; other blobs keep the params'.
  // Throws (label first) when neither gives a positive kernel and num_output.
  ConvLayerParams with_weight_blob(const Mat& weights, const std::string& label) const;
};

}  // namespace layers
}  // namespace jitconv
