// The geometry of one (single-group) convolution, shared by every implementation path.
#pragma once
#include <string>

#include "runtime/activation.h"

namespace jitconv {

constexpr int kPadSameUpper = -233;  // ncnn / TensorFlow SAME, ONNX SAME_UPPER
constexpr int kPadSameLower = -234;  // ONNX SAME_LOWER

struct ConvPads {
  int top = 0, left = 0, bottom = 0, right = 0;
  bool any() const { return top || left || bottom || right; }
};

struct ConvParams {
  int ic = 0, oc = 0;
  int kh = 1, kw = 1;
  int sh = 1, sw = 1;
  int dh = 1, dw = 1;
  // Non-negative values, or kPadSameUpper / kPadSameLower in all four (the layers read ncnn's
  // rule into that form: runtime/layers/conv_layer_params.cpp); any marker selects SAME.
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  float pad_value = 0.f;
  bool bias = false;
  // Residual fusion (Convolution followed by an Eltwise sum): a second input laid out like
  // the output is added before the activation, act(conv(x) + bias + residual).
  bool residual = false;
  Activation act;

  int extent_h() const { return (kh - 1) * dh + 1; }
  int extent_w() const { return (kw - 1) * dw + 1; }
  // The padding for an ih x iw input (SAME modes depend on it, as in ncnn's make_padding).
  ConvPads pads_for(int ih, int iw) const;
  // Output size; throws jitconv::Error when the input is smaller than the kernel.
  void output_size(int ih, int iw, int& oh, int& ow) const;
  // Throws, the message after "label: ", unless the padded input and the output of an
  // ih x iw input could be allocated (fp32): preparing kernels for a shape no forward can
  // run would only burn time (a pad of 2^25 generated code for minutes before the output
  // failed to allocate).
  void check_allocatable(int ih, int iw, const std::string& label) const;
  bool allocatable(int ih, int iw) const;
  std::string to_string() const;
};

}  // namespace jitconv
