// DetectionOutput (the SSD head) against its reference on random heads, and on hand-made
// priors whose decoded boxes, suppression and order are worked out here.
#include <cmath>
#include <vector>

#include "tests/layers_data_util.h"

namespace jitconv {
namespace test {
namespace {

// num_prior boxes of random centre and size inside [0, 1], as a PriorBox output would be.
Mat random_priors(int num_prior, uint32_t seed, bool with_variances) {
  const std::vector<float> v = random_vector(num_prior * 4, seed, 0.f, 1.f);
  Mat priors = with_variances ? Mat(num_prior * 4, 2) : Mat(4, num_prior);
  for (int i = 0; i < num_prior; i++) {
    const float cx = v[i * 4], cy = v[i * 4 + 1], w = 0.05f + 0.3f * v[i * 4 + 2], h = 0.05f + 0.3f * v[i * 4 + 3];
    float* box = static_cast<float*>(priors.data) + i * 4;
    box[0] = cx - w / 2;
    box[1] = cy - h / 2;
    box[2] = cx + w / 2;
    box[3] = cy + h / 2;
    if (with_variances) {
      const float variances[4] = {0.1f, 0.1f, 0.2f, 0.2f};
      for (int k = 0; k < 4; k++) priors.row(1)[i * 4 + k] = variances[k];
    }
  }
  return priors;
}

Mat random_blob(int w, int h, uint32_t seed, float lo, float hi) {
  Mat m(w, h);
  fill_random(m, seed, lo, hi);
  return m;
}

TEST(DataDetectionOutput, RandomHeadsMatchReference) {
  struct Case {
    int num_class, nms_top_k, keep_top_k;
    float nms, confidence;
  };
  const std::vector<Case> cases = {
      {5, 300, 100, 0.45f, 0.5f}, {3, 10, 15, 0.3f, 0.2f}, {21, -1, -1, 0.6f, 0.8f},
      {4, 5, 3, 0.45f, 0.1f},     {2, 300, 100, 0.0f, 0.9f},
  };
  uint32_t seed = 1800;
  int nonempty = 0;
  for (const Case& k : cases) {
    for (int num_prior : {1, 37, 200}) {
      SCOPED_TRACE("classes " + std::to_string(k.num_class) + " priors " + std::to_string(num_prior));
      const Mat location = random_mat(num_prior * 4, seed);
      const Mat confidence = random_blob(k.num_class * num_prior, 1, seed + 1, 0.f, 1.f).reshape(k.num_class * num_prior);
      const Mat priors = random_priors(num_prior, seed + 2, true);
      seed += 3;
      LayerTester t("DetectionOutput");
      t.param(0, k.num_class).param(1, k.nms).param(2, k.nms_top_k).param(3, k.keep_top_k).param(4, k.confidence);
      t.input(location).input(confidence).input(priors).test();
      ParamDict pd;
      pd.set(0, k.num_class);
      pd.set(1, k.nms);
      pd.set(2, k.nms_top_k);
      pd.set(3, k.keep_top_k);
      pd.set(4, k.confidence);
      nonempty += forward_layer(*make_layer("DetectionOutput", pd), {location, confidence, priors})[0].h > 1;
    }
  }
  EXPECT_GE(nonempty, 8) << "most random heads should detect several boxes";
  // Quantized scores (an int8 head): ties everywhere, decided by ncnn's sort order.
  for (int num_prior : {37, 200}) {
    SCOPED_TRACE("quantized scores, priors " + std::to_string(num_prior));
    Mat confidence(4 * num_prior);
    const std::vector<float> raw = random_vector(4 * num_prior, 1950u + num_prior, 0.f, 1.f);
    for (int i = 0; i < 4 * num_prior; i++) confidence[i] = std::round(raw[i] * 8.f) / 8.f;
    LayerTester t("DetectionOutput");
    t.param(0, 4).param(1, 0.3f).param(2, 40).param(3, 25).param(4, 0.3f);
    t.input(random_mat(num_prior * 4, 1960u + num_prior)).input(confidence).input(random_priors(num_prior, 1970u, true));
    t.test();
  }
  // Location and confidence as 3-D blobs with channel padding, as a Permute/Flatten-free
  // converter may leave them.
  LayerTester("DetectionOutput")
      .param(0, 3)
      .param(4, 0.3f)
      .input(random_mat(4, 5, 3, 1900u))
      .input(random_blob(45, 1, 1901u, 0.f, 1.f).reshape(3, 3, 5))
      .input(random_priors(15, 1902u, true))
      .test();
}

TEST(DataDetectionOutput, MxnetLayoutMatchesReference) {
  // num_class -233: scores [num_class][num_prior], priors [num_prior][4], variances from params.
  for (int num_prior : {9, 120}) {
    LayerTester("DetectionOutput")
        .param(0, -233)
        .param(4, 0.4f)
        .param(5, 0.12f)
        .param(8, 0.25f)
        .input(random_mat(num_prior * 4, 1950u))
        .input(random_blob(num_prior, 6, 1951u, 0.f, 1.f))
        .input(random_priors(num_prior, 1952u, false))
        .test();
  }
}

TEST(DataDetectionOutput, HandMadeHead) {
  // Three priors; the third sits right on the first. Class 1 scores (0.9, 0.2, 0.8),
  // class 2 scores (0.1, 0.7, 0.7), threshold 0.5, NMS 0.5:
  //   class 1: prior 0 (0.9) kept, prior 2 (0.8) overlaps it fully -> suppressed;
  //   class 2: priors 1 and 2 at 0.7, same score: prior 1 first (ncnn's quicksort swaps
  //   the pair in the class's sort and swaps it back in the final one).
  Mat priors(12, 2);
  const float boxes[12] = {0.1f, 0.1f, 0.3f, 0.3f, 0.6f, 0.6f, 0.8f, 0.9f, 0.1f, 0.1f, 0.3f, 0.3f};
  for (int i = 0; i < 12; i++) {
    priors.row(0)[i] = boxes[i];
    priors.row(1)[i] = i % 4 < 2 ? 0.1f : 0.2f;
  }
  // Prior 1 moves right by 1 * 0.1 * its width (0.2) and grows by exp(0.2 * ln 2) in height.
  Mat location(12);
  location.fill(0.f);
  location[4] = 1.f;
  location[7] = std::log(2.f);
  Mat confidence(9);
  const float scores[9] = {0.0f, 0.9f, 0.1f, 0.1f, 0.2f, 0.7f, 0.2f, 0.8f, 0.7f};
  for (int i = 0; i < 9; i++) confidence[i] = scores[i];
  ParamDict pd;
  pd.set(0, 3);
  pd.set(1, 0.5f);
  pd.set(4, 0.5f);
  const std::vector<Mat> got = forward_layer(*make_layer("DetectionOutput", pd), {location, confidence, priors});
  ASSERT_EQ(got[0].h, 3);
  ASSERT_EQ(got[0].w, 6);
  const float grow = std::pow(2.f, 0.2f) * 0.3f;  // prior 1 height 0.3 scaled
  const double want[3][6] = {{1, 0.9, 0.1, 0.1, 0.3, 0.3},
                             {2, 0.7, 0.62, 0.75 - grow / 2, 0.82, 0.75 + grow / 2},
                             {2, 0.7, 0.1, 0.1, 0.3, 0.3}};
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 6; k++) EXPECT_NEAR(got[0].row(r)[k], want[r][k], 1e-6) << "row " << r << " column " << k;
  // keep_top_k 1 keeps only the best.
  pd.set(3, 1);
  const std::vector<Mat> best = forward_layer(*make_layer("DetectionOutput", pd), {location, confidence, priors});
  ASSERT_EQ(best[0].h, 1);
  EXPECT_EQ(best[0].row(0)[1], 0.9f);
  // Two equal scores on overlapping boxes: ncnn's sort puts the second first, so NMS keeps
  // it (a stable sort kept the first).
  Mat tie_priors(8, 2), tie_location(8), tie_confidence(4);
  const float tie_boxes[8] = {0.10f, 0.10f, 0.50f, 0.50f, 0.12f, 0.12f, 0.52f, 0.52f};
  for (int i = 0; i < 8; i++) {
    tie_priors.row(0)[i] = tie_boxes[i];
    tie_priors.row(1)[i] = i % 4 < 2 ? 0.1f : 0.2f;
  }
  tie_location.fill(0.f);
  const float tie_scores[4] = {0.1f, 0.9f, 0.1f, 0.9f};
  for (int i = 0; i < 4; i++) tie_confidence[i] = tie_scores[i];
  ParamDict tie;
  tie.set(0, 2);
  tie.set(1, 0.45f);
  tie.set(4, 0.5f);
  const Mat kept = forward_layer(*make_layer("DetectionOutput", tie), {tie_location, tie_confidence, tie_priors})[0];
  ASSERT_EQ(kept.h, 1);
  EXPECT_NEAR(kept.row(0)[2], 0.12f, 1e-6);
  EXPECT_NEAR(kept.row(0)[5], 0.52f, 1e-6);
  // Nothing above the threshold: an empty result.
  pd.set(4, 0.95f);
  EXPECT_TRUE(forward_layer(*make_layer("DetectionOutput", pd), {location, confidence, priors})[0].empty());
}

TEST(DataDetectionOutput, PriorsAsAOneChannelPlane) {
  // A 3-D priorbox of one channel (from a MemoryData or a Reshape) is its plane, as ncnn
  // reads it with row(0) / row(1); it was refused.
  ParamDict pd;
  pd.set(0, 4);
  pd.set(4, 0.2f);
  const int num_prior = 23;
  const Mat location = random_mat(num_prior * 4, 31u);
  const Mat confidence = random_blob(4 * num_prior, 1, 32, 0.f, 1.f).reshape(4 * num_prior);
  const Mat priors = random_priors(num_prior, 33, true);
  const Mat plane = priors.reshape(priors.w, priors.h, 1);
  ASSERT_EQ(plane.dims, 3);
  const Mat want = forward_layer(*make_layer("DetectionOutput", pd), {location, confidence, priors})[0];
  const Mat got = forward_layer(*make_layer("DetectionOutput", pd), {location, confidence, plane})[0];
  ASSERT_GT(want.h, 1);
  ASSERT_EQ(got.w, want.w);
  ASSERT_EQ(got.h, want.h);
  for (int i = 0; i < want.w * want.h; i++) EXPECT_EQ(got[i], want[i]) << i;
  // Two channels are still not a plane.
  Mat two(priors.w, 1, 2);
  two.fill(0.5f);
  EXPECT_TRUE(fails_with([&] { forward_layer(*make_layer("DetectionOutput", pd), {location, confidence, two}); },
                         {"2-row blob"}));
}

TEST(DataDetectionOutput, RejectsInconsistentInputs) {
  ParamDict pd;
  pd.set(0, 3);
  std::unique_ptr<Layer> layer = make_layer("DetectionOutput", pd);
  const Mat priors = random_priors(10, 1, true);
  EXPECT_TRUE(fails_with([&] { forward_layer(*layer, {random_mat(36), random_mat(30), priors}); },
                         {"DetectionOutput", "location holds 36 values, 10 priors need 40"}));
  EXPECT_TRUE(fails_with([&] { forward_layer(*layer, {random_mat(40), random_mat(31), priors}); }, {"confidence holds 31"}));
  EXPECT_TRUE(fails_with([&] { forward_layer(*layer, {random_mat(40), random_mat(30), random_mat(40)}); }, {"2-row blob"}));
  EXPECT_TRUE(fails_with([&] { forward_layer(*layer, {random_mat(40), random_mat(30)}); }, {"got 2"}));
  pd.set(0, 0);
  EXPECT_TRUE(fails_with([&] { make_layer("DetectionOutput", pd); }, {"num_class"}));
}

}  // namespace
}  // namespace test
}  // namespace jitconv
