// The one-input math layers from ncnn that are not fused activations: PReLU, UnaryOp
// (op_type 0..19), TanH, AbsVal, ELU, BNLL, Power, Exp, Log, SELU, GELU (both forms) and
// Softplus. Against their scalar references over every dims, odd sizes, channel counts
// off the pack sizes, every elempack, ISA and 1 / 2 threads; at points worked out by hand
// from ncnn's formulas; at NaN, +-inf and -0 against the libm calls ncnn's layers make;
// and through a Net against the reference executor.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "reference/reference_executor.h"
#include "tests/layers_math_util.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

struct UnaryCase {
  std::string type;
  std::vector<std::pair<int, float>> float_params;
  std::vector<std::pair<int, int>> int_params;
  float lo, hi;
  std::string label() const {
    std::string s = type;
    for (const auto& p : int_params) s += " " + std::to_string(p.first) + "=" + std::to_string(p.second);
    for (const auto& p : float_params) s += " " + std::to_string(p.first) + "=" + std::to_string(p.second);
    return s;
  }
};

UnaryCase unary_op(int op_type, float lo, float hi) { return {"UnaryOp", {}, {{0, op_type}}, lo, hi}; }

// Input ranges inside each function's domain (the NaN / inf cases are tested apart).
std::vector<UnaryCase> unary_cases() {
  return {
      unary_op(0, -3.f, 3.f),      // abs
      unary_op(1, -3.f, 3.f),      // neg
      unary_op(2, -5.f, 5.f),      // floor
      unary_op(3, -5.f, 5.f),      // ceil
      unary_op(4, -3.f, 3.f),      // square
      unary_op(5, 0.f, 9.f),       // sqrt
      unary_op(6, 0.05f, 9.f),     // rsqrt
      unary_op(7, -10.f, 10.f),    // exp
      unary_op(8, 0.01f, 100.f),   // log
      unary_op(9, -10.f, 10.f),    // sin
      unary_op(10, -10.f, 10.f),   // cos
      unary_op(11, -1.5f, 1.5f),   // tan
      unary_op(12, -1.f, 1.f),     // asin
      unary_op(13, -1.f, 1.f),     // acos
      unary_op(14, -10.f, 10.f),   // atan
      unary_op(15, 0.1f, 4.f),     // reciprocal
      unary_op(16, -6.f, 6.f),     // tanh
      unary_op(17, 0.01f, 100.f),  // log10
      unary_op(18, -5.f, 5.f),     // round
      unary_op(19, -5.f, 5.f),     // trunc
      {"UnaryOp", {}, {}, -2.f, 2.f},  // op_type defaults to abs
      {"TanH", {}, {}, -6.f, 6.f},
      {"AbsVal", {}, {}, -2.f, 2.f},
      {"ELU", {}, {}, -5.f, 2.f},
      {"ELU", {{0, 0.5f}}, {}, -5.f, 2.f},
      {"BNLL", {}, {}, -20.f, 20.f},
      {"Power", {}, {}, -3.f, 3.f},
      {"Power", {{0, 2.f}, {1, 0.5f}, {2, 1.f}}, {}, -3.f, 3.f},
      {"Power", {{0, 3.f}, {1, -1.5f}, {2, 0.25f}}, {}, -3.f, 3.f},  // negative bases, integer power
      {"Power", {{0, 0.5f}, {1, 2.f}, {2, 3.f}}, {}, -1.f, 4.f},
      {"Exp", {}, {}, -5.f, 5.f},
      {"Exp", {{1, 0.5f}, {2, -1.f}}, {}, -5.f, 5.f},
      {"Exp", {{0, 2.f}, {1, 0.5f}, {2, -1.f}}, {}, -5.f, 5.f},
      {"Exp", {{0, 10.f}, {1, 0.3f}}, {}, -3.f, 3.f},
      {"Log", {}, {}, 0.1f, 10.f},
      {"Log", {{0, 10.f}, {1, 2.f}, {2, 1.f}}, {}, 0.f, 5.f},
      {"Log", {{0, 2.f}}, {}, 0.1f, 10.f},
      {"SELU", {}, {}, -5.f, 3.f},
      {"SELU", {{0, 1.5f}, {1, 2.f}}, {}, -5.f, 3.f},
      {"GELU", {}, {}, -6.f, 6.f},
      {"GELU", {}, {{0, 1}}, -6.f, 6.f},
      {"Softplus", {}, {}, -20.f, 20.f},
  };
}

