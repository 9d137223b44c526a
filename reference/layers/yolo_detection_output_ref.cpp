// Reference YoloDetectionOutput, pixel by pixel as ncnn: softmax over the class scores,
// the best class's probability times sigmoid(objectness), the region box decode, then
// one sort and NMS over every map.
#include <cmath>
#include <memory>
#include <vector>

#include "reference/layers/dense_tensor_ref.h"
#include "reference/layers/detection_ref_util.h"

namespace jitconv {
namespace reference_layers {

namespace {

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

class YoloDetectionOutput final : public Layer {
 public:
  YoloDetectionOutput() {
    one_blob_only = false;
    support_inplace = true;
  }

  void load_param(const ParamDict& pd) override {
    num_class_ = pd.get(0, 20);
    num_box_ = pd.get(1, 5);
    threshold_ = pd.get(2, 0.01f);
    nms_threshold_ = pd.get(3, 0.45f);
    biases_ = pd.get_floats(4);
  }

  void forward_inplace(std::vector<Mat>& blobs, const Option& opt) const override {
    std::vector<RefBox> all;
    for (const Mat& blob : blobs) {
      const DenseTensor t = to_dense(*this, blob);
      const int W = t.size[kRefW], H = t.size[kRefH];
      const int per_box = 5 + num_class_;
      if (t.size[kRefC] != num_box_ * per_box) fail("YoloDetectionOutput reference: channel count");
      for (int pp = 0; pp < num_box_; pp++) {
        for (int i = 0; i < H; i++) {
          for (int j = 0; j < W; j++) {
            const auto value = [&](int channel) {
              const int at[4] = {j, i, 0, pp * per_box + channel};
              return t[at];
            };
            float max_score = value(5);
            for (int q = 1; q < num_class_; q++) max_score = std::max(max_score, value(5 + q));
            std::vector<float> prob(num_class_);
            float sum = 0.f;
            for (int q = 0; q < num_class_; q++) {
              prob[q] = std::exp(value(5 + q) - max_score);
              sum += prob[q];
            }
            int best = 0;
            float best_prob = 0.f;
            for (int q = 0; q < num_class_; q++) {
              if (prob[q] / sum > best_prob) {
                best_prob = prob[q] / sum;
                best = q;
              }
            }
            const float confidence = sigmoid(value(4)) * best_prob;
            if (!(confidence >= threshold_)) continue;
            const float cx = (j + sigmoid(value(0))) / W, cy = (i + sigmoid(value(1))) / H;
            const float bw = std::exp(value(2)) * biases_.at(pp * 2) / W;
            const float bh = std::exp(value(3)) * biases_.at(pp * 2 + 1) / H;
            RefBox b{confidence, cx - bw * 0.5f, cy - bh * 0.5f, cx + bw * 0.5f, cy + bh * 0.5f, 0.f, best};
            b.area = (b.x1 - b.x0) * (b.y1 - b.y0);
            all.push_back(b);
          }
        }
      }
    }
    sort_descending(all);
    blobs.at(0) = result_rows(nms(all, nms_threshold_, true), 1);
  }

 private:
  int num_class_ = 20, num_box_ = 5;
  float threshold_ = 0.01f, nms_threshold_ = 0.45f;
  std::vector<float> biases_;
};

}  // namespace

std::unique_ptr<Layer> make_YoloDetectionOutput() { return std::make_unique<YoloDetectionOutput>(); }

}  // namespace reference_layers
}  // namespace jitconv
