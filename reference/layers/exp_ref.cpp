#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// base ^ (shift + x * scale); base -1 means e.
class ExpRef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override {
    base_ = pd.get(0, -1.f);
    scale_ = pd.get(1, 1.f);
    shift_ = pd.get(2, 0.f);
  }

 private:
  double apply(double x) const override {
    const double y = shift_ + x * scale_;
    return base_ == -1.f ? std::exp(y) : std::pow(static_cast<double>(base_), y);
  }
  float base_ = -1.f, scale_ = 1.f, shift_ = 0.f;
};

std::unique_ptr<Layer> make_Exp() { return std::make_unique<ExpRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
