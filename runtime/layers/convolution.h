// ncnn's Convolution layer: parameters ids 0-19 as in ncnn's operation table, weights in
// OIHW order, and a path chosen at create_pipeline (jit/ kernels behind every path).
#pragma once
#include <memory>
#include <string>

#include "runtime/conv_impl.h"
#include "runtime/conv_params.h"
#include "runtime/cpu.h"
#include "runtime/layers/conv_layer_params.h"
#include "runtime/layer.h"

namespace jitconv {
namespace layers {

class Convolution : public Layer, public ConvLayerParams {
 public:
  Convolution();
  void load_param(const ParamDict& pd) override;
  void load_model(const ModelBin& mb) override;
  void create_pipeline(const Option& opt) override;
  void destroy_pipeline(const Option& opt) override;
  void forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
  // dynamic_weight: bottom_blobs = {input, weights (kw, kh, ic, oc as ncnn lays them), [bias]}.
  void forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;
  std::string describe() const override;
  size_t weight_bytes() const override;

  // The geometry (pads may hold ncnn's SAME markers).
  ConvParams params() const;

  // ncnn parameters: ConvLayerParams.

  Mat weight_data;  // num_output x ic x kh x kw (fp32, or int8 with elemsize 1)
  Mat bias_data;
  // int8_scale_term: per-output-channel weight scales, the input scale and (when
  // int8_scale_term > 100) the output scale for requantization.
  Mat weight_data_int8_scales;
  Mat bottom_blob_int8_scales;
  Mat top_blob_int8_scales;

  // jitconv: force a path ("direct", "gemm", "winograd23/43/63", "scalar"; empty = choose)
  // and an ISA (default: current_isa() at create_pipeline). For check/bench/autotune.
  std::string forced_algo;
  bool force_isa = false;
  Isa forced_isa = Isa::scalar;
  // With force_isa: accept an ISA this CPU lacks. create_pipeline then generates that ISA's
  // kernels (for the hinted shape) without running any, for `jitconv dump --isa` and the
  // code-generation tests; forward refuses.
  bool generate_only = false;
  // Input shape known at create_pipeline (from -23330 hints or set through the API);
  // kernels for it are generated there instead of at the first forward.
  int hint_w = 0, hint_h = 0;
  // Residual fusion, set before create_pipeline (the Net does it for Convolution ->
  // Eltwise sum [-> ReLU]): the layer takes bottoms {input, residual} and computes
  // act(conv(input) + bias + residual). The generated kernels add the residual in their
  // epilogue where the path allows; otherwise the layer adds it after an activation-free
  // convolution.
  bool fuse_residual = false;
  void forward_residual(const Mat& bottom_blob, const Mat& residual_blob, Mat& top_blob, const Option& opt) const;

 private:
  void check_runnable() const;  // refuses kernels of an ISA this CPU lacks (generate_only)
  std::unique_ptr<ConvImpl> make_impl(const std::string& algo, const ConvParams& p, const float* weights,
                                      const float* bias, const Option& opt) const;

  // The input checked and packed as impl_ wants it.
  Mat packed_input(const Mat& bottom_blob, const Option& opt) const;

  std::unique_ptr<ConvImpl> impl_;
  bool layer_adds_residual_ = false;  // fuse_residual on a path whose kernels cannot add it
  Activation residual_act_;           // then the activation, applied after the add
  Isa isa_ = Isa::scalar;
  std::string choice_reason_;
};

}  // namespace layers
}  // namespace jitconv
