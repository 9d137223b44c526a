// YoloDetectionOutput: the YOLOv2 region head over one or more feature maps.
//
//   0 = num_class  1 = num_box  2 = confidence_threshold (kept when >= it)
//   3 = nms_threshold  4 = biases (anchor w, h per box, in grid cells)
//
// Each map has num_box groups of channels [x, y, w, h, objectness, num_class scores]:
//   cx = (col + sigmoid(x)) / W   w = exp(w) * bias_w / W   (same for y / h / H)
//   confidence = sigmoid(objectness) * max(softmax(scores)), label = argmax + 1.
// All maps' boxes go through one NMS. In place as in ncnn: the first blob becomes the
// [label, score, xmin, ymin, xmax, ymax] rows (empty when nothing passes); unlike ncnn
// the inputs' class scores are left as they were.
#include <cfloat>
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/layers/data_shape.h"
#include "runtime/layers/detection_util.h"

namespace jitconv {
namespace layers {

namespace {

inline float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

class YoloDetectionOutput final : public Layer {
 public:
  YoloDetectionOutput() {
    one_blob_only = false;
    support_inplace = true;
  }

  void load_param(const ParamDict& pd) override {
    num_class_ = pd.get(0, 20);
    num_box_ = pd.get(1, 5);
    confidence_threshold_ = pd.get(2, 0.01f);
    nms_threshold_ = pd.get(3, 0.45f);
    biases_ = pd.get_floats(4);
    check_yolo_counts(*this, num_class_, num_box_);
    if (biases_.size() < 2u * num_box_)
      layer_fail(*this, num_box_, " boxes need ", 2 * num_box_, " biases (param 4), got ", biases_.size());
  }

  void forward_inplace(std::vector<Mat>& blobs, const Option& opt) const override {
    if (blobs.empty()) layer_fail(*this, "expects at least one feature map");
    std::vector<DetectionBox> all;
    for (size_t b = 0; b < blobs.size(); b++) {
      const std::vector<DetectionBox> boxes = decode_map(blobs[b], b, opt);
      all.insert(all.end(), boxes.begin(), boxes.end());
    }
    sort_by_score(all);
    blobs[0] = detection_rows(suppress(all, nms_threshold_, OverlapTest::ratio), 1, opt.blob_allocator);
  }

 private:
  std::vector<DetectionBox> decode_map(const Mat& map, size_t index, const Option& opt) const {
    check_yolo_map(*this, map, index, num_class_, num_box_);
    const int h = map.h;
    // One list per (box, row), joined in that order: ncnn's candidate order.
    std::vector<std::vector<DetectionBox>> rows(static_cast<size_t>(num_box_) * h);
#pragma omp parallel for num_threads(opt.num_threads) schedule(static)
    for (long task = 0; task < static_cast<long>(num_box_) * h; task++) {
      const int pp = static_cast<int>(task / h), i = static_cast<int>(task % h);
      decode_row(map, pp, i, rows[task]);
    }
    std::vector<DetectionBox> boxes;
    for (const std::vector<DetectionBox>& row : rows) boxes.insert(boxes.end(), row.begin(), row.end());
    return boxes;
  }

  // Row i of box pp. The class softmax runs plane-wise over the row (classes outer,
  // pixels inner) in ncnn's order: max, then exp and sum, then the quotients.
  void decode_row(const Mat& map, int pp, int i, std::vector<DetectionBox>& out) const {
    const int w = map.w, h = map.h;
    const int p = pp * (5 + num_class_);
    const float bias_w = biases_[pp * 2], bias_h = biases_[pp * 2 + 1];
    std::vector<float> max_score(w, -FLT_MAX), sum(w, 0.f), best(w, 0.f), e(static_cast<size_t>(num_class_) * w);
    std::vector<int> best_class(w, 0);
    for (int q = 0; q < num_class_; q++) {
      const float* s = map.channel(p + 5 + q).row(i);
      for (int j = 0; j < w; j++) max_score[j] = std::max(max_score[j], s[j]);
    }
    for (int q = 0; q < num_class_; q++) {
      const float* s = map.channel(p + 5 + q).row(i);
      float* eq = e.data() + static_cast<size_t>(q) * w;
      for (int j = 0; j < w; j++) {
        eq[j] = std::exp(s[j] - max_score[j]);
        sum[j] += eq[j];
      }
    }
    for (int q = 0; q < num_class_; q++) {
      const float* eq = e.data() + static_cast<size_t>(q) * w;
      for (int j = 0; j < w; j++) {
        const float prob = eq[j] / sum[j];
        if (prob > best[j]) {
          best[j] = prob;
          best_class[j] = q;
        }
      }
    }
    const float* x = map.channel(p).row(i);
    const float* y = map.channel(p + 1).row(i);
    const float* bw = map.channel(p + 2).row(i);
    const float* bh = map.channel(p + 3).row(i);
    const float* objectness = map.channel(p + 4).row(i);
    for (int j = 0; j < w; j++) {
      const float confidence = sigmoid(objectness[j]) * best[j];
      if (!(confidence >= confidence_threshold_)) continue;
      const float cx = (j + sigmoid(x[j])) / w;
      const float cy = (i + sigmoid(y[j])) / h;
      const float box_w = std::exp(bw[j]) * bias_w / w;
      const float box_h = std::exp(bh[j]) * bias_h / h;
      DetectionBox box;
      box.score = confidence;
      box.xmin = cx - box_w * 0.5f;
      box.ymin = cy - box_h * 0.5f;
      box.xmax = cx + box_w * 0.5f;
      box.ymax = cy + box_h * 0.5f;
      box.area = (box.xmax - box.xmin) * (box.ymax - box.ymin);
      box.label = best_class[j];
      out.push_back(box);
    }
  }

  int num_class_ = 20;
  int num_box_ = 5;
  float confidence_threshold_ = 0.01f;
  float nms_threshold_ = 0.45f;
  std::vector<float> biases_;
};

}  // namespace

std::unique_ptr<Layer> make_YoloDetectionOutput() { return std::make_unique<YoloDetectionOutput>(); }

}  // namespace layers
}  // namespace jitconv
