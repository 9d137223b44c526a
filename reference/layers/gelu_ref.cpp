#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// fast_gelu 0: x * Phi(x) (exact); otherwise ncnn's tanh approximation with its constants.
class GELURef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override { fast_ = pd.get(0, 0) != 0; }

 private:
  double apply(double x) const override {
    if (fast_) return 0.5 * x * (1.0 + std::tanh(0.79788452 * (x + 0.044715 * x * x * x)));
    return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
  }
  bool fast_ = false;
};

std::unique_ptr<Layer> make_GELU() { return std::make_unique<GELURef>(); }

}  // namespace reference_layers
}  // namespace jitconv
