// PReLU (ncnn): x < 0 ? x * slope : x. Param 0 = num_slope (0); weights: num_slope slopes
// (raw fp32). One slope is shared by every value; otherwise there is one slope per
// scalar of the packing axis: per element of a 1-D blob, per row of a 2-D blob, per
// channel of a 3-D / 4-D blob (ncnn's x86 layer; its generic layer leaves 4-D blobs
// unchanged), and num_slope must equal that count.
#include <memory>

#include "runtime/layers/elementwise_kernels.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

class PReLU final : public Layer {
 public:
  PReLU() {
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    num_slope_ = pd.get(0, 0);
    if (num_slope_ <= 0) fail(layer_label(*this), ": num_slope (param 0) must be positive, got ", num_slope_);
  }

  void load_model(const ModelBin& mb) override {
    slope_ = mb.load(num_slope_, 1);
    check_fp32_weight(*this, slope_, num_slope_, "slope");
  }

  void forward_inplace(Mat& blob, const Option& opt) const override {
    check_fp32_blob(*this, blob);
    if (slope_.data == nullptr) fail(layer_label(*this), ": no slopes loaded (load_model)");
    const float* slope = static_cast<const float*>(slope_.data);
    const int lanes = blob.elempack;
    float* data = static_cast<float*>(blob.data);
    if (num_slope_ > 1) {
      const int axis_scalars = packed_axis_scalars(blob);
      if (axis_scalars != num_slope_)
        fail(layer_label(*this), ": ", num_slope_, " slopes for an input with ", axis_scalars,
             blob.dims == 1 ? " elements" : blob.dims == 2 ? " rows" : " channels",
             " (num_slope must be 1 or that count)");
    }
    if (blob.dims == 1) {
      const long n = static_cast<long>(blob.w) * lanes;
      if (num_slope_ > 1)
        JITCONV_SIMD_CALL(prelu_row, data, slope, n);
      else
        JITCONV_SIMD_CALL(prelu_lanes, data, n, 1, slope);
      return;
    }
    // Packed group q of the packing axis (a row of a 2-D blob, a channel otherwise) holds
    // `inner` packed elements; its lanes take slopes q*lanes .. q*lanes+lanes-1.
    const int outer = blob.dims == 2 ? blob.h : blob.c;
    const long inner = blob.dims == 2 ? blob.w : static_cast<long>(plane_elements(blob));
    const long stride = blob.dims == 2 ? static_cast<long>(blob.w) * lanes : static_cast<long>(blob.cstep) * lanes;
    const bool shared = num_slope_ == 1;
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(outer) * inner * lanes))
    for (int q = 0; q < outer; q++) {
      if (shared)
        JITCONV_SIMD_CALL(prelu_lanes, data + q * stride, inner * lanes, 1, slope);
      else
        JITCONV_SIMD_CALL(prelu_lanes, data + q * stride, inner, lanes, slope + q * lanes);
    }
  }

 private:
  int num_slope_ = 0;
  Mat slope_;
};

std::unique_ptr<Layer> make_PReLU() { return std::make_unique<PReLU>(); }

}  // namespace layers
}  // namespace jitconv
