#include <cfloat>
#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// ncnn's log(exp(x) + 1) in fp32: exp overflows past x = 88.7, and the result is inf.
class SoftplusRef final : public RefUnary {
  double apply(double x) const override {
    const double e = std::exp(x);
    return e > FLT_MAX ? INFINITY : std::log1p(e);
  }
};

std::unique_ptr<Layer> make_Softplus() { return std::make_unique<SoftplusRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
