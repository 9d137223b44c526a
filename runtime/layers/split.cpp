// Split: hands the same blob to several consumers without copying (the tops share the
// bottom's data through its reference count). It makes as many tops as the layer has
// (the size of the output vector when given, else of `tops`, else one).
#include <memory>
#include <vector>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

class Split final : public Layer {
 public:
  Split() {
    one_blob_only = false;
    support_inplace = false;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
  }

  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& top_blobs, const Option& opt) const override {
    if (bottoms.size() != 1) layer_fail(*this, "expects one input, got ", bottoms.size());
    const size_t count = !top_blobs.empty() ? top_blobs.size() : !tops.empty() ? tops.size() : 1;
    top_blobs.assign(count, bottoms[0]);
  }
};

}  // namespace

std::unique_ptr<Layer> make_Split() { return std::make_unique<Split>(); }

}  // namespace layers
}  // namespace jitconv
