// Mish (ncnn): x * tanh(log(1 + exp(x))).
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class Mish final : public UnaryLayer {
 public:
  Mish() { op_.kind = UnaryKind::mish; }
};

std::unique_ptr<Layer> make_Mish() { return std::make_unique<Mish>(); }

}  // namespace layers
}  // namespace jitconv
