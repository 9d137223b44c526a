// Padding: constant / replicate / reflect on every dims, asymmetric pads, channel
// (front/behind) and depth padding, per-channel constants.
#include <gtest/gtest.h>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

struct Pads {
  int top, bottom, left, right, front, behind;
};

TEST(MathPadding, MatchesReference) {
  const std::vector<Pads> pads = {{1, 1, 1, 1, 0, 0}, {0, 2, 3, 1, 0, 0}, {2, 0, 0, 1, 1, 2},
                                  {0, 0, 0, 0, 4, 4}, {1, 2, 1, 2, 8, 0}, {0, 0, 2, 0, 0, 3}};
  const std::vector<ShapeCase> shapes = {{1, 9, 1, 1, 1},  {1, 16, 1, 1, 1}, {2, 7, 5, 1, 1},  {2, 6, 16, 1, 1},
                                         {3, 7, 5, 1, 16}, {3, 5, 4, 1, 5},  {3, 4, 4, 1, 24}, {4, 4, 3, 5, 8},
                                         {4, 3, 4, 6, 12}};
  uint32_t seed = 11000;
  for (int type = 0; type <= 2; type++)
    for (const Pads& p : pads)
      for (const ShapeCase& s : shapes) {
        const int depth = s.dims == 4 ? s.d : s.c;
        if (type == 2 && (p.left >= s.w || p.right >= s.w || (s.dims >= 2 && (p.top >= s.h || p.bottom >= s.h)) ||
                          (s.dims >= 3 && (p.front >= depth || p.behind >= depth))))
          continue;  // reflection longer than the axis is rejected (tested below)
        SCOPED_TRACE("type " + std::to_string(type) + " pads " + std::to_string(p.top) + std::to_string(p.bottom) +
                     std::to_string(p.left) + std::to_string(p.right) + std::to_string(p.front) +
                     std::to_string(p.behind) + " " + s.name());
        LayerTester("Padding")
            .param(0, p.top)
            .param(1, p.bottom)
            .param(2, p.left)
            .param(3, p.right)
            .param(4, type)
            .param(5, 0.75f)
            .param(7, p.front)
            .param(8, p.behind)
            .input(make_input(s, seed++))
            .test();
      }
}

TEST(MathPadding, PerChannelConstants) {
  uint32_t seed = 12000;
  for (const ShapeCase& s : {ShapeCase{3, 5, 4, 1, 16}, ShapeCase{3, 3, 3, 1, 7}, ShapeCase{4, 3, 2, 3, 8}})
    for (const Pads& p : {Pads{1, 0, 2, 1, 0, 0}, Pads{0, 1, 0, 1, 4, 4}}) {
      SCOPED_TRACE(s.name() + " front " + std::to_string(p.front));
      const int outc = s.dims == 3 ? s.c + p.front + p.behind : s.c;
      seed += 2;
      LayerTester("Padding")
          .param(0, p.top)
          .param(1, p.bottom)
          .param(2, p.left)
          .param(3, p.right)
          .param(6, outc)
          .param(7, p.front)
          .param(8, p.behind)
          .weight(random_mat(outc, seed))
          .input(make_input(s, seed + 1))
          .test();
    }
}

TEST(MathPadding, ZeroPadsPassThrough) {
  std::unique_ptr<Layer> pad = create_layer("Padding");
  pad->load_param(ParamDict());
  const Mat in = random_mat(4, 4, 4, 1u);
  Mat out;
  pad->forward(in, out, Option());
  EXPECT_EQ(out.data, in.data);
}

TEST(MathPadding, RejectsBadParamsAndInputs) {
  auto load = [](int id, int v) {
    ParamDict pd;
    pd.set(id, v);
    std::unique_ptr<Layer> l = create_layer("Padding");
    l->name = "pad2";
    return error_of([&] { l->load_param(pd); });
  };
  EXPECT_NE(load(0, -1).find("Padding pad2: negative padding"), std::string::npos);
  EXPECT_NE(load(4, 3).find("type"), std::string::npos);
  ParamDict dynamic;
  for (int id = 0; id < 4; id++) dynamic.set(id, -233);
  EXPECT_NE(error_of([&] { create_layer("Padding")->load_param(dynamic); }).find("-233"), std::string::npos);

  ParamDict reflect;
  reflect.set(2, 5);
  reflect.set(4, 2);
  std::unique_ptr<Layer> l = create_layer("Padding");
  l->load_param(reflect);
  Mat out;
  EXPECT_NE(error_of([&] { l->forward(random_mat(5, 3, 2, 1u), out, Option()); }).find("reflect"), std::string::npos);

  ParamDict per_channel;
  per_channel.set(0, 1);
  per_channel.set(6, 3);
  std::unique_ptr<Layer> pc = create_layer("Padding");
  pc->load_param(per_channel);
  pc->load_model(ModelBinFromMatArray({random_mat(3, 1u)}));
  EXPECT_NE(error_of([&] { pc->forward(random_mat(3, 3, 4, 1u), out, Option()); }).find("3 per-channel pad values"),
            std::string::npos);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
