#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class ReLURef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override { slope_ = pd.get(0, 0.f); }

 private:
  double apply(double x) const override { return x >= 0 ? x : x * slope_; }
  float slope_ = 0.f;
};

std::unique_ptr<Layer> make_ReLU() { return std::make_unique<ReLURef>(); }

}  // namespace reference_layers
}  // namespace jitconv
