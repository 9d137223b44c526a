// InnerProduct: flattened inputs of every dims, the row-by-row 2-D form, bias, every
// fused activation, output counts around the 16-wide weight blocks.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "loader/model_bin.h"
#include "reference/conv_int8_ref.h"
#include "runtime/packing.h"
#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

struct Act {
  int type;
  std::vector<float> params;
};

// ncnn's default (and ours) stores InnerProduct weights as fp16 on F16C CPUs; these tests
// compare fp32 weights exactly, HalfWeights below the fp16 form.
Option fp32_weights() {
  Option opt;
  opt.use_fp16_storage = false;
  return opt;
}

std::vector<Act> activations() {
  return {{0, {}}, {1, {}}, {2, {0.1f}}, {3, {-0.5f, 0.4f}}, {4, {}}, {5, {}}, {6, {0.2f, 0.5f}}};
}

TEST(MathInnerProduct, FlattenedInputsMatchReference) {
  const std::vector<ShapeCase> inputs = {{1, 37, 1, 1, 1}, {1, 64, 1, 1, 1}, {2, 5, 7, 1, 1},  {3, 3, 2, 1, 16},
                                         {3, 1, 1, 1, 48}, {3, 4, 3, 1, 5},  {4, 2, 3, 2, 8}};
  uint32_t seed = 16000;
  for (const ShapeCase& s : inputs)
    for (int num_output : {1, 15, 16, 17, 40})
      for (int bias = 0; bias <= 1; bias++) {
        const int num_input = s.w * s.h * s.d * s.c;
        SCOPED_TRACE(s.name() + " num_output " + std::to_string(num_output) + " bias " + std::to_string(bias));
        LayerTester t("InnerProduct");
        t.options(fp32_weights());
        t.param(0, num_output).param(1, bias).param(2, num_output * num_input);
        t.weight(random_mat(num_output * num_input, seed++));
        if (bias) t.weight(random_mat(num_output, seed++));
        t.input(make_input(s, seed++)).threads(3).test();
      }
}

TEST(MathInnerProduct, RowsFormMatchesReference) {
  uint32_t seed = 17000;
  for (int h : {1, 3, 8, 16, 21})
    for (int num_output : {5, 16, 33}) {
      SCOPED_TRACE("h " + std::to_string(h) + " num_output " + std::to_string(num_output));
      const int num_input = 19;
      LayerTester("InnerProduct").options(fp32_weights())
          .param(0, num_output)
          .param(1, 1)
          .param(2, num_output * num_input)
          .weight(random_mat(num_output * num_input, seed))
          .weight(random_mat(num_output, seed + 1))
          .input(make_input(2, num_input, h, 1, 1, seed + 2))
          .test();
      seed += 3;
    }
  // One row gives a 1-D blob of num_output values, as ncnn's InnerProduct does (it takes the
  // rows form only for h > 1), for the layer and its reference.
  for (bool reference : {false, true}) {
    SCOPED_TRACE(reference ? "reference" : "layer");
    std::unique_ptr<Layer> l = reference ? create_reference_layer("InnerProduct") : create_layer("InnerProduct");
    ParamDict pd;
    pd.set(0, 3);
    pd.set(2, 12);
    l->load_param(pd);
    l->load_model(ModelBinFromMatArray({random_mat(12, 5u)}));
    l->create_pipeline(fp32_weights());
    Mat out;
    l->forward(make_input(2, 4, 1, 1, 1, 6), out, fp32_weights());
    EXPECT_EQ(out.dims, 1);
    EXPECT_EQ(out.w * out.elempack, 3);
  }
}

TEST(MathInnerProduct, FusedActivationsMatchReference) {
  uint32_t seed = 18000;
  for (const Act& a : activations()) {
    SCOPED_TRACE("activation " + std::to_string(a.type));
    LayerTester t("InnerProduct");
    t.options(fp32_weights());
    t.param(0, 24).param(1, 1).param(2, 24 * 80).param(9, a.type);
    if (!a.params.empty()) t.param(10, a.params);
    t.weight(random_mat(24 * 80, seed)).weight(random_mat(24, seed + 1)).input(make_input(3, 4, 4, 1, 5, seed + 2)).test();
    seed += 3;
  }
}

