// Power (ncnn): (shift + x * scale) ^ power; param 0 = power (1), 1 = scale (1),
// 2 = shift (0). powf semantics: a negative base with a non-integer power is NaN.
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class Power final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override {
    op_ = {UnaryKind::power, pd.get(0, 1.f), pd.get(1, 1.f), pd.get(2, 0.f)};
  }
};

std::unique_ptr<Layer> make_Power() { return std::make_unique<Power>(); }

}  // namespace layers
}  // namespace jitconv
