// Reshape (0 = keep, -1 = infer, permute flag) and Permute (every order_type of 2-D,
// 3-D and 4-D blobs) against their references.
#include <vector>

#include "tests/layers_data_util.h"

namespace jitconv {
namespace test {
namespace {

// Reshape params in w, h, d, c order; -233 = unset.
void reshape_case(const Mat& in, int w, int h, int d, int c, int permute) {
  LayerTester t("Reshape");
  t.param(0, w).param(1, h).param(11, d).param(2, c).param(3, permute).input(in).tolerance(0.f);
  SCOPED_TRACE("to " + std::to_string(w) + "," + std::to_string(h) + "," + std::to_string(d) + "," + std::to_string(c) +
               " permute " + std::to_string(permute));
  t.test();
}

TEST(DataReshape, MatchesReference) {
  const Mat in3 = random_mat(6, 5, 4, 1400);     // 120 scalars, padded channels
  const Mat in4 = random_mat4(3, 5, 2, 4, 1401);
  const Mat in2 = random_mat(12, 10, 1402u);
  const Mat in1 = random_mat(120, 1403u);
  for (int permute : {0, 1}) {
    for (const Mat& in : {in1, in2, in3, in4}) {
      reshape_case(in, -1, -233, -233, -233, permute);   // flatten
      reshape_case(in, 20, 6, -233, -233, permute);
      reshape_case(in, -1, 8, -233, -233, permute);
      reshape_case(in, 4, 5, -233, 6, permute);
      reshape_case(in, 2, -1, -233, 3, permute);
      reshape_case(in, 8, 15, -233, 1, permute);
      reshape_case(in, 5, 3, 2, 4, permute);
      reshape_case(in, 1, 1, 1, -1, permute);
      reshape_case(in, 6, 5, -1, 2, permute);
    }
    reshape_case(in3, 0, 0, -233, -1, permute);          // keep w and h
    reshape_case(in3, 0, -1, -233, 2, permute);
    reshape_case(in3, 3, 10, -233, 0, permute);          // same channels: rows agree
    reshape_case(in2, 0, 10, -233, -233, permute);       // unchanged
    reshape_case(in4, 0, 0, 0, 0, permute);
    reshape_case(in4, 5, 3, 0, 0, permute);
  }
}

// permute = 1 flattens a 3-D blob channel-last, as ncnn's Reshape did while it read the
// flag (only for a 1-D target: other targets, and a 2-D input, keep the plain order).
TEST(DataReshape, PermuteFlattensChannelLastOnly) {
  Mat cube(2, 2, 2);
  for (int q = 0; q < 2; q++)
    for (int i = 0; i < 4; i++) static_cast<float*>(cube.data)[q * cube.cstep + i] = static_cast<float>(q * 4 + i);
  Mat plane(3, 2);
  for (int i = 0; i < 6; i++) static_cast<float*>(plane.data)[i] = static_cast<float>(i);
  struct Case {
    const Mat* in;
    int w, h;
    std::vector<float> expected;
  };
  const std::vector<Case> cases = {{&cube, -1, -233, {0, 4, 1, 5, 2, 6, 3, 7}},
                                   {&cube, 4, 2, {0, 1, 2, 3, 4, 5, 6, 7}},
                                   {&plane, -1, -233, {0, 1, 2, 3, 4, 5}}};
  for (const Case& c : cases)
    for (bool reference : {false, true}) {
      SCOPED_TRACE(std::to_string(c.in->dims) + "-D to w " + std::to_string(c.w) + (reference ? " reference" : ""));
      ParamDict pd;
      pd.set(0, c.w);
      pd.set(1, c.h);
      pd.set(3, 1);
      std::unique_ptr<Layer> l = reference ? create_reference_layer("Reshape") : make_layer("Reshape", pd);
      if (reference) l->load_param(pd);
      const std::vector<Mat> got = forward_layer(*l, {*c.in});
      EXPECT_EQ(dense_values(got[0]), c.expected);
    }
}

TEST(DataReshape, ViewSharesDenseData) {
  ParamDict pd;
  pd.set(0, 10);
  pd.set(1, 12);
  const Mat in = random_mat(120, 1404u);
  const std::vector<Mat> got = forward_layer(*make_layer("Reshape", pd), {in});
  EXPECT_EQ(got[0].data, in.data);
}

TEST(DataReshape, RejectsImpossibleShapes) {
  ParamDict pd;
  pd.set(0, 7);
  pd.set(1, -1);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Reshape", pd), {random_mat(6, 5, 4)}); },
                         {"Reshape", "Reshape_test", "120 elements", "7"}));
  pd.set(1, 9);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Reshape", pd), {random_mat(6, 5, 4)}); }, {"cannot reshape 120"}));
  pd.set(0, -1);
  pd.set(1, -1);
  EXPECT_TRUE(fails_with([&] { make_layer("Reshape", pd); }, {"only one extent"}));
  pd.set(1, -7);
  EXPECT_TRUE(fails_with([&] { make_layer("Reshape", pd); }, {"extent -7"}));
  EXPECT_TRUE(fails_with([&] { make_layer("Reshape", ParamDict()); }, {"needs at least w"}));
}

TEST(DataPermute, EveryOrderMatchesReference) {
  uint32_t seed = 1500;
  for (int order = 0; order < 2; order++)
    LayerTester("Permute").param(0, order).input(random_mat(7, 5, seed++)).tolerance(0.f).test();
  for (int order = 0; order < 6; order++) {
    LayerTester("Permute").param(0, order).input(random_mat(7, 5, 3, seed++)).tolerance(0.f).test();
    LayerTester("Permute").param(0, order).input(random_mat(17, 16, 20, seed++)).tolerance(0.f).test();
  }
  for (int order = 0; order < 24; order++)
    LayerTester("Permute").param(0, order).input(random_mat4(7, 5, 3, 4, seed++)).tolerance(0.f).test();
  LayerTester("Permute").param(0, 3).input(random_mat(9, seed++)).tolerance(0.f).test();
}

TEST(DataPermute, RejectsOrdersTheInputLacks) {
  ParamDict pd;
  pd.set(0, 2);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Permute", pd), {random_mat(4, 5)}); },
                         {"Permute", "order_type 2", "2-D"}));
  pd.set(0, 24);
  EXPECT_TRUE(fails_with([&] { make_layer("Permute", pd); }, {"order_type 24"}));
}

}  // namespace
}  // namespace test
}  // namespace jitconv
