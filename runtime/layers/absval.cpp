// AbsVal (ncnn): |x|. ncnn's x86 layer clears the sign bit (-0 gives +0); its generic
// layer negates values below 0 (-0 stays -0). This follows the x86 layer.
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class AbsVal final : public UnaryLayer {
 public:
  AbsVal() { op_.kind = UnaryKind::abs; }
};

std::unique_ptr<Layer> make_AbsVal() { return std::make_unique<AbsVal>(); }

}  // namespace layers
}  // namespace jitconv
