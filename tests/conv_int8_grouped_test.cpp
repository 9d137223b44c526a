// ConvolutionDepthWise with int8_scale_term, as ncnn2int8 writes it: per-group weight
// scales (1 / 101) or one for all groups (2 / 102), one input scale, a top scale when
// requantizing. ncnn computes each group as an int8 convolution of its own channels with
// its group's scales, so each group must match an int8 Convolution layer run alone on that
// group's channels (itself checked against reference_conv2d_int8), bit for bit; and a
// hand-computed depthwise case pins the numbers.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "loader/model_bin.h"
#include "runtime/error.h"
#include "runtime/layers/convolution.h"
#include "runtime/layers/convolution_depthwise.h"
#include "runtime/packing.h"
#include "tests/layer_tester.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {

struct GroupedCase {
  int ic, oc, group;
  int scale_term;
  bool fp32_weights;
  int act_type = 0;
};

ParamDict conv_params(int oc, int weights, int scale_term, int act_type) {
  ParamDict pd;
  pd.set(0, oc);
  pd.set(1, 3);
  pd.set(4, 1);
  pd.set(5, 1);
  pd.set(6, weights);
  pd.set(8, scale_term);
  pd.set(9, act_type);
  if (act_type == 3) pd.set(10, std::vector<float>{-0.5f, 0.7f});
  return pd;
}

Mat floats(const std::vector<float>& v) {
  Mat m(static_cast<int>(v.size()));
  std::memcpy(m.data, v.data(), v.size() * sizeof(float));
  return m;
}

// Forward on the plain (elempack 1) input, the output unpacked.
std::vector<float> run(Layer& layer, const Mat& in) {
  Option opt;
  opt.num_threads = 2;
  layer.create_pipeline(opt);
  Mat packed, out, plain;
  convert_packing(in, packed, in.c % 8 == 0 ? 8 : 1, opt);
  layer.forward(packed, out, opt);
  convert_packing(out, plain, 1, opt);
  return dense_values(plain);
}

void check_case(const GroupedCase& c, uint32_t seed) {
  SCOPED_TRACE("ic " + std::to_string(c.ic) + " oc " + std::to_string(c.oc) + " group " + std::to_string(c.group) +
               " scale term " + std::to_string(c.scale_term) + (c.fp32_weights ? " fp32 weights" : " int8 weights"));
  const int icg = c.ic / c.group, ocg = c.oc / c.group, taps = 9;
  const int per_group = ocg * icg * taps, count = per_group * c.group;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> level(-127, 127);
  const bool one_scale = c.scale_term == 2 || c.scale_term == 102;
  std::vector<float> group_scales(c.group);
  for (int g = 0; g < c.group; g++) group_scales[g] = one_scale ? 55.f : 40.f + 9.f * g;
  std::vector<int8_t> q(count);
  std::vector<float> w32(count);
  for (int i = 0; i < count; i++) {
    q[i] = static_cast<int8_t>(level(rng));
    w32[i] = q[i] / group_scales[i / per_group];
  }
  const std::vector<float> bias = random_vector(c.oc, seed + 1);
  const float bottom = 30.f, top = 2.5f;
  const bool requantize = c.scale_term > 100;
  const Mat in = random_mat(7, 6, c.ic, seed + 2);

  auto weight_mat = [&](long first, long n) {
    if (c.fp32_weights) return floats(std::vector<float>(w32.begin() + first, w32.begin() + first + n));
    Mat m(static_cast<int>(n), static_cast<size_t>(1), 1);
    std::memcpy(m.data, q.data() + first, n);
    return m;
  };
  layers::ConvolutionDepthWise dw;
  ParamDict pd = conv_params(c.oc, count, c.scale_term, c.act_type);
  pd.set(7, c.group);
  dw.load_param(pd);
  std::vector<Mat> blobs = {weight_mat(0, count), floats(bias),
                            floats(one_scale ? std::vector<float>{group_scales[0]} : group_scales), floats({bottom})};
  if (requantize) blobs.push_back(floats({top}));
  dw.load_model(ModelBinFromMatArray(blobs));
  const std::vector<float> got = run(dw, in);
  EXPECT_NE(dw.describe().find("int8"), std::string::npos) << dw.describe();

  const long plane = static_cast<long>(in.w) * in.h;
  ASSERT_EQ(got.size(), static_cast<size_t>(c.oc * plane));
  for (int g = 0; g < c.group; g++) {
    layers::Convolution conv;
    conv.load_param(conv_params(ocg, per_group, requantize ? 101 : 1, c.act_type));
    std::vector<Mat> conv_blobs = {weight_mat(static_cast<long>(g) * per_group, per_group),
                                   floats(std::vector<float>(bias.begin() + g * ocg, bias.begin() + (g + 1) * ocg)),
                                   floats(std::vector<float>(ocg, group_scales[g])), floats({bottom})};
    if (requantize) conv_blobs.push_back(floats({top}));
    conv.load_model(ModelBinFromMatArray(conv_blobs));
    const Mat slice = in.channel_range(g * icg, icg).clone();
    const std::vector<float> expected = run(conv, slice);
    for (long i = 0; i < ocg * plane; i++)
      ASSERT_EQ(got[g * ocg * plane + i], expected[i]) << "group " << g << " value " << i;
  }
}

}  // namespace

