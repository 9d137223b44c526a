// Reference Flatten: the scalars in (c, d, h, w) order as one row.
#include <memory>

#include "reference/layers/dense_tensor_ref.h"

namespace jitconv {
namespace reference_layers {

namespace {

class Flatten final : public Layer {
 public:
  Flatten() { one_blob_only = true; }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    DenseTensor t = to_dense(*this, bottom);
    const int count = static_cast<int>(t.count());
    t.dims = 1;
    t.size[kRefW] = count;
    t.size[kRefH] = t.size[kRefD] = t.size[kRefC] = 1;
    top = to_mat(t);
  }
};

}  // namespace

std::unique_ptr<Layer> make_Flatten() { return std::make_unique<Flatten>(); }

}  // namespace reference_layers
}  // namespace jitconv