TEST(MathUnary, MatchesReferenceOnEveryShape) {
  uint32_t seed = 300;
  for (const UnaryCase& uc : unary_cases()) {
    for (const ShapeCase& s : elementwise_shapes()) {
      const Mat input = make_input(s, seed++, uc.lo, uc.hi);
      for (int threads : {1, 2}) {
        SCOPED_TRACE(uc.label() + " " + s.name() + " threads=" + std::to_string(threads));
        LayerTester t(uc.type);
        for (const auto& p : uc.int_params) t.param(p.first, p.second);
        for (const auto& p : uc.float_params) t.param(p.first, p.second);
        t.input(input).threads(threads).test();
      }
    }
  }
}

TEST(MathUnary, LargeBlobsUseEveryThreadChunk) {
  // More than one 16K-float work item per channel, and enough work for several threads.
  LayerTester("GELU").input(make_input(3, 160, 120, 1, 2, 7, -6.f, 6.f)).threads(3).test();
  LayerTester("UnaryOp").param(0, 9).input(make_input(1, 40000, 1, 1, 1, 8, -9.f, 9.f)).threads(2).test();
  LayerTester("PReLU")
      .param(0, 19)
      .weight(make_input(1, 19, 1, 1, 1, 9, -0.5f, 1.5f))
      .input(make_input(3, 48, 40, 1, 19, 10, -2.f, 2.f))
      .threads(4)
      .test();
}

// PReLU: one shared slope, and one per scalar of the packing axis (elements of a 1-D
// blob, rows of a 2-D blob, channels of a 3-D / 4-D blob), slopes of either sign.
TEST(MathUnary, PReLUMatchesReferenceOnEveryShape) {
  uint32_t seed = 900;
  for (const ShapeCase& s : elementwise_shapes()) {
    const Mat input = make_input(s, seed++, -2.f, 2.f);
    for (int num_slope : {1, packing_axis_length(s)}) {
      const Mat slopes = make_input(1, num_slope, 1, 1, 1, seed++, -0.5f, 1.5f);
      for (int threads : {1, 2}) {
        SCOPED_TRACE(s.name() + " num_slope=" + std::to_string(num_slope) + " threads=" + std::to_string(threads));
        LayerTester("PReLU").param(0, num_slope).weight(slopes).input(input).threads(threads).test();
      }
    }
  }
}

// Runs `layer` (load_param, create_pipeline, forward_inplace) on a 1-D blob of `values`.
std::vector<float> run_values(const std::string& type, const ParamDict& pd, const std::vector<float>& values,
                              const std::vector<Mat>& weights = {}) {
  std::unique_ptr<Layer> layer = create_layer(type);
  layer->type = type;
  layer->load_param(pd);
  std::vector<Mat> copies;
  for (const Mat& w : weights) copies.push_back(w.clone());
  layer->load_model(ModelBinFromMatArray(copies));
  layer->create_pipeline(Option());
  Mat m(static_cast<int>(values.size()));
  for (size_t i = 0; i < values.size(); i++) m[i] = values[i];
  layer->forward_inplace(m, Option());
  return std::vector<float>(static_cast<float*>(m.data), static_cast<float*>(m.data) + values.size());
}

struct Pinned {
  float x;
  double want;
};

