#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class TanHRef final : public RefUnary {
  double apply(double x) const override { return std::tanh(x); }
};

std::unique_ptr<Layer> make_TanH() { return std::make_unique<TanHRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
