#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// exp(x - max) / sum along one axis, in double; the axis counts ncnn's way (outermost
// first), a 1-D blob is normalized whole.
class SoftmaxRef final : public Layer {
 public:
  SoftmaxRef() {
    one_blob_only = true;
    support_inplace = true;
  }
  void load_param(const ParamDict& pd) override { axis_ = pd.get(0, 0); }
  void forward_inplace(Mat& blob, const Option&) const override {
    check_ref_blob(*this, blob);
    const int dims = blob.dims;
    const int axis = axis_ < 0 ? dims + axis_ : axis_;
    // Which of (w, h, d, c) = (0, 1, 2, 3) the axis names.
    int which = 0;
    if (dims == 2) which = axis == 0 ? 1 : 0;
    if (dims == 3) which = axis == 0 ? 3 : axis == 1 ? 1 : 0;
    if (dims == 4) which = axis == 0 ? 3 : axis == 1 ? 2 : axis == 2 ? 1 : 0;
    const int size[4] = {blob.w, blob.h, blob.d, blob.c};
    int idx[4];
    for (idx[3] = 0; idx[3] < size[3]; idx[3]++)
      for (idx[2] = 0; idx[2] < size[2]; idx[2]++)
        for (idx[1] = 0; idx[1] < size[1]; idx[1]++)
          for (idx[0] = 0; idx[0] < size[0]; idx[0]++) {
            if (idx[which] != 0) continue;  // visit each line once, from its first element
            int i[4] = {idx[0], idx[1], idx[2], idx[3]};
            std::vector<double> v(size[which]);
            for (int k = 0; k < size[which]; k++) {
              i[which] = k;
              v[k] = at(blob, i[0], i[1], i[2], i[3]);
            }
            const double m = *std::max_element(v.begin(), v.end());
            double s = 0;
            for (double& x : v) s += (x = std::exp(x - m));
            for (int k = 0; k < size[which]; k++) {
              i[which] = k;
              at(blob, i[0], i[1], i[2], i[3]) = static_cast<float>(v[k] / s);
            }
          }
  }

 private:
  int axis_ = 0;
};

std::unique_ptr<Layer> make_Softmax() { return std::make_unique<SoftmaxRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
