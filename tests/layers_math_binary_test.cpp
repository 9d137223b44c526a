// BinaryOp (every operation, ncnn's broadcasting incl. rank expansion, with_scalar) and
// Eltwise against their scalar references.
#include <gtest/gtest.h>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

struct Pair {
  ShapeCase a, b;
};

// Every broadcasting form of current ncnn: equal shapes, size-1 axes on either side,
// and lower-rank operands (per-row, per-channel, along w, 2-D/3-D lifted to 3-D/4-D).
std::vector<Pair> broadcast_pairs() {
  return {
      {{1, 37, 1, 1, 1}, {1, 37, 1, 1, 1}},   {{1, 48, 1, 1, 1}, {1, 1, 1, 1, 1}},
      {{1, 1, 1, 1, 1}, {1, 48, 1, 1, 1}},    {{2, 5, 12, 1, 1}, {2, 5, 12, 1, 1}},
      {{2, 5, 12, 1, 1}, {2, 1, 12, 1, 1}},   {{2, 5, 12, 1, 1}, {2, 5, 1, 1, 1}},
      {{2, 1, 1, 1, 1}, {2, 7, 16, 1, 1}},    {{2, 1, 16, 1, 1}, {2, 9, 1, 1, 1}},
      {{3, 7, 5, 1, 16}, {3, 7, 5, 1, 16}},   {{3, 7, 5, 1, 16}, {3, 1, 1, 1, 16}},
      {{3, 7, 5, 1, 16}, {3, 7, 5, 1, 1}},    {{3, 7, 5, 1, 24}, {3, 1, 5, 1, 24}},
      {{3, 7, 5, 1, 24}, {3, 7, 1, 1, 24}},   {{3, 7, 5, 1, 19}, {3, 1, 1, 1, 1}},
      {{3, 1, 1, 1, 16}, {3, 7, 5, 1, 16}},   {{3, 7, 5, 1, 1}, {3, 7, 5, 1, 32}},
      {{3, 4, 3, 1, 1}, {3, 1, 1, 1, 24}},    {{3, 7, 1, 1, 8}, {3, 1, 5, 1, 1}},
      {{3, 1, 5, 1, 12}, {3, 7, 5, 1, 12}},   {{4, 3, 4, 2, 16}, {4, 3, 4, 2, 16}},
      {{4, 3, 4, 2, 16}, {4, 1, 1, 1, 16}},   {{4, 3, 4, 2, 12}, {4, 3, 4, 2, 1}},
      {{4, 3, 4, 2, 8}, {4, 3, 1, 2, 8}},     {{4, 3, 4, 2, 8}, {4, 1, 1, 2, 1}},
      {{4, 1, 4, 2, 20}, {4, 3, 4, 1, 20}},   {{3, 7, 5, 1, 24}, {1, 24, 1, 1, 1}},
      {{3, 7, 5, 1, 24}, {1, 7, 1, 1, 1}},    {{3, 7, 5, 1, 24}, {1, 1, 1, 1, 1}},
      {{1, 16, 1, 1, 1}, {3, 7, 5, 1, 16}},   {{1, 7, 1, 1, 1}, {3, 7, 5, 1, 16}},
      {{3, 6, 5, 1, 16}, {2, 5, 16, 1, 1}},   {{2, 5, 8, 1, 1}, {3, 7, 5, 1, 8}},
      {{2, 9, 16, 1, 1}, {1, 16, 1, 1, 1}},   {{2, 9, 16, 1, 1}, {1, 9, 1, 1, 1}},
      {{1, 12, 1, 1, 1}, {2, 12, 12, 1, 1}},  {{1, 3, 1, 1, 1}, {2, 3, 8, 1, 1}},
      {{4, 3, 4, 5, 16}, {1, 16, 1, 1, 1}},   {{4, 3, 4, 5, 16}, {1, 3, 1, 1, 1}},
      {{4, 3, 4, 5, 16}, {2, 5, 16, 1, 1}},   {{4, 3, 4, 5, 16}, {3, 4, 5, 1, 16}},
      {{3, 4, 5, 1, 8}, {4, 3, 4, 5, 8}},     {{1, 8, 1, 1, 1}, {4, 3, 4, 5, 8}},
      {{3, 40, 30, 1, 4}, {3, 40, 30, 1, 1}},  // rows longer than one parallel chunk
  };
}

// Positive operands for the operations that divide or exponentiate.
bool needs_positive(int op) { return op == 3 || op == 6 || op == 8 || op == 9; }

TEST(MathBinaryOp, EveryOperationAndBroadcastMatchesReference) {
  uint32_t seed = 1000;
  for (int op = 0; op < 12; op++) {
    const float lo = needs_positive(op) ? 0.5f : -1.f, hi = needs_positive(op) ? 2.f : 1.f;
    for (const Pair& p : broadcast_pairs()) {
      SCOPED_TRACE("op " + std::to_string(op) + " A " + p.a.name() + " B " + p.b.name());
      LayerTester("BinaryOp")
          .param(0, op)
          .input(make_input(p.a, seed, lo, hi))
          .input(make_input(p.b, seed + 1, lo, hi))
          .threads(3)
          .test();
      seed += 2;
    }
  }
}

TEST(MathBinaryOp, WithScalarMatchesReference) {
  uint32_t seed = 2000;
  for (int op = 0; op < 12; op++) {
    const float lo = needs_positive(op) ? 0.5f : -1.f, hi = needs_positive(op) ? 2.f : 1.f;
    for (const ShapeCase& s : elementwise_shapes()) {
      SCOPED_TRACE("op " + std::to_string(op) + " " + s.name());
      LayerTester("BinaryOp").param(0, op).param(1, 1).param(2, 1.25f).input(make_input(s, seed++, lo, hi)).test();
    }
  }
}

