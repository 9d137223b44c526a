#include <cstdlib>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// Every output scalar looks up its source: inside the input, mirrored (reflect),
// clamped (replicate), or the constant (per output channel when given).
class PaddingRef final : public Layer {
 public:
  PaddingRef() { one_blob_only = true; }
  void load_param(const ParamDict& pd) override {
    top_ = pd.get(0, 0);
    bottom_ = pd.get(1, 0);
    left_ = pd.get(2, 0);
    right_ = pd.get(3, 0);
    type_ = pd.get(4, 0);
    value_ = pd.get(5, 0.f);
    per_channel_size_ = pd.get(6, 0);
    front_ = pd.get(7, 0);
    behind_ = pd.get(8, 0);
  }
  void load_model(const ModelBin& mb) override {
    if (per_channel_size_) per_channel_ = mb.load(per_channel_size_, 1);
  }

  void forward(const Mat& in, Mat& out, const Option&) const override {
    check_ref_blob(*this, in);
    const int dims = in.dims;
    const int t = dims >= 2 ? top_ : 0, b = dims >= 2 ? bottom_ : 0;
    const int f = dims >= 3 ? front_ : 0, k = dims >= 3 ? behind_ : 0;
    const int ow = in.w + left_ + right_, oh = in.h + t + b;
    const int od = dims == 4 ? in.d + f + k : in.d, oc = dims == 3 ? in.c + f + k : in.c;
    out = make_ref_blob(dims, ow, oh, od, oc);
    for (int q = 0; q < oc; q++)
      for (int z = 0; z < od; z++)
        for (int y = 0; y < oh; y++)
          for (int x = 0; x < ow; x++) {
            const int sx = map(x - left_, in.w), sy = map(y - t, in.h);
            const int sz = dims == 4 ? map(z - f, in.d) : z, sq = dims == 3 ? map(q - f, in.c) : q;
            const float constant = dims >= 3 && per_channel_size_ ? per_channel_[q] : value_;
            at(out, x, y, z, q) = sx < 0 || sy < 0 || sz < 0 || sq < 0 ? constant : at(in, sx, sy, sz, sq);
          }
  }

 private:
  int map(int i, int n) const {
    if (i >= 0 && i < n) return i;
    if (type_ == 1) return i < 0 ? 0 : n - 1;
    if (type_ == 2) return i < 0 ? std::abs(i) : 2 * (n - 1) - i;
    return -1;
  }

  int top_ = 0, bottom_ = 0, left_ = 0, right_ = 0, type_ = 0, per_channel_size_ = 0, front_ = 0, behind_ = 0;
  float value_ = 0.f;
  Mat per_channel_;
};

std::unique_ptr<Layer> make_Padding() { return std::make_unique<PaddingRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
