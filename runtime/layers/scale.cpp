// Scale (ncnn): x * scale[i] (+ bias[i]) per element (1-D), row (2-D) or channel
// (3-D/4-D). Params: 0 = scale_data_size (-233: the scales come as a second input blob),
// 1 = bias_term. Weights: scale (unless -233), bias (if bias_term), raw fp32.
#include <memory>
#include <vector>

#include "runtime/layers/channel_affine.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

namespace {
constexpr int kScaleFromBlob = -233;

// The scalars of a small blob in (c, d, h, w) order, whatever its packing.
std::vector<float> dense_scalars(const Mat& m, const Option& opt) {
  const Mat p = repack_workspace(m, 1, opt);
  std::vector<float> v;
  const int channels = channel_count(p);
  const size_t plane = plane_elements(p);
  for (int q = 0; q < channels; q++) {
    const float* src = channel_ptr(p, q);
    v.insert(v.end(), src, src + plane);
  }
  return v;
}
}  // namespace

class Scale final : public Layer {
 public:
  Scale() {
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    size_ = pd.get(0, 0);
    bias_term_ = pd.get(1, 0);
    if (size_ == kScaleFromBlob) {
      one_blob_only = false;
      if (bias_term_) fail(layer_label(*this), ": bias_term needs a fixed scale_data_size, not -233");
    } else if (size_ <= 0) {
      fail(layer_label(*this), ": scale_data_size (param 0) must be positive or -233, got ", size_);
    }
  }

  void load_model(const ModelBin& mb) override {
    if (size_ != kScaleFromBlob) {
      scale_ = mb.load(size_, 1);
      check_fp32_weight(*this, scale_, size_, "scale");
    }
    if (bias_term_) {
      bias_ = mb.load(size_, 1);
      check_fp32_weight(*this, bias_, size_, "bias");
    }
  }

  void forward_inplace(Mat& blob, const Option& opt) const override {
    if (size_ == kScaleFromBlob) fail(layer_label(*this), ": expects two inputs (data, scale)");
    channel_affine(*this, blob, static_cast<const float*>(scale_.data),
                   bias_term_ ? static_cast<const float*>(bias_.data) : nullptr, size_, opt);
  }

  void forward_inplace(std::vector<Mat>& blobs, const Option& opt) const override {
    if (size_ != kScaleFromBlob) {
      if (blobs.size() != 1) fail(layer_label(*this), ": expects one input, got ", blobs.size());
      return forward_inplace(blobs[0], opt);
    }
    if (blobs.size() != 2) fail(layer_label(*this), ": expects two inputs (data, scale), got ", blobs.size());
    check_fp32_blob(*this, blobs[1], "scale input");
    const std::vector<float> scale = dense_scalars(blobs[1], opt);
    channel_affine(*this, blobs[0], scale.data(), nullptr, static_cast<int>(scale.size()), opt);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    std::vector<Mat> blobs = bottoms;
    if (!blobs.empty()) blobs[0] = bottoms[0].clone(opt.blob_allocator);
    forward_inplace(blobs, opt);
    tops.assign(1, blobs[0]);
  }
  using Layer::forward;

 private:
  int size_ = 0;
  int bias_term_ = 0;
  Mat scale_, bias_;
};

std::unique_ptr<Layer> make_Scale() { return std::make_unique<Scale>(); }

}  // namespace layers
}  // namespace jitconv