TEST(MathInnerProduct, LargeLayer) {
  // Long reductions: a tolerance of 1e-5 of the largest output still holds for 4096 terms.
  LayerTester("InnerProduct").options(fp32_weights())
      .param(0, 100)
      .param(1, 1)
      .param(2, 100 * 4096)
      .weight(random_mat(100 * 4096, 1u))
      .weight(random_mat(100, 2u))
      .input(make_input(3, 8, 8, 1, 64, 3))
      .test();
}

TEST(MathInnerProduct, RejectsBadParamsAndInputs) {
  auto load = [](std::vector<std::pair<int, int>> params) {
    std::unique_ptr<Layer> l = create_layer("InnerProduct");
    l->name = "fc1";
    ParamDict pd;
    for (auto& p : params) pd.set(p.first, p.second);
    return error_of([&] { l->load_param(pd); });
  };
  EXPECT_NE(load({{0, 0}, {2, 10}}).find("InnerProduct fc1: num_output"), std::string::npos);
  EXPECT_NE(load({{0, 3}, {2, 10}}).find("weight_data_size"), std::string::npos);
  EXPECT_NE(load({{0, 2}, {2, 10}, {9, 7}}).find("activation_type"), std::string::npos);

  std::unique_ptr<Layer> l = create_layer("InnerProduct");
  ParamDict pd;
  pd.set(0, 2);
  pd.set(2, 10);
  l->load_param(pd);
  l->load_model(ModelBinFromMatArray({random_mat(10, 1u)}));
  l->create_pipeline(Option());
  Mat out;
  EXPECT_NE(error_of([&] { l->forward(random_mat(3, 2, 1u), out, Option()); }).find("input holds 6 values"),
            std::string::npos);
  std::unique_ptr<Layer> short_weights = create_layer("InnerProduct");
  short_weights->load_param(pd);
  EXPECT_NE(error_of([&] { short_weights->load_model(ModelBinFromMatArray({random_mat(9, 1u)})); }), "");
}

