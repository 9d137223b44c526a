// Reference Dropout: every scalar times scale.
#include <memory>

#include "reference/layers/dense_tensor_ref.h"

namespace jitconv {
namespace reference_layers {

namespace {

class Dropout final : public Layer {
 public:
  Dropout() { one_blob_only = true; }

  void load_param(const ParamDict& pd) override { scale_ = pd.get(0, 1.f); }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    DenseTensor t = to_dense(*this, bottom);
    for (float& v : t.values) v = v * scale_;
    top = to_mat(t);
  }

 private:
  float scale_ = 1.f;
};

}  // namespace

std::unique_ptr<Layer> make_Dropout() { return std::make_unique<Dropout>(); }

}  // namespace reference_layers
}  // namespace jitconv