// Values worked out by hand (a calculator, in double) from ncnn's formulas and defaults.
// Tolerance: 1e-6 relative (exp, log and tanh are simd_math.h's, 1-2 ulp).
void expect_pinned(const std::string& type, const ParamDict& pd, const std::vector<Pinned>& points) {
  std::vector<float> xs;
  for (const Pinned& p : points) xs.push_back(p.x);
  for (Isa isa : available_isas()) {
    IsaGuard guard(isa);
    SCOPED_TRACE(type + " isa=" + isa_name(isa));
    const std::vector<float> got = run_values(type, pd, xs);
    for (size_t i = 0; i < points.size(); i++)
      EXPECT_NEAR(got[i], points[i].want, 1e-6 * std::fabs(points[i].want)) << "x = " << points[i].x;
  }
}

ParamDict params(std::vector<std::pair<int, float>> floats, std::vector<std::pair<int, int>> ints = {}) {
  ParamDict pd;
  for (const auto& p : floats) pd.set(p.first, p.second);
  for (const auto& p : ints) pd.set(p.first, p.second);
  return pd;
}

TEST(MathUnary, PinnedValuesFromNcnnFormulas) {
  // ELU: alpha (exp(x) - 1) below 0. alpha 0.5: 0.5 (e^-1 - 1); default alpha 0.1.
  expect_pinned("ELU", params({{0, 0.5f}}), {{-1.f, -0.31606027941427883}, {2.f, 2.0}, {0.f, 0.0}});
  expect_pinned("ELU", ParamDict(), {{-2.f, -0.08646647167633874}, {-200.f, -0.1}});
  // SELU defaults: lambda alpha (e^-1 - 1) and 2 lambda.
  expect_pinned("SELU", ParamDict(), {{-1.f, -1.1113307358728635}, {2.f, 2.101401974}});
  // GELU, erf form: x Phi(x) = 0.5 x erfc(-x / sqrt 2).
  expect_pinned("GELU", ParamDict(),
                {{1.f, 0.8413447460685429},
                 {-1.f, -0.15865525393145707},
                 {2.f, 1.9544997361036416},
                 {0.5f, 0.34573123063700656},
                 {-3.f, -0.00404969409489031}});
  // GELU, tanh form: 0.5 x (1 + tanh(0.79788452 (x + 0.044715 x^3))).
  expect_pinned("GELU", params({}, {{0, 1}}),
                {{1.f, 0.8411919792192653},
                 {-1.f, -0.1588080207807348},
                 {2.f, 1.9545976855505205},
                 {0.5f, 0.34571400542373143},
                 {-3.f, -0.003637393329121885}});
  // BNLL: log(1 + e^x); Softplus: the same, log(e^x + 1).
  const std::vector<Pinned> softplus = {
      {0.f, 0.6931471805599453}, {3.f, 3.048587351573742}, {-3.f, 0.04858735157374206}};
  expect_pinned("BNLL", ParamDict(), softplus);
  expect_pinned("Softplus", ParamDict(), softplus);
  // TanH.
  expect_pinned("TanH", ParamDict(), {{0.5f, 0.46211715726000974}, {-2.f, -0.9640275800758169}});
  // Power: (shift + x scale)^power. (1 + 3x)^2; (x - 1)^0.5; (x - 2)^3 (defaults scale 1).
  expect_pinned("Power", params({{0, 2.f}, {1, 3.f}, {2, 1.f}}), {{1.f, 16.0}, {-1.f, 4.0}, {0.f, 1.0}});
  expect_pinned("Power", params({{0, 0.5f}, {2, -1.f}}), {{5.f, 2.0}, {1.f, 0.0}, {10.f, 3.0}});
  expect_pinned("Power", params({{0, 3.f}, {2, -2.f}}), {{0.f, -8.0}, {4.f, 8.0}});
  // Exp: base -1 means e: e^(1 + 2x) at 0 is e; base 2: 2^x; base 10, shift -1: 10^(x - 1).
  expect_pinned("Exp", params({{1, 2.f}, {2, 1.f}}), {{0.f, 2.718281828459045}, {-0.5f, 1.0}});
  expect_pinned("Exp", params({{0, 2.f}}), {{10.f, 1024.0}, {-1.f, 0.5}});
  expect_pinned("Exp", params({{0, 10.f}, {2, -1.f}}), {{3.f, 100.0}, {1.f, 1.0}});
  // Log: base -1 means e: ln(1 + x); base 2: log2(x); base 10, scale 2, shift 1: log10(1 + 2x).
  expect_pinned("Log", params({{2, 1.f}}), {{1.5f, 0.9162907318741551}, {0.f, 0.0}});
  expect_pinned("Log", params({{0, 2.f}}), {{8.f, 3.0}, {0.25f, -2.0}});
  expect_pinned("Log", params({{0, 10.f}, {1, 2.f}, {2, 1.f}}), {{4.5f, 1.0}, {49.5f, 2.0}});
  // UnaryOp: floor / ceil / trunc of -1.5 / -1.7, rsqrt, reciprocal, sqrt, log10.
  expect_pinned("UnaryOp", params({}, {{0, 2}}), {{-1.5f, -2.0}, {1.5f, 1.0}});
  expect_pinned("UnaryOp", params({}, {{0, 3}}), {{-1.5f, -1.0}, {1.5f, 2.0}});
  expect_pinned("UnaryOp", params({}, {{0, 19}}), {{-1.7f, -1.0}, {1.7f, 1.0}});
  expect_pinned("UnaryOp", params({}, {{0, 6}}), {{4.f, 0.5}, {0.25f, 2.0}});
  expect_pinned("UnaryOp", params({}, {{0, 15}}), {{-4.f, -0.25}, {8.f, 0.125}});
  expect_pinned("UnaryOp", params({}, {{0, 5}}), {{2.25f, 1.5}});
  expect_pinned("UnaryOp", params({}, {{0, 17}}), {{1000.f, 3.0}, {0.01f, -2.0}});
}

