// Internal base of the one-input elementwise layers (ReLU, Clip, Sigmoid, Swish,
// HardSigmoid, HardSwish, Mish, UnaryOp, TanH, AbsVal, ELU, SELU, BNLL, GELU, Softplus,
// Power, Exp, Log): in place, any elempack, any dims.
#pragma once
#include "runtime/layer.h"
#include "runtime/layers/elementwise_kernels.h"

namespace jitconv {
namespace layers {

class UnaryLayer : public Layer {
 public:
  UnaryLayer() {
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
  }
  void forward_inplace(Mat& blob, const Option& opt) const override;

 protected:
  UnaryOp op_;
};

}  // namespace layers
}  // namespace jitconv
