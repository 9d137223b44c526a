// Bias (ncnn): x + bias[q] per channel of a 3-D/4-D blob. Param 0 = bias_data_size;
// weights: bias (raw fp32). ncnn treats 1-D/2-D blobs as one channel, so they take a
// single bias value.
#include <memory>

#include "runtime/layers/channel_affine.h"
#include "runtime/layers/elementwise_kernels.h"
#include "runtime/layers/math_util.h"

namespace jitconv {
namespace layers {

class Bias final : public Layer {
 public:
  Bias() {
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
  }

  void load_param(const ParamDict& pd) override {
    size_ = pd.get(0, 0);
    if (size_ <= 0) fail(layer_label(*this), ": bias_data_size (param 0) must be positive, got ", size_);
  }

  void load_model(const ModelBin& mb) override {
    bias_ = mb.load(size_, 1);
    check_fp32_weight(*this, bias_, size_, "bias");
  }

  void forward_inplace(Mat& blob, const Option& opt) const override {
    check_fp32_blob(*this, blob);
    if (blob.dims >= 3) return channel_affine(*this, blob, nullptr, static_cast<const float*>(bias_.data), size_, opt);
    if (size_ != 1)
      fail(layer_label(*this), ": a ", blob.dims, "-D input is one channel but bias_data_size is ", size_);
    const long n = static_cast<long>(blob.w) * blob.h * blob.elempack;
    JITCONV_SIMD_CALL(binary_scalar_inplace, BinaryKind::add, static_cast<float*>(blob.data), bias_[0], n);
  }

 private:
  int size_ = 0;
  Mat bias_;
};

std::unique_ptr<Layer> make_Bias() { return std::make_unique<Bias>(); }

}  // namespace layers
}  // namespace jitconv
