#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class ELURef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override { alpha_ = pd.get(0, 0.1f); }

 private:
  double apply(double x) const override { return x < 0 ? alpha_ * std::expm1(x) : x; }
  float alpha_ = 0.1f;
};

std::unique_ptr<Layer> make_ELU() { return std::make_unique<ELURef>(); }

}  // namespace reference_layers
}  // namespace jitconv
