#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class SigmoidRef final : public RefUnary {
  double apply(double x) const override { return 1.0 / (1.0 + std::exp(-x)); }
};

std::unique_ptr<Layer> make_Sigmoid() { return std::make_unique<SigmoidRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
