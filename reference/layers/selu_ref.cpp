#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class SELURef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override {
    alpha_ = pd.get(0, 1.67326324f);
    lambda_ = pd.get(1, 1.050700987f);
  }

 private:
  double apply(double x) const override {
    return x < 0 ? static_cast<double>(lambda_) * alpha_ * std::expm1(x) : lambda_ * x;
  }
  float alpha_ = 1.67326324f, lambda_ = 1.050700987f;
};

std::unique_ptr<Layer> make_SELU() { return std::make_unique<SELURef>(); }

}  // namespace reference_layers
}  // namespace jitconv
