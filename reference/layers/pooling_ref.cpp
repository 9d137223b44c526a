#include <algorithm>
#include <cfloat>
#include <memory>
#include <vector>

#include "reference/layers/ref_util.h"

namespace jitconv {
namespace reference_layers {

// Pooling the way ncnn spells it out: materialize the padded channel (-FLT_MAX or 0),
// slide the window, and for an average without padding sum and count the positions inside
// [pad_top, padded_h - pad_bottom - htail) x [pad_left, padded_w - pad_right - wtail).
class PoolingRef final : public Layer {
 public:
  PoolingRef() { one_blob_only = true; }
  void load_param(const ParamDict& pd) override {
    type_ = pd.get(0, 0);
    kw_ = pd.get(1, 0);
    kh_ = pd.get(11, kw_);
    sw_ = pd.get(2, 1);
    sh_ = pd.get(12, sw_);
    pl_ = pd.get(3, 0);
    pr_ = pd.get(14, pl_);
    pt_ = pd.get(13, pl_);
    pb_ = pd.get(15, pt_);
    global_ = pd.get(4, 0);
    pad_mode_ = pd.get(5, 0);
    include_pad_ = pd.get(6, 0);
    adaptive_ = pd.get(7, 0);
    out_w_ = pd.get(8, 0);
    out_h_ = pd.get(18, out_w_);
  }

  void forward(const Mat& in, Mat& out, const Option&) const override {
    check_ref_blob(*this, in);
    const int w = in.w, h = in.h, c = in.c;
    if (global_) {
      out = Mat(c);
      for (int q = 0; q < c; q++) {
        double acc = type_ == 0 ? -1e300 : 0.0;
        for (int y = 0; y < h; y++)
          for (int x = 0; x < w; x++) {
            const double v = at(in, x, y, 0, q);
            acc = type_ == 0 ? std::max(acc, v) : acc + v;
          }
        out[q] = static_cast<float>(type_ == 0 ? acc : acc / (w * h));
      }
      return;
    }
    if (adaptive_) {
      const int out_w = out_w_ == -233 ? w : out_w_, out_h = out_h_ == -233 ? h : out_h_;  // -233: the input's
      out = Mat(out_w, out_h, c);
      for (int q = 0; q < c; q++)
        for (int oy = 0; oy < out_h; oy++)
          for (int ox = 0; ox < out_w; ox++) {
            const int y0 = oy * h / out_h, y1 = ((oy + 1) * h + out_h - 1) / out_h;
            const int x0 = ox * w / out_w, x1 = ((ox + 1) * w + out_w - 1) / out_w;
            double acc = type_ == 0 ? -1e300 : 0.0;
            for (int y = y0; y < y1; y++)
              for (int x = x0; x < x1; x++) {
                const double v = at(in, x, y, 0, q);
                acc = type_ == 0 ? std::max(acc, v) : acc + v;
              }
            at(out, ox, oy, 0, q) = static_cast<float>(type_ == 0 ? acc : acc / ((y1 - y0) * (x1 - x0)));
          }
      return;
    }

    int top = pt_, bottom = pb_, left = pl_, right = pr_, wtail = 0, htail = 0;
    if (pad_mode_ == 0) {
      if ((w + pl_ + pr_ - kw_) % sw_ != 0) wtail = sw_ - (w + pl_ + pr_ - kw_) % sw_;
      if ((h + pt_ + pb_ - kh_) % sh_ != 0) htail = sh_ - (h + pt_ + pb_ - kh_) % sh_;
    } else if (pad_mode_ == 2 || pad_mode_ == 3) {
      const int wpad = std::max(0, kw_ + (w - 1) / sw_ * sw_ - w);
      const int hpad = std::max(0, kh_ + (h - 1) / sh_ * sh_ - h);
      left = pad_mode_ == 2 ? wpad / 2 : wpad - wpad / 2;
      top = pad_mode_ == 2 ? hpad / 2 : hpad - hpad / 2;
      right = wpad - left;
      bottom = hpad - top;
    }
    const int bw = w + left + right + wtail, bh = h + top + bottom + htail;
    const float pad_value = type_ == 0 ? -FLT_MAX : 0.f;
    std::vector<float> padded(static_cast<size_t>(bw) * bh);
    const int outw = (bw - kw_) / sw_ + 1, outh = (bh - kh_) / sh_ + 1;
    out = Mat(outw, outh, c);
    for (int q = 0; q < c; q++) {
      for (int y = 0; y < bh; y++)
        for (int x = 0; x < bw; x++) {
          const int sx = x - left, sy = y - top;
          padded[y * bw + x] = sx >= 0 && sx < w && sy >= 0 && sy < h ? at(in, sx, sy, 0, q) : pad_value;
        }
      for (int oy = 0; oy < outh; oy++)
        for (int ox = 0; ox < outw; ox++) {
          double acc = type_ == 0 ? -1e300 : 0.0;
          int area = 0;
          for (int ky = 0; ky < kh_; ky++)
            for (int kx = 0; kx < kw_; kx++) {
              const int y = oy * sh_ + ky, x = ox * sw_ + kx;
              const double v = padded[y * bw + x];
              const bool counted = y >= pt_ && y < bh - pb_ - htail && x >= pl_ && x < bw - pr_ - wtail;
              if (type_ == 0)
                acc = std::max(acc, v);
              else if (include_pad_ || counted)  // an excluding average sums what it counts
                acc += v;
              if (counted) area++;
            }
          if (type_ == 1) acc /= include_pad_ ? kw_ * kh_ : area;
          at(out, ox, oy, 0, q) = static_cast<float>(acc);
        }
    }
  }

 private:
  int type_ = 0, kw_ = 0, kh_ = 0, sw_ = 1, sh_ = 1, pl_ = 0, pr_ = 0, pt_ = 0, pb_ = 0;
  int global_ = 0, pad_mode_ = 0, include_pad_ = 0, adaptive_ = 0, out_w_ = 0, out_h_ = 0;
};

std::unique_ptr<Layer> make_Pooling() { return std::make_unique<PoolingRef>(); }

}  // namespace reference_layers
}  // namespace jitconv
