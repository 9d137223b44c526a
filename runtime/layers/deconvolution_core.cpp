#include "runtime/layers/deconvolution_core.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "runtime/layers/deconvolution_kernels.h"
#include "runtime/layers/elementwise_kernels.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

namespace {
constexpr int kPadSameUpper = -233;
constexpr int kPadSameLower = -234;
constexpr long kMaxWeightChunk = 1 << 17;  // floats of A per work item (stays in L2)
constexpr long kMaxColumnChunk = 1 << 20;  // floats of columns per work item

void apply_activation(const UnaryOp* act, float* x, long n) {
  if (!act) return;
  const FloatRows rows{x, 1, n, 0};
  JITCONV_SIMD_CALL(unary_inplace, *act, rows, 1);
}
}  // namespace

DeconvolutionLayer::DeconvolutionLayer(bool has_group) : has_group_(has_group) {
  one_blob_only = true;
  support_inplace = false;
  support_packing = true;
}

void DeconvolutionLayer::load_param(const ParamDict& pd) {
  num_output_ = pd.get(0, 0);
  kernel_w_ = pd.get(1, 0);
  kernel_h_ = pd.get(11, kernel_w_);
  dilation_w_ = pd.get(2, 1);
  dilation_h_ = pd.get(12, dilation_w_);
  stride_w_ = pd.get(3, 1);
  stride_h_ = pd.get(13, stride_w_);
  pad_left_ = pd.get(4, 0);
  pad_right_ = pd.get(15, pad_left_);
  pad_top_ = pd.get(14, pad_left_);
  pad_bottom_ = pd.get(16, pad_top_);
  output_pad_right_ = pd.get(18, 0);
  output_pad_bottom_ = pd.get(19, output_pad_right_);
  output_w_ = pd.get(20, 0);
  output_h_ = pd.get(21, output_w_);
  bias_term_ = pd.get(5, 0);
  weight_data_size_ = pd.get(6, 0);
  group_ = has_group_ ? pd.get(7, 1) : 1;
  const std::string me = layer_label(*this);
  if (pd.get(28, 0) != 0) fail(me, ": dynamic weights (param 28) are not supported");
  try {
    activation_ = Activation::from_ncnn(pd.get(9, 0), pd.get_floats(10));
  } catch (const Error& e) {
    fail(me, ": ", e.what());
  }
  if (num_output_ <= 0) fail(me, ": num_output (param 0) must be positive, got ", num_output_);
  if (kernel_w_ <= 0 || kernel_h_ <= 0) fail(me, ": kernel (params 1/11) must be positive, got ", kernel_w_, "x", kernel_h_);
  if (dilation_w_ <= 0 || dilation_h_ <= 0) fail(me, ": dilation (params 2/12) must be positive");
  if (stride_w_ <= 0 || stride_h_ <= 0) fail(me, ": stride (params 3/13) must be positive");
  for (int pad : {pad_left_, pad_right_, pad_top_, pad_bottom_})
    if (pad < 0 && pad != kPadSameUpper && pad != kPadSameLower)
      fail(me, ": pad ", pad, " is neither >= 0 nor -233/-234 (SAME_UPPER/SAME_LOWER)");
  if (output_pad_right_ < 0 || output_pad_bottom_ < 0 || output_w_ < 0 || output_h_ < 0)
    fail(me, ": negative output_pad (params 18/19) or output size (params 20/21)");
  if (group_ <= 0 || num_output_ % group_ != 0)
    fail(me, ": group (param 7) ", group_, " does not divide num_output ", num_output_);
  // Both factors of each product are in [1, INT_MAX], so each fits in 64 bits; the kernel
  // area must also fit the int create_pipeline and forward index with.
  const long maxk = static_cast<long>(kernel_w_) * kernel_h_;
  if (maxk > INT_MAX) fail(me, ": kernel ", kernel_w_, "x", kernel_h_, " has more than ", INT_MAX, " taps");
  const long per_input = maxk * (num_output_ / group_);
  if (weight_data_size_ <= 0 || weight_data_size_ % per_input != 0)
    fail(me, ": weight_data_size (param 6) ", weight_data_size_, " is not a multiple of kernel area x num_output / group = ",
         per_input);
  // weight_data_size = maxk * num_output_g * num_input_g * group = per_input * num_input
  num_input_ = static_cast<int>(weight_data_size_ / per_input);
  if (num_input_ % group_ != 0)
    fail(me, ": weight_data_size (param 6) implies ", num_input_, " input channels, not divisible by group ", group_);
}

