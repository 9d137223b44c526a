#include "runtime/layers/unary_layer.h"

#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

void UnaryLayer::forward_inplace(Mat& blob, const Option& opt) const {
  check_fp32_blob(*this, blob);
  const FloatRows rows{static_cast<float*>(blob.data), channel_count(blob),
                       static_cast<long>(plane_elements(blob)) * blob.elempack,
                       static_cast<long>(blob.cstep) * blob.elempack};
  JITCONV_SIMD_CALL(unary_inplace, op_, rows, thread_count(opt, static_cast<size_t>(rows.rows) * rows.count));
}

}  // namespace layers
}  // namespace jitconv
