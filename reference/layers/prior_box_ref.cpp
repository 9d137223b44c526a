// Reference PriorBox: each prior's corners computed directly from its cell index, in
// double, then stored as float.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/layer.h"

namespace jitconv {
namespace reference_layers {

namespace {

class PriorBox final : public Layer {
 public:
  PriorBox() { one_blob_only = false; }

  void load_param(const ParamDict& pd) override {
    min_sizes_ = pd.get_floats(0);
    max_sizes_ = pd.get_floats(1);
    ratios_ = pd.get_floats(2);
    for (int i = 0; i < 4; i++) variances_[i] = pd.get(3 + i, i < 2 ? 0.1f : 0.2f);
    flip_ = pd.get(7, 1);
    clip_ = pd.get(8, 0);
    image_w_ = pd.get(9, 0);
    image_h_ = pd.get(10, 0);
    step_w_ = pd.get(11, -233.f);
    step_h_ = pd.get(12, -233.f);
    offset_ = pd.get(13, 0.f);
    step_mm_ = pd.get(14, 0);
    center_mm_ = pd.get(15, 0);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    const int w = bottoms.at(0).w, h = bottoms.at(0).h;
    std::vector<double> boxes;  // xmin, ymin, xmax, ymax per prior, cell-major
    const bool mxnet = bottoms.size() == 1 && image_w_ == -233 && image_h_ == -233 && max_sizes_.empty();
    if (mxnet) {
      const double step_w = step_w_ == -233.f ? 1.0 / w : step_w_, step_h = step_h_ == -233.f ? 1.0 / h : step_h_;
      for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
          const double cx = (offset_ + j) * step_w, cy = (offset_ + i) * step_h;
          for (float size : min_sizes_) add(boxes, cx, cy, size * h / w, size);
          for (size_t p = 1; p < ratios_.size(); p++) {
            const double root = std::sqrt(static_cast<double>(ratios_[p]));
            add(boxes, cx, cy, min_sizes_[0] * h / w * root, min_sizes_[0] / root);
          }
        }
      }
    } else {
      const double image_w = image_w_ == -233 ? bottoms.at(1).w : image_w_;
      const double image_h = image_h_ == -233 ? bottoms.at(1).h : image_h_;
      double step_w = step_w_, step_h = step_h_;
      if (step_w_ == -233.f) step_w = step_mm_ ? std::ceil(image_w / w) : image_w / w;
      if (step_h_ == -233.f) step_h = step_mm_ ? std::ceil(image_h / h) : image_h / h;
      for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
          const double cx = center_mm_ ? offset_ * (step_w - 1) + j * step_w : (offset_ + j) * step_w;
          const double cy = center_mm_ ? offset_ * (step_h - 1) + i * step_h : (offset_ + i) * step_h;
          for (size_t k = 0; k < min_sizes_.size(); k++) {
            const double min_size = min_sizes_[k];
            add(boxes, cx / image_w, cy / image_h, min_size / image_w, min_size / image_h);
            if (!max_sizes_.empty()) {
              const double size = std::sqrt(min_size * max_sizes_[k]);
              add(boxes, cx / image_w, cy / image_h, size / image_w, size / image_h);
            }
            for (float ratio : ratios_) {
              const double root = std::sqrt(static_cast<double>(ratio));
              const double bw = min_size * root, bh = min_size / root;
              add(boxes, cx / image_w, cy / image_h, bw / image_w, bh / image_h);
              if (flip_) add(boxes, cx / image_w, cy / image_h, bh / image_w, bw / image_h);
            }
          }
        }
      }
    }
    if (clip_)
      for (double& v : boxes) v = std::min(std::max(v, 0.0), 1.0);
    const int count = static_cast<int>(boxes.size());
    Mat top = mxnet ? Mat(count) : Mat(count, 2);
    for (int i = 0; i < count; i++) top[i] = static_cast<float>(boxes[i]);
    if (!mxnet)
      for (int i = 0; i < count; i++) top.row(1)[i] = variances_[i % 4];
    tops.assign(1, top);
  }

 private:
  // A box of the given full width and height centred on (cx, cy).
  static void add(std::vector<double>& boxes, double cx, double cy, double bw, double bh) {
    boxes.insert(boxes.end(), {cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2});
  }

  std::vector<float> min_sizes_, max_sizes_, ratios_;
  float variances_[4] = {0.1f, 0.1f, 0.2f, 0.2f};
  int flip_ = 1, clip_ = 0, image_w_ = 0, image_h_ = 0, step_mm_ = 0, center_mm_ = 0;
  float step_w_ = -233.f, step_h_ = -233.f, offset_ = 0.f;
};

}  // namespace

std::unique_ptr<Layer> make_PriorBox() { return std::make_unique<PriorBox>(); }

}  // namespace reference_layers
}  // namespace jitconv
