// ReLU (ncnn): x < 0 ? x * slope : x; param 0 = slope (0: plain max(x, 0)).
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class ReLU final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override { op_ = {UnaryKind::relu, pd.get(0, 0.f), 0.f}; }
};

std::unique_ptr<Layer> make_ReLU() { return std::make_unique<ReLU>(); }

}  // namespace layers
}  // namespace jitconv
