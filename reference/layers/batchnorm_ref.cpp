#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// y = (x - mean) / sqrt(var + eps) * slope + bias along the outermost axis.
class BatchNormRef final : public Layer {
 public:
  BatchNormRef() {
    one_blob_only = true;
    support_inplace = true;
  }
  void load_param(const ParamDict& pd) override {
    channels_ = pd.get(0, 0);
    eps_ = pd.get(1, 0.f);
  }
  void load_model(const ModelBin& mb) override {
    slope_ = mb.load(channels_, 1);
    mean_ = mb.load(channels_, 1);
    var_ = mb.load(channels_, 1);
    bias_ = mb.load(channels_, 1);
  }
  void forward_inplace(Mat& blob, const Option&) const override {
    check_ref_blob(*this, blob);
    for (int q = 0; q < blob.c; q++)
      for (int z = 0; z < blob.d; z++)
        for (int y = 0; y < blob.h; y++)
          for (int x = 0; x < blob.w; x++) {
            const int i = blob.dims == 1 ? x : blob.dims == 2 ? y : q;
            if (i >= channels_) fail(ref_label(*this), ": input larger than channels");
            double sd = std::sqrt(static_cast<double>(var_[i]) + eps_);
            if (sd == 0) sd = 0.0001;
            float& v = at(blob, x, y, z, q);
            v = static_cast<float>((v - static_cast<double>(mean_[i])) / sd * slope_[i] + bias_[i]);
          }
  }

 private:
  int channels_ = 0;
  float eps_ = 0.f;
  Mat slope_, mean_, var_, bias_;
};

std::unique_ptr<Layer> make_BatchNorm() { return std::make_unique<BatchNormRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
