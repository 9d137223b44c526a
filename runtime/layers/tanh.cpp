// TanH (ncnn): tanh(x), by simd_math.h's tanh_f (within 2 ulp of tanhf).
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class TanH final : public UnaryLayer {
 public:
  TanH() { op_.kind = UnaryKind::tanh; }
};

std::unique_ptr<Layer> make_TanH() { return std::make_unique<TanH>(); }

}  // namespace layers
}  // namespace jitconv
