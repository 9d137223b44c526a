// Reference Yolov3DetectionOutput, pixel by pixel as ncnn (including its confidence
// expression 1 / (1 + exp(-obj) * (1 + exp(-best)))), then one sort and NMS.
#include <cmath>
#include <memory>
#include <vector>

#include "reference/layers/dense_tensor_ref.h"
#include "reference/layers/detection_ref_util.h"

namespace jitconv {
namespace reference_layers {

namespace {

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

class Yolov3DetectionOutput final : public Layer {
 public:
  Yolov3DetectionOutput() { one_blob_only = false; }

  void load_param(const ParamDict& pd) override {
    num_class_ = pd.get(0, 20);
    num_box_ = pd.get(1, 5);
    threshold_ = pd.get(2, 0.01f);
    nms_threshold_ = pd.get(3, 0.45f);
    biases_ = pd.get_floats(4);
    mask_ = pd.get_floats(5);
    scales_ = pd.get_floats(6);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    std::vector<RefBox> all;
    for (size_t b = 0; b < bottoms.size(); b++) {
      const DenseTensor t = to_dense(*this, bottoms[b]);
      const int W = t.size[kRefW], H = t.size[kRefH];
      const int per_box = 5 + num_class_;
      if (t.size[kRefC] != num_box_ * per_box) fail("Yolov3DetectionOutput reference: channel count");
      const int net_w = static_cast<int>(scales_.at(b) * W), net_h = static_cast<int>(scales_.at(b) * H);
      for (int pp = 0; pp < num_box_; pp++) {
        const int anchor = static_cast<int>(mask_.at(b * num_box_ + pp));
        const float anchor_w = biases_.at(anchor * 2), anchor_h = biases_.at(anchor * 2 + 1);
        for (int i = 0; i < H; i++) {
          for (int j = 0; j < W; j++) {
            const auto value = [&](int channel) {
              const int at[4] = {j, i, 0, pp * per_box + channel};
              return t[at];
            };
            int best = 0;
            float best_score = -3.402823466e+38f;
            for (int q = 0; q < num_class_; q++) {
              if (value(5 + q) > best_score) {
                best_score = value(5 + q);
                best = q;
              }
            }
            const float confidence = 1.f / ((1.f + std::exp(-value(4)) * (1.f + std::exp(-best_score))));
            if (!(confidence >= threshold_)) continue;
            const float cx = (j + sigmoid(value(0))) / W, cy = (i + sigmoid(value(1))) / H;
            const float bw = std::exp(value(2)) * anchor_w / net_w, bh = std::exp(value(3)) * anchor_h / net_h;
            all.push_back({confidence, cx - bw * 0.5f, cy - bh * 0.5f, cx + bw * 0.5f, cy + bh * 0.5f, bw * bh, best});
          }
        }
      }
    }
    sort_descending(all);
    tops.assign(1, result_rows(nms(all, nms_threshold_, false), 1));
  }

 private:
  int num_class_ = 20, num_box_ = 5;
  float threshold_ = 0.01f, nms_threshold_ = 0.45f;
  std::vector<float> biases_, mask_, scales_;
};

}  // namespace

std::unique_ptr<Layer> make_Yolov3DetectionOutput() { return std::make_unique<Yolov3DetectionOutput>(); }

}  // namespace reference_layers
}  // namespace jitconv
