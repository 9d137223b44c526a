// Reduction: every operation over every axis subset of dims 1-4, keepdims on and off,
// coeff, and reduce_all.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

// Positive inputs for the operations that take a log (log_sum of raw values); a product
// of hundreds of values needs factors near 1 to stay clear of underflow.
float range_lo(int op) { return op == 9 ? 0.1f : op == 6 ? 0.9f : -1.f; }
float range_hi(int op) { return op == 6 ? 1.1f : 1.f; }
// A product of n factors rounds n times (relative error up to n * 2^-24, n <= 4488
// here, 2.7e-4 at worst, ~sqrt(n) * 2^-24 typically); every other operation stays
// within the default 1e-5.
float tolerance_of(int op) { return op == 6 ? 4e-5f : 1e-5f; }

TEST(MathReduction, EveryAxisSubsetMatchesReference) {
  const std::vector<ShapeCase> shapes = {{1, 37, 1, 1, 1},  {1, 48, 1, 1, 1}, {2, 7, 16, 1, 1}, {2, 5, 12, 1, 1},
                                         {3, 7, 5, 1, 16},  {3, 6, 3, 1, 19}, {3, 5, 4, 1, 24}, {4, 3, 4, 2, 16},
                                         {4, 3, 2, 3, 12}};
  uint32_t seed = 8000;
  int cases = 0;
  for (const ShapeCase& s : shapes) {
    for (int mask = 0; mask < (1 << s.dims); mask++) {
      std::vector<int> axes;
      for (int a = 0; a < s.dims; a++)
        if (mask & (1 << a)) axes.push_back(a);
      if (axes.empty() && s.dims > 1) continue;
      // Alternate positive and negative spellings of the same axes.
      if (mask % 2 == 1)
        for (int& a : axes) a -= s.dims;
      for (int op = 0; op <= 10; op++) {
        for (int keepdims = 0; keepdims <= 1; keepdims++) {
          if ((op + keepdims + mask) % 2 == 1 && s.dims > 2) continue;  // thin the grid, keep both values per op
          SCOPED_TRACE(s.name() + " op " + std::to_string(op) + " mask " + std::to_string(mask) + " keepdims " +
                       std::to_string(keepdims));
          LayerTester t("Reduction");
          t.param(0, op).param(1, 0).param(4, keepdims).param(5, 1).param(2, op == 3 ? 1.f : 0.75f);
          if (!axes.empty()) t.param(3, axes);
          t.input(make_input(s, seed++, range_lo(op), range_hi(op))).tolerance(tolerance_of(op)).threads(3).test();
          cases++;
        }
      }
    }
  }
  EXPECT_GT(cases, 500);
}

TEST(MathReduction, ReduceAllAndDefaults) {
  uint32_t seed = 9000;
  for (const ShapeCase& s : elementwise_shapes()) {
    for (int op : {0, 3, 4, 6, 8, 10}) {
      SCOPED_TRACE(s.name() + " op " + std::to_string(op));
      const float lo = op == 6 ? range_lo(op) : 0.5f, hi = op == 6 ? range_hi(op) : 1.5f;
      LayerTester("Reduction").param(0, op).input(make_input(s, seed++, lo, hi)).tolerance(tolerance_of(op)).test();
      LayerTester("Reduction")
          .param(0, op)
          .param(4, 1)
          .input(make_input(s, seed++, lo, hi))
          .tolerance(tolerance_of(op))
          .test();
    }
  }
  LayerTester("Reduction").param(0, 3).input(make_input(3, 100, 90, 1, 16, 5)).test();
}