// UnaryOp round is ncnn's nearbyintf under FE_TONEAREST: halves go to the even neighbour.
TEST(MathUnary, RoundHalvesToEven) {
  const std::vector<float> xs = {2.5f, -2.5f, 0.5f, -0.5f, 1.5f, 3.5f, -3.5f, 2.4999998f, 2.5000002f, -0.3f,
                                 8388609.f, 1e10f, 0.49999997f};
  const std::vector<float> want = {2.f, -2.f, 0.f, -0.f, 2.f, 4.f, -4.f, 2.f, 3.f, -0.f, 8388609.f, 1e10f, 0.f};
  for (Isa isa : available_isas()) {
    IsaGuard guard(isa);
    SCOPED_TRACE(isa_name(isa));
    const std::vector<float> got = run_values("UnaryOp", params({}, {{0, 18}}), xs);
    for (size_t i = 0; i < xs.size(); i++) {
      EXPECT_EQ(got[i], want[i]) << "round(" << xs[i] << ")";
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "round(" << xs[i] << ")";
    }
  }
}

// Special values: what ncnn's scalar code computes with libm (expf, logf, erfcf, powf, ...),
// here evaluated with the same fp32 libm calls. NaN must stay NaN, infinities must match
// exactly, zeros must keep their sign; finite results within 2e-6 relative plus 1e-7 (the
// fp32 formulas' own cancellation, e.g. 1 + tanh(u) in GELU's at x = -2); a subnormal
// result may be 0 (exp_f flushes them, as ncnn runs with denormals flushed).
struct SpecialCase {
  std::string label;
  std::string type;
  ParamDict pd;
  std::function<float(float)> ncnn;
};

