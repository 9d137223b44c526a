#include <algorithm>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class HardSwishRef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override {
    alpha_ = pd.get(0, 0.2f);
    beta_ = pd.get(1, 0.5f);
  }

 private:
  double apply(double x) const override { return x * std::min(1.0, std::max(0.0, x * alpha_ + beta_)); }
  float alpha_ = 0.2f, beta_ = 0.5f;
};

std::unique_ptr<Layer> make_HardSwish() { return std::make_unique<HardSwishRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
