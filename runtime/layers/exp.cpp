// Exp (ncnn): base ^ (shift + x * scale); param 0 = base (-1: e), 1 = scale (1),
// 2 = shift (0). Base e uses simd_math.h's exp_f, any other base powf.
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class Exp final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override {
    const float base = pd.get(0, -1.f);
    op_ = {base == -1.f ? UnaryKind::exp_affine : UnaryKind::pow_base, base, pd.get(1, 1.f), pd.get(2, 0.f)};
  }
};

std::unique_ptr<Layer> make_Exp() { return std::make_unique<Exp>(); }

}  // namespace layers
}  // namespace jitconv
