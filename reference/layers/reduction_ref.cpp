#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <vector>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// Every output scalar reduces its slice of the input in double, then log / sqrt / mean
// / coeff; axis flags and the output shape follow ncnn's rules.
class ReductionRef final : public Layer {
 public:
  ReductionRef() { one_blob_only = true; }
  void load_param(const ParamDict& pd) override {
    op_ = pd.get(0, 0);
    reduce_all_ = pd.get(1, 1);
    coeff_ = pd.get(2, 1.f);
    axes_ = pd.get_ints(3);
    keepdims_ = pd.get(4, 0);
  }

  void forward(const Mat& in, Mat& out, const Option&) const override {
    check_ref_blob(*this, in);
    const int dims = in.dims;
    bool red[4] = {false, false, false, false};  // w, h, d, c
    if (dims == 1 || reduce_all_) {
      red[0] = red[1] = red[2] = red[3] = true;
    } else {
      for (int axis : axes_) {
        const int a = axis < 0 ? axis + dims : axis;
        // ncnn order: axis 0 is the outermost present axis.
        const int order2[2] = {1, 0}, order3[3] = {3, 1, 0}, order4[4] = {3, 2, 1, 0};
        red[dims == 2 ? order2[a] : dims == 3 ? order3[a] : order4[a]] = true;
      }
    }
    const int size[4] = {in.w, in.h, in.d, in.c};
    std::vector<int> present = dims == 1 ? std::vector<int>{0}
                               : dims == 2 ? std::vector<int>{0, 1}
                               : dims == 3 ? std::vector<int>{0, 1, 3}
                                           : std::vector<int>{0, 1, 2, 3};
    int osize[4] = {1, 1, 1, 1};
    for (int a : present) osize[a] = red[a] ? 1 : size[a];
    long count = 1;
    for (int a : present)
      if (red[a]) count *= size[a];

    if (keepdims_) {
      out = make_ref_blob(dims, osize[0], osize[1], osize[2], osize[3]);
    } else {
      std::vector<int> kept;
      for (int a : present)
        if (!red[a]) kept.push_back(size[a]);
      if (kept.empty()) kept.push_back(1);
      const int n = static_cast<int>(kept.size());
      out = n == 1 ? Mat(kept[0]) : n == 2 ? Mat(kept[0], kept[1]) : n == 3 ? Mat(kept[0], kept[1], kept[2])
                                                                           : Mat(kept[0], kept[1], kept[2], kept[3]);
    }
    // Output scalars in (c, d, h, w) order match the kept input coordinates in that order:
    // one pass over the input accumulates into them.
    const double init = op_ == 4 ? -1e300 : op_ == 5 ? 1e300 : op_ == 6 ? 1.0 : 0.0;
    std::vector<double> acc(static_cast<size_t>(osize[0]) * osize[1] * osize[2] * osize[3], init);
    for (int iq = 0; iq < size[3]; iq++)
      for (int iz = 0; iz < size[2]; iz++)
        for (int iy = 0; iy < size[1]; iy++)
          for (int ix = 0; ix < size[0]; ix++) {
            const size_t o = ((static_cast<size_t>(red[3] ? 0 : iq) * osize[2] + (red[2] ? 0 : iz)) * osize[1] +
                              (red[1] ? 0 : iy)) * osize[0] + (red[0] ? 0 : ix);
            const double v = at(in, ix, iy, iz, iq);
            double& a = acc[o];
            switch (op_) {
              case 1: case 7: a += std::fabs(v); break;
              case 2: case 8: a += v * v; break;
              case 4: a = std::max(a, v); break;
              case 5: a = std::min(a, v); break;
              case 6: a *= v; break;
              case 10: a += std::exp(v); break;
              default: a += v; break;
            }
          }
    std::vector<float> values;
    for (double a : acc) {
      if (op_ == 9 || op_ == 10) a = std::log(a);
      if (op_ == 8) a = std::sqrt(a);
      if (op_ == 3) a /= count;
      values.push_back(static_cast<float>(a * coeff_));
    }
    size_t i = 0;
    for (int q = 0; q < out.c; q++)
      for (int z = 0; z < out.d; z++)
        for (int y = 0; y < out.h; y++)
          for (int x = 0; x < out.w; x++) at(out, x, y, z, q) = values.at(i++);
  }

 private:
  int op_ = 0, reduce_all_ = 1, keepdims_ = 0;
  float coeff_ = 1.f;
  std::vector<int> axes_;
};

std::unique_ptr<Layer> make_Reduction() { return std::make_unique<ReductionRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
