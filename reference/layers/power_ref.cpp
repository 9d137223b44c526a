#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class PowerRef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override {
    power_ = pd.get(0, 1.f);
    scale_ = pd.get(1, 1.f);
    shift_ = pd.get(2, 0.f);
  }

 private:
  double apply(double x) const override { return std::pow(shift_ + x * scale_, static_cast<double>(power_)); }
  float power_ = 1.f, scale_ = 1.f, shift_ = 0.f;
};

std::unique_ptr<Layer> make_Power() { return std::make_unique<PowerRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
