// Deconvolution and DeconvolutionDepthWise: kernel/stride/dilation grids, asymmetric
// pads, output padding, output_w/h with SAME_UPPER/SAME_LOWER, bias, fused activations,
// depthwise and grouped forms, channel counts around the packing widths.
#include <gtest/gtest.h>

#include "runtime/activation.h"
#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

struct DeconvCase {
  int kw, kh, sw, sh, dw, dh;
  std::vector<int> pads;  // left right top bottom
  int out_pad_r, out_pad_b;
};

std::vector<DeconvCase> geometry() {
  return {
      {3, 3, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 0}, {3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 1, 1},
      {2, 3, 2, 1, 1, 1, {0, 1, 1, 0}, 0, 0}, {4, 4, 2, 2, 1, 1, {1, 1, 1, 1}, 0, 0},
      {3, 2, 3, 2, 2, 1, {2, 0, 0, 1}, 2, 1}, {1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 0},
      {1, 1, 2, 2, 1, 1, {0, 0, 0, 0}, 1, 1}, {5, 3, 1, 2, 1, 2, {2, 2, 1, 1}, 0, 1},
  };
}

void add_geometry(LayerTester& t, const DeconvCase& g) {
  t.param(1, g.kw).param(11, g.kh).param(3, g.sw).param(13, g.sh).param(2, g.dw).param(12, g.dh);
  t.param(4, g.pads[0]).param(15, g.pads[1]).param(14, g.pads[2]).param(16, g.pads[3]);
  t.param(18, g.out_pad_r).param(19, g.out_pad_b);
}

TEST(MathDeconvolution, GeometryGridMatchesReference) {
  uint32_t seed = 19000;
  const std::vector<std::pair<int, int>> channels = {{3, 8}, {16, 17}, {5, 16}, {8, 1}};
  for (const DeconvCase& g : geometry())
    for (const auto& ch : channels) {
      const int in_c = ch.first, out_c = ch.second;
      SCOPED_TRACE("k" + std::to_string(g.kw) + "x" + std::to_string(g.kh) + " s" + std::to_string(g.sw) + "x" +
                   std::to_string(g.sh) + " d" + std::to_string(g.dw) + "x" + std::to_string(g.dh) + " in " +
                   std::to_string(in_c) + " out " + std::to_string(out_c));
      LayerTester t("Deconvolution");
      add_geometry(t, g);
      const int weights = out_c * in_c * g.kw * g.kh;
      t.param(0, out_c).param(5, 1).param(6, weights);
      t.weight(random_mat(weights, seed)).weight(random_mat(out_c, seed + 1));
      t.input(make_input(3, 6, 5, 1, in_c, seed + 2)).threads(3).test();
      seed += 3;
    }
}

TEST(MathDeconvolution, ActivationsAndNoBias) {
  const std::vector<std::pair<int, std::vector<float>>> acts = {
      {0, {}}, {1, {}}, {2, {0.2f}}, {3, {-0.3f, 0.3f}}, {4, {}}, {5, {}}, {6, {0.2f, 0.5f}}};
  uint32_t seed = 20000;
  for (const auto& a : acts) {
    SCOPED_TRACE("activation " + std::to_string(a.first));
    LayerTester t("Deconvolution");
    add_geometry(t, geometry()[1]);
    t.param(0, 12).param(5, 0).param(6, 12 * 8 * 9).param(9, a.first);
    if (!a.second.empty()) t.param(10, a.second);
    t.weight(random_mat(12 * 8 * 9, seed)).input(make_input(3, 5, 4, 1, 8, seed + 1)).test();
    seed += 2;
  }
}

