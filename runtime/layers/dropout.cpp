// Dropout at inference: multiplies by `scale` (param 0, default 1 = identity), in place.
#include <memory>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

class Dropout final : public Layer {
 public:
  Dropout() {
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override { scale_ = pd.get(0, 1.f); }

  void forward_inplace(Mat& blob, const Option& opt) const override {
    if (scale_ == 1.f) return;
    if (blob.dims < 1 || blob.dims > 4) layer_fail(*this, "input has dims ", blob.dims);
    if (lane_bytes(blob) != 4) layer_fail(*this, "scales fp32 blobs only, got elemsize ", blob.elemsize, " for elempack ", blob.elempack);
    // 1-D and 2-D blobs have no channel padding: treat them as one channel.
    const long channels = blob.dims >= 3 ? blob.c : 1;
    const long count = (blob.dims >= 3 ? static_cast<long>(blob.w) * blob.h * blob.d : static_cast<long>(blob.w) * blob.h) *
                       blob.elempack;
    const long stride = blob.dims >= 3 ? static_cast<long>(blob.cstep) * blob.elempack : 0;
    const float scale = scale_;
    float* data = static_cast<float*>(blob.data);
#pragma omp parallel for num_threads(opt.num_threads) schedule(static)
    for (long q = 0; q < channels; q++) {
      float* p = data + q * stride;
      for (long i = 0; i < count; i++) p[i] *= scale;
    }
  }

 private:
  float scale_ = 1.f;
};

}  // namespace

std::unique_ptr<Layer> make_Dropout() { return std::make_unique<Dropout>(); }

}  // namespace layers
}  // namespace jitconv
