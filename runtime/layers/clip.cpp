// Clip (ncnn): min(max(x, min), max); param 0 = min (-FLT_MAX), 1 = max (FLT_MAX).
#include <cfloat>
#include <memory>

#include "runtime/layers/math_util.h"
#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class Clip final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override {
    op_ = {UnaryKind::clip, pd.get(0, -FLT_MAX), pd.get(1, FLT_MAX)};
    if (!(op_.a <= op_.b)) fail(layer_label(*this), ": min ", op_.a, " is above max ", op_.b);
  }
};

std::unique_ptr<Layer> make_Clip() { return std::make_unique<Clip>(); }

}  // namespace layers
}  // namespace jitconv
