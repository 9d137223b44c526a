#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// log_base(shift + x * scale); base -1 means e.
class LogRef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override {
    base_ = pd.get(0, -1.f);
    scale_ = pd.get(1, 1.f);
    shift_ = pd.get(2, 0.f);
    if (base_ != -1.f && !(base_ > 0.f && base_ != 1.f && std::isfinite(base_)))
      fail(ref_label(*this), ": base ", base_, " is not -1, or positive, finite and not 1");
  }

 private:
  double apply(double x) const override {
    const double ln = std::log(shift_ + x * scale_);
    return base_ == -1.f ? ln : ln / std::log(static_cast<double>(base_));
  }
  float base_ = -1.f, scale_ = 1.f, shift_ = 0.f;
};

std::unique_ptr<Layer> make_Log() { return std::make_unique<LogRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
