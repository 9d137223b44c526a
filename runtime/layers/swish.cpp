// Swish (ncnn): x / (1 + exp(-x)).
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class Swish final : public UnaryLayer {
 public:
  Swish() { op_.kind = UnaryKind::swish; }
};

std::unique_ptr<Layer> make_Swish() { return std::make_unique<Swish>(); }

}  // namespace layers
}  // namespace jitconv
