#include <cmath>
#include <memory>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// x * (bias + alpha / n * sum of x^2 over the window) ^ -beta, windows as ncnn's.
class LRNRef final : public Layer {
 public:
  LRNRef() {
    one_blob_only = true;
    support_inplace = true;
  }
  void load_param(const ParamDict& pd) override {
    region_ = pd.get(0, 0);
    size_ = pd.get(1, 5);
    alpha_ = pd.get(2, 1.f);
    beta_ = pd.get(3, 0.75f);
    bias_ = pd.get(4, 1.f);
  }
  void forward_inplace(Mat& blob, const Option&) const override {
    check_ref_blob(*this, blob);
    const Mat in = blob.clone();
    for (int q = 0; q < in.c; q++)
      for (int y = 0; y < in.h; y++)
        for (int x = 0; x < in.w; x++) {
          double ss = 0;
          int n = size_;
          if (region_ == 0) {
            for (int p = q - size_ / 2; p <= q + size_ / 2; p++)
              if (p >= 0 && p < in.c) ss += static_cast<double>(at(in, x, y, 0, p)) * at(in, x, y, 0, p);
          } else {
            n = size_ * size_;
            for (int ky = 0; ky < size_; ky++)
              for (int kx = 0; kx < size_; kx++) {
                const int sy = y - size_ / 2 + ky, sx = x - size_ / 2 + kx;
                if (sy >= 0 && sy < in.h && sx >= 0 && sx < in.w)
                  ss += static_cast<double>(at(in, sx, sy, 0, q)) * at(in, sx, sy, 0, q);
              }
          }
          at(blob, x, y, 0, q) = static_cast<float>(at(in, x, y, 0, q) * std::pow(bias_ + alpha_ / n * ss, -beta_));
        }
  }

 private:
  int region_ = 0, size_ = 5;
  double alpha_ = 1, beta_ = 0.75, bias_ = 1;
};

std::unique_ptr<Layer> make_LRN() { return std::make_unique<LRNRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
