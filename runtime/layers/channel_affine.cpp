#include "runtime/layers/channel_affine.h"

#include "runtime/layers/elementwise_kernels.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

void channel_affine(const Layer& layer, Mat& blob, const float* scale, const float* bias, int count,
                    const Option& opt) {
  check_fp32_blob(layer, blob);
  const int axis_scalars = packed_axis_scalars(blob);
  if (axis_scalars != count)
    fail(layer_label(layer), ": ", count, " per-channel values for an input with ", axis_scalars,
         blob.dims == 1 ? " elements" : blob.dims == 2 ? " rows" : " channels");
  const int lanes = blob.elempack;
  if (blob.dims == 1) {
    float* x = static_cast<float*>(blob.data);
    for (int i = 0; i < count; i++) x[i] = x[i] * (scale ? scale[i] : 1.f) + (bias ? bias[i] : 0.f);
    return;
  }
  // Packed group q of the packing axis covers scalars q*lanes .. q*lanes+lanes-1.
  const int outer = count / lanes;
  const long inner = blob.dims == 2 ? blob.w : static_cast<long>(plane_elements(blob));
  const long stride = blob.dims == 2 ? static_cast<long>(blob.w) * lanes : static_cast<long>(blob.cstep) * lanes;
  float* data = static_cast<float*>(blob.data);
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(outer) * inner * lanes))
  for (int q = 0; q < outer; q++) {
    JITCONV_SIMD_CALL(affine_lanes, data + q * stride, inner, lanes, scale ? scale + q * lanes : nullptr,
                      bias ? bias + q * lanes : nullptr);
  }
}

}  // namespace layers
}  // namespace jitconv
