// Noop: passes every blob through unchanged, in place.
#include <memory>
#include <vector>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

class Noop final : public Layer {
 public:
  Noop() {
    one_blob_only = false;
    support_inplace = true;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
  }

  void forward_inplace(std::vector<Mat>& blobs, const Option& opt) const override {}
  void forward_inplace(Mat& blob, const Option& opt) const override {}
};

}  // namespace

std::unique_ptr<Layer> make_Noop() { return std::make_unique<Noop>(); }

}  // namespace layers
}  // namespace jitconv
