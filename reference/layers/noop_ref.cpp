// Reference Noop: every blob unchanged.
#include <memory>
#include <vector>

#include "runtime/layer.h"

namespace jitconv {
namespace reference_layers {

namespace {

class Noop final : public Layer {
 public:
  Noop() { support_inplace = true; }
  void forward_inplace(std::vector<Mat>& blobs, const Option& opt) const override {}
  void forward_inplace(Mat& blob, const Option& opt) const override {}
};

}  // namespace

std::unique_ptr<Layer> make_Noop() { return std::make_unique<Noop>(); }

}  // namespace reference_layers
}  // namespace jitconv
