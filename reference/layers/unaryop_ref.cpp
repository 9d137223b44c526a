#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// ncnn UnaryOp: op_type 0..19 in ncnn's numbering, each the libm function in double.
class UnaryOpRef final : public RefUnary {
 public:
  void load_param(const ParamDict& pd) override {
    op_type_ = pd.get(0, 0);
    if (op_type_ < 0 || op_type_ > 19) fail(ref_label(*this), ": op_type ", op_type_, " is not 0..19");
  }

 private:
  double apply(double x) const override {
    switch (op_type_) {
      case 0: return std::fabs(x);
      case 1: return -x;
      case 2: return std::floor(x);
      case 3: return std::ceil(x);
      case 4: return x * x;
      case 5: return std::sqrt(x);
      case 6: return 1.0 / std::sqrt(x);
      case 7: return std::exp(x);
      case 8: return std::log(x);
      case 9: return std::sin(x);
      case 10: return std::cos(x);
      case 11: return std::tan(x);
      case 12: return std::asin(x);
      case 13: return std::acos(x);
      case 14: return std::atan(x);
      case 15: return 1.0 / x;
      case 16: return std::tanh(x);
      case 17: return std::log10(x);
      case 18: return std::nearbyint(x);  // the default rounding mode: half to even
      default: return std::trunc(x);
    }
  }
  int op_type_ = 0;
};

std::unique_ptr<Layer> make_UnaryOp() { return std::make_unique<UnaryOpRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
