// Fluent tester for convolution paths against reference/conv_ref:
//
//   ConvTester().ic(19).oc(33).input(11, 13).kernel(3).stride(2).dilation(2).pad(1, 0, 2, 1)
//               .elempack(4, 1).act("relu").isa(Isa::avx2).test_direct();
//
// The tolerance is relative to the largest |output| and scales with the accumulation
// length ic*kh*kw (fp32 FMA chains against a double-accumulated oracle).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "reference/conv_ref.h"
#include "runtime/conv_direct.h"
#include "runtime/conv_gemm.h"
#include "runtime/conv_winograd.h"
#include "runtime/conv_impl.h"
#include "runtime/packing.h"
#include "tests/test_util.h"

namespace jitconv {
namespace test {

class ConvTester {
 public:
  ConvTester& ic(int v) { ic_ = v; return *this; }
  ConvTester& oc(int v) { oc_ = v; return *this; }
  ConvTester& input(int h, int w) { ih_ = h; iw_ = w; return *this; }
  ConvTester& kernel(int k) { kh_ = kw_ = k; return *this; }
  ConvTester& kernel(int h, int w) { kh_ = h; kw_ = w; return *this; }
  ConvTester& stride(int s) { sh_ = sw_ = s; return *this; }
  ConvTester& stride(int h, int w) { sh_ = h; sw_ = w; return *this; }
  ConvTester& dilation(int d) { dh_ = dw_ = d; return *this; }
  ConvTester& dilation(int h, int w) { dh_ = h; dw_ = w; return *this; }
  ConvTester& pad(int p) { pt_ = pl_ = pb_ = pr_ = p; return *this; }
  ConvTester& pad(int top, int left, int bottom, int right) { pt_ = top; pl_ = left; pb_ = bottom; pr_ = right; return *this; }
  ConvTester& pad_value(float v) { pad_value_ = v; return *this; }
  ConvTester& bias(bool b) { bias_ = b; return *this; }
  ConvTester& act(const std::string& a) { act_ = Activation::parse(a); return *this; }
  ConvTester& isa(Isa i) { isa_ = i; return *this; }
  // 0 = the elempack a network would use for that channel count.
  ConvTester& elempack(int in, int out) { in_pack_ = in; out_pack_ = out; return *this; }
  ConvTester& threads(int n) { threads_ = n; return *this; }
  ConvTester& seed(uint32_t s) { seed_ = s; return *this; }

  ConvParams params() const {
    ConvParams p;
    p.ic = ic_;
    p.oc = oc_;
    p.kh = kh_;
    p.kw = kw_;
    p.sh = sh_;
    p.sw = sw_;
    p.dh = dh_;
    p.dw = dw_;
    p.pad_top = pt_;
    p.pad_left = pl_;
    p.pad_bottom = pb_;
    p.pad_right = pr_;
    p.pad_value = pad_value_;
    p.bias = bias_;
    p.act = act_;
    return p;
  }

  std::string label() const {
    return params().to_string() + " in " + std::to_string(ih_) + "x" + std::to_string(iw_) + " isa " +
           isa_name(isa_) + " elempack " + std::to_string(in_pack_) + "->" + std::to_string(out_pack_) +
           " threads " + std::to_string(threads_);
  }

