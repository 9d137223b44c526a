// HardSigmoid (ncnn): clamp(x * alpha + beta, 0, 1); param 0 = alpha (0.2), 1 = beta
// (0.5). ncnn's defaults, not PyTorch's 1/6 and 0.5.
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class HardSigmoid final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override {
    op_ = {UnaryKind::hardsigmoid, pd.get(0, 0.2f), pd.get(1, 0.5f)};
  }
};

std::unique_ptr<Layer> make_HardSigmoid() { return std::make_unique<HardSigmoid>(); }

}  // namespace layers
}  // namespace jitconv
