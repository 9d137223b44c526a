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
#include "tests/conv_shape_builder.h"
#include "tests/test_util.h"

namespace jitconv {
namespace test {

// Bounds on the error relative to the largest |output| before the activation: about 4x
// the worst measured over 63 problems (8..256 channels, 5x5..56x56, inputs and weights
// uniform in [-1, 1]): F(2,3) 6.5e-7, F(4,3) 1.3e-5, F(6,3) 1.8e-5. DISABLED_ErrorStatistics
// (58 problems of the same kind, F(5,3) added) measured 6.3e-7, 1.18e-5, 1.74e-5 (F(5,3)),
// 1.81e-5: F(5,3) takes F(6,3)'s bound.
// (ConvWinograd tests; grouped layers whose groups run Winograd.)
inline double winograd_bound(int m) { return m == 2 ? 2.6e-6 : m == 4 ? 5.2e-5 : 7e-5; }

class ConvTester : public ConvShapeBuilder<ConvTester> {
 public:
  ConvTester() : ConvShapeBuilder(9, 9, 7) {}

  std::string label() const { return shape_label(); }

  // Runs `impl` (built by make(params, weights, bias, in_pack, out_pack)) and compares.
  // tolerance: relative to the largest |output|; < 0 = the fp32 accumulation bound.
  template <typename Make>
  std::vector<float> test_impl(Make make, double tolerance = -1) const {
    SCOPED_TRACE(label());
    const ConvParams p = params();
    const ConvDesc d = reference_desc();
    const int oh = d.oh, ow = d.ow;
    const std::vector<float> src = random_vector(static_cast<size_t>(ic_) * ih_ * iw_, seed_);
    const std::vector<float> weights = random_vector(static_cast<size_t>(oc_) * ic_ * kh_ * kw_, seed_ + 1);
    const std::vector<float> bias = random_vector(oc_, seed_ + 2);

    std::vector<float> pre_activation(static_cast<size_t>(oc_) * oh * ow), expected(pre_activation.size());
    reference_conv2d(d, src.data(), weights.data(), bias_ ? bias.data() : nullptr, pre_activation.data(), Activation(),
                     pad_value_, 2);
    for (size_t i = 0; i < expected.size(); i++)
      expected[i] = static_cast<float>(act_.apply(static_cast<double>(pre_activation[i])));

    const int in_pack = in_pack_ ? in_pack_ : preferred_elempack(isa_, ic_);
    const int out_pack = out_pack_ ? out_pack_ : preferred_elempack(isa_, oc_);
    std::unique_ptr<ConvImpl> impl = make(p, weights.data(), bias_ ? bias.data() : nullptr, in_pack, out_pack);
    const std::vector<float> got = run_planar(*impl, src, in_pack, out_pack, oh, ow);
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
  // border_m > 0: F(m, 3) with F(border_m, 3) borders.
  std::vector<float> test_winograd(int m, double tolerance, int border_m = 0) const {
    const Isa isa = isa_;
    return test_impl(
        [isa, m, border_m](const ConvParams& p, const float* w, const float* b, int in_pack, int out_pack) {
          return std::unique_ptr<ConvImpl>(new ConvWinograd(p, w, b, isa, in_pack, out_pack, m, border_m));
        },
        tolerance);
  }

 // Relative error of the last test (for measuring error statistics).
  double last_error() const { return last_error_; }

 private:
  mutable double last_error_ = 0;
};

}  // namespace test
}  // namespace jitconv
