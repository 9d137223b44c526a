// HardSwish (ncnn): x * clamp(x * alpha + beta, 0, 1); param 0 = alpha (0.2), 1 = beta
// (0.5). ncnn's defaults, not PyTorch's 1/6 and 0.5.
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class HardSwish final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override {
    op_ = {UnaryKind::hardswish, pd.get(0, 0.2f), pd.get(1, 0.5f)};
  }
};

std::unique_ptr<Layer> make_HardSwish() { return std::make_unique<HardSwish>(); }

}  // namespace layers
}  // namespace jitconv
