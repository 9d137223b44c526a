// Reference DetectionOutput, step by step as ncnn: decode every prior, per class keep
// scores above the threshold, sort, cut to nms_top_k, NMS; then all classes together,
// sort, cut to keep_top_k.
#include <cmath>
#include <memory>
#include <vector>

#include "reference/layers/dense_tensor_ref.h"
#include "reference/layers/detection_ref_util.h"

namespace jitconv {
namespace reference_layers {

namespace {

class DetectionOutput final : public Layer {
 public:
  DetectionOutput() { one_blob_only = false; }

  void load_param(const ParamDict& pd) override {
    num_class_ = pd.get(0, 0);
    nms_threshold_ = pd.get(1, 0.05f);
    nms_top_k_ = pd.get(2, 300);
    keep_top_k_ = pd.get(3, 100);
    threshold_ = pd.get(4, 0.5f);
    for (int i = 0; i < 4; i++) variances_[i] = pd.get(5 + i, i < 2 ? 0.1f : 0.2f);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    const std::vector<float> loc = to_dense(*this, bottoms.at(0)).values;
    const std::vector<float> conf = to_dense(*this, bottoms.at(1)).values;
    const DenseTensor priors = to_dense(*this, bottoms.at(2));
    const bool mxnet = num_class_ == -233;
    const int num_prior = mxnet ? priors.size[kRefH] : priors.size[kRefW] / 4;
    const int num_class = mxnet ? bottoms[1].h : num_class_;

    std::vector<RefBox> decoded;
    for (int i = 0; i < num_prior; i++) {
      const float* pb = priors.values.data() + i * 4;
      const float* var = mxnet ? variances_ : priors.values.data() + priors.size[kRefW] + i * 4;
      const float* l = loc.data() + i * 4;
      const float pw = pb[2] - pb[0], ph = pb[3] - pb[1];
      const float pcx = (pb[0] + pb[2]) * 0.5f, pcy = (pb[1] + pb[3]) * 0.5f;
      const float cx = var[0] * l[0] * pw + pcx, cy = var[1] * l[1] * ph + pcy;
      const float bw = std::exp(var[2] * l[2]) * pw, bh = std::exp(var[3] * l[3]) * ph;
      RefBox b{0.f, cx - bw * 0.5f, cy - bh * 0.5f, cx + bw * 0.5f, cy + bh * 0.5f, 0.f, 0};
      b.area = (b.x1 - b.x0) * (b.y1 - b.y0);
      decoded.push_back(b);
    }

    std::vector<RefBox> all;
    for (int c = 1; c < num_class; c++) {
      std::vector<RefBox> candidates;
      for (int j = 0; j < num_prior; j++) {
        const float score = mxnet ? conf[c * num_prior + j] : conf[j * num_class + c];
        if (score > threshold_) {
          RefBox b = decoded[j];
          b.score = score;
          b.label = c;
          candidates.push_back(b);
        }
      }
      sort_descending(candidates);
      if (nms_top_k_ >= 0 && static_cast<int>(candidates.size()) > nms_top_k_) candidates.resize(nms_top_k_);
      const std::vector<RefBox> kept = nms(candidates, nms_threshold_, true);
      all.insert(all.end(), kept.begin(), kept.end());
    }
    sort_descending(all);
    if (keep_top_k_ >= 0 && static_cast<int>(all.size()) > keep_top_k_) all.resize(keep_top_k_);
    tops.assign(1, result_rows(all, 0));
  }

 private:
  int num_class_ = 0, nms_top_k_ = 300, keep_top_k_ = 100;
  float nms_threshold_ = 0.05f, threshold_ = 0.5f;
  float variances_[4] = {0.1f, 0.1f, 0.2f, 0.2f};
};

}  // namespace

std::unique_ptr<Layer> make_DetectionOutput() { return std::make_unique<DetectionOutput>(); }

}  // namespace reference_layers
}  // namespace jitconv