void DeconvolutionLayer::load_model(const ModelBin& mb) {
  weight_ = mb.load(weight_data_size_, 0);
  check_fp32_weight(*this, weight_, weight_data_size_, "weight");
  if (bias_term_) {
    bias_ = mb.load(num_output_, 1);
    check_fp32_weight(*this, bias_, num_output_, "bias");
  }
}

// ncnn's weights: [group][num_output_g][num_input_g][kernel_h][kernel_w].
void DeconvolutionLayer::create_pipeline(const Option&) {
  if (weight_.empty()) {
    if (gemm_weight_.empty() && depthwise_weight_.empty()) fail(layer_label(*this), ": create_pipeline before load_model");
    return;  // already transformed
  }
  const int maxk = kernel_w_ * kernel_h_;
  const int out_g = num_output_ / group_, in_g = num_input_ / group_;
  const float* w = static_cast<const float*>(weight_.data);
  depthwise_ = group_ == num_output_ && group_ == num_input_;
  if (depthwise_) {
    depthwise_weight_.resize(static_cast<size_t>(maxk) * num_output_);
    for (int q = 0; q < num_output_; q++)
      for (int k = 0; k < maxk; k++) depthwise_weight_[static_cast<size_t>(k) * num_output_ + q] = w[q * maxk + k];
  } else {
    gemm_weight_.resize(static_cast<size_t>(weight_data_size_));
    for (int g = 0; g < group_; g++) {
      float* a = &gemm_weight_[static_cast<size_t>(g) * out_g * maxk * in_g];
      for (int p = 0; p < out_g; p++)
        for (int q = 0; q < in_g; q++)
          for (int k = 0; k < maxk; k++)
            a[(static_cast<size_t>(p) * maxk + k) * in_g + q] = w[((static_cast<size_t>(g) * out_g + p) * in_g + q) * maxk + k];
    }
  }
  bias_values_.assign(num_output_, 0.f);
  for (int p = 0; bias_term_ && p < num_output_; p++) bias_values_[p] = bias_[p];
  output_padding_.resize(num_output_);
  for (int p = 0; p < num_output_; p++) output_padding_[p] = activation_.apply(bias_values_[p]);
  weight_.release();
}

size_t DeconvolutionLayer::weight_bytes() const {
  // Before create_pipeline the loaded originals count (the Net sizes the model from them).
  return (gemm_weight_.size() + depthwise_weight_.size() + bias_values_.size()) * sizeof(float) + weight_.bytes() +
         bias_.bytes();
}