// LogSumExp as max + log(sum exp(x - max)): exact beyond float's exp range, where a plain
// sum of exp overflows (any input above 88.7) or underflows (every input below -87); it
// clamped exp's argument to [-87.3, 88] and gave 88 for {88.5, 0}.
TEST(MathReduction, LogSumExpBeyondTheExpRange) {
  struct Case {
    std::vector<float> in;
    float want;
  };
  const float inf = INFINITY;
  const std::vector<Case> cases = {
      {{88.5f, 0.f}, 88.5f},           {{100.f, 0.f}, 100.f},           {{88.2f, 88.2f}, 88.2f + std::log(2.f)},
      {{-95.f, -95.f}, -95.f + std::log(2.f)}, {{-200.f, -201.f}, -200.f + std::log1p(std::exp(-1.f))},
      {{1.f, 2.f}, 2.f + std::log1p(std::exp(-1.f))}, {{-inf, -inf}, -inf}, {{inf, 3.f}, inf}, {{-inf, 5.f}, 5.f},
  };
  for (const Case& c : cases) {
    std::unique_ptr<Layer> l = create_layer("Reduction");
    ParamDict pd;
    pd.set(0, 10);
    l->load_param(pd);
    Mat in(static_cast<int>(c.in.size())), out;
    for (size_t i = 0; i < c.in.size(); i++) in[static_cast<int>(i)] = c.in[i];
    l->forward(in, out, Option());
    ASSERT_EQ(out.w, 1);
    if (std::isinf(c.want))
      EXPECT_EQ(out[0], c.want) << c.in[0] << ", " << c.in[1];
    else
      EXPECT_NEAR(out[0], c.want, 2e-6f * std::fabs(c.want)) << c.in[0] << ", " << c.in[1];
  }
  {
    std::unique_ptr<Layer> l = create_layer("Reduction");
    ParamDict pd;
    pd.set(0, 10);
    l->load_param(pd);
    Mat in(2), out;
    in[0] = NAN;
    in[1] = 1.f;
    l->forward(in, out, Option());
    EXPECT_TRUE(std::isnan(out[0]));
  }
  // Every axis subset of packed 3-D and 4-D blobs with values up to +-150, against the
  // double-precision reference; coeff applies after the log.
  uint32_t seed = 9500;
  for (const ShapeCase& s : {ShapeCase{3, 7, 5, 1, 16}, ShapeCase{4, 3, 4, 2, 8}, ShapeCase{2, 9, 8, 1, 1}})
    for (int mask = 1; mask < (1 << s.dims); mask++) {
      std::vector<int> axes;
      for (int a = 0; a < s.dims; a++)
        if (mask & (1 << a)) axes.push_back(a);
      SCOPED_TRACE(s.name() + " mask " + std::to_string(mask));
      for (float range : {150.f, -150.f})
        LayerTester("Reduction")
            .param(0, 10)
            .param(1, 0)
            .param(2, 0.5f)
            .param(3, axes)
            .param(5, 1)
            .input(make_input(s, seed++, range > 0 ? 0.f : range, range > 0 ? range : -80.f))
            .threads(3)
            .test();
    }
}

TEST(MathReduction, RejectsBadParams) {
  ParamDict old;
  old.set(3, std::vector<int>{1});
  old.set(1, 0);
  EXPECT_NE(error_of([&] { create_layer("Reduction")->load_param(old); }).find("fixbug0"), std::string::npos);

  ParamDict far;
  far.set(1, 0);
  far.set(3, std::vector<int>{3});
  far.set(5, 1);
  std::unique_ptr<Layer> layer = create_layer("Reduction");
  layer->name = "mean1";
  layer->load_param(far);
  Mat out;
  EXPECT_NE(error_of([&] { layer->forward(random_mat(4, 4, 4, 1u), out, Option()); })
                .find("Reduction mean1: axis 3 is out of range"),
            std::string::npos);

  ParamDict none;
  none.set(1, 0);
  std::unique_ptr<Layer> l2 = create_layer("Reduction");
  l2->load_param(none);
  EXPECT_NE(error_of([&] { l2->forward(random_mat(4, 4, 1u), out, Option()); }).find("no axis"), std::string::npos);
  ParamDict bad_op;
  bad_op.set(0, 11);
  EXPECT_NE(error_of([&] { create_layer("Reduction")->load_param(bad_op); }).find("operation"), std::string::npos);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
