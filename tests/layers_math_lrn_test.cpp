// LRN across and within channels, odd and even window sizes, non-default alpha/beta/bias.
#include <gtest/gtest.h>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

TEST(MathLRN, MatchesReference) {
  uint32_t seed = 10000;
  for (int region = 0; region <= 1; region++)
    for (int size : {1, 3, 4, 5, 9, 17, 33})  // 9, 33: a window of exactly 2 * pack + 1
      for (const ShapeCase& s : {ShapeCase{3, 7, 5, 1, 16}, ShapeCase{3, 9, 6, 1, 3}, ShapeCase{3, 2, 3, 1, 7}}) {
        SCOPED_TRACE("region " + std::to_string(region) + " size " + std::to_string(size) + " " + s.name());
        LayerTester("LRN").param(0, region).param(1, size).input(make_input(s, seed++, -3.f, 3.f)).test();
        LayerTester("LRN")
            .param(0, region)
            .param(1, size)
            .param(2, 0.5f)
            .param(3, 1.3f)
            .param(4, 2.f)
            .input(make_input(s, seed++, -3.f, 3.f))
            .threads(3)
            .test();
      }
}

TEST(MathLRN, RejectsBadParamsAndInputs) {
  auto load = [](int id, float v) {
    ParamDict pd;
    pd.set(id, v);
    std::unique_ptr<Layer> l = create_layer("LRN");
    l->name = "norm1";
    return error_of([&] { l->load_param(pd); });
  };
  EXPECT_NE(load(4, 0.f).find("LRN norm1: needs bias > 0"), std::string::npos);
  EXPECT_NE(load(2, -1.f).find("alpha"), std::string::npos);
  ParamDict zero;
  zero.set(1, 0);
  EXPECT_NE(error_of([&] { create_layer("LRN")->load_param(zero); }).find("local_size"), std::string::npos);
  std::unique_ptr<Layer> l = create_layer("LRN");
  l->load_param(ParamDict());
  Mat flat = random_mat(5, 5, 1u);
  EXPECT_NE(error_of([&] { l->forward_inplace(flat, Option()); }).find("3-D"), std::string::npos);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
