// ELU (ncnn): x < 0 ? alpha * (exp(x) - 1) : x; param 0 = alpha (0.1).
#include <memory>

#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class ELU final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override { op_ = {UnaryKind::elu, pd.get(0, 0.1f)}; }
};

std::unique_ptr<Layer> make_ELU() { return std::make_unique<ELU>(); }

}  // namespace layers
}  // namespace jitconv
