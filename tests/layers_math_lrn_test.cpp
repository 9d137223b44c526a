// LRN across and within channels, odd and even window sizes, non-default alpha/beta/bias.
#include <gtest/gtest.h>

#include <cmath>

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

// A NaN or inf in a window reaches every output whose window holds it, as ncnn's
// x * powf(bias + alpha / n * sum, -beta) gives: NaN stays NaN, an infinite sum scales by 0
// (an infinite x itself: inf * 0 = NaN). log_f of NaN or inf was ~89, a finite factor.
TEST(MathLRN, NonFiniteValuesReachTheirWindows) {
  for (Isa isa : available_isas()) {
    IsaGuard guard(isa);
    for (int region = 0; region <= 1; region++)
      for (float special : {NAN, INFINITY}) {
        SCOPED_TRACE(std::string(isa_name(isa)) + " region " + std::to_string(region) + " value " +
                     std::to_string(special));
        std::unique_ptr<Layer> l = create_layer("LRN");
        ParamDict pd;
        pd.set(0, region);
        pd.set(1, 3);
        pd.set(2, 1.f);
        pd.set(3, 0.75f);
        pd.set(4, 1.f);
        l->load_param(pd);
        Mat plain(3, 3, 8), m, back;  // channel 3, pixel (1, 1) special; the rest 1
        plain.fill(1.f);
        plain.channel(3)[4] = special;
        convert_packing(plain, m, 8, Option());
        l->forward_inplace(m, Option());
        convert_packing(m, back, 1, Option());
        for (int q = 0; q < 8; q++)
          for (int i = 0; i < 9; i++) {
            // Windows holding the special value: channels 2..4 at pixel 4 (across channels),
            // pixels 0..8 of channel 3 (within the channel, a 3x3 window around each).
            const bool reached = region == 0 ? (i == 4 && q >= 2 && q <= 4) : q == 3;
            const float v = back.channel(q)[i];
            if (!reached) {
              EXPECT_TRUE(std::isfinite(v) && v > 0.f) << q << "," << i << ": " << v;
            } else if (std::isnan(special) || (q == 3 && i == 4)) {
              EXPECT_TRUE(std::isnan(v)) << q << "," << i << ": " << v;
            } else {
              EXPECT_EQ(v, 0.f) << q << "," << i;
            }
          }
      }
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
