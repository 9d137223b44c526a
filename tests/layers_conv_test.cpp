// Convolution and ConvolutionDepthWise layers against their scalar references
// (reference/layers/convolution_ref.cpp), on every ISA and input elempack: geometry,
// SAME padding, pad_value, activations, depthwise and grouped forms, dynamic weights,
// the 1-D InnerProduct form, and the errors bad parameters and inputs raise.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/layers/convolution.h"
#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

struct Geometry {
  int kw, kh, sw, sh, dw, dh;
  std::vector<int> pads;  // left right top bottom
};

std::vector<Geometry> geometries() {
  return {
      {3, 3, 1, 1, 1, 1, {1, 1, 1, 1}},     {3, 3, 2, 2, 1, 1, {1, 1, 1, 1}},     {5, 5, 1, 1, 1, 1, {2, 2, 2, 2}},
      {5, 5, 2, 2, 1, 1, {2, 1, 2, 1}},     {3, 3, 1, 1, 2, 2, {2, 2, 2, 2}},     {1, 1, 1, 1, 1, 1, {0, 0, 0, 0}},
      {3, 2, 2, 1, 1, 2, {0, 2, 1, 0}},     {3, 3, 1, 1, 1, 1, {-233, -233, -233, -233}},
      {4, 4, 2, 2, 1, 1, {-234, -234, -234, -234}}, {7, 7, 2, 2, 1, 1, {3, 3, 3, 3}},
  };
}

void add_geometry(LayerTester& t, const Geometry& g) {
  t.param(1, g.kw).param(11, g.kh).param(3, g.sw).param(13, g.sh).param(2, g.dw).param(12, g.dh);
  t.param(4, g.pads[0]).param(15, g.pads[1]).param(14, g.pads[2]).param(16, g.pads[3]);
}

std::string geometry_name(const Geometry& g) {
  return "k" + std::to_string(g.kw) + "x" + std::to_string(g.kh) + " s" + std::to_string(g.sw) + "x" +
         std::to_string(g.sh) + " d" + std::to_string(g.dw) + "x" + std::to_string(g.dh) + " pad " +
         std::to_string(g.pads[0]) + "," + std::to_string(g.pads[1]) + "," + std::to_string(g.pads[2]) + "," +
         std::to_string(g.pads[3]);
}

// A layer built the way a Net does, for the error tests.
std::unique_ptr<Layer> loaded(const char* type, const ParamDict& pd, std::vector<Mat> weights) {
  std::unique_ptr<Layer> l = create_layer(type);
  l->name = "conv7";
  l->load_param(pd);
  l->load_model(ModelBinFromMatArray(weights));
  return l;
}

}  // namespace

TEST(LayersConv, ConvolutionGeometryMatchesReference) {
  uint32_t seed = 41000;
  for (const Geometry& g : geometries())
    for (const auto& ch : std::vector<std::pair<int, int>>{{3, 8}, {16, 17}, {24, 16}}) {
      SCOPED_TRACE(geometry_name(g) + " " + std::to_string(ch.first) + "->" + std::to_string(ch.second));
      const int weights = ch.first * ch.second * g.kw * g.kh;
      LayerTester t("Convolution");
      add_geometry(t, g);
      t.param(0, ch.second).param(5, 1).param(6, weights);
      t.weight(random_mat(weights, seed)).weight(random_mat(ch.second, seed + 1));
      t.input(make_input(3, 13, 11, 1, ch.first, seed + 2)).test();
      seed += 3;
    }
}

TEST(LayersConv, DepthwiseGeometryMatchesReference) {
  uint32_t seed = 42000;
  for (const Geometry& g : geometries())
    for (int channels : {1, 7, 16, 24, 48, 58}) {
      SCOPED_TRACE(geometry_name(g) + " channels " + std::to_string(channels));
      const int weights = channels * g.kw * g.kh;
      LayerTester t("ConvolutionDepthWise");
      add_geometry(t, g);
      t.param(0, channels).param(5, 1).param(6, weights).param(7, channels);
      t.weight(random_mat(weights, seed)).weight(random_mat(channels, seed + 1));
      t.input(make_input(3, 15, 12, 1, channels, seed + 2)).test();
      seed += 3;
    }
}