TEST(ConvInt8Grouped, EachGroupIsAnInt8ConvolutionOfItsChannels) {
  uint32_t seed = 300;
  for (int scale_term : {1, 2, 101, 102})
    for (bool fp32 : {false, true}) {
      check_case({16, 16, 16, scale_term, fp32}, seed++);  // depthwise, whole packs
      check_case({12, 12, 12, scale_term, fp32, 1}, seed++);  // depthwise, straddling packs, relu
      check_case({12, 6, 3, scale_term, fp32}, seed++);   // grouped
      check_case({16, 32, 2, scale_term, fp32, 3}, seed++);  // grouped, wide, clip
    }
}

// ncnn's arithmetic by hand: weights all 1, bias 0, weight scale 100, input scale 10 and
// inputs 0.1 i (levels i): each output is its 3x3 window's sum of levels / 1000.
TEST(ConvInt8Grouped, DepthwiseByHand) {
  layers::ConvolutionDepthWise dw;
  ParamDict pd = conv_params(2, 18, 1, 0);
  pd.set(7, 2);
  dw.load_param(pd);
  Mat w(18, static_cast<size_t>(1), 1);
  std::memset(w.data, 1, 18);
  dw.load_model(ModelBinFromMatArray({w, floats({0.f, 0.f}), floats({100.f, 100.f}), floats({10.f})}));
  Mat in(3, 3, 2);
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < 9; i++) static_cast<float*>(in.channel(c).data)[i] = 0.1f * (c * 9 + i);
  const std::vector<float> got = run(dw, in);
  for (int c = 0; c < 2; c++)
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 3; x++) {
        int sum = 0;
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++)
            if (y + dy >= 0 && y + dy < 3 && x + dx >= 0 && x + dx < 3) sum += c * 9 + (y + dy) * 3 + x + dx;
        EXPECT_FLOAT_EQ(got[c * 9 + y * 3 + x], sum / 1000.f) << c << " " << y << " " << x;
      }
}

TEST(ConvInt8Grouped, BadScalesAndOptionsAreReported) {
  layers::ConvolutionDepthWise dw;
  dw.name = "dw_int8";
  ParamDict pd = conv_params(4, 36, 1, 0);
  pd.set(7, 4);
  dw.load_param(pd);
  Mat w(36, static_cast<size_t>(1), 1);
  std::memset(w.data, 1, 36);
  dw.load_model(ModelBinFromMatArray({w, floats({0, 0, 0, 0}), floats({1, 2, 3, 4}), floats({0.f})}));
  try {
    dw.create_pipeline(Option());
    ADD_FAILURE() << "a zero input scale was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bottom blob scale is 0"), std::string::npos) << e.what();
  }
  Option no_int8;
  no_int8.use_int8_inference = false;
  try {
    dw.create_pipeline(no_int8);
    ADD_FAILURE() << "int8 weights ran without use_int8_inference";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("int8 weights need use_int8_inference"), std::string::npos) << e.what();
  }
}
