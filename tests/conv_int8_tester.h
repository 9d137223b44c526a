// Fluent tester for the int8 convolution (runtime/conv_int8_impl.h) against
// reference/conv_int8_ref (exact int8 semantics) and reference/conv_ref (fp32):
//
//   Int8ConvTester().ic(19).oc(33).kernel(3).pad(1).isa(Isa::avx2).dot(Int8Dot::madd16)
//                   .form(ConvInt8::Form::im2col).requantize(true).test();
//
// Two weight modes:
//   int8 weights (default)  random int8 values, power-of-two scales: bottom 2^k and
//                           weight[o] 2^-(k + o % 3), so the dequantization scale is an
//                           exact power of two and the int32 sums can be read back from
//                           the output and compared with the reference's exactly;
//   fp32 weights            random floats quantized per channel with 127 / max|w[o]|
//                           (runtime quantize_conv_weights, checked against the
//                           reference's), input scale 127 / max|input|.
// Checks: bit-identical to the int8 reference where the activation is exact in the JIT
// (none, relu, leaky, clip, hardswish; sigmoid and mish use a polynomial exp), and both
// within the quantization error bound of the fp32 reference (see check_bound()).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "reference/conv_int8_ref.h"
#include "reference/conv_ref.h"
#include "runtime/conv_int8.h"
#include "runtime/conv_int8_impl.h"
#include "tests/conv_shape_builder.h"
#include "runtime/packing.h"
#include "tests/test_util.h"

namespace jitconv {
namespace test {

// Largest |f'(x)| of an activation: the factor by which it can grow an input error.
inline double activation_lipschitz(const Activation& act) {
  switch (act.type) {
    case ActivationType::leaky_relu: return std::max(1.0, std::fabs(static_cast<double>(act.alpha)));
    case ActivationType::sigmoid: return 0.25;
    case ActivationType::mish: return 1.1;  // max mish' = 1.0998 near x = 1.2
    case ActivationType::hardswish: {
      // On the ramp f' = 2 a x + b runs from -b to 2 - b.
      const double b = act.beta;
      return std::max({1.0, std::fabs(b), std::fabs(2.0 - b)});
    }
    default: return 1.0;
  }
}

inline bool activation_exact_in_jit(const Activation& act) {
  return act.type != ActivationType::sigmoid && act.type != ActivationType::mish;
}

// The (int8, fp32) dot products available on this machine, as (isa, dot) pairs.
inline std::vector<std::pair<Isa, Int8Dot>> int8_kernel_variants() {
  std::vector<std::pair<Isa, Int8Dot>> v;
  for (Isa isa : {Isa::avx512, Isa::avx2})
    for (Int8Dot dot : {Int8Dot::vnni, Int8Dot::madd16})
      if (int8_dot_supported(isa, dot)) v.emplace_back(isa, dot);
  return v;
}

class Int8ConvTester : public ConvShapeBuilder<Int8ConvTester> {
 public:
  Int8ConvTester() : ConvShapeBuilder(7, 8, 11) {}

  Int8ConvTester& dot(Int8Dot d) { tuning_.dot = d; return *this; }
  Int8ConvTester& form(ConvInt8::Form f) { tuning_.form = f; return *this; }
  Int8ConvTester& requantize(bool r) { requantize_ = r; return *this; }
  Int8ConvTester& fp32_weights(bool f) { fp32_weights_ = f; return *this; }
  // int8 weight mode: input scale 2^log2 and weights drawn from [-max, max].
  Int8ConvTester& int8_range(int bottom_scale_log2, int weight_max) {
    bottom_log2_ = bottom_scale_log2;
    weight_max_ = weight_max;
    return *this;
  }
  // Requantization scale (default: 100 / max|fp32 output|, so no output saturates).
  Int8ConvTester& top_scale(float s) { top_scale_ = s; return *this; }
  // Skip the fp32 bound (inputs that saturate on purpose are off by more than half a step).
  Int8ConvTester& check_fp32_bound(bool c) { check_fp32_bound_ = c; return *this; }
  // The last output channel gets all-zero weights and weight scale 0.
  Int8ConvTester& zero_channel(bool z) { zero_channel_ = z; return *this; }

  std::string label() const;
  // Runs the case and returns the output (oc x oh x ow).
  std::vector<float> test() const;

 private:
  struct Problem;
  Problem make_problem() const;
  void check_bound(const Problem& pr, const std::vector<float>& out, const char* what) const;

  ConvInt8::Tuning tuning_;
  bool requantize_ = false;
  bool fp32_weights_ = false;
  int bottom_log2_ = 6;
  int weight_max_ = 127;
  float top_scale_ = 0.f;
  bool zero_channel_ = false;
  bool check_fp32_bound_ = true;
};

}  // namespace test
}  // namespace jitconv
