// Sigmoid (ncnn): 1 / (1 + exp(-x)).
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class Sigmoid final : public UnaryLayer {
 public:
  Sigmoid() { op_.kind = UnaryKind::sigmoid; }
};

std::unique_ptr<Layer> make_Sigmoid() { return std::make_unique<Sigmoid>(); }

}  // namespace layers
}  // namespace jitconv
