// Softplus (ncnn): log(e^x + 1), no parameters (no beta or threshold). As in ncnn, e^x
// overflows past x = 88.7 and the result is inf there.
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class Softplus final : public UnaryLayer {
 public:
  Softplus() { op_.kind = UnaryKind::softplus; }
};

std::unique_ptr<Layer> make_Softplus() { return std::make_unique<Softplus>(); }

}  // namespace layers
}  // namespace jitconv
