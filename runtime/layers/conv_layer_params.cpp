#include "runtime/layers/conv_layer_params.h"

#include <climits>

#include "runtime/error.h"

namespace jitconv {
namespace layers {

void ConvLayerParams::read_conv_params(const ParamDict& pd) {
  num_output = pd.get(0, 0);
  kernel_w = pd.get(1, 0);
  kernel_h = pd.get(11, kernel_w);
  dilation_w = pd.get(2, 1);
  dilation_h = pd.get(12, dilation_w);
  stride_w = pd.get(3, 1);
  stride_h = pd.get(13, stride_w);
  pad_left = pd.get(4, 0);
  pad_right = pd.get(15, pad_left);
  pad_top = pd.get(14, pad_left);
  pad_bottom = pd.get(16, pad_top);
  // ncnn's make_padding: any positive pad pads explicitly; otherwise all four -233 is SAME
  // (upper), all four -234 SAME_LOWER, and anything else (a lone marker, -1) pads nothing.
  // The geometry below then holds all four markers or none.
  auto all_are = [&](int v) { return pad_left == v && pad_right == v && pad_top == v && pad_bottom == v; };
  if (!explicit_pads() && !all_are(kPadSameUpper) && !all_are(kPadSameLower))
    pad_left = pad_right = pad_top = pad_bottom = 0;
  pad_value = pd.get(18, 0.f);
  bias_term = pd.get(5, 0);
  weight_data_size = pd.get(6, 0);
  int8_scale_term = pd.get(8, 0);
  activation_type = pd.get(9, 0);
  // Floats, converted from ints written as ints (`-23310=2,0,6`), as ParamDict converts
  // single numbers.
  activation_params = pd.get_floats(10);
  dynamic_weight = pd.get(19, 0);
}

void ConvLayerParams::check_conv_geometry(const std::string& label) const {
  // Dynamic weights: num_output and the kernel may be left 0 (pnnx writes `0=0 1=0 6=0
  // 19=1` when it does not know them); they come from the weight blob (with_weight_blob).
  const int least = dynamic_weight ? 0 : 1;
  if (num_output < least) fail(label, ": num_output (0) must be positive, got ", num_output);
  if (kernel_w < least || kernel_h < least) fail(label, ": kernel ", kernel_w, "x", kernel_h, " must be positive");
  if (dilation_w <= 0 || dilation_h <= 0 || stride_w <= 0 || stride_h <= 0)
    fail(label, ": dilation and stride must be positive");
  // (read_conv_params zeroed negative pads without a positive one, as ncnn pads nothing.)
  for (int pad : {pad_left, pad_right, pad_top, pad_bottom})
    if (pad < 0 && explicit_pads())
      fail(label, ": pads ", pad_left, ",", pad_right, ",", pad_top, ",", pad_bottom,
           " (left, right, top, bottom) mix explicit padding with ", pad,
           ": SAME (-233 / -234) takes all four, explicit pads are >= 0");
  // The dilated kernel extent, (kernel - 1) * dilation + 1, is an int everywhere after this.
  checked_extent((kernel_w - 1LL) * dilation_w + 1, "dilated kernel width");
  checked_extent((kernel_h - 1LL) * dilation_h + 1, "dilated kernel height");
}

void ConvLayerParams::check_conv_weights(const std::string& label) const {
  if (weight_data_size <= 0 && !dynamic_weight) fail(label, ": weight_data_size (6) must be positive");
  // In 64-bit steps: three factors up to INT_MAX overflow even 64 bits (16 * 2^30 * 2^30
  // wraps to 0), two do not. Past INT_MAX no int weight_data_size can hold the weights.
  if (static_cast<long long>(num_output) * kernel_w > INT_MAX || weights_per_input() > INT_MAX)
    fail(label, ": num_output*kernel_w*kernel_h (", num_output, "*", kernel_w, "*", kernel_h, ") exceeds ", INT_MAX,
         " weights per input channel");
  const long long per_input = weights_per_input();
  if (!dynamic_weight && weight_data_size % per_input != 0)
    fail(label, ": weight_data_size ", weight_data_size, " is not a multiple of num_output*kernel_w*kernel_h = ",
         per_input);
  Activation::from_ncnn(activation_type, activation_params);  // validates
}

ConvLayerParams ConvLayerParams::with_weight_blob(const Mat& weights, const std::string& label) const {
  ConvLayerParams p = *this;
  if (weights.dims == 4) {
    p.kernel_w = weights.w;
    p.kernel_h = weights.h;
    p.num_output = weights.c * weights.elempack;
  }
  if (p.num_output <= 0 || p.kernel_w <= 0 || p.kernel_h <= 0)
    fail(label, ": dynamic weights give no kernel or num_output (a ", weights.dims, "-D weight blob; params ",
         num_output, " outputs, kernel ", kernel_w, "x", kernel_h, "): a 4-D blob (w = kernel_w, h = kernel_h, ",
         "d = input channels per group, c = num_output) or those params are needed");
  return p;
}

ConvParams ConvLayerParams::conv_params(int ic) const {
  ConvParams p;
  p.oc = num_output;
  p.ic = ic;
  p.kh = kernel_h;
  p.kw = kernel_w;
  p.sh = stride_h;
  p.sw = stride_w;
  p.dh = dilation_h;
  p.dw = dilation_w;
  p.pad_top = pad_top;
  p.pad_left = pad_left;
  p.pad_bottom = pad_bottom;
  p.pad_right = pad_right;
  p.pad_value = pad_value;
  p.bias = bias_term != 0;
  p.act = Activation::from_ncnn(activation_type, activation_params);
  return p;
}

}  // namespace layers
}  // namespace jitconv
