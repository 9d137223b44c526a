// The scalar reference of Deconvolution and DeconvolutionDepthWise (one class; the
// depthwise type adds the group param).
#pragma once
#include <memory>
#include <vector>

#include "reference/layers/ref_util.h"
#include "runtime/activation.h"

namespace jitconv {
namespace reference_layers {

// Transposed convolution by its definition: every input value times every kernel tap
// lands at (i*stride + k*dilation); double accumulation; bias, activation, then ncnn's
// crop of the (output-padded) result.
class DeconvolutionRef final : public Layer {
 public:
  explicit DeconvolutionRef(bool has_group) : has_group_(has_group) { one_blob_only = true; }
  void load_param(const ParamDict& pd) override {
    num_output_ = pd.get(0, 0);
    kw_ = pd.get(1, 0);
    kh_ = pd.get(11, kw_);
    dw_ = pd.get(2, 1);
    dh_ = pd.get(12, dw_);
    sw_ = pd.get(3, 1);
    sh_ = pd.get(13, sw_);
    pl_ = pd.get(4, 0);
    pr_ = pd.get(15, pl_);
    pt_ = pd.get(14, pl_);
    pb_ = pd.get(16, pt_);
    opr_ = pd.get(18, 0);
    opb_ = pd.get(19, opr_);
    out_w_ = pd.get(20, 0);
    out_h_ = pd.get(21, out_w_);
    bias_term_ = pd.get(5, 0);
    size_ = pd.get(6, 0);
    group_ = has_group_ ? pd.get(7, 1) : 1;
    act_ = Activation::from_ncnn(pd.get(9, 0), pd.get_floats(10));
  }
  void load_model(const ModelBin& mb) override {
    weight_ = mb.load(size_, 0);
    if (bias_term_) bias_ = mb.load(num_output_, 1);
  }

  void forward(const Mat& in, Mat& out, const Option&) const override {
    check_ref_blob(*this, in);
    const int c = in.c, out_g = num_output_ / group_, in_g = c / group_;
    const int fw = (in.w - 1) * sw_ + dw_ * (kw_ - 1) + 1, fh = (in.h - 1) * sh_ + dh_ * (kh_ - 1) + 1;
    std::vector<double> full(static_cast<size_t>(num_output_) * fw * fh);
    for (int p = 0; p < num_output_; p++) {
      const int g = p / out_g, pg = p % out_g;
      for (size_t i = 0; i < static_cast<size_t>(fw) * fh; i++) full[p * fw * fh + i] = bias_term_ ? bias_[p] : 0.0;
      for (int qg = 0; qg < in_g; qg++)
        for (int y = 0; y < in.h; y++)
          for (int x = 0; x < in.w; x++)
            for (int ky = 0; ky < kh_; ky++)
              for (int kx = 0; kx < kw_; kx++) {
                const size_t widx = ((static_cast<size_t>(g) * out_g + pg) * in_g + qg) * kw_ * kh_ + ky * kw_ + kx;
                const int oy = y * sh_ + ky * dh_, ox = x * sw_ + kx * dw_;
                full[(static_cast<size_t>(p) * fh + oy) * fw + ox] +=
                    static_cast<double>(weight_[widx]) * at(in, x, y, 0, g * in_g + qg);
              }
      for (size_t i = 0; i < static_cast<size_t>(fw) * fh; i++) full[p * fw * fh + i] = act_.apply(full[p * fw * fh + i]);
    }
    // ncnn's placement: explicit pads crop; else output_w/h with SAME_UPPER (-233) or
    // SAME_LOWER (-234). Output padding extends the right / bottom first with what ncnn's
    // deconvolution leaves there: the bias through the activation (it fills the whole padded
    // output with the bias before accumulating).
    const int aw = fw + opr_, ah = fh + opb_;
    int left = 0, top = 0, ow = aw, oh = ah;
    if (pl_ > 0 || pr_ > 0 || pt_ > 0 || pb_ > 0) {
      left = pl_, top = pt_, ow = aw - pl_ - pr_, oh = ah - pt_ - pb_;
    } else if (out_w_ > 0 && out_h_ > 0) {
      const int wcut = aw - out_w_, hcut = ah - out_h_;
      const bool upper = pl_ == -233 || pr_ == -233 || pt_ == -233 || pb_ == -233;
      left = upper ? wcut / 2 : wcut - wcut / 2;
      top = upper ? hcut / 2 : hcut - hcut / 2;
      ow = out_w_, oh = out_h_;
    }
    out = Mat(ow, oh, num_output_);
    for (int p = 0; p < num_output_; p++)
      for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
          const int sy = y + top, sx = x + left;
          at(out, x, y, 0, p) = sy < fh && sx < fw ? static_cast<float>(full[(static_cast<size_t>(p) * fh + sy) * fw + sx])
                                                   : act_.apply(bias_term_ ? bias_[p] : 0.f);
        }
  }

 private:
  bool has_group_;
  int num_output_ = 0, kw_ = 0, kh_ = 0, dw_ = 1, dh_ = 1, sw_ = 1, sh_ = 1, pl_ = 0, pr_ = 0, pt_ = 0, pb_ = 0;
  int opr_ = 0, opb_ = 0, out_w_ = 0, out_h_ = 0, bias_term_ = 0, size_ = 0, group_ = 1;
  Activation act_;
  Mat weight_, bias_;
};

}  // namespace reference_layers
}  // namespace jitconv