TEST(LayersConv, GroupedMatchesReference) {
  struct GroupCase {
    int channels, num_output, group;
  };
  uint32_t seed = 43000;
  for (const GroupCase& gc : {GroupCase{16, 32, 2}, GroupCase{20, 20, 4}, GroupCase{16, 16, 4}, GroupCase{6, 9, 3},
                              GroupCase{8, 16, 8}, GroupCase{96, 64, 2}, GroupCase{32, 32, 16}, GroupCase{12, 8, 1}})
    for (const Geometry& g : {geometries()[0], geometries()[3], geometries()[5], geometries()[7]}) {
      SCOPED_TRACE(geometry_name(g) + " channels " + std::to_string(gc.channels) + " out " +
                   std::to_string(gc.num_output) + " group " + std::to_string(gc.group));
      const int weights = gc.num_output * (gc.channels / gc.group) * g.kw * g.kh;
      LayerTester t("ConvolutionDepthWise");
      add_geometry(t, g);
      t.param(0, gc.num_output).param(5, 1).param(6, weights).param(7, gc.group).param(9, 1);
      t.weight(random_mat(weights, seed)).weight(random_mat(gc.num_output, seed + 1));
      t.input(make_input(3, 9, 8, 1, gc.channels, seed + 2)).test();
      seed += 3;
    }
}

TEST(LayersConv, ActivationsPadValueAndNoBias) {
  const std::vector<std::pair<int, std::vector<float>>> acts = {
      {0, {}}, {1, {}}, {2, {0.2f}}, {3, {-0.3f, 0.3f}}, {4, {}}, {5, {}}, {6, {0.2f, 0.5f}}};
  uint32_t seed = 44000;
  for (const auto& a : acts)
    for (const char* type : {"Convolution", "ConvolutionDepthWise"})
      for (float pad_value : {0.f, 0.6f}) {
        SCOPED_TRACE(std::string(type) + " activation " + std::to_string(a.first) + " pad_value " +
                     std::to_string(pad_value));
        const bool dw = std::string(type) == "ConvolutionDepthWise";
        const int channels = 24, weights = dw ? channels * 9 : channels * channels * 9;
        LayerTester t(type);
        add_geometry(t, geometries()[1]);
        t.param(0, channels).param(5, 0).param(6, weights).param(9, a.first).param(18, pad_value);
        if (dw) t.param(7, channels);
        if (!a.second.empty()) t.param(10, a.second);
        t.weight(random_mat(weights, seed)).input(make_input(3, 10, 9, 1, channels, seed + 1)).test();
        seed += 2;
      }
}

TEST(LayersConv, ConvolutionOneDimensionalInputIsInnerProduct) {
  LayerTester t("Convolution");
  t.param(0, 10).param(1, 1).param(5, 1).param(6, 10 * 32).param(9, 1);
  t.weight(random_mat(10 * 32, 5u)).weight(random_mat(10, 6u)).input(random_mat(32, 7u)).test();
}

TEST(LayersConv, DynamicWeightsMatchReference) {
  // ncnn's weight blob: (w = kw, h = kh, d = ic/group, c = num_output).
  LayerTester conv("Convolution");
  conv.param(0, 8).param(1, 3).param(4, 1).param(5, 1).param(19, 1).outputs(1);
  conv.input(make_input(3, 9, 7, 1, 12, 1u)).input(random_mat4(3, 3, 12, 8, 2u)).input(random_mat(8, 3u)).test();

  LayerTester dw("ConvolutionDepthWise");
  dw.param(0, 16).param(1, 3).param(3, 2).param(4, 1).param(7, 16).param(19, 1);
  dw.param(9, 2).param(10, std::vector<float>{0.1f});
  dw.outputs(1).input(make_input(3, 11, 9, 1, 16, 4u)).input(random_mat4(3, 3, 1, 16, 5u)).test();

  LayerTester grouped("ConvolutionDepthWise");
  grouped.param(0, 12).param(1, 3).param(4, 1).param(5, 1).param(7, 2).param(19, 1).outputs(1);
  grouped.input(make_input(3, 8, 8, 1, 8, 6u)).input(random_mat4(3, 3, 4, 12, 7u)).input(random_mat(12, 8u)).test();
}