std::vector<SpecialCase> special_cases() {
  std::vector<SpecialCase> cases;
  const std::vector<std::function<float(float)>> unary = {
      [](float x) { return std::fabs(x); },      [](float x) { return -x; },
      [](float x) { return std::floor(x); },     [](float x) { return std::ceil(x); },
      [](float x) { return x * x; },             [](float x) { return std::sqrt(x); },
      [](float x) { return 1.f / std::sqrt(x); }, [](float x) { return std::exp(x); },
      [](float x) { return std::log(x); },       [](float x) { return std::sin(x); },
      [](float x) { return std::cos(x); },       [](float x) { return std::tan(x); },
      [](float x) { return std::asin(x); },      [](float x) { return std::acos(x); },
      [](float x) { return std::atan(x); },      [](float x) { return 1.f / x; },
      [](float x) { return std::tanh(x); },      [](float x) { return std::log10(x); },
      [](float x) { return std::nearbyint(x); }, [](float x) { return std::trunc(x); },
  };
  for (int op = 0; op < 20; op++)
    cases.push_back({"UnaryOp " + std::to_string(op), "UnaryOp", params({}, {{0, op}}), unary[op]});
  cases.push_back({"TanH", "TanH", ParamDict(), [](float x) { return std::tanh(x); }});
  // ncnn's x86 AbsVal clears the sign bit.
  cases.push_back({"AbsVal", "AbsVal", ParamDict(), [](float x) { return std::fabs(x); }});
  cases.push_back(
      {"ELU", "ELU", params({{0, 0.5f}}), [](float x) { return x < 0.f ? 0.5f * (std::exp(x) - 1.f) : x; }});
  const float alpha = 1.67326324f, lambda = 1.050700987f;
  cases.push_back({"SELU", "SELU", ParamDict(),
                   [=](float x) { return x < 0.f ? (std::exp(x) - 1.f) * (alpha * lambda) : x * lambda; }});
  cases.push_back({"BNLL", "BNLL", ParamDict(), [](float x) {
                     return x > 0.f ? x + std::log(1.f + std::exp(-x)) : std::log(1.f + std::exp(x));
                   }});
  cases.push_back({"GELU", "GELU", ParamDict(), [](float x) { return 0.5f * x * std::erfc(-0.70710678f * x); }});
  cases.push_back({"GELU fast", "GELU", params({}, {{0, 1}}), [](float x) {
                     return 0.5f * x * (1.f + std::tanh(0.79788452f * (x + 0.044715f * x * x * x)));
                   }});
  cases.push_back({"Softplus", "Softplus", ParamDict(), [](float x) { return std::log(std::exp(x) + 1.f); }});
  cases.push_back({"Power 0.5", "Power", params({{0, 0.5f}, {1, 2.f}, {2, 1.f}}),
                   [](float x) { return std::pow(1.f + x * 2.f, 0.5f); }});
  cases.push_back({"Power 2", "Power", params({{0, 2.f}}), [](float x) { return std::pow(0.f + x * 1.f, 2.f); }});
  cases.push_back({"Power 0", "Power", params({{0, 0.f}}), [](float x) { return std::pow(0.f + x * 1.f, 0.f); }});
  cases.push_back({"Exp e", "Exp", params({{1, 2.f}}), [](float x) { return std::exp(0.f + x * 2.f); }});
  cases.push_back({"Exp 2", "Exp", params({{0, 2.f}}), [](float x) { return std::pow(2.f, 0.f + x * 1.f); }});
  cases.push_back({"Log e", "Log", ParamDict(), [](float x) { return std::log(0.f + x * 1.f); }});
  const float inv_ln10 = 1.f / std::log(10.f);
  cases.push_back({"Log 10", "Log", params({{0, 10.f}}), [=](float x) { return std::log(0.f + x * 1.f) * inv_ln10; }});
  return cases;
}

