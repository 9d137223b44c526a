// Softmax (ncnn): exp(x - max) / sum along one axis, in place. Params: 0 = axis (ncnn's
// order: c/d/h/w from the outermost; negative counts from the end), 1 = fixbug0 (must be
// 1 for axis != 0: older params meant something else and ncnn refuses them too).
// A 1-D blob is normalized as a whole whatever the axis, as in ncnn.
#include <algorithm>
#include <memory>

#include "runtime/layers/math_util.h"
#include "runtime/layers/softmax_kernels.h"

namespace jitconv {
namespace layers {

namespace {
constexpr long kGroupChunk = 1024;  // positions per parallel work item across groups
}

class Softmax final : public Layer {
 public:
  Softmax() {
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    axis_ = pd.get(0, 0);
    const int fixbug0 = pd.get(1, 0);
    if (fixbug0 == 0 && axis_ != 0)
      fail(layer_label(*this), ": axis ", axis_, " without fixbug0 (param 1) comes from an old converter; regenerate the param");
  }

  void forward_inplace(Mat& blob, const Option& opt) const override {
    check_fp32_blob(*this, blob);
    const int dims = blob.dims;
    const int axis = axis_ < 0 ? dims + axis_ : axis_;
    if (dims > 1 && (axis < 0 || axis >= dims))
      fail(layer_label(*this), ": axis ", axis_, " is out of range for a ", dims, "-D input");
    const int lanes = blob.elempack;
    float* data = static_cast<float*>(blob.data);

    if (dims == 1) return JITCONV_SIMD_CALL(softmax_block, data, static_cast<long>(blob.w) * lanes, 1L);

    // Along the packing axis: normalize across packed groups (and their lanes).
    if (axis == 0) {
      const long groups = dims == 2 ? blob.h : blob.c;
      const long stride = dims == 2 ? static_cast<long>(blob.w) * lanes : static_cast<long>(blob.cstep) * lanes;
      const long count = dims == 2 ? blob.w : static_cast<long>(plane_elements(blob));
      const long chunks = (count + kGroupChunk - 1) / kGroupChunk;
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(groups) * count * lanes))
      for (long chunk = 0; chunk < chunks; chunk++) {
        const long begin = chunk * kGroupChunk;
        JITCONV_SIMD_CALL(softmax_groups, data + begin * lanes, groups, stride, std::min(kGroupChunk, count - begin),
                          lanes);
      }
      return;
    }

    // Along an inner axis: blocks of [len][inner] inside each packed channel / row group.
    if (dims == 2) {  // axis 1 = w: each packed row group is [w][lanes]
      run_blocks(data, blob.h, 1, blob.w, lanes, static_cast<long>(blob.w) * lanes, 0, opt);
      return;
    }
    long len, inner;
    const long w = blob.w, h = blob.h, d = blob.d;
    const int inner_axis = dims == 3 ? axis + 1 : axis;  // 1 = d, 2 = h, 3 = w
    long per_channel;
    if (inner_axis == 1) {
      per_channel = 1, len = d, inner = h * w * lanes;
    } else if (inner_axis == 2) {
      per_channel = d, len = h, inner = w * lanes;
    } else {
      per_channel = d * h, len = w, inner = lanes;
    }
    run_blocks(data, blob.c, per_channel, len, inner, static_cast<long>(blob.cstep) * lanes, len * inner, opt);
  }

 private:
  // Block b of channel q starts at data + q*channel_stride + b*block_stride.
  static void run_blocks(float* data, long channels, long per_channel, long len, long inner, long channel_stride,
                         long block_stride, const Option& opt) {
    const long items = channels * per_channel;
#pragma omp parallel for num_threads(thread_count(opt, static_cast<size_t>(items) * len * inner))
    for (long item = 0; item < items; item++) {
      float* x = data + item / per_channel * channel_stride + item % per_channel * block_stride;
      JITCONV_SIMD_CALL(softmax_block, x, len, inner);
    }
  }

  int axis_ = 0;
};

std::unique_ptr<Layer> make_Softmax() { return std::make_unique<Softmax>(); }

}  // namespace layers
}  // namespace jitconv