// ncnn's make_padding: a positive pad pads explicitly; otherwise SAME needs all four pads
// -233 (or all four -234), and anything else pads nothing: `4=-233 14=0` (right chains to
// -233, bottom to 0) ran SAME on both axes here, a 5x5 output where ncnn gives 3x3.
TEST(LayersConv, SameNeedsAllFourMarkersAsNcnn) {
  struct PadCase {
    std::vector<std::pair<int, int>> pads;  // (id, value)
    int out;                                // output width and height on a 5x5 input, 3x3 kernel
  };
  const std::vector<PadCase> cases = {
      {{{4, -233}, {14, 0}}, 3},    {{{4, 0}, {14, -233}}, 3},   {{{4, -233}, {15, 0}}, 3},
      {{{4, -234}, {14, -233}}, 3}, {{{4, -1}}, 3},              {{{4, -233}}, 5},
      {{{4, -234}}, 5},             {{{4, -233}, {14, -234}, {15, -233}, {16, -234}}, 3},
  };
  uint32_t seed = 45000;
  for (const char* type : {"Convolution", "ConvolutionDepthWise"})
    for (const PadCase& c : cases) {
      std::string name = std::string(type) + " pads";
      for (const auto& p : c.pads) name += " " + std::to_string(p.first) + "=" + std::to_string(p.second);
      SCOPED_TRACE(name);
      const bool dw = std::string(type) == "ConvolutionDepthWise";
      const int channels = 8, weights = channels * (dw ? 1 : channels) * 9;
      auto build = [&](const std::vector<std::pair<int, int>>& pads) {
        std::unique_ptr<Layer> l = create_layer(type);
        ParamDict pd;
        pd.set(0, channels);
        pd.set(1, 3);
        pd.set(6, weights);
        if (dw) pd.set(7, channels);
        for (const auto& p : pads) pd.set(p.first, p.second);
        l->load_param(pd);
        l->load_model(ModelBinFromMatArray({random_mat(weights, seed)}));
        l->create_pipeline(Option());
        return l;
      };
      const Mat in = make_input(3, 5, 5, 1, channels, seed + 1);
      Mat out, expected;
      build(c.pads)->forward(in, out, Option());
      ASSERT_EQ(out.w, c.out);
      ASSERT_EQ(out.h, c.out);
      // The same as explicit pads of 0 (no padding) or 1 (SAME of a 3x3 kernel, stride 1).
      const int same = c.out == 5 ? 1 : 0;
      build({{4, same}})->forward(in, expected, Option());
      Mat a, b;
      convert_packing(out, a, 1, Option());
      convert_packing(expected, b, 1, Option());
      for (int q = 0; q < channels; q++)
        for (int i = 0; i < c.out * c.out; i++) ASSERT_EQ(a.channel(q)[i], b.channel(q)[i]) << q << "," << i;
      // The reference layer reads the pads the same way.
      LayerTester t(type);
      t.param(0, channels).param(1, 3).param(6, weights);
      if (dw) t.param(7, channels);
      for (const auto& p : c.pads) t.param(p.first, p.second);
      t.weight(random_mat(weights, seed)).input(make_input(3, 7, 6, 1, channels, seed + 1)).test();
      seed += 2;
    }
}

