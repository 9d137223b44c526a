// BatchNorm, Scale and Bias against their scalar references.
#include <gtest/gtest.h>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

TEST(MathAffine, BatchNormMatchesReference) {
  uint32_t seed = 200;
  for (const ShapeCase& s : elementwise_shapes()) {
    SCOPED_TRACE(s.name());
    const int n = packing_axis_length(s);
    LayerTester("BatchNorm")
        .param(0, n)
        .param(1, 1e-3f)
        .weight(random_mat(n, seed + 1))
        .weight(random_mat(n, seed + 2))
        .weight(make_input(1, n, 1, 1, 1, seed + 3, 0.1f, 2.f))
        .weight(random_mat(n, seed + 4))
        .input(make_input(s, seed))
        .test();
    seed += 5;
  }
}

TEST(MathAffine, ScaleMatchesReference) {
  uint32_t seed = 300;
  for (const ShapeCase& s : elementwise_shapes()) {
    const int n = packing_axis_length(s);
    for (int bias_term = 0; bias_term <= 1; bias_term++) {
      SCOPED_TRACE(s.name() + " bias_term=" + std::to_string(bias_term));
      LayerTester t("Scale");
      t.param(0, n).param(1, bias_term).weight(random_mat(n, seed + 1));
      if (bias_term) t.weight(random_mat(n, seed + 2));
      t.input(make_input(s, seed)).test();
      seed += 3;
    }
  }
}

TEST(MathAffine, ScaleFromSecondBlob) {
  uint32_t seed = 400;
  for (const ShapeCase& s : elementwise_shapes()) {
    if (s.dims < 3) continue;
    SCOPED_TRACE(s.name());
    LayerTester("Scale").param(0, -233).input(make_input(s, seed)).input(random_mat(s.c, seed + 1)).test();
    seed += 2;
  }
}

TEST(MathAffine, ScaleBlobWithItsOwnElempack) {
  ParamDict pd;
  pd.set(0, -233);
  expect_mixed_packs_match("Scale", pd, {random_mat(6, 5, 32, 1u), random_mat(32, 2u)}, {16, 4});
  expect_mixed_packs_match("Scale", pd, {random_mat(6, 5, 32, 1u), random_mat(1, 1, 32, 2u)}, {8, 16});
}

TEST(MathAffine, BiasMatchesReference) {
  uint32_t seed = 500;
  for (const ShapeCase& s : elementwise_shapes()) {
    SCOPED_TRACE(s.name());
    const int n = s.dims >= 3 ? s.c : 1;
    LayerTester("Bias").param(0, n).weight(random_mat(n, seed + 1)).input(make_input(s, seed)).test();
    seed += 2;
  }
}

TEST(MathAffine, RejectsMismatchedSizes) {
  std::unique_ptr<Layer> bn = create_layer("BatchNorm");
  bn->name = "bn1";
  ParamDict pd;
  pd.set(0, 8);
  bn->load_param(pd);
  std::vector<Mat> w = {random_mat(8, 1u), random_mat(8, 2u), random_mat(8, 3u), random_mat(8, 4u)};
  bn->load_model(ModelBinFromMatArray(w));
  // var + eps < 0 is a broken model, not a NaN factory.
  EXPECT_NE(error_of([&] { bn->create_pipeline(Option()); }).find("var + eps"), std::string::npos);

  std::vector<Mat> good = {random_mat(8, 1u), random_mat(8, 2u), make_input(1, 8, 1, 1, 1, 3, 0.5f, 1.f),
                           random_mat(8, 4u)};
  std::unique_ptr<Layer> bn2 = create_layer("BatchNorm");
  bn2->name = "bn2";
  bn2->load_param(pd);
  bn2->load_model(ModelBinFromMatArray(good));
  bn2->create_pipeline(Option());
  Mat x = random_mat(3, 3, 7, 5u);
  const std::string msg = error_of([&] { bn2->forward_inplace(x, Option()); });
  EXPECT_NE(msg.find("BatchNorm bn2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("7 channels"), std::string::npos) << msg;

  ParamDict bad;
  bad.set(0, 0);
  EXPECT_NE(error_of([&] { create_layer("Scale")->load_param(bad); }).find("scale_data_size"), std::string::npos);
  EXPECT_NE(error_of([&] { create_layer("Bias")->load_param(bad); }).find("bias_data_size"), std::string::npos);

  std::unique_ptr<Layer> bias = create_layer("Bias");
  ParamDict four;
  four.set(0, 4);
  bias->load_param(four);
  bias->load_model(ModelBinFromMatArray({random_mat(4, 1u)}));
  Mat flat = random_mat(12, 2, 3u);
  EXPECT_NE(error_of([&] { bias->forward_inplace(flat, Option()); }).find("one channel"), std::string::npos);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
