#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// x < 0 ? x * slope : x, one shared slope or one per element (1-D), row (2-D) or
// channel (3-D / 4-D).
class PReLURef final : public Layer {
 public:
  PReLURef() {
    one_blob_only = true;
    support_inplace = true;
  }
  void load_param(const ParamDict& pd) override {
    num_slope_ = pd.get(0, 0);
    if (num_slope_ <= 0) fail(ref_label(*this), ": num_slope ", num_slope_, " is not positive");
  }
  void load_model(const ModelBin& mb) override {
    slope_ = mb.load(num_slope_, 1);
    if (slope_.data == nullptr || slope_.w * slope_.h * slope_.d * slope_.c != num_slope_)
      fail(ref_label(*this), ": expected ", num_slope_, " slopes");
  }
  void forward_inplace(Mat& blob, const Option&) const override {
    check_ref_blob(*this, blob);
    const int axis = blob.dims == 1 ? blob.w : blob.dims == 2 ? blob.h : blob.c;
    if (num_slope_ != 1 && num_slope_ != axis) fail(ref_label(*this), ": ", num_slope_, " slopes for ", axis);
    for (int q = 0; q < blob.c; q++)
      for (int z = 0; z < blob.d; z++)
        for (int y = 0; y < blob.h; y++)
          for (int x = 0; x < blob.w; x++) {
            const int index = blob.dims == 1 ? x : blob.dims == 2 ? y : q;
            const float slope = slope_[num_slope_ == 1 ? 0 : index];
            float& v = at(blob, x, y, z, q);
            if (v < 0) v = static_cast<float>(static_cast<double>(v) * slope);
          }
  }

 private:
  int num_slope_ = 0;
  Mat slope_;
};

std::unique_ptr<Layer> make_PReLU() { return std::make_unique<PReLURef>(); }

}  // namespace reference_layers
}  // namespace jitconv