// ncnn takes a dynamic-weight layer's kernel size and num_output from its 4-D weight blob,
// not from the params: pnnx writes `0=0 1=0 11=0 6=0 19=1` when it does not know them
// (refused here before), and a blob that disagrees with the params wins.
TEST(LayersConv, DynamicWeightsTakeTheKernelFromTheBlob) {
  struct Case {
    const char* type;
    std::vector<std::pair<int, int>> params;  // besides 19=1
    int channels, kw, kh, outputs, group;
  };
  const std::vector<Case> cases = {
      {"Convolution", {{0, 0}, {1, 0}, {11, 0}, {6, 0}}, 6, 3, 3, 5, 1},
      {"Convolution", {{0, 4}, {1, 1}, {11, 9}, {4, 1}}, 6, 3, 2, 5, 1},  // params disagree: the blob wins
      {"ConvolutionDepthWise", {{0, 0}, {1, 0}, {6, 0}, {7, 8}}, 8, 3, 3, 8, 8},
      {"ConvolutionDepthWise", {{0, 0}, {1, 0}, {6, 0}, {7, 2}, {4, 1}}, 8, 3, 1, 6, 2},
      // int8_scale_term on a dynamic layer: no scales are loaded and it runs in fp32, as in
      // ncnn (ConvolutionDepthWise refused it).
      {"Convolution", {{0, 5}, {1, 3}, {6, 0}, {8, 1}}, 6, 3, 3, 5, 1},
      {"ConvolutionDepthWise", {{0, 0}, {1, 0}, {6, 0}, {7, 8}, {8, 101}}, 8, 3, 3, 8, 8},
      {"ConvolutionDepthWise", {{0, 0}, {1, 0}, {6, 0}, {7, 2}, {8, 2}}, 8, 3, 3, 6, 2},
  };
  uint32_t seed = 46000;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " kernel " + std::to_string(c.kw) + "x" + std::to_string(c.kh) + " outputs " +
                 std::to_string(c.outputs));
    const Mat in = make_input(3, 9, 8, 1, c.channels, seed);
    const Mat weights = random_mat4(c.kw, c.kh, c.channels / c.group, c.outputs, seed + 1);
    std::unique_ptr<Layer> dynamic = create_layer(c.type);
    ParamDict pd;
    for (const auto& p : c.params) pd.set(p.first, p.second);
    pd.set(19, 1);
    dynamic->load_param(pd);
    dynamic->create_pipeline(Option());
    std::vector<Mat> tops;
    dynamic->forward(std::vector<Mat>{in, weights}, tops, Option());
    // The same convolution with static weights and the blob's geometry.
    std::unique_ptr<Layer> fixed = create_layer(c.type);
    ParamDict fixed_pd;
    const int count = c.kw * c.kh * (c.channels / c.group) * c.outputs;
    fixed_pd.set(0, c.outputs);
    fixed_pd.set(1, c.kw);
    fixed_pd.set(11, c.kh);
    fixed_pd.set(6, count);
    for (const auto& p : c.params)
      if (p.first == 4 || p.first == 7) fixed_pd.set(p.first, p.second);
    fixed->load_param(fixed_pd);
    Mat flat(count);  // the blob's values in OIHW order (its channels are cstep apart)
    const int per_output = c.kw * c.kh * (c.channels / c.group);
    for (int o = 0; o < c.outputs; o++)
      std::memcpy(static_cast<float*>(flat.data) + o * per_output, weights.channel(o).data, per_output * sizeof(float));
    fixed->load_model(ModelBinFromMatArray({flat}));
    fixed->create_pipeline(Option());
    Mat expected;
    fixed->forward(in, expected, Option());
    ASSERT_EQ(tops.size(), 1u);
    Mat a, b;
    convert_packing(tops[0], a, 1, Option());
    convert_packing(expected, b, 1, Option());
    ASSERT_EQ(a.c, c.outputs);
    ASSERT_EQ(a.w, b.w);
    ASSERT_EQ(a.h, b.h);
    for (int q = 0; q < a.c; q++)
      for (int i = 0; i < a.w * a.h; i++) EXPECT_NEAR(a.channel(q)[i], b.channel(q)[i], 1e-5f) << q << "," << i;
    seed += 2;
  }
  // Neither the params nor a 4-D blob give a kernel: a clear error, not a division by zero.
  std::unique_ptr<Layer> l = create_layer("Convolution");
  l->name = "dyn";
  ParamDict pd;
  pd.set(19, 1);
  l->load_param(pd);
  l->create_pipeline(Option());
  std::vector<Mat> tops;
  const std::string err = error_of([&] { l->forward(std::vector<Mat>{random_mat(5, 5, 1u), random_mat(27, 2u)}, tops, Option()); });
  EXPECT_NE(err.find("Convolution dyn: dynamic weights give no kernel or num_output"), std::string::npos) << err;
}