TEST(MathInnerProduct, HalfWeightsMatchTheReferenceOnTheSameHalfValues) {
  // With fp16 weight storage the layer must compute exactly what fp32 arithmetic on the
  // fp16-rounded weights gives: feed the reference those rounded weights.
  uint32_t seed = 19000;
  for (int num_input : {7, 64, 300})
    for (int num_output : {1, 17, 130}) {
      SCOPED_TRACE("num_input " + std::to_string(num_input) + " num_output " + std::to_string(num_output));
      Mat w = random_mat(num_output * num_input, seed++);
      for (int i = 0; i < w.w; i++) w[i] = float16_to_float32(float32_to_float16(w[i]));
      LayerTester("InnerProduct")
          .param(0, num_output)
          .param(1, 1)
          .param(2, num_output * num_input)
          .param(9, 1)
          .weight(w)
          .weight(random_mat(num_output, seed + 1))
          .input(make_input(1, num_input, 1, 1, 1, seed + 2))
          .test();
      seed += 3;
    }
}

}  // namespace
// int8 InnerProduct as ncnn2int8 writes it (8=2: per-output weight scales, one input
// scale, after the bias): ncnn's int8 arithmetic, checked against reference_conv2d_int8 of
// the same product as a 1x1 convolution of a 1x1 image, with int8 and fp32 weights and
// activations; and by hand.
TEST(MathInnerProduct, Int8MatchesTheInt8Reference) {
  const int num_input = 37, num_output = 21;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> level(-127, 127);
  std::vector<int8_t> q(num_input * num_output);
  std::vector<float> w32(q.size()), scales(num_output);
  for (int o = 0; o < num_output; o++) {
    scales[o] = 30.f + 3.f * o;
    for (int k = 0; k < num_input; k++) {
      q[o * num_input + k] = static_cast<int8_t>(level(rng));
      w32[o * num_input + k] = q[o * num_input + k] / scales[o];
    }
  }
  const std::vector<float> bias = random_vector(num_output, 6);
  const float bottom = 45.f;
  const Mat in = random_mat(num_input, 7u);
  for (const Act& act : {Act{0, {}}, Act{1, {}}, Act{3, {-0.2f, 0.3f}}})
    for (bool fp32 : {false, true}) {
      SCOPED_TRACE("activation " + std::to_string(act.type) + (fp32 ? " fp32 weights" : " int8 weights"));
      ConvDesc d;
      d.mb = 1;
      d.ic = num_input;
      d.ih = d.iw = d.oh = d.ow = 1;
      d.oc = num_output;
      d.kh = d.kw = 1;
      Int8RefScales rs;
      rs.weight = scales.data();
      rs.bottom = bottom;
      std::vector<float> expected(num_output);
      reference_conv2d_int8(d, static_cast<const float*>(in.data), q.data(), rs, bias.data(), expected.data(),
                            Activation::from_ncnn(act.type, act.params), 0.f);
      std::unique_ptr<Layer> l = create_layer("InnerProduct");
      ParamDict pd;
      pd.set(0, num_output);
      pd.set(1, 1);
      pd.set(2, num_input * num_output);
      pd.set(8, 2);
      pd.set(9, act.type);
      if (!act.params.empty()) pd.set(10, act.params);
      l->load_param(pd);
      Mat w;
      if (fp32) {
        w.create(static_cast<int>(w32.size()));
        std::memcpy(w.data, w32.data(), w32.size() * sizeof(float));
      } else {
        w.create(static_cast<int>(q.size()), static_cast<size_t>(1), 1);
        std::memcpy(w.data, q.data(), q.size());
      }
      Mat b(num_output), ws(num_output), bs(1);
      std::memcpy(b.data, bias.data(), num_output * sizeof(float));
      std::memcpy(ws.data, scales.data(), num_output * sizeof(float));
      bs[0] = bottom;
      l->load_model(ModelBinFromMatArray({w, b, ws, bs}));
      Option opt;
      l->create_pipeline(opt);
      EXPECT_NE(l->describe().find("int8"), std::string::npos) << l->describe();
      Mat out, plain;
      l->forward(in, out, opt);
      convert_packing(out, plain, 1, opt);
      ASSERT_EQ(plain.dims, 1);
      ASSERT_EQ(plain.w, num_output);
      for (int o = 0; o < num_output; o++) EXPECT_EQ(static_cast<const float*>(plain.data)[o], expected[o]) << o;
    }

  // By hand: weights 1, no bias, weight scale 100, input scale 10, inputs 0.1 i (levels
  // i = 0..17 of a 2x3x3 blob): every output is 153 / 1000.
  std::unique_ptr<Layer> l = create_layer("InnerProduct");
  ParamDict pd;
  pd.set(0, 3);
  pd.set(2, 54);
  pd.set(8, 2);
  l->load_param(pd);
  Mat ones(54, static_cast<size_t>(1), 1), ws(3), bs(1);
  std::memset(ones.data, 1, 54);
  ws.fill(100.f);
  bs[0] = 10.f;
  l->load_model(ModelBinFromMatArray({ones, ws, bs}));
  l->create_pipeline(Option());
  Mat blob(3, 3, 2), out;
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < 9; i++) static_cast<float*>(blob.channel(c).data)[i] = 0.1f * (c * 9 + i);
  l->forward(blob, out, Option());
  Mat plain;
  convert_packing(out, plain, 1, Option());
  for (int o = 0; o < 3; o++) EXPECT_FLOAT_EQ(static_cast<const float*>(plain.data)[o], 0.153f);

  // int8 weights need use_int8_inference.
  std::unique_ptr<Layer> off = create_layer("InnerProduct");
  off->load_param(pd);
  off->load_model(ModelBinFromMatArray({ones, ws, bs}));
  Option no_int8;
  no_int8.use_int8_inference = false;
  EXPECT_NE(error_of([&] { off->create_pipeline(no_int8); }).find("int8 weights need use_int8_inference"),
            std::string::npos);
}

