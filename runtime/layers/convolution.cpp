#include "runtime/layers/convolution.h"

#include "runtime/conv_direct.h"
#include "runtime/conv_gemm.h"
#include "runtime/conv_scalar.h"
#include "runtime/error.h"
#include "runtime/packing.h"

namespace jitconv {
namespace layers {

std::unique_ptr<Layer> make_Convolution() { return std::make_unique<Convolution>(); }

Convolution::Convolution() {
  one_blob_only = true;
  support_packing = true;
}

void Convolution::load_param(const ParamDict& pd) {
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
  pad_value = pd.get(18, 0.f);
  bias_term = pd.get(5, 0);
  weight_data_size = pd.get(6, 0);
  int8_scale_term = pd.get(8, 0);
  activation_type = pd.get(9, 0);
  activation_params = pd.get(10, Mat());
  dynamic_weight = pd.get(19, 0);
  if (num_output <= 0) fail("Convolution ", name, ": num_output (0) must be positive, got ", num_output);
  if (kernel_w <= 0 || kernel_h <= 0) fail("Convolution ", name, ": kernel ", kernel_w, "x", kernel_h, " must be positive");
  if (dilation_w <= 0 || dilation_h <= 0 || stride_w <= 0 || stride_h <= 0)
    fail("Convolution ", name, ": dilation and stride must be positive");
  for (int pad : {pad_left, pad_right, pad_top, pad_bottom})
    if (pad < 0 && pad != kPadSameUpper && pad != kPadSameLower)
      fail("Convolution ", name, ": pad ", pad, " is neither >= 0 nor -233/-234 (SAME)");
  if (weight_data_size <= 0 && !dynamic_weight) fail("Convolution ", name, ": weight_data_size (6) must be positive");
  if (weight_data_size % (num_output * kernel_w * kernel_h) != 0)
    fail("Convolution ", name, ": weight_data_size ", weight_data_size, " is not a multiple of num_output*kernel_w*kernel_h");
  std::vector<float> act_params;
  if (!activation_params.empty())
    act_params.assign(static_cast<const float*>(activation_params.data),
                      static_cast<const float*>(activation_params.data) + activation_params.w);
  Activation::from_ncnn(activation_type, act_params);  // validates
  if (dynamic_weight) one_blob_only = false;
}

void Convolution::load_model(const ModelBin& mb) {
  if (dynamic_weight) return;
  weight_data = mb.load(weight_data_size, 0);
  if (weight_data.empty()) fail("Convolution ", name, ": no weight data");
  if (bias_term) bias_data = mb.load(num_output, 1);
}

ConvParams Convolution::params() const {
  ConvParams p;
  p.oc = num_output;
  p.ic = weight_data_size / (num_output * kernel_w * kernel_h);
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
  std::vector<float> act_params;
  if (!activation_params.empty())
    act_params.assign(static_cast<const float*>(activation_params.data),
                      static_cast<const float*>(activation_params.data) + activation_params.w);
  p.act = Activation::from_ncnn(activation_type, act_params);
  return p;
}

void Convolution::create_pipeline(const Option& opt) {
  if (dynamic_weight) return;  // the weights arrive with each forward
  if (weight_data.elemsize != 4) fail("Convolution ", name, ": int8 weights need the int8 path (not built yet)");
  isa_ = force_isa ? forced_isa : current_isa();
  if (!isa_supported(isa_)) fail("Convolution ", name, ": ISA ", isa_name(isa_), " is not supported by this CPU");
  const ConvParams p = params();
  const float* bias = bias_term ? static_cast<const float*>(bias_data) : nullptr;
  const int in_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.ic) : 1;
  const int out_pack = opt.use_packing_layout ? preferred_elempack(isa_, p.oc) : 1;
  std::string algo = forced_algo;
  if (algo.empty()) algo = isa_ == Isa::scalar ? "scalar" : "direct";
  if (algo == "direct") {
    if (isa_ == Isa::scalar) fail("Convolution ", name, ": the direct path needs AVX2 or AVX-512");
    int expected_oh = 0, expected_ow = 0;
    if (hint_w > 0 && hint_h > 0) p.output_size(hint_h, hint_w, expected_oh, expected_ow);
    ConvDirect::Tuning tuning;
    tuning.expected_ow = expected_ow;
    impl_ = std::make_unique<ConvDirect>(p, weight_data, bias, isa_, in_pack, out_pack, tuning);
  } else if (algo == "gemm" || algo == "brgemm" || algo == "im2col") {
    if (isa_ == Isa::scalar) fail("Convolution ", name, ": the GEMM path needs AVX2 or AVX-512");
    impl_ = std::make_unique<ConvGemm>(p, weight_data, bias, isa_, in_pack, out_pack, algo == "gemm" ? "" : algo);
  } else if (algo == "scalar") {
    impl_ = std::make_unique<ConvScalar>(p, weight_data, bias);
  } else {
    fail("Convolution ", name, ": unknown path '", algo, "'");
  }
  if (hint_w > 0 && hint_h > 0) impl_->prepare(hint_h, hint_w);
  if (opt.lightmode) {
    weight_data.release();
  }
}

void Convolution::destroy_pipeline(const Option& opt) { impl_.reset(); }

void Convolution::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const {
  if (!impl_) fail("Convolution ", name, ": forward before create_pipeline");
  if (bottom_blob.dims != 3) fail("Convolution ", name, ": expects a 3-D input (c, h, w), got dims ", bottom_blob.dims);
  const ConvParams p = params();
  if (bottom_blob.c * bottom_blob.elempack != p.ic)
    fail("Convolution ", name, ": input has ", bottom_blob.c * bottom_blob.elempack, " channels, weights expect ", p.ic);
  if (bottom_blob.elemsize != 4u * bottom_blob.elempack)
    fail("Convolution ", name, ": expects fp32 input, got elemsize ", bottom_blob.elemsize);
  Mat bottom = bottom_blob;
  if (bottom.elempack != impl_->in_elempack()) {
    Option pack_opt = opt;
    pack_opt.blob_allocator = opt.workspace_allocator;
    convert_packing(bottom_blob, bottom, impl_->in_elempack(), pack_opt);
  }
  impl_->forward(bottom, top_blob, opt);
}

std::string Convolution::describe() const { return impl_ ? impl_->describe() : std::string(); }

size_t Convolution::weight_bytes() const {
  return (impl_ ? impl_->weight_bytes() : 0) + weight_data.bytes() + bias_data.bytes();
}

}  // namespace layers
}  // namespace jitconv
