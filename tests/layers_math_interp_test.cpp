// Interp: nearest / bilinear / bicubic, align_corner, scale factors and explicit sizes,
// up- and downsampling, dims 1-3, the dynamic (reference blob) size.
#include <gtest/gtest.h>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

TEST(MathInterp, SizesMatchReference) {
  const std::vector<ShapeCase> shapes = {{3, 7, 5, 1, 16}, {3, 4, 6, 1, 3}, {3, 1, 1, 1, 8}, {3, 2, 3, 1, 24},
                                         {2, 9, 16, 1, 1}, {2, 3, 5, 1, 1}};
  const std::vector<std::pair<int, int>> sizes = {{14, 10}, {3, 2}, {8, 13}, {1, 1}, {7, 5}, {20, 3}};
  uint32_t seed = 13000;
  for (int type = 1; type <= 3; type++)
    for (int align = 0; align <= (type == 1 ? 0 : 1); align++)
      for (const ShapeCase& s : shapes)
        for (const auto& size : sizes) {
          SCOPED_TRACE("type " + std::to_string(type) + " align " + std::to_string(align) + " " + s.name() + " to " +
                       std::to_string(size.first) + "x" + std::to_string(size.second));
          LayerTester("Interp")
              .param(0, type)
              .param(3, size.second)
              .param(4, size.first)
              .param(6, align)
              .input(make_input(s, seed++))
              .test();
        }
}

TEST(MathInterp, ScalesMatchReference) {
  const std::vector<std::pair<float, float>> scales = {{2.f, 2.f}, {0.5f, 0.5f}, {3.f, 1.5f}, {1.f, 2.f}, {0.7f, 1.3f}};
  uint32_t seed = 14000;
  for (int type = 1; type <= 3; type++)
    for (const auto& sc : scales)
      for (const ShapeCase& s : {ShapeCase{3, 8, 6, 1, 16}, ShapeCase{3, 5, 7, 1, 5}, ShapeCase{2, 6, 8, 1, 1}}) {
        SCOPED_TRACE("type " + std::to_string(type) + " scale " + std::to_string(sc.first) + "," +
                     std::to_string(sc.second) + " " + s.name());
        LayerTester("Interp")
            .param(0, type)
            .param(1, sc.first)
            .param(2, sc.second)
            .input(make_input(s, seed++))
            .threads(3)
            .test();
      }
}

TEST(MathInterp, OneDimensionalFillsChannels) {
  uint32_t seed = 15000;
  for (int w : {1, 16, 7}) {
    LayerTester("Interp").param(0, 2).param(3, 3).param(4, 5).input(random_mat(w, seed++)).test();
    LayerTester("Interp").param(0, 1).param(1, 4.f).param(2, 2.f).input(random_mat(w, seed++)).test();
  }
}

TEST(MathInterp, DynamicTargetSize) {
  LayerTester("Interp")
      .param(0, 2)
      .param(5, 1)
      .input(make_input(3, 6, 5, 1, 16, 1))
      .input(make_input(3, 11, 9, 1, 4, 2))
      .test();
  LayerTester("Interp").param(0, 1).param(5, 1).input(make_input(3, 6, 5, 1, 8, 3)).input(random_mat(3, 2, 4u)).test();
}

TEST(MathInterp, LargeUpsample) {
  LayerTester("Interp").param(0, 2).param(1, 2.f).param(2, 2.f).input(make_input(3, 40, 30, 1, 32, 4)).test();
  LayerTester("Interp").param(0, 3).param(1, 2.f).param(2, 2.f).param(6, 1).input(make_input(3, 40, 30, 1, 8, 5)).test();
}

TEST(MathInterp, SameSizePassesThroughAndBadInputsFail) {
  std::unique_ptr<Layer> same = create_layer("Interp");
  ParamDict pd;
  pd.set(0, 2);
  same->load_param(pd);
  const Mat in = random_mat(5, 4, 3, 1u);
  Mat out;
  same->forward(in, out, Option());
  EXPECT_EQ(out.data, in.data);

  ParamDict bad_type;
  bad_type.set(0, 4);
  EXPECT_NE(error_of([&] { create_layer("Interp")->load_param(bad_type); }).find("resize_type"), std::string::npos);

  ParamDict zero_type;
  zero_type.set(1, 2.f);
  std::unique_ptr<Layer> z = create_layer("Interp");
  z->name = "up1";
  z->load_param(zero_type);
  EXPECT_NE(error_of([&] { z->forward(in, out, Option()); }).find("Interp up1: resize_type 0 cannot resize"),
            std::string::npos);

  ParamDict shrink;
  shrink.set(0, 1);
  shrink.set(1, 0.1f);
  shrink.set(2, 0.1f);
  std::unique_ptr<Layer> s = create_layer("Interp");
  s->load_param(shrink);
  EXPECT_NE(error_of([&] { s->forward(in, out, Option()); }).find("not positive"), std::string::npos);
  EXPECT_NE(error_of([&] { s->forward(random_mat4(3, 3, 3, 3, 1u), out, Option()); }).find("4-D"), std::string::npos);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