TEST(LayersConv, RejectsBadParameters) {
  auto load = [](const char* type, std::vector<std::pair<int, int>> params) {
    std::unique_ptr<Layer> l = create_layer(type);
    l->name = "dw3";
    ParamDict pd;
    for (auto& p : params) pd.set(p.first, p.second);
    return error_of([&] { l->load_param(pd); });
  };
  const char* dw = "ConvolutionDepthWise";
  EXPECT_NE(load(dw, {{0, 8}, {1, 3}, {6, 72}, {7, 3}})
                .find("ConvolutionDepthWise dw3: num_output 8 is not divisible by group 3"),
            std::string::npos);
  EXPECT_NE(load(dw, {{0, 8}, {1, 3}, {6, 72}, {7, 0}}).find("group (7) must be positive"), std::string::npos);
  EXPECT_NE(load(dw, {{0, 8}, {1, 3}, {6, 71}, {7, 8}}).find("weight_data_size 71"), std::string::npos);
  EXPECT_NE(load(dw, {{0, 8}, {1, 3}, {7, 8}}).find("weight_data_size (6) must be positive"), std::string::npos);
  EXPECT_NE(load(dw, {{0, 0}, {1, 3}, {6, 72}}).find("num_output"), std::string::npos);
  EXPECT_NE(load(dw, {{0, 8}, {1, 3}, {6, 72}, {7, 8}, {3, 0}}).find("stride"), std::string::npos);
  EXPECT_NE(load(dw, {{0, 8}, {1, 3}, {6, 72}, {7, 8}, {4, 1}, {15, -233}}).find("mix explicit padding with -233"),
            std::string::npos);
  EXPECT_NE(load(dw, {{0, 8}, {1, 3}, {6, 72}, {7, 8}, {4, -1}, {14, 2}}).find("mix explicit padding with -1"),
            std::string::npos);
  EXPECT_NE(load(dw, {{0, 8}, {1, 3}, {6, 72}, {7, 8}, {9, 9}}).find("activation"), std::string::npos);
  // Fused activations: the clip range is checked as the Clip layer checks it, and
  // activation_params (id 10) must hold what the type reads (ncnn reads them unchecked).
  auto load_act = [](const char* type, int act, std::vector<float> act_params) {
    std::unique_ptr<Layer> l = create_layer(type);
    l->name = "act5";
    ParamDict pd;
    pd.set(0, 8);
    pd.set(1, 3);
    pd.set(6, 72);
    if (std::string(type) == "ConvolutionDepthWise") pd.set(7, 8);
    pd.set(9, act);
    pd.set(10, act_params);
    return error_of([&] { l->load_param(pd); });
  };
  for (const char* type : {"Convolution", "ConvolutionDepthWise"}) {
    SCOPED_TRACE(type);
    EXPECT_NE(load_act(type, 3, {1.f, 0.f}).find("clip activation: min 1 is above max 0"), std::string::npos);
    EXPECT_NE(load_act(type, 3, {NAN, 1.f}).find("clip activation"), std::string::npos);
    EXPECT_NE(load_act(type, 3, {1.f}).find("activation_type 3 (clip) needs 2 activation_params (id 10), got 1"),
              std::string::npos);
    EXPECT_NE(load_act(type, 2, {}).find("activation_type 2 (leaky relu) needs 1"), std::string::npos);
    EXPECT_NE(load_act(type, 6, {0.2f}).find("activation_type 6 (hardswish) needs 2"), std::string::npos);
    EXPECT_EQ(load_act(type, 3, {0.f, 0.f}), "");
    EXPECT_EQ(load_act(type, 1, {}), "");
  }
  // num_output * kernel area past INT_MAX, in 32 and in 64 bits (found by the model fuzzer
  // under UBSan: the products overflowed): rejected, for both layer types, static weights
  // or dynamic.
  const std::string too_many = "exceeds 2147483647 weights per input channel";
  EXPECT_NE(load("Convolution", {{0, 3}, {1, 35531}, {6, 27}}).find("(3*35531*35531) " + too_many), std::string::npos);
  EXPECT_NE(load("Convolution", {{0, 16}, {1, 1073741824}, {6, 1}}).find(too_many), std::string::npos);
  EXPECT_NE(load("Convolution", {{0, 16}, {1, 1073741824}, {19, 1}}).find(too_many), std::string::npos);
  EXPECT_NE(load(dw, {{0, 3}, {1, 35531}, {6, 27}, {7, 3}}).find(too_many), std::string::npos);
  EXPECT_NE(load(dw, {{0, 16}, {1, 1073741824}, {6, 1}, {7, 16}}).find(too_many), std::string::npos);
}

