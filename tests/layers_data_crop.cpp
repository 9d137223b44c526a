// Crop against its reference in each of ncnn's forms: offsets with sizes (-233 = the
// rest) and far-end offsets, numpy starts/ends/axes, a reference blob, and a blob of
// int32 parameters; on every dims, channel ranges aligned and not aligned to the packs.
#include <vector>

#include "tests/layers_data_util.h"

namespace jitconv {
namespace test {
namespace {

// ncnn param ids of the offset / size / far-offset of w, h, d, c.
constexpr int kOffset[4] = {0, 1, 13, 2};
constexpr int kOut[4] = {3, 4, 14, 5};
constexpr int kOffset2[4] = {6, 7, 15, 8};

struct Named {
  int w, h, d, c;
  int operator[](int i) const { return i == 0 ? w : i == 1 ? h : i == 2 ? d : c; }
};

Mat input_for(int dims, int channels, uint32_t seed) {
  switch (dims) {
    case 1: return random_mat(channels, seed);
    case 2: return random_mat(11, channels, seed);
    case 3: return random_mat(11, 9, channels, seed);
    default: return random_mat4(11, 9, 5, channels, seed);
  }
}

TEST(DataCrop, OffsetsAndSizesMatchReference) {
  // offsets, sizes and far-end offsets for (w, h, d, c); the outermost axis of a 1-D /
  // 2-D blob (w / h) is its packed one, so those cases reuse the c numbers there.
  struct Case {
    Named offset, out, offset2;
  };
  const std::vector<Case> cases = {
      {{1, 2, 1, 4}, {5, 3, 2, 8}, {0, 0, 0, 0}},              // aligned channel window
      {{0, 0, 0, 3}, {-233, -233, -233, 13}, {0, 0, 0, 0}},    // misaligned, spatial kept
      {{2, 1, 0, 0}, {7, -233, -233, -233}, {0, 0, 0, 0}},     // all channels, spatial cut
      {{2, 0, 1, 1}, {-233, -233, -233, -233}, {3, 2, 1, 2}},  // far-end offsets
      {{0, 0, 0, 16}, {100, 100, 100, 100}, {0, 0, 0, 0}},     // sizes clamp to what is left
      {{10, 8, 4, 23}, {1, 1, 1, 1}, {0, 0, 0, 0}},            // the last scalar
  };
  uint32_t seed = 300;
  for (int dims = 1; dims <= 4; dims++) {
    for (int channels : {24, 48, 29}) {
      for (size_t i = 0; i < cases.size(); i++) {
        const Case& k = cases[i];
        LayerTester t("Crop");
        // The packed axis (w for 1-D, h for 2-D, c otherwise) takes the c numbers.
        const int outer = dims == 1 ? 0 : dims == 2 ? 1 : 3;
        for (int n = 0; n < 4; n++) {
          const int from = n == outer ? 3 : n == 3 ? outer : n;
          t.param(kOffset[n], k.offset[from]).param(kOut[n], k.out[from]).param(kOffset2[n], k.offset2[from]);
        }
        SCOPED_TRACE("dims " + std::to_string(dims) + " channels " + std::to_string(channels) + " case " + std::to_string(i));
        t.input(input_for(dims, channels, seed++)).tolerance(0.f).test();
      }
    }
  }
}

TEST(DataCrop, NumpyStyleMatchesReference) {
  struct Case {
    std::vector<int> starts, ends, axes;
  };
  const std::vector<Case> cases = {
      {{2}, {-1}, {-1}},                         // innermost axis, end from the far end
      {{-233, 3}, {7, -233}, {0, 1}},            // open ends
      {{5, 1}, {21, 0}, {0, -2}},                // end 0 means the full extent (ncnn)
      {{4, 0, 0, 0}, {20, 100, 100, 100}, {}},   // no axes: every axis in order
      {{-8}, {1000}, {0}},                       // negative start, end beyond the size
  };
  uint32_t seed = 400;
  for (int dims = 2; dims <= 4; dims++) {
    for (int channels : {24, 29}) {
      for (const Case& k : cases) {
        LayerTester t("Crop");
        std::vector<int> starts = k.starts, ends = k.ends;
        if (k.axes.empty()) {  // one start / end per axis of this dims
          starts.resize(dims, 0);
          ends.resize(dims, 100);
        }
        t.param(9, starts).param(10, ends);
        if (!k.axes.empty()) t.param(11, k.axes);
        t.input(input_for(dims, channels, seed++)).tolerance(0.f).test();
      }
    }
  }
  LayerTester("Crop").param(9, std::vector<int>{3}).param(10, std::vector<int>{-2}).input(random_mat(32, 401u)).tolerance(0.f).test();
}

TEST(DataCrop, ReferenceBlobMatchesReference) {
  // Reference of the same dims: its channels count; of fewer dims: channels stay.
  LayerTester("Crop").param(0, 2).param(1, 1).param(2, 4).input(random_mat(11, 9, 24, 501u)).input(random_mat(6, 5, 16, 502u)).tolerance(0.f).test();
  LayerTester("Crop").param(0, 1).param(2, 3).input(random_mat(11, 9, 29, 503u)).input(random_mat(7, 8, 20, 504u)).tolerance(0.f).test();
  LayerTester("Crop").param(0, 3).param(1, 2).input(random_mat(11, 9, 24, 505u)).input(random_mat(5, 4, 506u)).tolerance(0.f).test();
  LayerTester("Crop").param(0, 1).param(1, 2).param(13, 1).param(2, 8).input(random_mat4(11, 9, 5, 32, 507u)).input(random_mat4(4, 3, 2, 16, 508u)).tolerance(0.f).test();
  LayerTester("Crop").param(0, 0).param(1, 4).input(random_mat(9, 20, 509u)).input(random_mat(9, 16, 510u)).tolerance(0.f).test();
  LayerTester("Crop").param(0, 5).input(random_mat(40, 511u)).input(random_mat(16, 512u)).tolerance(0.f).test();
}

TEST(DataCrop, ParameterBlobMatchesReference) {
  // woffset -233: the second blob holds int32 offsets then sizes (w, h, c for 3-D).
  Mat params(6);
  const int values[6] = {2, 1, 3, 5, 4, 9};
  for (int i = 0; i < 6; i++) static_cast<int*>(params.data)[i] = values[i];
  LayerTester("Crop").param(0, -233).input(random_mat(11, 9, 24, 600)).input(params).tolerance(0.f).test();
  Mat params4(8);
  const int values4[8] = {1, 2, 1, 8, 6, 5, 3, 16};
  for (int i = 0; i < 8; i++) static_cast<int*>(params4.data)[i] = values4[i];
  LayerTester("Crop").param(0, -233).input(random_mat4(11, 9, 5, 32, 601)).input(params4).tolerance(0.f).test();
}

TEST(DataCrop, WholeInputIsShared) {
  ParamDict pd;
  for (int n = 0; n < 4; n++) pd.set(kOut[n], -233);
  const Mat in = packed(random_mat(7, 5, 32, 700), 8);
  const std::vector<Mat> got = forward_layer(*make_layer("Crop", pd), {in});
  EXPECT_EQ(got[0].data, in.data);
}

TEST(DataCrop, RejectsBoxesOutsideTheInput) {
  ParamDict pd;
  pd.set(2, 30);
  pd.set(5, 8);
  pd.set(3, -233);
  pd.set(4, -233);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Crop", pd), {random_mat(7, 5, 24)}); },
                         {"Crop", "Crop_test", "along c", "does not fit the input's 24"}));
  pd.set(2, 0);
  pd.set(4, 0);  // an explicit size of 0 is no crop at all
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Crop", pd), {random_mat(7, 5, 24)}); }, {"along h"}));
  ParamDict numpy;
  numpy.set(9, std::vector<int>{9});
  numpy.set(10, std::vector<int>{4});
  numpy.set(11, std::vector<int>{-1});
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Crop", numpy), {random_mat(7, 5, 24)}); }, {"along w"}));
  numpy.set(11, std::vector<int>{3});
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Crop", numpy), {random_mat(7, 5, 24)}); }, {"axes[0] = 3"}));
  numpy.set(11, std::vector<int>{0, 1});
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Crop", numpy), {random_mat(7, 5, 24)}); }, {"2 axes", "1 starts"}));
  ParamDict reference;
  reference.set(0, 2);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Crop", reference), {random_mat(7, 5, 24)}); }, {"expects 2 inputs"}));
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Crop", reference), {random_mat(7, 5, 24), random_mat(6, 5, 24)}); },
                         {"along w"}));
  reference.set(0, -233);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Crop", reference), {random_mat(7, 5, 24), random_mat(3)}); },
                         {"int32 crop parameters"}));
}

}  // namespace
}  // namespace test
}  // namespace jitconv
