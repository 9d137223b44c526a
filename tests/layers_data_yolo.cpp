// YoloDetectionOutput (YOLOv2) and Yolov3DetectionOutput against their references on
// random maps, and on hand-made maps whose boxes and scores are worked out here.
#include <cmath>
#include <string>
#include <vector>

#include "tests/layers_data_util.h"

namespace jitconv {
namespace test {
namespace {

// A map with values in [-3, 3], so sigmoids and softmaxes spread out.
Mat random_map(int w, int h, int c, uint32_t seed) {
  Mat m(w, h, c);
  fill_random(m, seed, -3.f, 3.f);
  return m;
}

// A map of zeros with chosen channel values at pixel (x, y).
Mat map_with(int w, int h, int c, int x, int y, const std::vector<std::pair<int, float>>& values) {
  Mat m(w, h, c);
  m.fill(0.f);
  for (const auto& v : values) m.channel(v.first).row(y)[x] = v.second;
  return m;
}

// The reference comparison, plus a check that the case is not vacuous: some boxes survive.
void yolo_case(const std::string& type, const ParamDict& pd, const std::vector<Mat>& maps) {
  LayerTester t(type);
  for (int id : pd.ids()) {
    if (pd.type(id) == ParamDict::Type::int_value) t.param(id, pd.get(id, 0));
    if (pd.type(id) == ParamDict::Type::float_value) t.param(id, pd.get(id, 0.f));
    if (pd.type(id) == ParamDict::Type::float_array) t.param(id, pd.get_floats(id));
  }
  for (const Mat& m : maps) t.input(m);
  t.test();
  EXPECT_GT(forward_layer(*make_layer(type, pd), maps)[0].h, 1);
}

TEST(DataYolo, V2RandomMapsMatchReference) {
  uint32_t seed = 2000;
  for (int num_class : {1, 4, 20}) {
    for (float threshold : {0.05f, 0.3f}) {
      SCOPED_TRACE("classes " + std::to_string(num_class));
      ParamDict pd;
      pd.set(0, num_class);
      pd.set(1, 3);
      pd.set(2, threshold);
      pd.set(3, 0.45f);
      pd.set(4, std::vector<float>{1.08f, 1.19f, 3.42f, 4.41f, 6.63f, 11.38f});
      const int c = 3 * (5 + num_class);
      yolo_case("YoloDetectionOutput", pd, {random_map(13, 9, c, seed), random_map(7, 5, c, seed + 1)});
      seed += 2;
    }
  }
}

TEST(DataYolo, V3RandomMapsMatchReference) {
  uint32_t seed = 2100;
  for (int num_class : {1, 6}) {
    for (float threshold : {0.2f, 0.5f}) {
      ParamDict pd;
      pd.set(0, num_class);
      pd.set(1, 3);
      pd.set(2, threshold);
      pd.set(3, 0.45f);
      pd.set(4, std::vector<float>{10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198, 373, 326});
      pd.set(5, std::vector<float>{6, 7, 8, 3, 4, 5, 0, 1, 2});
      pd.set(6, std::vector<float>{32.f, 16.f, 8.f});
      const int c = 3 * (5 + num_class);
      yolo_case("Yolov3DetectionOutput", pd,
                {random_map(5, 4, c, seed), random_map(10, 8, c, seed + 1), random_map(20, 16, c, seed + 2)});
      seed += 3;
    }
  }
}

TEST(DataYolo, V2HandMadeMap) {
  // One 2x1 map, one box, two classes. Pixel 0: offsets 0 -> centre (0.25, 0.5); size
  // exp(0) * bias / grid = (0.8 / 2, 0.6 / 1); class logits (0, ln 3) -> softmax
  // (1/4, 3/4), so label 2 (background first) and score sigmoid(0) * 3/4 = 0.375.
  // Pixel 1 scores sigmoid(-5) * 1/2 < 0.1: dropped.
  ParamDict pd;
  pd.set(0, 2);
  pd.set(1, 1);
  pd.set(2, 0.1f);
  pd.set(4, std::vector<float>{0.8f, 0.6f});
  Mat map = map_with(2, 1, 7, 0, 0, {{6, std::log(3.f)}});
  map.channel(4).row(0)[1] = -5.f;
  const std::vector<Mat> got = forward_layer(*make_layer("YoloDetectionOutput", pd), {map});
  ASSERT_EQ(got[0].h, 1);
  const float want[6] = {2.f, 0.375f, 0.25f - 0.2f, 0.5f - 0.3f, 0.25f + 0.2f, 0.5f + 0.3f};
  for (int k = 0; k < 6; k++) EXPECT_NEAR(got[0].row(0)[k], want[k], 1e-6) << "column " << k;
}

TEST(DataYolo, V3HandMadeMapAndSuppression) {
  // A 2x2 map at stride 32 (a 64x64 input), anchor 16x32 -> boxes 0.25 x 0.5 at zero
  // offsets. With objectness 0 and best logit 0 ncnn's score is 1 / (1 + 1 * (1 + 1)) = 1/3.
  //   pixel (0,0): centre (0.25, 0.25), score 1/3
  //   pixel (1,0): centre (0.75, 0.25), score 1/3, no overlap with the others
  //   pixel (0,1): y offset -30 -> centre (0.25, 0.5), logit 2 -> the best score; it
  //                overlaps (0,0) by 0.0625 of a 0.1875 union (IoU 1/3 > 0.3)
  //   pixel (1,1): objectness -20, below the threshold
  ParamDict pd;
  pd.set(0, 1);
  pd.set(1, 1);
  pd.set(2, 0.2f);
  pd.set(3, 0.3f);
  pd.set(4, std::vector<float>{16.f, 32.f});
  pd.set(5, std::vector<int>{0});
  pd.set(6, std::vector<float>{32.f});
  Mat map(2, 2, 6);
  map.fill(0.f);
  map.channel(4).row(1)[1] = -20.f;
  map.channel(1).row(1)[0] = -30.f;
  map.channel(5).row(1)[0] = 2.f;
  const std::vector<Mat> got = forward_layer(*make_layer("Yolov3DetectionOutput", pd), {map});
  ASSERT_EQ(got[0].h, 2);
  const float high = 1.f / (1.f + 1.f * (1.f + std::exp(-2.f)));
  const float want[2][6] = {{1.f, high, 0.125f, 0.25f, 0.375f, 0.75f}, {1.f, 1.f / 3, 0.625f, 0.f, 0.875f, 0.5f}};
  for (int r = 0; r < 2; r++)
    for (int k = 0; k < 6; k++) EXPECT_NEAR(got[0].row(r)[k], want[r][k], 1e-6) << "row " << r << " column " << k;
}

// The order ncnn's heads leave n equal scores in: its quicksort (Hoare's partition, the
// middle element as pivot, equal elements swapped across it) applied to candidates 0..n-1.
std::vector<int> ncnn_tie_order(int n) {
  std::vector<int> order(n);
  for (int k = 0; k < n; k++) order[k] = k;
  std::vector<std::pair<int, int>> ranges = {{0, n - 1}};
  while (!ranges.empty()) {
    const auto range = ranges.back();
    ranges.pop_back();
    int i = range.first, j = range.second;
    while (i <= j) std::swap(order[i++], order[j--]);  // all equal: every scan stops at once
    if (range.first < j) ranges.push_back({range.first, j});
    if (i < range.second) ranges.push_back({i, range.second});
  }
  return order;
}

TEST(DataYolo, EqualScoresInNcnnOrder) {
  // Objectness 0 and one class everywhere: every cell of both maps scores 0.5 and no two
  // boxes overlap enough to suppress. Candidates go maps, then rows, then columns; equal
  // scores come out as ncnn's quicksort leaves them (two equal boxes: the second first),
  // which decides what NMS and the top-k cuts keep on quantized heads.
  EXPECT_EQ(ncnn_tie_order(2), (std::vector<int>{1, 0}));
  // By hand: 0123 -> 3210 (i = 2, j = 1), then each half swapped: 2301.
  EXPECT_EQ(ncnn_tie_order(4), (std::vector<int>{2, 3, 0, 1}));
  ParamDict pd;
  pd.set(0, 1);
  pd.set(1, 1);
  pd.set(4, std::vector<float>{0.5f, 0.5f});
  Mat a(4, 4, 6), b(2, 2, 6);
  a.fill(0.f);
  b.fill(0.f);
  const std::vector<Mat> got = forward_layer(*make_layer("YoloDetectionOutput", pd), {a, b});
  ASSERT_EQ(got[0].h, 20);
  const std::vector<int> order = ncnn_tie_order(20);
  for (int r = 0; r < 20; r++) {
    const int candidate = order[r];
    const int grid = candidate < 16 ? 4 : 2, cell = candidate < 16 ? candidate : candidate - 16;
    const float half = 0.25f / grid;
    EXPECT_EQ(got[0].row(r)[1], 0.5f);
    EXPECT_NEAR(got[0].row(r)[2], (cell % grid + 0.5f) / grid - half, 1e-6) << "row " << r;
    EXPECT_NEAR(got[0].row(r)[3], (cell / grid + 0.5f) / grid - half, 1e-6) << "row " << r;
  }
}

// The map with `spare` more channels of noise after the boxes' channels.
Mat with_spare_channels(const Mat& map, int spare, uint32_t seed) {
  Mat wider = random_map(map.w, map.h, map.c + spare, seed);
  for (int q = 0; q < map.c; q++)
    for (int i = 0; i < map.w * map.h; i++) wider.channel(q)[i] = map.channel(q)[i];
  return wider;
}

TEST(DataYolo, SpareChannelsAfterTheBoxesAreNotRead) {
  // ncnn checks channels / num_box == 5 + num_class, so up to num_box - 1 spare channels
  // pass and are ignored; jitconv refused them.
  ParamDict v2;
  v2.set(0, 4);
  v2.set(1, 3);
  v2.set(2, 0.05f);
  v2.set(4, std::vector<float>{1.08f, 1.19f, 3.42f, 4.41f, 6.63f, 11.38f});
  ParamDict v3;
  v3.set(0, 4);
  v3.set(1, 3);
  v3.set(2, 0.2f);
  v3.set(4, std::vector<float>{10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119});
  v3.set(5, std::vector<float>{3, 0, 1, 2, 0, 1});
  v3.set(6, std::vector<float>{32.f, 16.f});
  for (const char* type : {"YoloDetectionOutput", "Yolov3DetectionOutput"}) {
    SCOPED_TRACE(type);
    const ParamDict& pd = std::string(type) == "YoloDetectionOutput" ? v2 : v3;
    const std::vector<Mat> maps = {random_map(5, 4, 27, 71), random_map(10, 8, 27, 72)};
    const Mat want = forward_layer(*make_layer(type, pd), maps)[0];
    ASSERT_GT(want.h, 1);
    for (int spare : {1, 2}) {
      const Mat got =
          forward_layer(*make_layer(type, pd), {with_spare_channels(maps[0], spare, 73), with_spare_channels(maps[1], spare, 74)})[0];
      ASSERT_EQ(got.w, want.w);
      ASSERT_EQ(got.h, want.h);
      for (int i = 0; i < want.w * want.h; i++) EXPECT_EQ(got[i], want[i]) << "spare " << spare << " value " << i;
    }
  }
}

TEST(DataYolo, RejectsBadMaps) {
  ParamDict pd;
  pd.set(0, 2);
  pd.set(1, 2);
  pd.set(4, std::vector<float>{1, 1, 2, 2});
  // ncnn's test: channels / num_box == 5 + num_class (15 / 2 passes, 16 / 2 and 13 / 2 not).
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("YoloDetectionOutput", pd), {random_map(4, 4, 16, 1)}); },
                         {"YoloDetectionOutput", "16 channels", "need 14"}));
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("YoloDetectionOutput", pd), {random_map(4, 4, 13, 1)}); },
                         {"13 channels"}));
  pd.set(4, std::vector<float>{1, 1});
  EXPECT_TRUE(fails_with([&] { make_layer("YoloDetectionOutput", pd); }, {"2 boxes need 4 biases"}));
  // num_box * (5 + num_class) channels past INT_MAX (an int product; found by fuzzing).
  ParamDict huge;
  huge.set(0, 1);
  huge.set(1, 1073741824);
  EXPECT_TRUE(fails_with([&] { make_layer("YoloDetectionOutput", huge); }, {"channels exceed 2147483647"}));
  huge.set(0, 2147483647);
  huge.set(1, 1);
  EXPECT_TRUE(fails_with([&] { make_layer("Yolov3DetectionOutput", huge); }, {"channels exceed 2147483647"}));
  ParamDict v3;
  v3.set(0, 1);
  v3.set(1, 1);
  v3.set(4, std::vector<float>{16, 32});
  v3.set(5, std::vector<int>{1});
  EXPECT_TRUE(fails_with([&] { make_layer("Yolov3DetectionOutput", v3); }, {"mask[0] = 1"}));
  v3.set(5, std::vector<int>{0});
  v3.set(6, std::vector<float>{32.f});
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Yolov3DetectionOutput", v3), {random_map(2, 2, 6, 1), random_map(2, 2, 6, 2)}); },
                         {"2 maps need 2 mask entries"}));
  v3.set(6, std::vector<float>{0.1f});
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("Yolov3DetectionOutput", v3), {random_map(2, 2, 6, 1)}); },
                         {"anchors_scale[0]"}));
}

}  // namespace
}  // namespace test
}  // namespace jitconv
