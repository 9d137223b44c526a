// PriorBox against its reference (which computes each prior directly in double) over
// Caffe-style and MXNet-style parameters, plus priors worked out by hand.
#include <cmath>
#include <vector>

#include "tests/layers_data_util.h"

namespace jitconv {
namespace test {
namespace {

TEST(DataPriorBox, CaffeStyleMatchesReference) {
  struct Case {
    std::vector<float> min_sizes, max_sizes, ratios;
    int flip, clip, step_mm, center_mm;
    float step, offset;
    bool image_from_input;
  };
  const std::vector<Case> cases = {
      {{30.f}, {60.f}, {2.f}, 1, 0, 0, 0, -233.f, 0.5f, true},
      {{30.f, 45.f}, {60.f, 90.f}, {2.f, 3.f}, 1, 1, 0, 0, -233.f, 0.5f, false},
      {{20.f}, {}, {2.f, 0.5f}, 0, 0, 0, 0, 16.f, 0.f, true},
      {{12.f, 24.f}, {}, {}, 0, 1, 1, 0, -233.f, 0.5f, false},
      {{8.f}, {16.f}, {3.f}, 1, 0, 1, 1, -233.f, 0.5f, true},
  };
  uint32_t seed = 1600;
  for (const Case& k : cases) {
    for (const std::vector<int>& map : std::vector<std::vector<int>>{{5, 3}, {19, 19}, {1, 1}}) {
      LayerTester t("PriorBox");
      t.param(0, k.min_sizes).param(2, k.ratios).param(7, k.flip).param(8, k.clip);
      if (!k.max_sizes.empty()) t.param(1, k.max_sizes);
      t.param(3, 0.1f).param(4, 0.15f).param(5, 0.2f).param(6, 0.25f);
      t.param(11, k.step).param(12, k.step).param(13, k.offset).param(14, k.step_mm).param(15, k.center_mm);
      t.input(random_mat(map[0], map[1], 8, seed++));
      if (k.image_from_input) {
        t.param(9, -233).param(10, -233).input(random_mat(300, 200, 3, seed++));
      } else {
        t.param(9, 320).param(10, 256);
      }
      t.test();
    }
  }
}

TEST(DataPriorBox, MxnetStyleMatchesReference) {
  for (const std::vector<int>& map : std::vector<std::vector<int>>{{6, 4}, {10, 10}}) {
    LayerTester("PriorBox")
        .param(0, std::vector<float>{0.2f, 0.27f})
        .param(2, std::vector<float>{1.f, 2.f, 0.5f})
        .param(9, -233)
        .param(10, -233)
        .param(13, 0.5f)
        .param(8, 1)
        .input(random_mat(map[0], map[1], 4, 1700u))
        .test();
  }
}

TEST(DataPriorBox, OneCellByHand) {
  // A 1x1 map over a 300x300 image: the single cell is centred at (150, 150).
  ParamDict pd;
  pd.set(0, std::vector<float>{30.f});
  pd.set(1, std::vector<float>{60.f});
  pd.set(2, std::vector<float>{2.f});
  pd.set(9, 300);
  pd.set(10, 300);
  pd.set(13, 0.5f);
  const std::vector<Mat> got = forward_layer(*make_layer("PriorBox", pd), {random_mat(1, 1, 4, 1701u)});
  ASSERT_EQ(got[0].w, 16);  // min, max, ratio 2, its flip
  ASSERT_EQ(got[0].h, 2);
  const double half_max = std::sqrt(30.0 * 60.0) / 2, half_wide = 15 * std::sqrt(2.0), half_low = 15 / std::sqrt(2.0);
  const double want[16] = {135, 135, 165, 165,
                           150 - half_max, 150 - half_max, 150 + half_max, 150 + half_max,
                           150 - half_wide, 150 - half_low, 150 + half_wide, 150 + half_low,
                           150 - half_low, 150 - half_wide, 150 + half_low, 150 + half_wide};
  for (int i = 0; i < 16; i++) {
    EXPECT_NEAR(got[0].row(0)[i], want[i] / 300, 1e-6) << "coordinate " << i;
    EXPECT_FLOAT_EQ(got[0].row(1)[i], i % 4 < 2 ? 0.1f : 0.2f) << "variance " << i;
  }
}

TEST(DataPriorBox, RejectsBadParameters) {
  ParamDict pd;
  EXPECT_TRUE(fails_with([&] { make_layer("PriorBox", pd); }, {"PriorBox", "min_sizes"}));
  pd.set(0, std::vector<float>{30.f, 40.f});
  pd.set(1, std::vector<float>{60.f});
  EXPECT_TRUE(fails_with([&] { make_layer("PriorBox", pd); }, {"1 max_sizes for 2 min_sizes"}));
  pd.erase(1);
  pd.set(9, -233);
  pd.set(10, 300);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("PriorBox", pd), {random_mat(5, 5, 4)}); }, {"second input"}));
  pd.set(9, 0);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("PriorBox", pd), {random_mat(5, 5, 4)}); }, {"image size 0x300"}));
}

}  // namespace
}  // namespace test
}  // namespace jitconv
