// SELU (ncnn): x < 0 ? (exp(x) - 1) * alpha * lambda : x * lambda; param 0 = alpha
// (1.67326324), 1 = lambda (1.050700987). alpha * lambda is one fp32 product, as in ncnn.
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class SELU final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override {
    const float alpha = pd.get(0, 1.67326324f), lambda = pd.get(1, 1.050700987f);
    op_ = {UnaryKind::selu, alpha * lambda, lambda};
  }
};

std::unique_ptr<Layer> make_SELU() { return std::make_unique<SELU>(); }

}  // namespace layers
}  // namespace jitconv
