// GELU (ncnn): param 0 = fast_gelu (0). 0: x Phi(x) = 0.5 x erfc(-x / sqrt 2), as ncnn's
// generic layer (its x86 layer writes 0.5 x (1 + erf(x / sqrt 2)), the same function, whose
// fp32 sum loses relative precision below x = -3: 2.5e-3 of the value at x = -4.1);
// otherwise the tanh approximation 0.5 x (1 + tanh(0.79788452 (x + 0.044715 x^3))),
// evaluated as x / (1 + e^(-2 * 0.79788452 (x + 0.044715 x^3))), the same function without
// that cancellation.
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class GELU final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override {
    op_.kind = pd.get(0, 0) != 0 ? UnaryKind::gelu_tanh : UnaryKind::gelu_erf;
  }
};

std::unique_ptr<Layer> make_GELU() { return std::make_unique<GELU>(); }

}  // namespace layers
}  // namespace jitconv
