// Internal: the shared implementation of Deconvolution and DeconvolutionDepthWise
// (runtime/layers/deconvolution.cpp, deconvolutiondepthwise.cpp).
//
// Grouped path (any group count): per group, a GEMM of the repacked weights
//   A = [num_output_g * maxk][num_input_g]   (A[p*maxk + k][q] = W[g][p][q][k])
// with the unpacked input channels B = [num_input_g][h*w] gives one column row per
// (output channel, kernel tap); col2im scatter-adds them into the full output. Work is
// split into chunks of output channels, each owning its columns and output channels.
// Depthwise path (group == channels == num_output): a direct scatter per packed channel
// with the weights laid out [maxk][channels], so any elempack keeps its lanes.
// Then bias (as the initial value), the fused activation, and ncnn's output cropping /
// output padding.
#pragma once
#include <vector>

#include "runtime/activation.h"
#include "runtime/layer.h"

namespace jitconv {
namespace layers {

class DeconvolutionLayer : public Layer {
 public:
  explicit DeconvolutionLayer(bool has_group);

  void load_param(const ParamDict& pd) override;
  void load_model(const ModelBin& mb) override;
  void create_pipeline(const Option& opt) override;
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override;
  size_t weight_bytes() const override;

 private:
  struct OutputWindow {
    int full_w, full_h;  // (w - 1) * stride + dilation * (kernel - 1) + 1
    int out_w, out_h;    // after cropping / output padding
    int left, top;       // crop offsets into the full output
  };
  OutputWindow output_window(int w, int h) const;
  void forward_grouped(const Mat& in, Mat& full, const Option& opt) const;
  void forward_depthwise(const Mat& in, Mat& full, const Option& opt) const;
  // Copies the window of the (activated) full output into `top`; zeros past the full size
  // (ncnn's output padding) and packs to `out_elempack`.
  void crop(const Mat& full, const OutputWindow& win, Mat& top, int out_elempack, const Option& opt) const;

  bool has_group_;
  int num_output_ = 0, kernel_w_ = 0, kernel_h_ = 0, dilation_w_ = 1, dilation_h_ = 1, stride_w_ = 1, stride_h_ = 1;
  int pad_left_ = 0, pad_right_ = 0, pad_top_ = 0, pad_bottom_ = 0;
  int output_pad_right_ = 0, output_pad_bottom_ = 0, output_w_ = 0, output_h_ = 0;
  int bias_term_ = 0, weight_data_size_ = 0, group_ = 1, num_input_ = 0;
  Activation activation_;
  Mat weight_, bias_;
  bool depthwise_ = false;
  std::vector<float> gemm_weight_;       // [group][num_output_g * maxk][num_input_g]
  std::vector<float> depthwise_weight_;  // [maxk][channels]
  std::vector<float> bias_values_;       // num_output (zeros without bias_term)
  std::vector<float> output_padding_;    // num_output: activation(bias), what output padding holds (ncnn)
};

}  // namespace layers
}  // namespace jitconv