TEST(LayersConv, RejectsInt8AndBadInputs) {
  ParamDict pd;
  pd.set(0, 8);
  pd.set(1, 3);
  pd.set(6, 72);
  pd.set(7, 8);
  pd.set(8, 1);
  // int8 ConvolutionDepthWise runs (tests/conv_int8_grouped_test.cpp checks its numbers);
  // a negative scale is an error naming the layer.
  Mat group_scales(8), negative(8), bottom(1);
  group_scales.fill(50.f);
  negative.fill(-50.f);
  bottom.fill(20.f);
  std::unique_ptr<Layer> int8 = loaded("ConvolutionDepthWise", pd, {random_mat(72, 1u), group_scales, bottom});
  EXPECT_EQ(error_of([&] { int8->create_pipeline(Option()); }), "");
  std::unique_ptr<Layer> bad = loaded("ConvolutionDepthWise", pd, {random_mat(72, 1u), negative, bottom});
  EXPECT_NE(error_of([&] { bad->create_pipeline(Option()); }).find("weight scale 0 is -50"), std::string::npos);
  std::unique_ptr<Layer> int8_ref = create_reference_layer("ConvolutionDepthWise");
  int8_ref->load_param(pd);
  int8_ref->load_model(ModelBinFromMatArray({random_mat(72, 1u)}));
  EXPECT_THROW(int8_ref->create_pipeline(Option()), Error);
  // The InnerProduct twin ran int8 layers in fp32 and left their scales unread.
  ParamDict ip;
  ip.set(0, 4);
  ip.set(2, 32);
  ip.set(8, 1);
  std::unique_ptr<Layer> ip_ref = create_reference_layer("InnerProduct");
  ip_ref->load_param(ip);
  ip_ref->load_model(ModelBinFromMatArray({random_mat(32, 1u)}));
  EXPECT_NE(error_of([&] { ip_ref->create_pipeline(Option()); }).find("int8 InnerProduct"), std::string::npos);

  pd.set(8, 0);
  std::unique_ptr<Layer> l = loaded("ConvolutionDepthWise", pd, {random_mat(72, 1u)});
  Mat out;
  EXPECT_NE(error_of([&] { l->forward(random_mat(5, 5, 8, 1u), out, Option()); }).find("before create_pipeline"),
            std::string::npos);
  l->create_pipeline(Option());
  EXPECT_NE(error_of([&] { l->forward(random_mat(5, 5, 6, 1u), out, Option()); }).find("input has 6 channels"),
            std::string::npos);
  EXPECT_NE(error_of([&] { l->forward(random_mat(25, 8, 1u), out, Option()); }).find("3-D input"), std::string::npos);
  EXPECT_NE(error_of([&] { l->forward(random_mat(2, 2, 8, 1u), out, Option()); }).find("smaller than"),
            std::string::npos);
}

