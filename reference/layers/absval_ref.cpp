#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class AbsValRef final : public RefUnary {
  double apply(double x) const override { return std::fabs(x); }
};

std::unique_ptr<Layer> make_AbsVal() { return std::make_unique<AbsValRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
