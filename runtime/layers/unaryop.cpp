// UnaryOp (ncnn): param 0 = op_type (default 0), in ncnn's numbering: 0 abs, 1 neg, 2 floor,
// 3 ceil, 4 square, 5 sqrt, 6 rsqrt, 7 exp, 8 log, 9 sin, 10 cos, 11 tan, 12 asin,
// 13 acos, 14 atan, 15 reciprocal, 16 tanh, 17 log10, 18 round (half to even, as ncnn's
// nearbyintf under FE_TONEAREST), 19 trunc. ncnn leaves the blob unchanged for any other
// op_type; here that is an error naming the layer.
#include <memory>

#include "runtime/layers/math_util.h"
#include "runtime/layers/unary_layer.h"

namespace jitconv {
namespace layers {

class UnaryOperation final : public UnaryLayer {
 public:
  void load_param(const ParamDict& pd) override {
    const int op_type = pd.get(0, 0);
    if (op_type < 0 || op_type >= kUnaryOpTypeCount)
      fail(layer_label(*this), ": op_type (param 0) must be 0..", kUnaryOpTypeCount - 1, ", got ", op_type);
    op_ = {unary_op_kind(op_type)};
  }
};

std::unique_ptr<Layer> make_UnaryOp() { return std::make_unique<UnaryOperation>(); }

}  // namespace layers
}  // namespace jitconv
