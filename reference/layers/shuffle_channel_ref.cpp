// Reference ShuffleChannel, as ncnn's loop: input channel per_group * i + j goes to
// output channel group * j + i.
#include <memory>

#include "reference/layers/dense_tensor_ref.h"

namespace jitconv {
namespace reference_layers {

namespace {

class ShuffleChannel final : public Layer {
 public:
  ShuffleChannel() { one_blob_only = true; }

  void load_param(const ParamDict& pd) override {
    group_ = pd.get(0, 1);
    reverse_ = pd.get(1, 0);
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    const DenseTensor in = to_dense(*this, bottom);
    const int channels = in.size[kRefC];
    if (in.dims < 3 || group_ <= 0 || channels % group_ != 0) fail("ShuffleChannel reference: bad group");
    const int group = reverse_ ? channels / group_ : group_;
    const int per_group = channels / group;
    DenseTensor out = in;
    for_each_coord(in, [&](const int* at) {
      const int i = at[kRefC] / per_group, j = at[kRefC] % per_group;
      int to[4] = {at[0], at[1], at[2], group * j + i};
      out[to] = in[at];
    });
    top = to_mat(out);
  }

 private:
  int group_ = 1;
  int reverse_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_ShuffleChannel() { return std::make_unique<ShuffleChannel>(); }

}  // namespace reference_layers
}  // namespace jitconv
