// ncnn's ConvolutionDepthWise layer: Convolution's parameter ids plus 7 = group, weights
// in (group, oc/group, ic/group, kh, kw) order. group == ic == oc runs on the depthwise
// kernels (runtime/conv_depthwise.h); any other group count runs each group on the
// Convolution paths (runtime/conv_depthwise_grouped.h).
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

class ConvolutionDepthWise : public Layer, public ConvLayerParams {
 public:
  ConvolutionDepthWise();
  void load_param(const ParamDict& pd) override;
  void load_model(const ModelBin& mb) override;
  void create_pipeline(const Option& opt) override;
  void destroy_pipeline(const Option& opt) override;
  void forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
  // dynamic_weight: bottom_blobs = {input, weights (kw, kh, ic/group, oc as ncnn lays
  // them; any shape with the right count), [bias]}.
  void forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;
  std::string describe() const override;
  size_t weight_bytes() const override;

  // The geometry of the whole problem (ic and oc over all groups; pads may hold ncnn's
  // SAME markers). ic is derived from weight_data_size.
  ConvParams params() const;
  bool is_depthwise() const;

  // ncnn parameters: ConvLayerParams, and group (7).
  int group = 1;

  Mat weight_data;  // group x oc/group x ic/group x kh x kw
  Mat bias_data;
  // int8_scale_term (ncnn's ids and .bin order): per-group weight scales (one for all with
  // 2 / 102), the input scale, the output scale (> 100). With use_int8_inference each group
  // runs as an int8 convolution (ncnn's numerics); without, fp32 weights run in fp32.
  Mat weight_data_int8_scales;
  Mat bottom_blob_int8_scales;
  Mat top_blob_int8_scales;

  // jitconv: force a path and an ISA (default: current_isa() at create_pipeline), for
  // check/bench/tests. "depthwise" (generated kernels or loops as the shape allows),
  // "depthwise_loops" (the per-ISA loops), or a per-group Convolution path "direct",
  // "gemm", "brgemm", "scalar" (runs even depthwise problems group by group); empty =
  // choose.
  std::string forced_algo;
  bool force_isa = false;
  Isa forced_isa = Isa::scalar;
  // With force_isa: accept an ISA this CPU lacks. create_pipeline then generates that ISA's
  // kernels (for the hinted shape) without running any, for `jitconv dump --isa` and the
  // code-generation tests; forward refuses.
  bool generate_only = false;
  // Input shape known at create_pipeline; kernels for it are generated there.
  int hint_w = 0, hint_h = 0;

 private:
  void check_runnable() const;  // refuses kernels of an ISA this CPU lacks (generate_only)
  void create_int8_pipeline(const ConvParams& p, const Option& opt);
  std::unique_ptr<ConvImpl> make_impl(const std::string& algo, const ConvParams& p, const float* weights,
                                      const float* bias, const Option& opt) const;
  std::string label() const;

  std::unique_ptr<ConvImpl> impl_;
  Isa isa_ = Isa::scalar;
  std::string choice_reason_;
};

}  // namespace layers
}  // namespace jitconv