TEST(MathDeconvolution, OutputSizeWithSamePadding) {
  uint32_t seed = 21000;
  for (int pad : {-233, -234})
    for (const auto& size : std::vector<std::pair<int, int>>{{12, 10}, {13, 11}, {7, 9}}) {
      SCOPED_TRACE("pad " + std::to_string(pad) + " size " + std::to_string(size.first));
      LayerTester t("Deconvolution");
      t.param(0, 8).param(1, 3).param(3, 2).param(4, pad).param(20, size.first).param(21, size.second);
      t.param(18, 1).param(5, 1).param(6, 8 * 4 * 9);
      t.weight(random_mat(8 * 4 * 9, seed)).weight(random_mat(8, seed + 1));
      t.input(make_input(3, 6, 5, 1, 4, seed + 2)).test();
      seed += 3;
    }
}

TEST(MathDeconvolution, DepthwiseAndGroupedMatchReference) {
  uint32_t seed = 22000;
  struct GroupCase {
    int channels, num_output, group;
  };
  for (const GroupCase& gc : {GroupCase{16, 16, 16}, GroupCase{7, 7, 7}, GroupCase{24, 24, 24}, GroupCase{8, 12, 2},
                              GroupCase{16, 32, 4}, GroupCase{6, 6, 3}, GroupCase{16, 16, 1}})
    for (const DeconvCase& g : {geometry()[0], geometry()[1], geometry()[4], geometry()[7]}) {
      SCOPED_TRACE("channels " + std::to_string(gc.channels) + " out " + std::to_string(gc.num_output) + " group " +
                   std::to_string(gc.group) + " k" + std::to_string(g.kw) + "x" + std::to_string(g.kh));
      LayerTester t("DeconvolutionDepthWise");
      add_geometry(t, g);
      const int weights = gc.num_output / gc.group * (gc.channels / gc.group) * gc.group * g.kw * g.kh;
      t.param(0, gc.num_output).param(5, 1).param(6, weights).param(7, gc.group).param(9, 1);
      t.weight(random_mat(weights, seed)).weight(random_mat(gc.num_output, seed + 1));
      t.input(make_input(3, 7, 6, 1, gc.channels, seed + 2)).test();
      seed += 3;
    }
}

TEST(MathDeconvolution, LargerLayer) {
  // Several GEMM strips and work chunks: 64 -> 48 channels, 4x4 stride 2 on 20x18.
  LayerTester t("Deconvolution");
  t.param(0, 48).param(1, 4).param(3, 2).param(4, 1).param(5, 1).param(6, 48 * 64 * 16);
  t.weight(random_mat(48 * 64 * 16, 1u)).weight(random_mat(48, 2u)).input(make_input(3, 20, 18, 1, 64, 3)).test();
}

// ncnn fills its whole padded output with the bias before accumulating and activates all
// of it: output padding holds activation(bias), not zeros (src/layer/deconvolution.cpp,
// deconvolutiondepthwise.cpp). Hand-computed: 2x2 kernel, stride 2, one column and row of
// output padding, for the layer and its reference, both layer types.
TEST(MathDeconvolution, OutputPaddingHoldsTheActivatedBias) {
  for (const char* type : {"Deconvolution", "DeconvolutionDepthWise"})
    for (int act : {0, 4}) {
      SCOPED_TRACE(std::string(type) + (act ? " sigmoid" : " no activation"));
      ParamDict pd;
      pd.set(0, 1);
      pd.set(1, 2);
      pd.set(3, 2);
      pd.set(5, 1);
      pd.set(6, 4);
      pd.set(18, 1);
      pd.set(9, act);
      if (std::string(type) == "DeconvolutionDepthWise") pd.set(7, 1);
      Mat w(4), b(1), in(2, 2, 1);
      for (int i = 0; i < 4; i++) static_cast<float*>(w.data)[i] = static_cast<float>(i + 1);
      static_cast<float*>(b.data)[0] = 0.5f;
      for (int i = 0; i < 4; i++) static_cast<float*>(in.data)[i] = static_cast<float>(i + 1);
      const Activation a = Activation::from_ncnn(act, {});
      for (bool reference : {false, true}) {
        SCOPED_TRACE(reference ? "reference" : "layer");
        std::unique_ptr<Layer> l = reference ? create_reference_layer(type) : create_layer(type);
        l->load_param(pd);
        l->load_model(ModelBinFromMatArray({w, b}));
        Option opt;
        opt.use_packing_layout = false;
        l->create_pipeline(opt);
        Mat out;
        l->forward(in, out, opt);
        ASSERT_EQ(out.w, 5);
        ASSERT_EQ(out.h, 5);
        const std::vector<float> v = dense_values(out);
        for (int y = 0; y < 5; y++)
          for (int x = 0; x < 5; x++) {
            const float sum = y < 4 && x < 4 ? (y / 2 * 2 + x / 2 + 1.f) * (y % 2 * 2 + x % 2 + 1.f) + 0.5f : 0.5f;
            EXPECT_NEAR(v[y * 5 + x], a.apply(sum), 1e-6f) << "at " << x << "," << y;
          }
      }
    }
}

