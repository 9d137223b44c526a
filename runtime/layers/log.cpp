// Log (ncnn): log_base(shift + x * scale); param 0 = base (-1: e), 1 = scale (1),
// 2 = shift (0). As ncnn, ln(y) times the fp32 1 / ln(base). A base that is not -1 must
// be positive and not 1 (ncnn turns every output into NaN or inf there).
#include <cmath>
#include <memory>

#include "runtime/layers/math_util.h"
#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class Log final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override {
    const float base = pd.get(0, -1.f);
    if (base != -1.f && !(base > 0.f && base != 1.f && std::isfinite(base)))
      fail(layer_label(*this), ": base (param 0) must be -1 (e) or positive, finite and not 1, got ", base);
    const float log_base_inv = base == -1.f ? 1.f : 1.f / std::log(base);
    op_ = {UnaryKind::log_affine, log_base_inv, pd.get(1, 1.f), pd.get(2, 0.f)};
  }
};

std::unique_ptr<Layer> make_Log() { return std::make_unique<Log>(); }

}  // namespace layers
}  // namespace jitconv
