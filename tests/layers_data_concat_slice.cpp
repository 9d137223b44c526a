// Concat and Slice against their references: every dims, every axis (positive and
// negative), outer-axis sizes that do and do not divide by 4/8/16, every input elempack.
#include <vector>

#include "tests/layers_data_util.h"

namespace jitconv {
namespace test {
namespace {

// Extents by ncnn axis for a `dims`-D blob whose axis `axis` has length `along`.
std::vector<int> extents(int dims, int axis, int along, int outer) {
  static const int kInner[4] = {0, 7, 5, 3};  // odd inner sizes: w, h, d in turn
  std::vector<int> len(dims);
  len[0] = outer;
  for (int a = 1; a < dims; a++) len[a] = kInner[dims - a];
  len[axis] = along;
  return len;
}

TEST(DataConcat, EveryAxisMatchesReference) {
  // {58, 58}: ShuffleNet v2's pack-1 halves into a pack-4 blob; {6, 10, 16}: pieces that
  // cross destination groups.
  const std::vector<std::vector<int>> piece_sets = {{4, 8}, {3, 5, 8}, {16, 32, 1}, {12, 4, 17}, {58, 58}, {6, 10, 16}};
  uint32_t seed = 1;
  for (int dims = 1; dims <= 4; dims++) {
    for (int axis = -dims; axis < dims; axis++) {
      const int positive = axis < 0 ? axis + dims : axis;
      for (const std::vector<int>& pieces : piece_sets) {
        for (int outer : {3, 16}) {
          if (positive == 0 && outer != 3) continue;  // the outer extent is the pieces
          LayerTester t("Concat");
          t.param(0, axis).tolerance(0.f);
          for (int along : pieces) t.input(random_axes(extents(dims, positive, along, outer), seed++));
          SCOPED_TRACE("dims " + std::to_string(dims) + " axis " + std::to_string(axis));
          t.test();
        }
      }
    }
  }
}

TEST(DataConcat, LargeBlobsSplitAcrossThreads) {
  // Big enough (over 64 KiB a copy) that the copies run on several threads.
  LayerTester("Concat").param(0, 0).threads(4).input(random_mat(40, 33, 24, 60u)).input(random_mat(40, 33, 13, 61u)).tolerance(0.f).test();
  LayerTester("Slice").param(0, std::vector<int>{13, -233}).outputs(2).threads(4).input(random_mat(40, 33, 37, 62u)).tolerance(0.f).test();
  LayerTester("ShuffleChannel").param(0, 2).threads(4).input(random_mat(40, 33, 48, 63u)).tolerance(0.f).test();
}

TEST(DataConcat, SingleInputPassesThrough) {
  LayerTester("Concat").param(0, 0).input(random_mat(5, 4, 24)).tolerance(0.f).test();
}

TEST(DataConcat, MixedElempacksOnEveryAxis) {
  // Inputs packed 16, 8, 4 and 1 at once: the layer picks one output layout.
  for (int axis = 0; axis < 3; axis++) {
    std::vector<Mat> plain, mixed;
    const int packs[4] = {16, 8, 4, 1};
    for (int i = 0; i < 4; i++) {
      const int channels = axis == 0 ? 16 + 8 * i : 16;
      plain.push_back(random_mat(6 + (axis == 2 ? i : 0), 5 + (axis == 1 ? i : 0), channels, 90 + i));
      mixed.push_back(packed(plain.back(), packs[i]));
      ASSERT_EQ(mixed.back().elempack, packs[i]);
    }
    ParamDict pd;
    pd.set(0, axis);
    std::unique_ptr<Layer> ref = create_reference_layer("Concat");
    ref->load_param(pd);
    std::vector<Mat> want;
    ref->forward(plain, want, Option());
    const std::vector<Mat> got = forward_layer(*make_layer("Concat", pd), mixed);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(same_blob(got[0], want[0])) << "axis " << axis;
  }
}

TEST(DataConcat, RejectsMismatchedInputs) {
  ParamDict pd;
  pd.set(0, 1);
  std::unique_ptr<Layer> concat = make_layer("Concat", pd);
  EXPECT_TRUE(fails_with([&] { forward_layer(*concat, {random_mat(5, 4, 8), random_mat(5, 4, 9)}); },
                         {"Concat", "Concat_test", "input 1", "every axis but 1"}));
  EXPECT_TRUE(fails_with([&] { forward_layer(*concat, {random_mat(5, 4, 8), random_mat(5, 8)}); }, {"dims"}));
  pd.set(0, 3);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Concat", pd), {random_mat(5, 4, 8)}); }, {"axis 3"}));
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Concat", pd), {}); }, {"at least one input"}));
}

TEST(DataSlice, SlicesMatchReference) {
  struct Case {
    std::vector<int> slices;
    int total;
  };
  const std::vector<Case> cases = {{{4, 8, 4}, 16}, {{3, -233, -233}, 20}, {{-233, -233}, 48}, {{5, 11}, 17},
                                   {{16, -233}, 37}, {{1, 1, -233}, 9},
                                   // packed sources into pack-1 pieces at unaligned lanes
                                   {{-233, -233}, 116}, {{6, 10, -233}, 64}, {{3, 58, -233}, 96}};
  uint32_t seed = 100;
  for (int dims = 1; dims <= 4; dims++) {
    for (int axis = -dims; axis < dims; axis++) {
      const int positive = axis < 0 ? axis + dims : axis;
      for (const Case& c : cases) {
        SCOPED_TRACE("dims " + std::to_string(dims) + " axis " + std::to_string(axis) + " total " + std::to_string(c.total));
        LayerTester("Slice")
            .param(0, c.slices)
            .param(1, axis)
            .outputs(static_cast<int>(c.slices.size()))
            .input(random_axes(extents(dims, positive, c.total, 12), seed++))
            .tolerance(0.f)
            .test();
      }
    }
  }
}

TEST(DataSlice, IndicesMatchReference) {
  uint32_t seed = 200;
  for (int dims = 1; dims <= 4; dims++) {
    for (int axis = 0; axis < dims; axis++) {
      for (const std::vector<int>& indices : std::vector<std::vector<int>>{{8}, {3, -4}, {16, 20, 21}}) {
        LayerTester("Slice")
            .param(2, indices)
            .param(1, axis)
            .outputs(static_cast<int>(indices.size()) + 1)
            .input(random_axes(extents(dims, axis, 24, 8), seed++))
            .tolerance(0.f)
            .test();
      }
    }
  }
}

TEST(DataSlice, OutputCountFollowsTheTops) {
  // Three slice lengths but two tops: -233 shares what is left between the two.
  LayerTester("Slice").param(0, std::vector<int>{5, -233, 7}).outputs(2).input(random_mat(4, 3, 21)).tolerance(0.f).test();
  ParamDict pd;
  pd.set(0, std::vector<int>{5, -233});
  const std::vector<Mat> got = forward_layer(*make_layer("Slice", pd), {random_mat(4, 3, 21)});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].c * got[1].elempack, 16);
}

TEST(DataSlice, RejectsBadSlices) {
  ParamDict pd;
  pd.set(0, std::vector<int>{8, 9});
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Slice", pd), {random_mat(4, 3, 16)}); },
                         {"Slice", "piece 1", "of an axis of 16"}));
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Slice", pd, 3), {random_mat(4, 3, 16)}); },
                         {"3 outputs requested"}));
  pd.set(0, std::vector<int>{0, -233});
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Slice", pd), {random_mat(4, 3, 16)}); }, {"piece 0"}));
  pd.set(1, -4);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Slice", pd), {random_mat(4, 3, 16)}); }, {"axis -4"}));
  EXPECT_TRUE(fails_with([&] { make_layer("Slice", ParamDict()); }, {"slices (param 0)"}));
}

}  // namespace
}  // namespace test
}  // namespace jitconv
