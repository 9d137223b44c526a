// ShuffleChannel (0 = group, 1 = reverse): channels seen as [group][channels / group]
// are transposed to [channels / group][group]; reverse undoes it by transposing with
// group' = channels / group.
#include <memory>
#include <vector>

#include "runtime/layers/blob_copy.h"

namespace jitconv {
namespace layers {

namespace {

class ShuffleChannel final : public Layer {
 public:
  ShuffleChannel() {
    one_blob_only = true;
    support_inplace = false;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
  }

  void load_param(const ParamDict& pd) override {
    group_ = pd.get(0, 1);
    reverse_ = pd.get(1, 0);
    if (group_ <= 0) layer_fail(*this, "group must be positive, got ", group_);
  }

  void forward(const Mat& bottom, Mat& top, const Option& opt) const override {
    if (bottom.dims != 3 && bottom.dims != 4)
      layer_fail(*this, "shuffles the channels of a 3-D or 4-D blob, got dims ", bottom.dims);
    const long channels = static_cast<long>(bottom.c) * bottom.elempack;
    if (channels % group_ != 0) layer_fail(*this, channels, " channels do not split into ", group_, " groups");
    const long group = reverse_ ? channels / group_ : group_;
    if (group == 1) {
      top = bottom;
      return;
    }
    const long per_group = channels / group;
    // Output channel j * group + i comes from input channel i * per_group + j.
    std::vector<long> source(channels);
    for (long i = 0; i < group; i++)
      for (long j = 0; j < per_group; j++) source[j * group + i] = i * per_group + j;
    top.create_like(bottom, opt.blob_allocator);
    gather_axis0(bottom, source.data(), top, opt.num_threads);
  }

 private:
  int group_ = 1;
  int reverse_ = 0;
};

}  // namespace

std::unique_ptr<Layer> make_ShuffleChannel() { return std::make_unique<ShuffleChannel>(); }

}  // namespace layers
}  // namespace jitconv