DeconvolutionLayer::OutputWindow DeconvolutionLayer::output_window(int w, int h) const {
  OutputWindow win{};
  // In 64 bits: strides, dilations and output pads up to INT_MAX carry these past int.
  win.full_w = checked_extent((w - 1LL) * stride_w_ + dilation_w_ * (kernel_w_ - 1LL) + 1, "deconvolution output width");
  win.full_h =
      checked_extent((h - 1LL) * stride_h_ + dilation_h_ * (kernel_h_ - 1LL) + 1, "deconvolution output height");
  const int adj_w = checked_extent(static_cast<long long>(win.full_w) + output_pad_right_, "padded output width");
  const int adj_h = checked_extent(static_cast<long long>(win.full_h) + output_pad_bottom_, "padded output height");
  const std::string me = layer_label(*this);
  const bool same_upper = pad_left_ == kPadSameUpper || pad_right_ == kPadSameUpper || pad_top_ == kPadSameUpper ||
                          pad_bottom_ == kPadSameUpper;
  const bool same_lower = pad_left_ == kPadSameLower || pad_right_ == kPadSameLower || pad_top_ == kPadSameLower ||
                          pad_bottom_ == kPadSameLower;
  // 64-bit until checked: two pads up to INT_MAX each take them below INT_MIN.
  long long out_w = adj_w, out_h = adj_h;
  if (pad_left_ > 0 || pad_right_ > 0 || pad_top_ > 0 || pad_bottom_ > 0) {
    if (same_upper || same_lower) fail(me, ": explicit pads mixed with -233/-234");
    win.left = pad_left_;
    win.top = pad_top_;
    out_w -= static_cast<long long>(pad_left_) + pad_right_;
    out_h -= static_cast<long long>(pad_top_) + pad_bottom_;
  } else if (output_w_ > 0 && output_h_ > 0) {
    const int wcut = adj_w - output_w_, hcut = adj_h - output_h_;
    if (wcut < 0 || hcut < 0)
      fail(me, ": output size ", output_w_, "x", output_h_, " exceeds the deconvolution result ", adj_w, "x", adj_h);
    if (same_upper) {
      win.left = wcut / 2;
      win.top = hcut / 2;
    } else if (same_lower) {
      win.left = wcut - wcut / 2;
      win.top = hcut - hcut / 2;
    } else {
      fail(me, ": output_w/output_h (params 20/21) need pad -233 or -234 to place the crop");
    }
    out_w = output_w_;
    out_h = output_h_;
  }
  if (out_w <= 0 || out_h <= 0)
    fail(me, ": pads leave an empty output (", out_w, "x", out_h, " from input ", w, "x", h, ")");
  win.out_w = static_cast<int>(out_w);
  win.out_h = static_cast<int>(out_h);
  return win;
}

void DeconvolutionLayer::forward(const Mat& bottom, Mat& top, const Option& opt) const {
  check_fp32_blob(*this, bottom);
  if (gemm_weight_.empty() && depthwise_weight_.empty()) fail(layer_label(*this), ": forward before create_pipeline");
  if (bottom.dims != 3) fail(layer_label(*this), ": expects a 3-D input, got ", bottom.dims, "-D");
  const int channels = bottom.c * bottom.elempack;
  if (channels != num_input_)
    fail(layer_label(*this), ": input has ", channels, " channels, the weights expect ", num_input_);
  const OutputWindow win = output_window(bottom.w, bottom.h);
  Mat full;
  if (depthwise_) {
    full.create(win.full_w, win.full_h, bottom.c, bottom.elemsize, bottom.elempack, opt.workspace_allocator);
    forward_depthwise(bottom, full, opt);
    crop(full, win, top, bottom.elempack, opt);
  } else {
    const Mat in = repack_workspace(bottom, 1, opt);
    full.create(win.full_w, win.full_h, num_output_, 4u, 1, opt.workspace_allocator);
    forward_grouped(in, full, opt);
    crop(full, win, top, output_elempack(opt, num_output_), opt);
  }
}

