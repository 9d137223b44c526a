#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

namespace {

// Keys cubic kernel, a = -0.75.
double cubic_weight(double d) {
  const double a = -0.75;
  d = std::fabs(d);
  if (d <= 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
  if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
  return 0;
}

// Source taps (clamped to the edge) and weights of output coordinate o along an axis.
void taps_of(int type, int in, int out, bool align, int o, std::vector<int>& idx, std::vector<double>& wt) {
  idx.clear();
  wt.clear();
  double scale = align ? (out > 1 ? static_cast<double>(in - 1) / (out - 1) : 0.0) : static_cast<double>(in) / out;
  const float pos = align ? static_cast<float>(o * scale) : static_cast<float>((o + 0.5) * scale - 0.5);
  const int base = static_cast<int>(std::floor(pos));
  const double f = pos - base;
  auto clamp = [in](int i) { return std::min(std::max(i, 0), in - 1); };
  if (type == 2) {
    idx = {clamp(base), clamp(base + 1)};
    wt = {1 - f, f};
  } else {
    for (int k = -1; k <= 2; k++) {
      idx.push_back(clamp(base + k));
      wt.push_back(cubic_weight(f - k));
    }
  }
}

}  // namespace

// Resize by direct evaluation of each output value from clamped source taps.
class InterpRef final : public Layer {
 public:
  InterpRef() { one_blob_only = true; }
  void load_param(const ParamDict& pd) override {
    type_ = pd.get(0, 0);
    hscale_ = pd.get(1, 1.f);
    wscale_ = pd.get(2, 1.f);
    out_h_ = pd.get(3, 0);
    out_w_ = pd.get(4, 0);
    dynamic_ = pd.get(5, 0);
    align_ = pd.get(6, 0);
    if (dynamic_) one_blob_only = false;
  }
  void forward(const Mat& in, Mat& out, const Option&) const override {
    int ow = out_w_, oh = out_h_;
    if (ow == 0 || oh == 0) {
      ow = static_cast<int>((in.dims == 1 ? 1 : in.w) * wscale_);
      oh = static_cast<int>((in.dims == 1 ? 1 : in.h) * hscale_);
    }
    run(in, out, ow, oh, out_w_ != 0, out_h_ != 0);
  }
  void forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
    if (!dynamic_) return Layer::forward(bottoms, tops, opt);
    tops.resize(1);
    run(bottoms.at(0), tops[0], bottoms.at(1).w, bottoms.at(1).h, true, true);
  }

 private:
  void run(const Mat& in, Mat& out, int ow, int oh, bool size_w, bool size_h) const {
    check_ref_blob(*this, in);
    if (in.dims == 1) {
      out = Mat(ow, oh, in.w);
      for (int q = 0; q < in.w; q++)
        for (int y = 0; y < oh; y++)
          for (int x = 0; x < ow; x++) at(out, x, y, 0, q) = in[q];
      return;
    }
    const int w = in.w, h = in.dims == 2 ? 1 : in.h, rows = in.dims == 2 ? in.h : 1, c = in.dims == 3 ? in.c : 1;
    if (in.dims == 2) oh = 1;
    out = in.dims == 2 ? Mat(ow, in.h) : Mat(ow, oh, c);
    std::vector<int> ix, iy;
    std::vector<double> wx, wy;
    for (int q = 0; q < c; q++)
      for (int r = 0; r < rows; r++)
        for (int y = 0; y < oh; y++)
          for (int x = 0; x < ow; x++) {
            double v = 0;
            if (type_ == 1) {
              const float ws = size_w ? static_cast<float>(w) / ow : 1.f / wscale_;
              const float hs = size_h ? static_cast<float>(h) / oh : 1.f / hscale_;
              const int sx = std::min(static_cast<int>(x * ws), w - 1), sy = std::min(static_cast<int>(y * hs), h - 1);
              v = at(in, sx, in.dims == 2 ? r : sy, 0, q);
            } else {
              taps_of(type_, w, ow, align_, x, ix, wx);
              if (in.dims == 2) {
                iy = {r};
                wy = {1.0};
              } else {
                taps_of(type_, h, oh, align_, y, iy, wy);
              }
              for (size_t j = 0; j < iy.size(); j++)
                for (size_t i = 0; i < ix.size(); i++) v += wy[j] * wx[i] * at(in, ix[i], iy[j], 0, q);
            }
            at(out, x, in.dims == 2 ? r : y, 0, q) = static_cast<float>(v);
          }
  }

  int type_ = 0, out_h_ = 0, out_w_ = 0, dynamic_ = 0, align_ = 0;
  float hscale_ = 1.f, wscale_ = 1.f;
};

std::unique_ptr<Layer> make_Interp() { return std::make_unique<InterpRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
