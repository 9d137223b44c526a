#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// x + bias[channel]; 1-D/2-D blobs are a single channel.
class BiasRef final : public Layer {
 public:
  BiasRef() {
    one_blob_only = true;
    support_inplace = true;
  }
  void load_param(const ParamDict& pd) override { size_ = pd.get(0, 0); }
  void load_model(const ModelBin& mb) override { bias_ = mb.load(size_, 1); }
  void forward_inplace(Mat& blob, const Option&) const override {
    check_ref_blob(*this, blob);
    for (int q = 0; q < blob.c; q++)
      for (int z = 0; z < blob.d; z++)
        for (int y = 0; y < blob.h; y++)
          for (int x = 0; x < blob.w; x++) at(blob, x, y, z, q) += bias_[q];
  }

 private:
  int size_ = 0;
  Mat bias_;
};

std::unique_ptr<Layer> make_Bias() { return std::make_unique<BiasRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
