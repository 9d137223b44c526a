#include <memory>
#include <vector>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// x * scale[i] (+ bias[i]) with i the index along the outermost axis; scale_data_size
// -233 takes the scales from a second input blob.
class ScaleRef final : public Layer {
 public:
  ScaleRef() {
    one_blob_only = true;
    support_inplace = true;
  }
  void load_param(const ParamDict& pd) override {
    size_ = pd.get(0, 0);
    bias_term_ = pd.get(1, 0);
    if (size_ == -233) one_blob_only = false;
  }
  void load_model(const ModelBin& mb) override {
    if (size_ != -233) scale_ = mb.load(size_, 1);
    if (bias_term_) bias_ = mb.load(size_, 1);
  }
  void forward_inplace(Mat& blob, const Option&) const override {
    std::vector<float> scale(static_cast<const float*>(scale_.data), static_cast<const float*>(scale_.data) + size_);
    apply(blob, scale);
  }
  void forward_inplace(std::vector<Mat>& blobs, const Option& opt) const override {
    if (size_ != -233) return forward_inplace(blobs.at(0), opt);
    const Mat& s = blobs.at(1);
    check_ref_blob(*this, s);
    std::vector<float> scale;
    for (int q = 0; q < s.c; q++)
      for (int z = 0; z < s.d; z++)
        for (int y = 0; y < s.h; y++)
          for (int x = 0; x < s.w; x++) scale.push_back(at(s, x, y, z, q));
    apply(blobs[0], scale);
  }

 private:
  void apply(Mat& blob, const std::vector<float>& scale) const {
    check_ref_blob(*this, blob);
    for (int q = 0; q < blob.c; q++)
      for (int z = 0; z < blob.d; z++)
        for (int y = 0; y < blob.h; y++)
          for (int x = 0; x < blob.w; x++) {
            const size_t i = blob.dims == 1 ? x : blob.dims == 2 ? y : q;
            float& v = at(blob, x, y, z, q);
            v = static_cast<float>(static_cast<double>(v) * scale.at(i) + (bias_term_ ? bias_[i] : 0.f));
          }
  }

  int size_ = 0;
  int bias_term_ = 0;
  Mat scale_, bias_;
};

std::unique_ptr<Layer> make_Scale() { return std::make_unique<ScaleRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
