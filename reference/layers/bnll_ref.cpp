#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class BNLLRef final : public RefUnary {
  double apply(double x) const override { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
};

std::unique_ptr<Layer> make_BNLL() { return std::make_unique<BNLLRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
