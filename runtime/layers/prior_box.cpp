// PriorBox: SSD anchor boxes for every cell of a feature map (input 0; input 1 = the
// image, for its size).
//
//   0 = min_sizes  1 = max_sizes (one per min size, or none)  2 = aspect_ratios
//   3..6 = variances  7 = flip  8 = clip  9/10 = image_width/height (-233 = input 1's)
//   11/12 = step_width/height (-233 = image / map)  13 = offset
//   14 = step_mmdetection (ceil the derived step)  15 = center_mmdetection
//
// Per cell and min size: the min box, the sqrt(min * max) box, then per aspect ratio a
// box of min * sqrt(ar) x min / sqrt(ar) (and its flip). Output [2][cells * boxes * 4]:
// normalized xmin, ymin, xmax, ymax, then the variances repeated.
//
// MXNet's MultiBoxPrior when there is one input, both image sizes are -233 and no max
// sizes: boxes per cell = every size at ratio 1, then ratios[1..] at size[0], already
// normalized; output 1-D.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

class PriorBox final : public Layer {
 public:
  PriorBox() {
    one_blob_only = false;
    support_inplace = false;
  }

  void load_param(const ParamDict& pd) override {
    min_sizes_ = pd.get_floats(0);
    max_sizes_ = pd.get_floats(1);
    aspect_ratios_ = pd.get_floats(2);
    variances_[0] = pd.get(3, 0.1f);
    variances_[1] = pd.get(4, 0.1f);
    variances_[2] = pd.get(5, 0.2f);
    variances_[3] = pd.get(6, 0.2f);
    flip_ = pd.get(7, 1);
    clip_ = pd.get(8, 0);
    image_width_ = pd.get(9, 0);
    image_height_ = pd.get(10, 0);
    step_width_ = pd.get(11, -233.f);
    step_height_ = pd.get(12, -233.f);
    offset_ = pd.get(13, 0.f);
    step_mmdetection_ = pd.get(14, 0);
    center_mmdetection_ = pd.get(15, 0);
    if (min_sizes_.empty()) layer_fail(*this, "needs min_sizes (param 0)");
    if (!max_sizes_.empty() && max_sizes_.size() != min_sizes_.size())
      layer_fail(*this, max_sizes_.size(), " max_sizes for ", min_sizes_.size(), " min_sizes: give one per min size or none");
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (bottoms.empty()) layer_fail(*this, "expects a feature map input");
    const int w = bottoms[0].w, h = bottoms[0].h;
    if (bottoms[0].dims < 2 || w <= 0 || h <= 0) layer_fail(*this, "feature map must be at least 2-D, got dims ", bottoms[0].dims);
    tops.resize(1);
    if (bottoms.size() == 1 && image_width_ == -233 && image_height_ == -233 && max_sizes_.empty())
      tops[0] = mxnet_priors(w, h, opt);
    else
      tops[0] = caffe_priors(bottoms, w, h, opt);
  }

 private:
  Mat mxnet_priors(int w, int h, const Option& opt) const {
    if (aspect_ratios_.empty()) layer_fail(*this, "MXNet-style priors need aspect_ratios (param 2), the first being 1");
    const float step_w = step_width_ == -233.f ? 1.f / static_cast<float>(w) : step_width_;
    const float step_h = step_height_ == -233.f ? 1.f / static_cast<float>(h) : step_height_;
    const int num_sizes = static_cast<int>(min_sizes_.size());
    const int num_ratios = static_cast<int>(aspect_ratios_.size());
    const long num_prior = num_sizes - 1 + num_ratios;
    Mat top(static_cast<int>(4 * w * h * num_prior), 4u, 1, opt.blob_allocator);
#pragma omp parallel for num_threads(opt.num_threads) schedule(static)
    for (int i = 0; i < h; i++) {
      float* box = static_cast<float*>(top.data) + static_cast<long>(i) * w * num_prior * 4;
      float center_x = offset_ * step_w;
      const float center_y = offset_ * step_h + i * step_h;
      for (int j = 0; j < w; j++) {
        for (int k = 0; k < num_sizes; k++) {
          const float size = min_sizes_[k];
          box = write_box(box, center_x, center_y, size * h / w / 2, size / 2);
        }
        const float size = min_sizes_[0];
        for (int p = 1; p < num_ratios; p++) {
          const float ratio = std::sqrt(aspect_ratios_[p]);
          box = write_box(box, center_x, center_y, size * h / w * ratio / 2, size / ratio / 2);
        }
        center_x += step_w;
      }
    }
    if (clip_) clip_row(static_cast<float*>(top.data), top.w);
    return top;
  }