TEST(MathUnary, SpecialValuesAsNcnnLibmCalls) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> xs = {-inf, inf, NAN, -0.f, 0.f, -1.f, 1.f, 2.f, -2.f, 100.f, -100.f, 1e30f, -1e30f,
                                 88.5f, -87.32f, 1e-40f, 44.3f};
  for (const SpecialCase& sc : special_cases()) {
    for (Isa isa : available_isas()) {
      IsaGuard guard(isa);
      SCOPED_TRACE(sc.label + " isa=" + isa_name(isa));
      const std::vector<float> got = run_values(sc.type, sc.pd, xs);
      for (size_t i = 0; i < xs.size(); i++) {
        const float want = sc.ncnn(xs[i]);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got[i])) << "x = " << xs[i] << ": got " << got[i];
        } else if (std::isinf(want) || want == 0.f) {
          EXPECT_EQ(got[i], want) << "x = " << xs[i];
          EXPECT_EQ(std::signbit(got[i]), std::signbit(want)) << "x = " << xs[i] << ": got " << got[i];
        } else if (std::fabs(want) < FLT_MIN) {
          EXPECT_TRUE(got[i] == 0.f || got[i] == want) << "x = " << xs[i] << ": got " << got[i];
        } else {
          EXPECT_NEAR(got[i], want, 2e-6 * std::fabs(want) + 1e-7) << "x = " << xs[i];
        }
      }
    }
  }
  // PReLU: x < 0 ? x * slope : x, NaN kept.
  Mat slope(1);
  slope[0] = 0.25f;
  const std::vector<float> got = run_values("PReLU", params({}, {{0, 1}}), {-inf, inf, NAN, -0.f, -4.f}, {slope});
  EXPECT_EQ(got[0], -inf);
  EXPECT_EQ(got[1], inf);
  EXPECT_TRUE(std::isnan(got[2]));
  EXPECT_TRUE(got[3] == 0.f && std::signbit(got[3]));
  EXPECT_EQ(got[4], -1.f);
}

// exp, log, log10 and tanh come from simd_math.h's polynomials, not libm: their error
// against the correctly rounded result (double libm, rounded to fp32) over a dense sweep
// of 200001 points, in ulps. Measured on AVX2 and scalar (2026-11, Zen 3 host): exp, log,
// tanh 1 ulp, log10 2 ulp; the bounds add one ulp for AVX-512, which this host lacks.
uint32_t ordered_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return (u & 0x80000000u) ? 0x80000000u - (u & 0x7fffffffu) : u + 0x80000000u;
}

double ulp_distance(float a, float b) {
  const uint32_t x = ordered_bits(a), y = ordered_bits(b);
  return x > y ? x - y : y - x;
}

TEST(MathUnary, PolynomialFunctionsWithinUlpsOfCorrectlyRounded) {
  struct Sweep {
    const char* label;
    int op_type;
    float lo, hi;
    double (*exact)(double);
    double max_ulps;
  };
  const Sweep sweeps[] = {
      {"exp", 7, -87.f, 88.f, [](double x) { return std::exp(x); }, 2},
      // The ends of float's range: exp_f clamped to [-87.3, 88] (e^88 for all of (88, 88.72],
      // 0 below -87.3), and log_f read a subnormal's exponent field as a normal one's.
      {"exp top", 7, 88.f, 88.72283172607422f, [](double x) { return std::exp(x); }, 2},
      {"exp bottom", 7, -87.33654022216797f, -87.f, [](double x) { return std::exp(x); }, 2},
      {"log subnorm", 8, 1.4e-45f, 1.1754942e-38f, [](double x) { return std::log(x); }, 2},
      {"log", 8, 1e-30f, 1e30f, [](double x) { return std::log(x); }, 2},
      {"log near 1", 8, 0.5f, 2.f, [](double x) { return std::log(x); }, 2},
      {"log10", 17, 1e-3f, 1e6f, [](double x) { return std::log10(x); }, 3},
      {"tanh", 16, -10.f, 10.f, [](double x) { return std::tanh(x); }, 2},
      {"tanh small", 16, -0.7f, 0.7f, [](double x) { return std::tanh(x); }, 2},
  };
  for (const Sweep& sw : sweeps) {
    // Geometric spacing for log's wide range, linear otherwise.
    std::vector<float> xs;
    const int n = 200001;
    const bool geometric = sw.lo > 0.f && sw.hi / sw.lo > 100.f;
    for (int i = 0; i < n; i++) {
      const double t = static_cast<double>(i) / (n - 1);
      xs.push_back(static_cast<float>(geometric ? sw.lo * std::pow(static_cast<double>(sw.hi) / sw.lo, t)
                                                : sw.lo + (sw.hi - sw.lo) * t));
    }
    for (Isa isa : available_isas()) {
      IsaGuard guard(isa);
      const std::vector<float> got = run_values("UnaryOp", params({}, {{0, sw.op_type}}), xs);
      double worst = 0;
      float worst_x = 0.f;
      for (int i = 0; i < n; i++) {
        const float want = static_cast<float>(sw.exact(xs[i]));
        if (want == 0.f) continue;  // log(1): an absolute error there is no ulp count
        const double d = ulp_distance(got[i], want);
        if (d > worst) {
          worst = d;
          worst_x = xs[i];
        }
      }
      EXPECT_LE(worst, sw.max_ulps) << sw.label << " isa=" << isa_name(isa) << " worst at x = " << worst_x;
      std::printf("[ accuracy ] %-11s %-6s max %.0f ulp (at x = %g)\n", sw.label, isa_name(isa), worst, worst_x);
    }
  }
}

