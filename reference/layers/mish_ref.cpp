#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class MishRef final : public RefUnary {
  double apply(double x) const override { return x * std::tanh(std::log1p(std::exp(x))); }
};

std::unique_ptr<Layer> make_Mish() { return std::make_unique<MishRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