// int8 InnerProduct takes every input ncnn's forward_int8 takes: rows of a 2-D input (one
// output row each) and any other blob of num_input values, flattened. Each must give, bit
// for bit, what the 1-D form gives on the same values (that form is checked against
// reference_conv2d_int8 above).
TEST(MathInnerProduct, Int8TakesRowsAndEveryFlattenedShape) {
  const int num_input = 12, num_output = 20;
  std::mt19937 rng(917);
  std::uniform_int_distribution<int> level(-127, 127);
  Mat weights(num_input * num_output, static_cast<size_t>(1), 1);
  for (int i = 0; i < num_input * num_output; i++) static_cast<int8_t*>(weights.data)[i] = static_cast<int8_t>(level(rng));
  Mat scales(num_output), bottom_scale(1);
  for (int o = 0; o < num_output; o++) scales[o] = 30.f + o;
  bottom_scale[0] = 40.f;
  for (int act : {0, 1, 4}) {
    SCOPED_TRACE("activation " + std::to_string(act));
    std::unique_ptr<Layer> l = create_layer("InnerProduct");
    ParamDict pd;
    pd.set(0, num_output);
    pd.set(1, 1);
    pd.set(2, num_input * num_output);
    pd.set(8, 1);
    pd.set(9, act);
    l->load_param(pd);
    l->load_model(ModelBinFromMatArray({weights, random_mat(num_output, 3u), scales, bottom_scale}));
    Option opt;
    opt.num_threads = 2;
    l->create_pipeline(opt);
    // What the 1-D form gives on num_input values.
    auto one_row = [&](const float* values) {
      Mat in(num_input), out, plain;
      std::memcpy(in.data, values, num_input * sizeof(float));
      l->forward(in, out, opt);
      convert_packing(out, plain, 1, opt);
      EXPECT_EQ(plain.dims, 1);
      return std::vector<float>(static_cast<const float*>(plain.data), static_cast<const float*>(plain.data) + num_output);
    };
    for (int rows : {2, 3, 8}) {
      for (int pack : {1, 4}) {
        if (rows % pack) continue;
        SCOPED_TRACE(std::to_string(rows) + " rows, elempack " + std::to_string(pack));
        const Mat plain_in = random_mat(num_input, rows, 50u + rows);
        Mat in, out, plain;
        convert_packing(plain_in, in, pack, opt);
        l->forward(in, out, opt);
        EXPECT_EQ(out.elempack, pack);
        convert_packing(out, plain, 1, opt);
        ASSERT_EQ(plain.dims, 2);
        ASSERT_EQ(plain.w, num_output);
        ASSERT_EQ(plain.h, rows);
        for (int r = 0; r < rows; r++) {
          const std::vector<float> want = one_row(plain_in.row(r));
          EXPECT_EQ(std::memcmp(plain.row(r), want.data(), num_output * sizeof(float)), 0) << "row " << r;
        }
      }
    }
    // Blobs flattened in (c, d, h, w) order: 2-D of one row or of other widths, 3-D of one
    // channel or several, 4-D.
    std::vector<Mat> shapes = {Mat(12, 1), Mat(4, 3), Mat(4, 3, 1), Mat(2, 3, 2), Mat(2, 3, 1, 2), Mat(3, 2, 2, 1)};
    for (Mat& m : shapes) {
      SCOPED_TRACE("dims " + std::to_string(m.dims) + " " + std::to_string(m.w) + "x" + std::to_string(m.h) + "x" +
                   std::to_string(m.d) + "x" + std::to_string(m.c));
      std::vector<float> values(num_input);
      for (int i = 0; i < num_input; i++) values[i] = 0.1f * static_cast<float>(i) - 0.55f;
      int i = 0;
      for (int q = 0; q < m.c; q++) {
        float* p = static_cast<float*>(m.channel(q).data);
        for (int k = 0; k < m.w * m.h * m.d; k++) p[k] = values[i++];
      }
      Mat out, plain;
      l->forward(m, out, opt);
      convert_packing(out, plain, 1, opt);
      ASSERT_EQ(plain.dims, 1);
      ASSERT_EQ(plain.w, num_output);
      const std::vector<float> want = one_row(values.data());
      EXPECT_EQ(std::memcmp(plain.data, want.data(), num_output * sizeof(float)), 0);
    }
  }
}

}  // namespace test
}  // namespace jitconv