TEST(MathUnary, RejectsBadParamsAndInputs) {
  auto named = [](const char* type) {
    std::unique_ptr<Layer> layer = create_layer(type);
    layer->type = type;
    layer->name = "bad0";
    return layer;
  };
  for (int op_type : {-1, 20, 100}) {
    std::unique_ptr<Layer> u = named("UnaryOp");
    const std::string message = error_of([&] { u->load_param(params({}, {{0, op_type}})); });
    EXPECT_NE(message.find("UnaryOp bad0"), std::string::npos) << message;
    EXPECT_NE(message.find("op_type"), std::string::npos) << message;
  }
  for (float base : {1.f, 0.f, -2.f, INFINITY}) {
    std::unique_ptr<Layer> l = named("Log");
    const std::string message = error_of([&] { l->load_param(params({{0, base}})); });
    EXPECT_NE(message.find("Log bad0"), std::string::npos) << base << ": " << message;
  }
  for (int num_slope : {0, -3}) {
    std::unique_ptr<Layer> p = named("PReLU");
    const std::string message = error_of([&] { p->load_param(params({}, {{0, num_slope}})); });
    EXPECT_NE(message.find("PReLU bad0"), std::string::npos) << message;
    EXPECT_NE(message.find("num_slope"), std::string::npos) << message;
  }
  // Slopes that do not match the channels (or rows, or elements) at forward.
  struct Mismatch {
    Mat input;
    const char* axis;
  };
  const Mismatch mismatches[] = {{make_input(3, 4, 3, 1, 5, 1), "5 channels"},
                                 {make_input(4, 2, 2, 2, 8, 2), "8 channels"},
                                 {make_input(2, 6, 4, 1, 1, 3), "4 rows"},
                                 {make_input(1, 7, 1, 1, 1, 4), "7 elements"}};
  for (const Mismatch& mm : mismatches) {
    std::unique_ptr<Layer> p = named("PReLU");
    p->load_param(params({}, {{0, 3}}));
    std::vector<Mat> slopes = {make_input(1, 3, 1, 1, 1, 5)};
    p->load_model(ModelBinFromMatArray(slopes));
    for (int pack : {1, 4}) {
      Mat packed;
      convert_packing(mm.input, packed, pack, Option());
      const std::string message = error_of([&] { p->forward_inplace(packed, Option()); });
      EXPECT_NE(message.find("PReLU bad0"), std::string::npos) << message;
      EXPECT_NE(message.find(mm.axis), std::string::npos) << message;
    }
  }
  // fp16 blobs are refused (these layers keep fp32 blobs).
  std::unique_ptr<Layer> t = named("TanH");
  t->load_param(ParamDict());
  Mat fp16(8, static_cast<size_t>(2), 1, static_cast<Allocator*>(nullptr));
  EXPECT_NE(error_of([&] { t->forward_inplace(fp16, Option()); }).find("fp32"), std::string::npos);
}

