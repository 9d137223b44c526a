#include <algorithm>
#include <memory>
#include <vector>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// prod / sum (optionally weighted by coeffs) / max over same-shaped inputs, in double.
class EltwiseRef final : public Layer {
 public:
  void load_param(const ParamDict& pd) override {
    op_type_ = pd.get(0, 0);
    coeffs_ = pd.get_floats(1);
  }
  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option&) const override {
    const Mat& a = bottoms.at(0);
    for (const Mat& m : bottoms) {
      check_ref_blob(*this, m);
      if (m.dims != a.dims || m.w != a.w || m.h != a.h || m.d != a.d || m.c != a.c)
        fail(ref_label(*this), ": input shapes differ");
    }
    Mat out = make_ref_blob(a.dims, a.w, a.h, a.d, a.c);
    for (int q = 0; q < a.c; q++)
      for (int z = 0; z < a.d; z++)
        for (int y = 0; y < a.h; y++)
          for (int x = 0; x < a.w; x++) {
            double acc = op_type_ == 0 ? 1.0 : op_type_ == 1 ? 0.0 : -1e300;
            for (size_t i = 0; i < bottoms.size(); i++) {
              const double v = at(bottoms[i], x, y, z, q);
              if (op_type_ == 0) acc *= v;
              if (op_type_ == 1) acc += coeffs_.empty() ? v : v * coeffs_.at(i);
              if (op_type_ == 2) acc = std::max(acc, v);
            }
            at(out, x, y, z, q) = static_cast<float>(acc);
          }
    tops.assign(1, out);
  }

 private:
  int op_type_ = 0;
  std::vector<float> coeffs_;
};

std::unique_ptr<Layer> make_Eltwise() { return std::make_unique<EltwiseRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