void DeconvolutionLayer::forward_grouped(const Mat& in, Mat& full, const Option& opt) const {
  const int maxk = kernel_w_ * kernel_h_;
  const int out_g = num_output_ / group_, in_g = num_input_ / group_;
  const long n = static_cast<long>(in.w) * in.h;
  const long full_plane = static_cast<long>(full.w) * full.h;
  long chunk = std::min<long>(out_g, std::max<long>(1, kMaxWeightChunk / (static_cast<long>(maxk) * in_g)));
  chunk = std::min(chunk, std::max<long>(1, kMaxColumnChunk / (maxk * n)));
  while (chunk > 1 && group_ * ((out_g + chunk - 1) / chunk) < opt.num_threads) chunk = (chunk + 1) / 2;
  const long per_group = (out_g + chunk - 1) / chunk;
  UnaryOp act_op;
  const UnaryOp* act = unary_from_activation(activation_, act_op) ? &act_op : nullptr;

  const int threads = thread_count(opt, static_cast<size_t>(num_output_) * maxk * in_g * n);
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> columns(static_cast<size_t>(chunk) * maxk * n);
#pragma omp for schedule(dynamic)
    for (long item = 0; item < group_ * per_group; item++) {
      const int g = static_cast<int>(item / per_group);
      const int p0 = static_cast<int>(item % per_group * chunk);
      const int count = static_cast<int>(std::min<long>(chunk, out_g - p0));
      const GemmJob gemm{&gemm_weight_[(static_cast<size_t>(g) * out_g + p0) * maxk * in_g], in_g,
                         channel_ptr(in, g * in_g), static_cast<long>(in.cstep), columns.data(), n,
                         count * maxk, static_cast<int>(n), in_g};
      JITCONV_SIMD_CALL(deconv_gemm, gemm);
      for (int p = 0; p < count; p++) {
        const int oc = g * out_g + p0 + p;
        float* out = channel_ptr(full, oc);
        std::fill(out, out + full_plane, bias_values_[oc]);
        const Col2ImJob scatter{&columns[static_cast<size_t>(p) * maxk * n], n, out, in.w, in.h, full.w,
                                kernel_w_, kernel_h_, stride_w_, stride_h_, dilation_w_, dilation_h_};
        JITCONV_SIMD_CALL(deconv_col2im, scatter);
        apply_activation(act, out, full_plane);
      }
    }
  }
}

void DeconvolutionLayer::forward_depthwise(const Mat& in, Mat& full, const Option& opt) const {
  const int lanes = in.elempack;
  const long full_elems = static_cast<long>(full.w) * full.h;
  UnaryOp act_op;
  const UnaryOp* act = unary_from_activation(activation_, act_op) ? &act_op : nullptr;
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(in.c) * full_elems * lanes * \
                                                   kernel_w_ * kernel_h_))
  for (int q = 0; q < in.c; q++) {
    float* out = channel_ptr(full, q);
    for (long i = 0; i < full_elems; i++)
      for (int l = 0; l < lanes; l++) out[i * lanes + l] = bias_values_[q * lanes + l];
    const DepthwiseJob job{channel_ptr(in, q), &depthwise_weight_[static_cast<size_t>(q) * lanes], num_output_,
                           out, in.w, in.h, full.w, lanes, kernel_w_, kernel_h_, stride_w_, stride_h_,
                           dilation_w_, dilation_h_};
    JITCONV_SIMD_CALL(deconv_depthwise, job);
    apply_activation(act, out, full_elems * lanes);
  }
}

void DeconvolutionLayer::crop(const Mat& full, const OutputWindow& win, Mat& top, int out_elempack,
                              const Option& opt) const {
  const int lanes = full.elempack;
  Mat out;
  create_blob(out, 3, win.out_w, win.out_h, 1, full.c, lanes,
              lanes == out_elempack ? opt.blob_allocator : opt.workspace_allocator);
  const size_t es = static_cast<size_t>(lanes) * sizeof(float);
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(full.c) * win.out_w * win.out_h * lanes))
  for (int q = 0; q < full.c; q++) {
    const float* src = channel_ptr(full, q);
    float* dst = channel_ptr(out, q);
    for (int y = 0; y < win.out_h; y++) {
      float* row = dst + static_cast<size_t>(y) * win.out_w * lanes;
      const int sy = y + win.top;
      // Columns [0, inside) come from the full output; the rest is output padding, which
      // holds what ncnn's deconvolution leaves there: the bias, through the activation
      // (ncnn fills its whole padded output with the bias before accumulating).
      const int inside = sy < win.full_h ? std::max(0, std::min(win.out_w, win.full_w - win.left)) : 0;
      if (inside > 0)
        std::memcpy(row, src + (static_cast<size_t>(sy) * win.full_w + win.left) * lanes, inside * es);
      for (int x = inside; x < win.out_w; x++)
        for (int l = 0; l < lanes; l++) row[static_cast<size_t>(x) * lanes + l] = output_padding_[q * lanes + l];
    }
  }
  top = lanes == out_elempack ? out : repack_blob(out, out_elempack, opt);
}

}  // namespace layers
}  // namespace jitconv
