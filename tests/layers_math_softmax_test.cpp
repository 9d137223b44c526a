// Softmax along every axis of every dims (incl. negative axes and the packed axis).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

TEST(MathSoftmax, EveryAxisMatchesReference) {
  uint32_t seed = 7000;
  for (const ShapeCase& s : elementwise_shapes()) {
    for (int axis = -s.dims; axis < s.dims; axis++) {
      SCOPED_TRACE(s.name() + " axis " + std::to_string(axis));
      LayerTester("Softmax").param(0, axis).param(1, 1).input(make_input(s, seed++, -8.f, 8.f)).threads(3).test();
    }
  }
}

TEST(MathSoftmax, LargeBlobs) {
  // More positions than one parallel chunk across channels; long rows.
  LayerTester("Softmax").param(0, 0).param(1, 1).input(make_input(3, 50, 40, 1, 16, 1, -5.f, 5.f)).test();
  LayerTester("Softmax").param(0, 2).param(1, 1).input(make_input(3, 3000, 2, 1, 3, 2, -5.f, 5.f)).test();
  LayerTester("Softmax").input(make_input(1, 5000, 1, 1, 1, 3, -30.f, 30.f)).test();
}

// -inf logits (masked positions) get no probability at all: exp's clamp at -87.3 gave them
// 1.2e-38 / sum. Along w (whole rows) and along c of a packed blob (per-lane maxima).
TEST(MathSoftmax, MinusInfinityGetsZero) {
  for (Isa isa : available_isas()) {
    IsaGuard guard(isa);
    for (int axis : {0, 2}) {
      SCOPED_TRACE(std::string(isa_name(isa)) + " axis " + std::to_string(axis));
      std::unique_ptr<Layer> l = create_layer("Softmax");
      ParamDict pd;
      pd.set(0, axis);
      pd.set(1, 1);
      l->load_param(pd);
      Mat plain(9, 1, 8), m, back;  // 8 channels x 9 pixels; every third value masked
      for (int q = 0; q < 8; q++)
        for (int x = 0; x < 9; x++) plain.channel(q)[x] = (q + x) % 3 == 0 ? -INFINITY : 0.25f * (q - x);
      convert_packing(plain, m, 8, Option());
      l->forward_inplace(m, Option());
      convert_packing(m, back, 1, Option());
      for (int q = 0; q < 8; q++)
        for (int x = 0; x < 9; x++) {
          const float v = back.channel(q)[x];
          if ((q + x) % 3 == 0)
            EXPECT_EQ(v, 0.f) << q << "," << x;
          else
            EXPECT_GT(v, 0.f) << q << "," << x;
        }
    }
  }
}

TEST(MathSoftmax, RejectsOldParamsAndBadAxis) {
  ParamDict old;
  old.set(0, 1);
  std::unique_ptr<Layer> layer = create_layer("Softmax");
  layer->name = "prob";
  EXPECT_NE(error_of([&] { layer->load_param(old); }).find("Softmax prob: axis 1 without fixbug0"),
            std::string::npos);

  ParamDict far;
  far.set(0, 3);
  far.set(1, 1);
  std::unique_ptr<Layer> l2 = create_layer("Softmax");
  l2->load_param(far);
  Mat m = random_mat(4, 4, 4, 1u);
  EXPECT_NE(error_of([&] { l2->forward_inplace(m, Option()); }).find("out of range"), std::string::npos);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