// A .bin too short for PReLU's slopes: the Net's error names the layer.
TEST(MathUnary, ShortSlopeBufferNamesTheLayer) {
  const char text[] = R"(7767517
2 2
Input  in  0 1 in 0=5 1=4 2=8
PReLU  pr  1 1 in out 0=8
)";
  const float three_slopes[3] = {0.1f, 0.2f, 0.3f};
  Net net;
  net.load_param_mem(text);
  const std::string message = error_of([&] { net.load_model_mem(three_slopes, sizeof three_slopes); });
  EXPECT_NE(message.find("layer 'pr' (PReLU)"), std::string::npos) << message;
  EXPECT_FALSE(net.ready());
}

// Several of the new layers in one graph through Net and Extractor (packed and unpacked,
// one and two threads, light mode on and off) against the reference executor: PReLU on a
// 3-D blob (per channel), on a 2-D blob (per row) and on a 1-D blob (per element).
TEST(MathUnary, NetMatchesReferenceExecutor) {
  const char text[] = R"(7767517
20 23
Input          in       0 1 in 0=9 1=5 2=19
Convolution    conv     1 1 in a 0=21 1=3 4=1 5=1 6=3591
PReLU          prelu    1 1 a b 0=21
Split          split    1 4 b b1 b2 b3 b4
ELU            elu      1 1 b1 c1 0=0.5
SELU           selu     1 1 c1 c2
GELU           gelu     1 1 b2 d1
GELU           gelu_t   1 1 d1 d2 0=1
TanH           tanh     1 1 b3 e1
AbsVal         abs      1 1 e1 e2
BNLL           bnll     1 1 e2 e3
Softplus       softplus 1 1 b4 f1
Log            log10    1 1 f1 f2 0=10 1=1 2=1
Power          power    1 1 f2 f3 0=2 1=0.5 2=0.25
Exp            exp2     1 1 f3 f4 0=2 1=-1
UnaryOp        sqrt     1 1 f4 f5 0=5
Reshape        rows     1 1 c2 g1 0=45 1=21
PReLU          prelu_r  1 1 g1 g2 0=21
InnerProduct   fc       1 1 e3 h1 0=13 1=1 2=12285
PReLU          prelu_e  1 1 h1 h2 0=13
)";
  ReferenceExecutor reference;
  prepare_reference(reference);
  reference.load_param_mem(text);
  {
    RandomWeights weights(reference.graph(), 5);
    reference.load_model(weights);
  }
  const std::vector<NamedMat> inputs = declared_inputs(reference);
  const std::vector<Mat> expected = run_outputs(reference, inputs);
  const std::vector<std::string> names = reference.output_names();
  ASSERT_EQ(names.size(), 4u);  // d2, f5, g2, h2: the blobs no layer reads
  for (Isa isa : available_isas()) {
    IsaGuard guard(isa);
    for (bool packing : {true, false}) {
      for (int threads : {1, 2}) {
        for (bool light : {true, false}) {
          SCOPED_TRACE(std::string(isa_name(isa)) + (packing ? " packed" : " unpacked") + " threads=" +
                       std::to_string(threads) + (light ? " light" : ""));
          Net net;
          net.opt.use_packing_layout = packing;
          net.opt.use_fp16_storage = false;  // fp32 InnerProduct weights (fp16 ones: 2^-11 each)
          net.opt.num_threads = threads;
          net.load_param_mem(text);
          RandomWeights weights(net.graph(), 5);
          net.load_model(weights);
          expect_outputs_near(run_outputs(net, inputs, threads, light), expected, names, 1e-5);
        }
      }
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace jitconv
