// Reference Input: the blob the Net placed there, unchanged.
#include <memory>

#include "runtime/layer.h"

namespace jitconv {
namespace reference_layers {

namespace {

class Input final : public Layer {
 public:
  Input() {
    one_blob_only = true;
    support_inplace = true;
  }
  void forward_inplace(Mat& blob, const Option& opt) const override {}
};

}  // namespace

std::unique_ptr<Layer> make_Input() { return std::make_unique<Input>(); }

}  // namespace reference_layers
}  // namespace jitconv