  // Runs `impl` (built by make(params, weights, bias, in_pack, out_pack)) and compares.
  // tolerance: relative to the largest |output|; < 0 = the fp32 accumulation bound.
  template <typename Make>
  std::vector<float> test_impl(Make make, double tolerance = -1) const {
    SCOPED_TRACE(label());
    const ConvParams p = params();
    int oh = 0, ow = 0;
    p.output_size(ih_, iw_, oh, ow);
    const std::vector<float> src = random_vector(static_cast<size_t>(ic_) * ih_ * iw_, seed_);
    const std::vector<float> weights = random_vector(static_cast<size_t>(oc_) * ic_ * kh_ * kw_, seed_ + 1);
    const std::vector<float> bias = random_vector(oc_, seed_ + 2);

    ConvDesc d;
    d.mb = 1;
    d.ic = ic_;
    d.ih = ih_;
    d.iw = iw_;
    d.oc = oc_;
    d.oh = oh;
    d.ow = ow;
    d.kh = kh_;
    d.kw = kw_;
    d.sh = sh_;
    d.sw = sw_;
    d.dilation_h = dh_;
    d.dilation_w = dw_;
    const ConvPads pads = p.pads_for(ih_, iw_);
    d.pad_top = pads.top;
    d.pad_left = pads.left;
    d.pad_bottom = pads.bottom;
    d.pad_right = pads.right;
    std::vector<float> pre_activation(static_cast<size_t>(oc_) * oh * ow), expected(pre_activation.size());
    reference_conv2d(d, src.data(), weights.data(), bias_ ? bias.data() : nullptr, pre_activation.data(), Activation(),
                     pad_value_, 2);
    for (size_t i = 0; i < expected.size(); i++)
      expected[i] = static_cast<float>(act_.apply(static_cast<double>(pre_activation[i])));

    const int in_pack = in_pack_ ? in_pack_ : preferred_elempack(isa_, ic_);
    const int out_pack = out_pack_ ? out_pack_ : preferred_elempack(isa_, oc_);
    std::unique_ptr<ConvImpl> impl = make(p, weights.data(), bias_ ? bias.data() : nullptr, in_pack, out_pack);
    Option opt;
    opt.num_threads = threads_;
    Mat plain(iw_, ih_, ic_);
    for (int c = 0; c < ic_; c++)
      std::copy(src.begin() + static_cast<long>(c) * ih_ * iw_, src.begin() + static_cast<long>(c + 1) * ih_ * iw_,
                static_cast<float*>(plain.channel(c).data));
    Mat packed;
    convert_packing(plain, packed, in_pack, opt);
    EXPECT_EQ(packed.elempack, in_pack);
    Mat top;
    impl->forward(packed, top, opt);
    EXPECT_EQ(top.elempack, out_pack);
    Mat out;
    convert_packing(top, out, 1, opt);
    EXPECT_EQ(out.w, ow);
    EXPECT_EQ(out.h, oh);
    EXPECT_EQ(out.c, oc_);
    std::vector<float> got(expected.size());
    for (int c = 0; c < oc_; c++)
      std::copy(static_cast<const float*>(out.channel(c).data),
                static_cast<const float*>(out.channel(c).data) + static_cast<long>(oh) * ow,
                got.begin() + static_cast<long>(c) * oh * ow);
    ErrorStats s = compare(got.data(), expected.data(), got.size());
    // Errors are relative to the convolution's magnitude before the activation: clip or
    // sigmoid shrink the outputs, not the accumulation error (all are ~1-Lipschitz).
    for (float x : pre_activation) s.max_ref = std::max(s.max_ref, static_cast<double>(std::fabs(x)));
    const double k = static_cast<double>(ic_) * kh_ * kw_;
    const double tol = tolerance >= 0 ? tolerance : 2e-7 * std::sqrt(k) + 1e-6;
    EXPECT_FALSE(s.has_nan);
    last_error_ = s.max_rel();
    EXPECT_LE(s.max_rel(), tol) << "max abs error " << s.max_abs << " at " << s.worst_index << " (got "
                                << got[s.worst_index] << ", expected " << expected[s.worst_index] << ")";
    return got;
  }

  // ur_oc: force the direct kernel's chunk-group size (0: its cost model, tuned for the
  // real output width as a network with shape hints would).
  // prefetch_weights: kernels that prefetch the next group's weights (cold-weight form).
  std::vector<float> test_direct(int ur_oc = 0, bool prefetch_weights = false) const {
    const Isa isa = isa_;
    int oh = 0, ow = 0;
    params().output_size(ih_, iw_, oh, ow);
    ConvDirect::Tuning tuning;
    tuning.expected_ow = ow;
    tuning.ur_oc = ur_oc;
    tuning.prefetch_weights = prefetch_weights;
    return test_impl([isa, tuning](const ConvParams& p, const float* w, const float* b, int in_pack, int out_pack) {
      return std::unique_ptr<ConvImpl>(new ConvDirect(p, w, b, isa, in_pack, out_pack, tuning));
    });
  }

  // form: "" (pointwise / subsample / im2col as the problem implies) or "brgemm".
  std::vector<float> test_gemm(const std::string& form = std::string()) const {
    const Isa isa = isa_;
    return test_impl([isa, form](const ConvParams& p, const float* w, const float* b, int in_pack, int out_pack) {
      return std::unique_ptr<ConvImpl>(new ConvGemm(p, w, b, isa, in_pack, out_pack, form));
    });
  }

  // Winograd F(m, 3); tolerance: ~2^m larger errors than direct (measured, see README).
  std::vector<float> test_winograd(int m, double tolerance) const {
    const Isa isa = isa_;
    return test_impl(
        [isa, m](const ConvParams& p, const float* w, const float* b, int in_pack, int out_pack) {
          return std::unique_ptr<ConvImpl>(new ConvWinograd(p, w, b, isa, in_pack, out_pack, m));
        },
        tolerance);
  }

 // Relative error of the last test (for measuring error statistics).
  double last_error() const { return last_error_; }

 private:
  mutable double last_error_ = 0;
  int ic_ = 16, oc_ = 16;
  int ih_ = 9, iw_ = 9;
  int kh_ = 3, kw_ = 3;
  int sh_ = 1, sw_ = 1;
  int dh_ = 1, dw_ = 1;
  int pt_ = 0, pl_ = 0, pb_ = 0, pr_ = 0;
  float pad_value_ = 0.f;
  bool bias_ = true;
  Activation act_;
  Isa isa_ = Isa::avx512;
  int in_pack_ = 0, out_pack_ = 0;
  int threads_ = 1;
  uint32_t seed_ = 7;
};

}  // namespace test
}  // namespace jitconv