  Mat caffe_priors(const std::vector<Mat>& bottoms, int w, int h, const Option& opt) const {
    int image_w = image_width_, image_h = image_height_;
    if (image_w == -233 || image_h == -233) {
      if (bottoms.size() < 2) layer_fail(*this, "image size -233 takes it from a second input, which is missing");
      if (image_w == -233) image_w = bottoms[1].w;
      if (image_h == -233) image_h = bottoms[1].h;
    }
    if (image_w <= 0 || image_h <= 0)
      layer_fail(*this, "image size ", image_w, "x", image_h, " (params 9/10 or the second input) must be positive");
    float step_w = step_width_, step_h = step_height_;
    if (step_w == -233.f)
      step_w = step_mmdetection_ ? std::ceil(static_cast<float>(image_w) / w) : static_cast<float>(image_w) / w;
    if (step_h == -233.f)
      step_h = step_mmdetection_ ? std::ceil(static_cast<float>(image_h) / h) : static_cast<float>(image_h) / h;
    const long num_min = static_cast<long>(min_sizes_.size());
    const long num_ratio = static_cast<long>(aspect_ratios_.size());
    const long num_prior = num_min * num_ratio * (flip_ ? 2 : 1) + num_min + static_cast<long>(max_sizes_.size());
    const long count = 4 * static_cast<long>(w) * h * num_prior;
    if (count > 0x7fffffff) layer_fail(*this, count, " prior coordinates do not fit one row");
    Mat top(static_cast<int>(count), 2, 4u, 1, opt.blob_allocator);
#pragma omp parallel for num_threads(opt.num_threads) schedule(static)
    for (int i = 0; i < h; i++) {
      float* box = top.row(0) + static_cast<long>(i) * w * num_prior * 4;
      float center_x = center_mmdetection_ ? offset_ * (step_w - 1) : offset_ * step_w;
      const float center_y = (center_mmdetection_ ? offset_ * (step_h - 1) : offset_ * step_h) + i * step_h;
      for (int j = 0; j < w; j++) {
        for (long k = 0; k < num_min; k++) {
          const float min_size = min_sizes_[k];
          box = write_normalized(box, center_x, center_y, min_size, min_size, image_w, image_h);
          if (!max_sizes_.empty()) {
            const float size = std::sqrt(min_size * max_sizes_[k]);
            box = write_normalized(box, center_x, center_y, size, size, image_w, image_h);
          }
          for (long p = 0; p < num_ratio; p++) {
            const float root = std::sqrt(aspect_ratios_[p]);
            const float box_w = min_size * root, box_h = min_size / root;
            box = write_normalized(box, center_x, center_y, box_w, box_h, image_w, image_h);
            if (flip_) box = write_normalized(box, center_x, center_y, box_h, box_w, image_w, image_h);
          }
        }
        center_x += step_w;
      }
    }
    if (clip_) clip_row(top.row(0), top.w);
    float* var = top.row(1);
    for (long i = 0; i < count; i++) var[i] = variances_[i % 4];
    return top;
  }

  static float* write_box(float* box, float cx, float cy, float half_w, float half_h) {
    box[0] = cx - half_w;
    box[1] = cy - half_h;
    box[2] = cx + half_w;
    box[3] = cy + half_h;
    return box + 4;
  }

  static float* write_normalized(float* box, float cx, float cy, float box_w, float box_h, int image_w, int image_h) {
    box[0] = (cx - box_w * 0.5f) / image_w;
    box[1] = (cy - box_h * 0.5f) / image_h;
    box[2] = (cx + box_w * 0.5f) / image_w;
    box[3] = (cy + box_h * 0.5f) / image_h;
    return box + 4;
  }

  static void clip_row(float* row, long count) {
    for (long i = 0; i < count; i++) row[i] = std::min(std::max(row[i], 0.f), 1.f);
  }

  std::vector<float> min_sizes_, max_sizes_, aspect_ratios_;
  float variances_[4] = {0.1f, 0.1f, 0.2f, 0.2f};
  int flip_ = 1, clip_ = 0;
  int image_width_ = 0, image_height_ = 0;
  float step_width_ = -233.f, step_height_ = -233.f;
  float offset_ = 0.f;
  int step_mmdetection_ = 0, center_mmdetection_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_PriorBox() { return std::make_unique<PriorBox>(); }

}  // namespace layers
}  // namespace jitconv
