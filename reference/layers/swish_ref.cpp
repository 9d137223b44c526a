#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class SwishRef final : public RefUnary {
  double apply(double x) const override { return x / (1.0 + std::exp(-x)); }
};

std::unique_ptr<Layer> make_Swish() { return std::make_unique<SwishRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
