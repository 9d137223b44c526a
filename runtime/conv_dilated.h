// A stride-1 convolution with dilation d (square kernel, dh == dw) computed as d x d
// interleaved undilated ones (space-to-batch): output pixel (d*y + ry, d*x + rx) only reads
// input pixels (d*i + ry, d*j + rx), so each residue class (ry, rx) is an ordinary
// dilation-1 convolution of a strided sub-image. The inner convolution is a Convolution
// layer fed the same weights through an in-memory ModelBin (as ncnn's
// convolution_dilation1), so it takes its own best path: Winograd for 3x3.
#pragma once
#include <memory>

#include "runtime/conv_impl.h"

namespace jitconv {

namespace layers {
class Convolution;
}

class ConvDilatedSplit final : public ConvImpl {
 public:
  // inner: a Convolution with dilation 1 and no padding, pipeline created.
  ConvDilatedSplit(const ConvParams& params, std::unique_ptr<layers::Convolution> inner, int in_pack, int out_pack);
  ~ConvDilatedSplit() override;

  int in_elempack() const override { return in_pack_; }
  int out_elempack() const override { return out_pack_; }
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override;
  std::string name() const override;
  std::string describe() const override;
  size_t weight_bytes() const override;

  // Whether a problem has this structure.
  static bool applies(const ConvParams& p);

 private:
  ConvParams params_;
  std::unique_ptr<layers::Convolution> inner_;
  int in_pack_, out_pack_;
};

}  // namespace jitconv
