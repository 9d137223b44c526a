// Portable fallback for CPUs without AVX2 (or JITCONV_ISA=scalar): plain loops over
// elempack-1 blobs. Correct everywhere, fast nowhere.
#pragma once
#include <vector>

#include "runtime/conv_impl.h"

namespace jitconv {

class ConvScalar final : public ConvImpl {
 public:
  ConvScalar(const ConvParams& params, const float* weights, const float* bias);
  int in_elempack() const override { return 1; }
  int out_elempack() const override { return 1; }
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override;
  std::string name() const override { return "scalar"; }
  std::string describe() const override { return "scalar (no JIT: ISA capped or unsupported)"; }
  size_t weight_bytes() const override { return (weights_.size() + bias_.size()) * sizeof(float); }

 private:
  ConvParams params_;
  std::vector<float> weights_;  // oc x ic x kh x kw
  std::vector<float> bias_;
};

}  // namespace jitconv