// A second create_pipeline (to change options) works while the weights are kept and is a
// clear error once a light-mode create_pipeline has released them, never a crash.
TEST(LayersConv, CreatePipelineAgainNeedsTheWeights) {
  for (const char* type : {"Convolution", "ConvolutionDepthWise"}) {
    SCOPED_TRACE(type);
    const bool dw = std::string(type) == "ConvolutionDepthWise";
    ParamDict pd;
    pd.set(0, 16);
    pd.set(1, 3);
    pd.set(4, 1);
    pd.set(5, 1);
    pd.set(6, dw ? 16 * 9 : 16 * 16 * 9);
    if (dw) pd.set(7, 16);
    const Mat input = random_mat(8, 8, 16, 5u);
    Option keep;
    keep.lightmode = false;
    keep.use_packing_layout = false;  // elempack-1 outputs, compared densely
    std::unique_ptr<Layer> kept = loaded(type, pd, {random_mat(dw ? 16 * 9 : 16 * 16 * 9, 1u), random_mat(16, 2u)});
    kept->create_pipeline(keep);
    Mat first, second;
    kept->forward(input, first, keep);
    kept->destroy_pipeline(keep);
    Option no_winograd = keep;
    no_winograd.use_winograd_convolution = false;
    kept->create_pipeline(no_winograd);
    kept->forward(input, second, no_winograd);
    const std::vector<float> a = dense_values(first), b = dense_values(second);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_FALSE(a.empty());
    EXPECT_LE(compare(b.data(), a.data(), a.size()).max_abs, 1e-4);

    std::unique_ptr<Layer> light = loaded(type, pd, {random_mat(dw ? 16 * 9 : 16 * 16 * 9, 1u), random_mat(16, 2u)});
    light->create_pipeline(Option());  // light mode (the default) releases the weights
    light->destroy_pipeline(Option());
    EXPECT_NE(error_of([&] { light->create_pipeline(no_winograd); }).find("no weights"), std::string::npos);
  }
}

TEST(LayersConv, HintsNoForwardCouldRunAreIgnored) {
  // An input-shape hint smaller than the kernel extent: it tunes nothing, and a valid input
  // still runs (a dynamic-weight layer rebuilt its path from the hint at every forward and
  // refused every input).
  for (bool dynamic : {false, true}) {
    SCOPED_TRACE(dynamic ? "dynamic weights" : "static weights");
    ParamDict pd;
    pd.set(0, 8);
    pd.set(1, 5);
    pd.set(2, 3);  // dilation 3: a 13x13 extent
    if (dynamic) pd.set(19, 1);
    else pd.set(6, 8 * 6 * 25);
    std::unique_ptr<Layer> layer = create_layer("Convolution");
    layer->load_param(pd);
    if (!dynamic) layer->load_model(ModelBinFromMatArray({random_mat(8 * 6 * 25, 1u)}));
    auto* conv = static_cast<layers::Convolution*>(layer.get());
    conv->hint_w = conv->hint_h = 4;
    Option opt;
    layer->create_pipeline(opt);
    const Mat input = random_mat(20, 16, 6, 2u);
    std::vector<Mat> bottoms = {input}, tops;
    if (dynamic) bottoms.push_back(random_mat4(5, 5, 6, 8, 3u));
    EXPECT_EQ(error_of([&] { layer->forward(bottoms, tops, opt); }), "");
    ASSERT_EQ(tops.size(), 1u);
    EXPECT_EQ(tops[0].w, 8);
    EXPECT_EQ(tops[0].h, 4);
  }
}

}  // namespace test
}  // namespace jitconv
