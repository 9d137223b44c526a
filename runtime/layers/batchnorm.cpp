// BatchNorm (ncnn): x * slope / sqrt(var + eps) + bias - slope * mean / sqrt(var + eps),
// per element (1-D), row (2-D) or channel (3-D/4-D). Params: 0 = channels, 1 = eps.
// Weights: slope, mean, var, bias (channels each, raw fp32).
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/layers/channel_affine.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

class BatchNorm final : public Layer {
 public:
  BatchNorm() {
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    channels_ = pd.get(0, 0);
    eps_ = pd.get(1, 0.f);
    if (channels_ <= 0) fail(layer_label(*this), ": channels (param 0) must be positive, got ", channels_);
  }

  void load_model(const ModelBin& mb) override {
    slope_ = mb.load(channels_, 1);
    mean_ = mb.load(channels_, 1);
    var_ = mb.load(channels_, 1);
    bias_ = mb.load(channels_, 1);
    check_fp32_weight(*this, slope_, channels_, "slope");
    check_fp32_weight(*this, mean_, channels_, "mean");
    check_fp32_weight(*this, var_, channels_, "var");
    check_fp32_weight(*this, bias_, channels_, "bias");
  }

  // Folds the statistics into one scale and shift per channel.
  void create_pipeline(const Option&) override {
    scale_.resize(channels_);
    shift_.resize(channels_);
    for (int i = 0; i < channels_; i++) {
      const float var_eps = var_[i] + eps_;
      if (!(var_eps >= 0.f)) fail(layer_label(*this), ": var + eps is ", var_eps, " at channel ", i);
      float sqrt_var = std::sqrt(var_eps);
      if (sqrt_var == 0.f) sqrt_var = 0.0001f;  // ncnn's guard against a zero divisor
      scale_[i] = slope_[i] / sqrt_var;
      shift_[i] = bias_[i] - slope_[i] * mean_[i] / sqrt_var;
    }
  }

  void forward_inplace(Mat& blob, const Option& opt) const override {
    if (scale_.empty()) fail(layer_label(*this), ": forward before create_pipeline");
    channel_affine(*this, blob, scale_.data(), shift_.data(), channels_, opt);
  }

  size_t weight_bytes() const override { return (scale_.size() + shift_.size()) * sizeof(float); }

 private:
  int channels_ = 0;
  float eps_ = 0.f;
  Mat slope_, mean_, var_, bias_;
  std::vector<float> scale_, shift_;
};

std::unique_ptr<Layer> make_BatchNorm() { return std::make_unique<BatchNorm>(); }

}  // namespace layers
}  // namespace jitconv
