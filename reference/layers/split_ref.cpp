// Reference Split: independent copies of the input, one per top.
#include <memory>
#include <vector>

#include "runtime/layer.h"

namespace jitconv {
namespace reference_layers {

namespace {

class Split final : public Layer {
 public:
  Split() { one_blob_only = false; }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& top_blobs, const Option& opt) const override {
    const size_t count = !top_blobs.empty() ? top_blobs.size() : !tops.empty() ? tops.size() : 1;
    top_blobs.resize(count);
    for (Mat& top : top_blobs) top = bottoms.at(0).clone();
  }
};

}  // namespace

std::unique_ptr<Layer> make_Split() { return std::make_unique<Split>(); }

}  // namespace reference_layers
}  // namespace jitconv
