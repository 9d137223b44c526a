// ShuffleChannel, Flatten, Split, Dropout, Noop, Input and MemoryData against their
// references, on packed and plain inputs.
#include <vector>

#include "tests/layers_data_util.h"

namespace jitconv {
namespace test {
namespace {

TEST(DataShuffleChannel, MatchesReference) {
  uint32_t seed = 800;
  for (int channels : {4, 6, 12, 16, 24, 48, 58, 116, 232}) {
    for (int group : {1, 2, 3, 4, 8}) {
      if (channels % group != 0) continue;
      for (int reverse : {0, 1}) {
        SCOPED_TRACE("channels " + std::to_string(channels) + " group " + std::to_string(group));
        LayerTester("ShuffleChannel").param(0, group).param(1, reverse).input(random_mat(7, 5, channels, seed++)).tolerance(0.f).test();
      }
    }
  }
  LayerTester("ShuffleChannel").param(0, 4).input(random_mat4(5, 3, 2, 32, seed++)).tolerance(0.f).test();
  // Two groups of packed channels take the paired gather (two sources a shuffle, eight
  // lanes at a time, the last pixels one by one): 1-4 pixels, halves starting mid-pack
  // (116 at pack 4, 24 and 232 at pack 8), a lone pixel group.
  for (int channels : {12, 24, 116, 232})
    for (int pixels : {1, 2, 3, 4})
      LayerTester("ShuffleChannel").param(0, 2).input(random_mat(pixels, 1, channels, seed++)).tolerance(0.f).test();
}

TEST(DataShuffleChannel, RejectsBadGroups) {
  ParamDict pd;
  pd.set(0, 5);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("ShuffleChannel", pd), {random_mat(4, 4, 24)}); },
                         {"ShuffleChannel", "24 channels", "5 groups"}));
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("ShuffleChannel", pd), {random_mat(4, 25)}); }, {"dims 2"}));
  pd.set(0, 0);
  EXPECT_TRUE(fails_with([&] { make_layer("ShuffleChannel", pd); }, {"group must be positive"}));
}

TEST(DataFlatten, MatchesReference) {
  uint32_t seed = 900;
  for (int channels : {1, 3, 8, 16, 20, 48}) {
    LayerTester("Flatten").input(random_mat(7, 5, channels, seed++)).tolerance(0.f).test();
    LayerTester("Flatten").input(random_mat4(3, 5, 2, channels, seed++)).tolerance(0.f).test();
    LayerTester("Flatten").input(random_mat(9, channels, seed++)).tolerance(0.f).test();
    LayerTester("Flatten").input(random_mat(channels * 4, seed++)).tolerance(0.f).test();
  }
}

TEST(DataSplit, EveryTopSharesTheInput) {
  for (int outputs : {1, 2, 5}) LayerTester("Split").outputs(outputs).input(random_mat(7, 5, 16, 1000)).tolerance(0.f).test();
  const Mat in = packed(random_mat(6, 4, 32, 1001), 16);
  const std::vector<Mat> got = forward_layer(*make_layer("Split", ParamDict(), 3), {in});
  ASSERT_EQ(got.size(), 3u);
  for (const Mat& top : got) {
    EXPECT_EQ(top.data, in.data);
    EXPECT_EQ(top.elempack, 16);
  }
}

TEST(DataDropout, ScalesEveryScalar) {
  uint32_t seed = 1100;
  for (float scale : {1.f, 0.5f, -3.25f}) {
    LayerTester("Dropout").param(0, scale).input(random_mat(7, 5, 24, seed++)).tolerance(0.f).test();
    LayerTester("Dropout").param(0, scale).input(random_mat4(3, 5, 2, 19, seed++)).tolerance(0.f).test();
    LayerTester("Dropout").param(0, scale).input(random_mat(9, 32, seed++)).tolerance(0.f).test();
    LayerTester("Dropout").param(0, scale).input(random_mat(48, seed++)).tolerance(0.f).test();
  }
}

TEST(DataNoopInput, PassThrough) {
  LayerTester("Noop").input(random_mat(7, 5, 24, 1200)).input(random_mat(3, 8, 1201u)).tolerance(0.f).test();
  LayerTester("Input").param(0, 7).param(1, 5).param(2, 24).input(random_mat(7, 5, 24, 1202)).tolerance(0.f).test();
  ParamDict pd;
  pd.set(2, -3);
  EXPECT_TRUE(fails_with([&] { make_layer("Input", pd); }, {"Input", "negative shape"}));
}

TEST(DataMemoryData, OutputsItsWeights) {
  LayerTester("MemoryData").param(0, 7).param(1, 5).param(2, 12).weight(random_mat(7 * 5 * 12, 1300u)).tolerance(0.f).test();
  LayerTester("MemoryData").param(0, 4).param(1, 3).param(11, 2).param(2, 5).weight(random_mat(120, 1301u)).tolerance(0.f).test();
  LayerTester("MemoryData").param(0, 9).param(1, 2).weight(random_mat(18, 1302u)).tolerance(0.f).test();
  LayerTester("MemoryData").param(0, 33).weight(random_mat(33, 1303u)).tolerance(0.f).test();
  // The output is a copy: changing it leaves the next forward's output alone.
  ParamDict pd;
  pd.set(0, 4);
  std::unique_ptr<Layer> layer = make_layer("MemoryData", pd, 1, {random_mat(4, 1304u)});
  std::vector<Mat> first = forward_layer(*layer, {});
  const float before = first[0][0];
  first[0][0] = before + 1.f;
  EXPECT_EQ(forward_layer(*layer, {})[0][0], before);
}

TEST(DataMemoryData, RejectsBadShapes) {
  ParamDict pd;
  pd.set(0, -4);
  EXPECT_TRUE(fails_with([&] { make_layer("MemoryData", pd); }, {"MemoryData", "negative shape"}));
  pd.set(0, 4);
  pd.set(21, 7);
  EXPECT_TRUE(fails_with([&] { make_layer("MemoryData", pd, 1, {random_mat(4)}); }, {"load type"}));
  pd.set(21, 1);
  EXPECT_TRUE(fails_with([&] { make_layer("MemoryData", pd, 1, {random_mat(5)}); }, {"5 values, 4 requested"}));
}

}  // namespace
}  // namespace test
}  // namespace jitconv
