// DetectionOutput: the SSD head. Inputs: box offsets (num_prior x 4), class scores and
// the PriorBox output ([2][num_prior * 4]: boxes, then their variances).
//
//   0 = num_class (incl. background 0; -233 = MXNet layout: scores [num_class][num_prior],
//       priors [num_prior][4], variances from params 5..8)
//   1 = nms_threshold   2 = nms_top_k (per class, before NMS; negative = all)
//   3 = keep_top_k (overall; negative = all)   4 = confidence_threshold (score > it)
//
// Offsets decode with CENTER_SIZE and the prior's variances:
//   cx = var0 * loc0 * prior_w + prior_cx,  w = exp(var2 * loc2) * prior_w  (same for y/h).
// Output: [label, score, xmin, ymin, xmax, ymax] rows by descending score; empty when
// nothing passes. Ties keep class order, then prior order.
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/layers/data_shape.h"
#include "runtime/layers/detection_util.h"

namespace jitconv {
namespace layers {

namespace {

class DetectionOutput final : public Layer {
 public:
  DetectionOutput() {
    one_blob_only = false;
    support_inplace = false;
  }

  void load_param(const ParamDict& pd) override {
    num_class_ = pd.get(0, 0);
    nms_threshold_ = pd.get(1, 0.05f);
    nms_top_k_ = pd.get(2, 300);
    keep_top_k_ = pd.get(3, 100);
    confidence_threshold_ = pd.get(4, 0.5f);
    variances_[0] = pd.get(5, 0.1f);
    variances_[1] = pd.get(6, 0.1f);
    variances_[2] = pd.get(7, 0.2f);
    variances_[3] = pd.get(8, 0.2f);
    if (num_class_ <= 0 && num_class_ != -233)
      layer_fail(*this, "num_class (param 0) must be positive or -233, got ", num_class_);
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (bottoms.size() < 3) layer_fail(*this, "expects location, confidence and priorbox inputs, got ", bottoms.size());
    for (size_t i = 0; i < 3; i++) {
      if (bottoms[i].dims < 1 || bottoms[i].elempack != 1 || lane_bytes(bottoms[i]) != 4)
        layer_fail(*this, "input ", i, " must be a non-empty fp32 blob of elempack 1");
    }
    const Mat& priorbox = bottoms[2];
    const bool mxnet = num_class_ == -233;
    long num_prior;
    // A 3-D blob of one channel is read as its plane (a MemoryData or Reshape of converted
    // models gives one), as ncnn's row(0) / row(1) read it.
    const bool planar = priorbox.dims == 2 || (priorbox.dims == 3 && priorbox.c == 1);
    if (mxnet) {
      if (!planar || priorbox.w != 4) layer_fail(*this, "MXNet-style priors must be a [num_prior][4] blob");
      num_prior = priorbox.h;
    } else {
      if (!planar || priorbox.h < 2 || priorbox.w % 4 != 0)
        layer_fail(*this, "priorbox must be a 2-row blob of boxes and variances, got ", priorbox.w, "x", priorbox.h);
      num_prior = priorbox.w / 4;
    }
    const long num_class = mxnet ? bottoms[1].h : num_class_;
    const long loc_count = static_cast<long>(bottoms[0].w) * bottoms[0].h * bottoms[0].d * bottoms[0].c;
    const long conf_count = static_cast<long>(bottoms[1].w) * bottoms[1].h * bottoms[1].d * bottoms[1].c;
    if (loc_count != num_prior * 4)
      layer_fail(*this, "location holds ", loc_count, " values, ", num_prior, " priors need ", num_prior * 4);
    if (conf_count != num_prior * num_class)
      layer_fail(*this, "confidence holds ", conf_count, " values, ", num_prior, " priors x ", num_class, " classes need ",
                 num_prior * num_class);

    std::vector<float> loc_storage, conf_storage;
    const float* location = dense_scalars(bottoms[0], loc_storage);
    const float* confidence = dense_scalars(bottoms[1], conf_storage);
    const std::vector<DetectionBox> decoded = decode(location, priorbox, mxnet, num_prior, opt);

    std::vector<std::vector<DetectionBox>> per_class(num_class);
#pragma omp parallel for num_threads(opt.num_threads) schedule(dynamic)
    for (long c = 1; c < num_class; c++) {  // class 0 is the background
      std::vector<DetectionBox> candidates;
      for (long j = 0; j < num_prior; j++) {
        const float score = mxnet ? confidence[c * num_prior + j] : confidence[j * num_class + c];
        if (score > confidence_threshold_) {
          DetectionBox box = decoded[j];
          box.score = score;
          box.label = static_cast<int>(c);
          candidates.push_back(box);
        }
      }
      keep_best(candidates, nms_top_k_ < 0 ? candidates.size() : static_cast<size_t>(nms_top_k_));
      per_class[c] = suppress(candidates, nms_threshold_, OverlapTest::ratio);
    }

    std::vector<DetectionBox> all;
    for (const std::vector<DetectionBox>& boxes : per_class) all.insert(all.end(), boxes.begin(), boxes.end());
    keep_best(all, keep_top_k_ < 0 ? all.size() : static_cast<size_t>(keep_top_k_));
    tops.resize(1);
    tops[0] = detection_rows(all, 0, opt.blob_allocator);
  }

 private:
  std::vector<DetectionBox> decode(const float* location, const Mat& priorbox, bool mxnet, long num_prior,
                                   const Option& opt) const {
    std::vector<DetectionBox> boxes(num_prior);
    const float* priors = priorbox.row(0);
    const float* prior_variances = mxnet ? nullptr : priorbox.row(1);
#pragma omp parallel for num_threads(opt.num_threads) schedule(static)
    for (long i = 0; i < num_prior; i++) {
      const float* loc = location + i * 4;
      const float* pb = priors + i * 4;
      const float* var = prior_variances ? prior_variances + i * 4 : variances_;
      const float pb_w = pb[2] - pb[0];
      const float pb_h = pb[3] - pb[1];
      const float pb_cx = (pb[0] + pb[2]) * 0.5f;
      const float pb_cy = (pb[1] + pb[3]) * 0.5f;
      const float cx = var[0] * loc[0] * pb_w + pb_cx;
      const float cy = var[1] * loc[1] * pb_h + pb_cy;
      const float w = std::exp(var[2] * loc[2]) * pb_w;
      const float h = std::exp(var[3] * loc[3]) * pb_h;
      DetectionBox& b = boxes[i];
      b.xmin = cx - w * 0.5f;
      b.ymin = cy - h * 0.5f;
      b.xmax = cx + w * 0.5f;
      b.ymax = cy + h * 0.5f;
      b.area = (b.xmax - b.xmin) * (b.ymax - b.ymin);
    }
    return boxes;
  }

  int num_class_ = 0;
  float nms_threshold_ = 0.05f;
  int nms_top_k_ = 300;
  int keep_top_k_ = 100;
  float confidence_threshold_ = 0.5f;
  float variances_[4] = {0.1f, 0.1f, 0.2f, 0.2f};
};

}  // namespace

std::unique_ptr<Layer> make_DetectionOutput() { return std::make_unique<DetectionOutput>(); }

}  // namespace layers
}  // namespace jitconv
