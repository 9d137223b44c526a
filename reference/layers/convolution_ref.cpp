#include "reference/layers/convolution_ref.h"

#include <memory>

#include "reference/conv_ref.h"

namespace jitconv {
namespace reference_layers {

namespace {

constexpr int kSameUpper = -233;  // TensorFlow SAME / ONNX SAME_UPPER: the extra pad goes last
constexpr int kSameLower = -234;  // ONNX SAME_LOWER: the extra pad goes first

// Total SAME padding along one axis: the output covers ceil(size / stride) positions.
int same_padding(int size, int kernel, int dilation, int stride) {
  const int extent = dilation * (kernel - 1) + 1;
  const int pad = extent + (size - 1) / stride * stride - size;
  return pad > 0 ? pad : 0;
}

}  // namespace

void ConvolutionRef::load_param(const ParamDict& pd) {
  num_output_ = pd.get(0, 0);
  kw_ = pd.get(1, 0);
  kh_ = pd.get(11, kw_);
  dw_ = pd.get(2, 1);
  dh_ = pd.get(12, dw_);
  sw_ = pd.get(3, 1);
  sh_ = pd.get(13, sw_);
  pad_left_ = pd.get(4, 0);
  pad_right_ = pd.get(15, pad_left_);
  pad_top_ = pd.get(14, pad_left_);
  pad_bottom_ = pd.get(16, pad_top_);
  pad_value_ = pd.get(18, 0.f);
  bias_term_ = pd.get(5, 0);
  weight_size_ = pd.get(6, 0);
  group_ = has_group_ ? pd.get(7, 1) : 1;
  int8_scale_term_ = pd.get(8, 0);
  act_ = Activation::from_ncnn(pd.get(9, 0), pd.get_floats(10));
  dynamic_weight_ = pd.get(19, 0);
  if (num_output_ <= 0 || kw_ <= 0 || kh_ <= 0 || dw_ <= 0 || dh_ <= 0 || sw_ <= 0 || sh_ <= 0 || group_ <= 0 ||
      num_output_ % group_ != 0)
    fail(ref_label(*this), ": bad num_output, kernel, dilation, stride or group");
  if (dynamic_weight_) one_blob_only = false;
}

void ConvolutionRef::load_model(const ModelBin& mb) {
  if (dynamic_weight_) return;
  weight_ = mb.load(weight_size_, 0);
  if (bias_term_) bias_ = mb.load(num_output_, 1);
}

void ConvolutionRef::create_pipeline(const Option&) {
  if (int8_scale_term_ || (!dynamic_weight_ && weight_.elemsize != 4u))
    fail(ref_label(*this), ": int8 convolution has no reference yet (int8_scale_term ", int8_scale_term_, ")");
}

Mat ConvolutionRef::convolve(const Mat& in, const float* weights, const float* bias) const {
  if (in.dims != 3) fail(ref_label(*this), ": expects a 3-D input, got dims ", in.dims);
  ConvDesc d;
  d.mb = 1;
  d.g = group_;
  d.ic = in.c;
  d.ih = in.h;
  d.iw = in.w;
  d.oc = num_output_;
  d.kh = kh_;
  d.kw = kw_;
  d.sh = sh_;
  d.sw = sw_;
  d.dilation_h = dh_;
  d.dilation_w = dw_;
  if (d.ic % group_ != 0) fail(ref_label(*this), ": ", d.ic, " input channels are not divisible by group ", group_);
  // ncnn's make_padding: a positive pad pads explicitly, else all four markers are SAME,
  // else nothing is padded.
  const int pads[4] = {pad_left_, pad_right_, pad_top_, pad_bottom_};
  bool positive = false, upper = true, lower = true;
  for (int p : pads) {
    positive = positive || p > 0;
    upper = upper && p == kSameUpper;
    lower = lower && p == kSameLower;
  }
  if (!positive && (upper || lower)) {
    const int wpad = same_padding(in.w, kw_, dw_, sw_), hpad = same_padding(in.h, kh_, dh_, sh_);
    d.pad_left = upper ? wpad / 2 : wpad - wpad / 2;
    d.pad_right = wpad - d.pad_left;
    d.pad_top = upper ? hpad / 2 : hpad - hpad / 2;
    d.pad_bottom = hpad - d.pad_top;
  } else if (positive) {
    for (int p : pads)
      if (p < 0) fail(ref_label(*this), ": explicit pads mixed with ", p);
    d.pad_left = pad_left_;
    d.pad_right = pad_right_;
    d.pad_top = pad_top_;
    d.pad_bottom = pad_bottom_;
  }
  const int span_h = d.ih + d.pad_top + d.pad_bottom - (dh_ * (kh_ - 1) + 1);
  const int span_w = d.iw + d.pad_left + d.pad_right - (dw_ * (kw_ - 1) + 1);
  if (span_h < 0 || span_w < 0) fail(ref_label(*this), ": padded input is smaller than the kernel");
  d.oh = span_h / sh_ + 1;
  d.ow = span_w / sw_ + 1;

  std::vector<float> src;
  for (int q = 0; q < in.c; q++)
    for (int y = 0; y < in.h; y++)
      for (int x = 0; x < in.w; x++) src.push_back(at(in, x, y, 0, q));
  std::vector<float> dst(static_cast<size_t>(d.oc) * d.oh * d.ow);
  reference_conv2d(d, src.data(), weights, bias, dst.data(), act_, pad_value_);
  Mat out(d.ow, d.oh, d.oc);
  size_t i = 0;
  for (int q = 0; q < d.oc; q++)
    for (int y = 0; y < d.oh; y++)
      for (int x = 0; x < d.ow; x++) at(out, x, y, 0, q) = dst[i++];
  return out;
}

void ConvolutionRef::forward(const Mat& in, Mat& out, const Option&) const {
  check_ref_blob(*this, in);
  const int ic = weight_size_ / (num_output_ * kw_ * kh_) * group_;
  if (static_cast<size_t>(ic / group_) * num_output_ * kw_ * kh_ != static_cast<size_t>(weight_size_))
    fail(ref_label(*this), ": weight_data_size ", weight_size_, " does not fit num_output and the kernel");
  const float* bias = bias_term_ ? static_cast<const float*>(bias_) : nullptr;
  // A flattened blob through a 1x1 kernel is an InnerProduct (Convolution only).
  if (!has_group_ && in.dims == 1 && kw_ == 1 && kh_ == 1 && in.w == ic) {
    Mat image(1, 1, in.w);
    for (int q = 0; q < in.w; q++) at(image, 0, 0, 0, q) = at(in, q, 0, 0, 0);
    const Mat result = convolve(image, weight_, bias);
    out = Mat(num_output_);
    for (int q = 0; q < num_output_; q++) at(out, q, 0, 0, 0) = at(result, 0, 0, 0, q);
    return;
  }
  if (in.dims == 3 && in.c != ic) fail(ref_label(*this), ": input has ", in.c, " channels, weights expect ", ic);
  out = convolve(in, weight_, bias);
}

void ConvolutionRef::forward(const std::vector<Mat>& in, std::vector<Mat>& out, const Option& opt) const {
  out.resize(1);
  if (!dynamic_weight_) {
    if (in.size() != 1) fail(ref_label(*this), ": expects one input");
    forward(in[0], out[0], opt);
    return;
  }
  if (in.size() != (bias_term_ ? 3u : 2u)) fail(ref_label(*this), ": dynamic weights need data, weight [, bias]");
  for (const Mat& m : in) check_ref_blob(*this, m);
  const Mat& data = in[0];
  if (data.dims != 3 || data.c % group_ != 0) fail(ref_label(*this), ": bad dynamic-weight input");
  // Values in (c, d, h, w) order: ncnn's weight blob is (w=kw, h=kh, d=ic/group, c=oc).
  auto flat = [](const Mat& m) {
    std::vector<float> v;
    for_each_scalar(const_cast<Mat&>(m), [&v](float& x) { v.push_back(x); });
    return v;
  };
  const std::vector<float> weights = flat(in[1]);
  if (weights.size() != static_cast<size_t>(num_output_) * (data.c / group_) * kw_ * kh_)
    fail(ref_label(*this), ": dynamic weight blob holds ", weights.size(), " values");
  std::vector<float> bias;
  if (bias_term_) {
    bias = flat(in[2]);
    if (bias.size() != static_cast<size_t>(num_output_)) fail(ref_label(*this), ": dynamic bias size mismatch");
  }
  out[0] = convolve(data, weights.data(), bias_term_ ? bias.data() : nullptr);
}

std::unique_ptr<Layer> make_Convolution() { return std::make_unique<ConvolutionRef>(false); }

}  // namespace reference_layers
}  // namespace jitconv
