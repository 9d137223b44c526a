// Yolov3DetectionOutput: the YOLOv3 head over several feature maps, with ncnn's exact
// arithmetic.
//
//   0 = num_class  1 = num_box (per map)  2 = confidence_threshold (kept when >= it)
//   3 = nms_threshold  4 = biases (anchor w, h in input pixels)
//   5 = mask (anchor index of box pp of map b at mask[b * num_box + pp])
//   6 = anchors_scale (map b's stride: the input is anchors_scale[b] * W wide)
//
// Each map has num_box groups of channels [x, y, w, h, objectness, num_class scores]:
//   cx = (col + sigmoid(x)) / W    w = exp(w) * anchor_w / int(anchors_scale * W)
//   confidence = 1 / (1 + exp(-objectness) * (1 + exp(-max score)))   (ncnn's grouping)
// Output: [label + 1, score, xmin, ymin, xmax, ymax] rows after one NMS over all maps;
// empty when nothing passes.
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

class Yolov3DetectionOutput final : public Layer {
 public:
  Yolov3DetectionOutput() {
    one_blob_only = false;
    support_inplace = false;
  }

  void load_param(const ParamDict& pd) override {
    num_class_ = pd.get(0, 20);
    num_box_ = pd.get(1, 5);
    confidence_threshold_ = pd.get(2, 0.01f);
    nms_threshold_ = pd.get(3, 0.45f);
    biases_ = pd.get_floats(4);
    mask_ = pd.get_ints(5);
    anchors_scale_ = pd.get_floats(6);
    check_yolo_counts(*this, num_class_, num_box_);
    for (size_t i = 0; i < mask_.size(); i++) {
      if (mask_[i] < 0 || 2u * mask_[i] + 1 >= biases_.size())
        layer_fail(*this, "mask[", i, "] = ", mask_[i], " names no anchor among ", biases_.size() / 2, " biases");
    }
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (bottoms.empty()) layer_fail(*this, "expects at least one feature map");
    if (mask_.size() < bottoms.size() * num_box_ || anchors_scale_.size() < bottoms.size())
      layer_fail(*this, bottoms.size(), " maps need ", bottoms.size() * num_box_, " mask entries (have ", mask_.size(),
                 ") and ", bottoms.size(), " anchors_scale entries (have ", anchors_scale_.size(), ")");
    std::vector<DetectionBox> all;
    for (size_t b = 0; b < bottoms.size(); b++) {
      const std::vector<DetectionBox> boxes = decode_map(bottoms[b], b, opt);
      all.insert(all.end(), boxes.begin(), boxes.end());
    }
    sort_by_score(all);
    tops.resize(1);
    tops[0] = detection_rows(suppress(all, nms_threshold_, OverlapTest::product), 1, opt.blob_allocator);
  }

 private:
  std::vector<DetectionBox> decode_map(const Mat& map, size_t b, const Option& opt) const {
    check_yolo_map(*this, map, b, num_class_, num_box_);
    const int net_w = static_cast<int>(anchors_scale_[b] * map.w);
    const int net_h = static_cast<int>(anchors_scale_[b] * map.h);
    if (net_w <= 0 || net_h <= 0) layer_fail(*this, "anchors_scale[", b, "] = ", anchors_scale_[b], " gives an empty input size");
    const int h = map.h;
    std::vector<std::vector<DetectionBox>> rows(static_cast<size_t>(num_box_) * h);
#pragma omp parallel for num_threads(opt.num_threads) schedule(static)
    for (long task = 0; task < static_cast<long>(num_box_) * h; task++) {
      const int pp = static_cast<int>(task / h), i = static_cast<int>(task % h);
      const int anchor = mask_[b * num_box_ + pp];
      decode_row(map, pp, i, biases_[anchor * 2], biases_[anchor * 2 + 1], net_w, net_h, rows[task]);
    }
    std::vector<DetectionBox> boxes;
    for (const std::vector<DetectionBox>& row : rows) boxes.insert(boxes.end(), row.begin(), row.end());
    return boxes;
  }

  void decode_row(const Mat& map, int pp, int i, float bias_w, float bias_h, int net_w, int net_h,
                  std::vector<DetectionBox>& out) const {
    const int w = map.w, h = map.h;
    const int p = pp * (5 + num_class_);
    // Plane-wise argmax of the raw class scores: classes outer, pixels inner.
    std::vector<float> best(w, -FLT_MAX);
    std::vector<int> best_class(w, 0);
    for (int q = 0; q < num_class_; q++) {
      const float* s = map.channel(p + 5 + q).row(i);
      for (int j = 0; j < w; j++) {
        if (s[j] > best[j]) {
          best[j] = s[j];
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
      const float confidence = 1.f / ((1.f + std::exp(-objectness[j]) * (1.f + std::exp(-best[j]))));
      if (!(confidence >= confidence_threshold_)) continue;
      const float cx = (j + sigmoid(x[j])) / w;
      const float cy = (i + sigmoid(y[j])) / h;
      const float box_w = std::exp(bw[j]) * bias_w / net_w;
      const float box_h = std::exp(bh[j]) * bias_h / net_h;
      DetectionBox box;
      box.score = confidence;
      box.xmin = cx - box_w * 0.5f;
      box.ymin = cy - box_h * 0.5f;
      box.xmax = cx + box_w * 0.5f;
      box.ymax = cy + box_h * 0.5f;
      box.area = box_w * box_h;
      box.label = best_class[j];
      out.push_back(box);
    }
  }

  int num_class_ = 20;
  int num_box_ = 5;
  float confidence_threshold_ = 0.01f;
  float nms_threshold_ = 0.45f;
  std::vector<float> biases_;
  std::vector<int> mask_;
  std::vector<float> anchors_scale_;
};

}  // namespace

std::unique_ptr<Layer> make_Yolov3DetectionOutput() { return std::make_unique<Yolov3DetectionOutput>(); }

}  // namespace layers
}  // namespace jitconv
