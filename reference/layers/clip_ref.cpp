#include <cfloat>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

class ClipRef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override {
    min_ = pd.get(0, -FLT_MAX);
    max_ = pd.get(1, FLT_MAX);
  }

 private:
  double apply(double x) const override { return x < min_ ? min_ : (x > max_ ? max_ : x); }
  float min_ = -FLT_MAX, max_ = FLT_MAX;
};

std::unique_ptr<Layer> make_Clip() { return std::make_unique<ClipRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