TEST(MathDeconvolution, RejectsBadParamsAndInputs) {
  auto load = [](const char* type, std::vector<std::pair<int, int>> params) {
    std::unique_ptr<Layer> l = create_layer(type);
    l->name = "up2";
    ParamDict pd;
    for (auto& p : params) pd.set(p.first, p.second);
    return error_of([&] { l->load_param(pd); });
  };
  EXPECT_NE(load("Deconvolution", {{0, 4}, {1, 3}, {6, 35}}).find("Deconvolution up2: weight_data_size"),
            std::string::npos);
  EXPECT_NE(load("Deconvolution", {{0, 4}, {1, 0}, {6, 36}}).find("kernel"), std::string::npos);
  EXPECT_NE(load("Deconvolution", {{0, 4}, {1, 3}, {6, 36}, {3, 0}}).find("stride"), std::string::npos);
  EXPECT_NE(load("Deconvolution", {{0, 4}, {1, 3}, {6, 36}, {4, -5}}).find("pad"), std::string::npos);
  EXPECT_NE(load("DeconvolutionDepthWise", {{0, 6}, {1, 3}, {6, 54}, {7, 4}}).find("group"), std::string::npos);
  // A kernel area past INT_MAX (its 64-bit product with num_output overflowed: found by
  // fuzzing model files).
  EXPECT_NE(load("Deconvolution", {{0, 16}, {1, 1073741824}, {6, 1}}).find("has more than 2147483647 taps"),
            std::string::npos);

  std::unique_ptr<Layer> l = create_layer("Deconvolution");
  ParamDict pd;
  pd.set(0, 4);
  pd.set(1, 3);
  pd.set(6, 4 * 2 * 9);
  l->load_param(pd);
  l->load_model(ModelBinFromMatArray({random_mat(72, 1u)}));
  l->create_pipeline(Option());
  Mat out;
  EXPECT_NE(error_of([&] { l->forward(random_mat(5, 5, 3, 1u), out, Option()); }).find("input has 3 channels"),
            std::string::npos);

  pd.set(20, 5);
  std::unique_ptr<Layer> sized = create_layer("Deconvolution");
  sized->load_param(pd);
  sized->load_model(ModelBinFromMatArray({random_mat(72, 1u)}));
  sized->create_pipeline(Option());
  EXPECT_NE(error_of([&] { sized->forward(random_mat(5, 5, 2, 1u), out, Option()); }).find("-233 or -234"),
            std::string::npos);
  pd.set(20, 9);
  pd.set(4, -233);
  std::unique_ptr<Layer> big = create_layer("Deconvolution");
  big->load_param(pd);
  big->load_model(ModelBinFromMatArray({random_mat(72, 1u)}));
  big->create_pipeline(Option());
  EXPECT_NE(error_of([&] { big->forward(random_mat(5, 5, 2, 1u), out, Option()); }).find("exceeds"), std::string::npos);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
