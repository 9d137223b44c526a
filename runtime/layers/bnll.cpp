// BNLL (ncnn): log(1 + e^x), as x > 0 ? x + log(1 + e^-x) : log(1 + e^x). No parameters.
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class BNLL final : public UnaryLayer {
 public:
  BNLL() { op_.kind = UnaryKind::bnll; }
};

std::unique_ptr<Layer> make_BNLL() { return std::make_unique<BNLL>(); }

}  // namespace layers
}  // namespace jitconv
