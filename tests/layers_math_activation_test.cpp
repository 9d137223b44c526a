// Activation layers (ReLU, Clip, Sigmoid, Swish, HardSigmoid, HardSwish, Mish) against
// their scalar references over every dims, odd sizes and every elempack/ISA.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <functional>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

struct ActivationCase {
  const char* type;
  std::vector<std::pair<int, float>> params;
  float lo, hi;
};

std::vector<ActivationCase> activation_cases() {
  return {
      {"ReLU", {}, -1.f, 1.f},
      {"ReLU", {{0, 0.1f}}, -1.f, 1.f},
      {"Clip", {{0, -0.3f}, {1, 0.45f}}, -1.f, 1.f},
      {"Clip", {}, -1.f, 1.f},
      {"Sigmoid", {}, -12.f, 12.f},
      {"Swish", {}, -12.f, 12.f},
      {"Mish", {}, -25.f, 25.f},
      {"HardSigmoid", {}, -4.f, 4.f},
      {"HardSigmoid", {{0, 1.f / 6.f}, {1, 0.5f}}, -5.f, 5.f},
      {"HardSwish", {}, -4.f, 4.f},
      {"HardSwish", {{0, 1.f / 6.f}, {1, 0.5f}}, -5.f, 5.f},
      // ncnn accepts any alpha: 0 makes the gate beta clamped, a negative one mirrors it.
      {"HardSigmoid", {{0, 0.f}, {1, 0.3f}}, -5.f, 5.f},
      {"HardSigmoid", {{0, 0.f}, {1, 2.f}}, -5.f, 5.f},
      {"HardSigmoid", {{0, -0.25f}, {1, 0.5f}}, -5.f, 5.f},
      {"HardSwish", {{0, 0.f}, {1, 0.3f}}, -5.f, 5.f},
      {"HardSwish", {{0, 0.f}, {1, -1.f}}, -5.f, 5.f},
      {"HardSwish", {{0, -0.25f}, {1, 0.5f}}, -5.f, 5.f},
  };
}

TEST(MathActivation, MatchesReferenceOnEveryShape) {
  uint32_t seed = 100;
  for (const ActivationCase& ac : activation_cases()) {
    for (const ShapeCase& s : elementwise_shapes()) {
      SCOPED_TRACE(std::string(ac.type) + " " + s.name());
      LayerTester t(ac.type);
      for (const auto& p : ac.params) t.param(p.first, p.second);
      t.input(make_input(s, seed++, ac.lo, ac.hi)).test();
    }
  }
}

TEST(MathActivation, LargeBlobUsesEveryThreadChunk) {
  // More than one 16K-float work item per channel.
  LayerTester("Mish").input(make_input(3, 160, 120, 1, 2, 7, -6.f, 6.f)).threads(3).test();
  LayerTester("Sigmoid").input(make_input(1, 40000, 1, 1, 1, 8, -9.f, 9.f)).threads(2).test();
}

TEST(MathActivation, MishOfHugeInputsIsTheInput) {
  // x * n overflowed to inf from x = 1.5e21 (n = e^20 (e^20 + 2)); ncnn gives x there.
  LayerTester("Mish").input(make_input(3, 9, 7, 1, 5, 9, 1e21f, 3e38f)).test();
  std::unique_ptr<Layer> mish = create_layer("Mish");
  mish->load_param(ParamDict());
  Mat m(16);
  for (int i = 0; i < 16; i++) m[i] = i % 2 ? 1e22f * i : 3e38f;
  mish->forward_inplace(m, Option());
  for (int i = 0; i < 16; i++) EXPECT_EQ(m[i], i % 2 ? 1e22f * i : 3e38f) << i;
}

// Past exp's range, the formulas ncnn's scalar layers evaluate (in double here): huge
// negative inputs reach 0 (swish(-1e35) was -6e-4 and mish(-FLT_MAX) -4.15: x times the
// floor a clamped exp left), infinities and NaN as IEEE arithmetic gives them.
TEST(MathActivation, ExtremeInputsAsNcnnScalarFormulas) {
  const float values[] = {-FLT_MAX, -1e35f, -1e20f, -200.f, -95.f, -88.5f, -87.f, -20.f, -1.f, -0.f, 0.f,
                          1e-40f,   1.f,    20.f,   88.5f,  95.f,  1e20f,  FLT_MAX, -INFINITY, INFINITY, NAN};
  const int n = static_cast<int>(sizeof(values) / sizeof(values[0]));
  auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  const std::vector<std::pair<const char*, std::function<double(double)>>> layers = {
      {"Sigmoid", sigmoid},
      {"Swish", [&](double x) { return x * sigmoid(x); }},
      {"Mish", [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }},
  };
  for (Isa isa : available_isas()) {
    IsaGuard guard(isa);
    for (const auto& layer : layers) {
      SCOPED_TRACE(std::string(layer.first) + " " + isa_name(isa));
      std::unique_ptr<Layer> l = create_layer(layer.first);
      l->load_param(ParamDict());
      Mat m(n);
      for (int i = 0; i < n; i++) m[i] = values[i];
      l->forward_inplace(m, Option());
      for (int i = 0; i < n; i++) {
        const double want = layer.second(static_cast<double>(values[i]));
        const float got = m[i];
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got)) << values[i] << " -> " << got;
        } else if (std::isinf(want)) {
          EXPECT_EQ(got, static_cast<float>(want)) << values[i];
        } else {
          // Around exp's limits (|x| near 88) results of magnitude ~1e-37 are flushed or
          // off by their own size: an absolute 1e-30 allows that, not the old -6e-4.
          EXPECT_NEAR(got, want, 2e-6 * std::fabs(want) + 1e-30) << values[i];
        }
      }
    }
  }
}