TEST(MathBinaryOp, OperandsWithDifferentElempacks) {
  ParamDict sub;
  sub.set(0, 1);
  // Same channel count, different packing; per-channel 1-D and [1,1,c] operands.
  expect_mixed_packs_match("BinaryOp", sub, {random_mat(7, 5, 32, 1u), random_mat(7, 5, 32, 2u)}, {16, 4});
  expect_mixed_packs_match("BinaryOp", sub, {random_mat(7, 5, 32, 1u), random_mat(32, 2u)}, {8, 16});
  expect_mixed_packs_match("BinaryOp", sub, {random_mat(32, 1u), random_mat(6, 3, 32, 2u)}, {4, 16});
  expect_mixed_packs_match("BinaryOp", sub, {random_mat(1, 1, 32, 1u), random_mat(6, 3, 32, 2u)}, {1, 8});
  expect_mixed_packs_match("BinaryOp", sub, {random_mat(9, 24, 1u), random_mat(9, 24, 2u)}, {8, 4});
  expect_mixed_packs_match("BinaryOp", sub, {random_mat4(3, 2, 4, 16, 1u), random_mat4(3, 2, 4, 16, 2u)}, {4, 16});
}

TEST(MathEltwise, InputsWithDifferentElempacks) {
  ParamDict sum;
  sum.set(0, 1);
  sum.set(1, std::vector<float>{2.f, -1.f, 0.5f});
  expect_mixed_packs_match("Eltwise", sum, {random_mat(5, 4, 16, 1u), random_mat(5, 4, 16, 2u), random_mat(5, 4, 16, 3u)},
                           {16, 4, 1});
}

TEST(MathBinaryOp, RejectsShapesThatDoNotBroadcast) {
  auto run = [](const Mat& a, const Mat& b) {
    std::unique_ptr<Layer> layer = create_layer("BinaryOp");
    layer->name = "add7";
    layer->load_param(ParamDict());
    std::vector<Mat> tops;
    return error_of([&] { layer->forward({a, b}, tops, Option()); });
  };
  EXPECT_NE(run(random_mat(7, 5, 16, 1u), random_mat(6, 5, 16, 2u)).find("BinaryOp add7: cannot broadcast"),
            std::string::npos);
  EXPECT_NE(run(random_mat(5, 1u), random_mat(7, 5, 16, 2u)).find("cannot broadcast"), std::string::npos);
  EXPECT_NE(run(random_mat(9, 16, 1u), random_mat(10, 2u)).find("cannot broadcast"), std::string::npos);
  Mat packed;
  convert_packing(random_mat(7, 5, 16, 3u), packed, 4, Option());
  EXPECT_NE(run(packed, random_mat(7, 5, 12, 4u)).find("cannot broadcast"), std::string::npos);

  ParamDict bad;
  bad.set(0, 12);
  EXPECT_NE(error_of([&] { create_layer("BinaryOp")->load_param(bad); }).find("op_type"), std::string::npos);

  std::unique_ptr<Layer> layer = create_layer("BinaryOp");
  layer->load_param(ParamDict());
  std::vector<Mat> tops;
  EXPECT_NE(error_of([&] { layer->forward({random_mat(4, 1u)}, tops, Option()); }).find("two inputs"),
            std::string::npos);
}

TEST(MathEltwise, EveryOperationMatchesReference) {
  uint32_t seed = 3000;
  for (const ShapeCase& s : elementwise_shapes()) {
    for (int op = 0; op < 3; op++) {
      SCOPED_TRACE("op " + std::to_string(op) + " " + s.name());
      LayerTester("Eltwise").param(0, op).input(make_input(s, seed)).input(make_input(s, seed + 1)).test();
      LayerTester("Eltwise")
          .param(0, op)
          .input(make_input(s, seed + 2))
          .input(make_input(s, seed + 3))
          .input(make_input(s, seed + 4))
          .threads(3)
          .test();
      seed += 5;
    }
    SCOPED_TRACE("sum with coeffs " + s.name());
    LayerTester("Eltwise")
        .param(0, 1)
        .param(1, std::vector<float>{0.5f, -2.f, 1.5f})
        .input(make_input(s, seed))
        .input(make_input(s, seed + 1))
        .input(make_input(s, seed + 2))
        .test();
    seed += 3;
  }
  LayerTester("Eltwise").param(0, 2).input(make_input(3, 150, 130, 1, 2, 9)).input(make_input(3, 150, 130, 1, 2, 10)).test();
}

TEST(MathEltwise, RejectsMismatchedInputs) {
  std::unique_ptr<Layer> layer = create_layer("Eltwise");
  layer->name = "sum3";
  ParamDict pd;
  pd.set(0, 1);
  pd.set(1, std::vector<float>{1.f, 2.f, 3.f});
  layer->load_param(pd);
  std::vector<Mat> tops;
  const std::string coeff_msg =
      error_of([&] { layer->forward({random_mat(4, 4, 4, 1u), random_mat(4, 4, 4, 2u)}, tops, Option()); });
  EXPECT_NE(coeff_msg.find("Eltwise sum3: 3 coeffs for 2 inputs"), std::string::npos) << coeff_msg;

  std::unique_ptr<Layer> plain = create_layer("Eltwise");
  plain->load_param(ParamDict());
  EXPECT_NE(error_of([&] { plain->forward({random_mat(4, 4, 4, 1u), random_mat(4, 4, 5, 2u)}, tops, Option()); })
                .find("input 1 is 3-D 4x4x1x5"),
            std::string::npos);
  ParamDict bad;
  bad.set(0, 3);
  EXPECT_NE(error_of([&] { create_layer("Eltwise")->load_param(bad); }).find("op_type"), std::string::npos);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
