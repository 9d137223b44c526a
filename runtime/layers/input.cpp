// Input: where the network's data enters. The Net puts the user's blob in place before
// running; the layer itself leaves it untouched. Params 0/1/11/2 = w/h/d/c describe the
// expected shape (0 = unknown) for shape inference.
#include <memory>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

class Input final : public Layer {
 public:
  Input() {
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
  }

  void load_param(const ParamDict& pd) override {
    w_ = pd.get(0, 0);
    h_ = pd.get(1, 0);
    d_ = pd.get(11, 0);
    c_ = pd.get(2, 0);
    if (w_ < 0 || h_ < 0 || d_ < 0 || c_ < 0)
      layer_fail(*this, "negative shape w=", w_, " h=", h_, " d=", d_, " c=", c_);
  }

  void forward_inplace(Mat& blob, const Option& opt) const override {}

 private:
  int w_ = 0, h_ = 0, d_ = 0, c_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_Input() { return std::make_unique<Input>(); }

}  // namespace layers
}  // namespace jitconv