TEST(MathActivation, NcnnDefaultsForHardSigmoidAndHardSwish) {
  // alpha 0.2, beta 0.5: the gate saturates at x = -2.5 and x = 2.5.
  std::unique_ptr<Layer> hs = create_layer("HardSigmoid");
  hs->load_param(ParamDict());
  hs->create_pipeline(Option());
  Mat m(4);
  m[0] = -3.f;
  m[1] = 0.f;
  m[2] = 1.f;
  m[3] = 3.f;
  hs->forward_inplace(m, Option());
  EXPECT_FLOAT_EQ(m[0], 0.f);
  EXPECT_FLOAT_EQ(m[1], 0.5f);
  EXPECT_FLOAT_EQ(m[2], 0.7f);
  EXPECT_FLOAT_EQ(m[3], 1.f);

  std::unique_ptr<Layer> hw = create_layer("HardSwish");
  hw->load_param(ParamDict());
  Mat n(3);
  n[0] = -3.f;
  n[1] = 1.f;
  n[2] = 3.f;
  hw->forward_inplace(n, Option());
  EXPECT_FLOAT_EQ(n[0], 0.f);
  EXPECT_FLOAT_EQ(n[1], 0.7f);
  EXPECT_FLOAT_EQ(n[2], 3.f);
}

TEST(MathActivation, HardGatesClampForAnyAlpha) {
  // The gate x * alpha + beta clamped to [0, 1], as ncnn's x86 code computes it (its
  // generic code compares x with -beta / alpha instead, which alpha <= 0 breaks: it gave
  // beta = 2 unclamped for alpha 0, and 0 where a negative alpha opens the gate). jitconv
  // refused alpha 0.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float xs[6] = {-3.f, 0.f, 1.f, 3.f, -inf, inf};
  struct Case {
    const char* type;
    float alpha, beta;
    float want[6];
  };
  const Case cases[] = {
      {"HardSigmoid", 0.f, 0.3f, {0.3f, 0.3f, 0.3f, 0.3f, nan, nan}},  // inf * 0: NaN, as in ncnn
      {"HardSigmoid", 0.f, 2.f, {1.f, 1.f, 1.f, 1.f, nan, nan}},
      {"HardSigmoid", -0.25f, 0.5f, {1.f, 0.5f, 0.25f, 0.f, 1.f, 0.f}},
      {"HardSwish", 0.f, 0.3f, {-0.9f, 0.f, 0.3f, 0.9f, nan, nan}},
      {"HardSwish", 0.f, 1.5f, {-3.f, 0.f, 1.f, 3.f, nan, nan}},
      {"HardSwish", -0.25f, 0.5f, {-3.f, 0.f, 0.25f, 0.f, -inf, 0.f}},
      {"HardSwish", 0.2f, 0.5f, {0.f, 0.f, 0.7f, 3.f, 0.f, inf}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " alpha " + std::to_string(c.alpha) + " beta " + std::to_string(c.beta));
    std::unique_ptr<Layer> layer = create_layer(c.type);
    ParamDict pd;
    pd.set(0, c.alpha);
    pd.set(1, c.beta);
    layer->load_param(pd);
    Mat m(6);
    for (int i = 0; i < 6; i++) m[i] = xs[i];
    layer->forward_inplace(m, Option());
    for (int i = 0; i < 6; i++) {
      SCOPED_TRACE("x = " + std::to_string(xs[i]));
      if (std::isnan(c.want[i]))
        EXPECT_TRUE(std::isnan(m[i])) << m[i];
      else
        EXPECT_FLOAT_EQ(m[i], c.want[i]);
    }
  }
}

TEST(MathActivation, RejectsBadParamsAndInputs) {
  ParamDict pd;
  pd.set(0, 1.f);
  pd.set(1, -1.f);
  std::unique_ptr<Layer> clip = create_layer("Clip");
  clip->name = "clip0";
  EXPECT_NE(error_of([&] { clip->load_param(pd); }).find("Clip clip0"), std::string::npos);

  std::unique_ptr<Layer> relu = create_layer("ReLU");
  relu->load_param(ParamDict());
  Mat fp16(8, static_cast<size_t>(2), 1, static_cast<Allocator*>(nullptr));
  EXPECT_NE(error_of([&] { relu->forward_inplace(fp16, Option()); }).find("fp32"), std::string::npos);
  Mat empty;
  EXPECT_NE(error_of([&] { relu->forward_inplace(empty, Option()); }), "");
}

}  // namespace
}  // namespace test
}  // namespace jitconv
