// The Convolution layer with int8_scale_term, built the way a Net builds it (load_param,
// load_model from a ModelBinFromMatArray, create_pipeline, forward on any input
// elempack): int8 weights and fp32 weights + scales against reference_conv2d_int8, on
// every ISA this machine has, and the errors bad scales raise.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "loader/model_bin.h"
#include "reference/conv_int8_ref.h"
#include "runtime/error.h"
#include "runtime/layers/convolution.h"
#include "runtime/packing.h"
#include "tests/layer_tester.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {

struct LayerCase {
  int ic = 8, oc = 12, k = 3, stride = 1, dilation = 1, pad = 1, ih = 7, iw = 9;
  bool bias = true;
  int act_type = 0;
  std::vector<float> act_params;
  int scale_term = 1;
  bool fp32_weights = false;
  float pad_value = 0.f;
  int inf_weight_scale_channel = -1;  // this output channel's weight scale is +inf
  bool inf_bottom_scale = false;
};

// Weights, scales and the expected output of one case.
struct LayerData {
  ConvDesc desc;
  Mat src;  // plain (c, h, w)
  std::vector<int8_t> weights_int8;
  std::vector<float> weights_fp32;
  std::vector<float> weight_scales, bias;
  float bottom = 0.f, top = 0.f;
  std::vector<float> expected;
};

LayerData make_data(const LayerCase& c, uint32_t seed) {
  LayerData d;
  const long per_oc = static_cast<long>(c.ic) * c.k * c.k;
  d.src = random_mat(c.iw, c.ih, c.ic, seed);
  d.bias = random_vector(c.oc, seed + 2);
  std::mt19937 rng(seed + 1);
  std::uniform_int_distribution<int> dist(-127, 127);
  d.weights_int8.resize(static_cast<size_t>(c.oc) * per_oc);
  d.weights_fp32.resize(d.weights_int8.size());
  d.weight_scales.resize(c.oc);
  for (int o = 0; o < c.oc; o++) {
    d.weight_scales[o] = 40.f + 7.f * o;  // not powers of two: fp32 weights round-trip through float2int8
    for (long k = 0; k < per_oc; k++) {
      const int8_t q = static_cast<int8_t>(dist(rng));
      d.weights_int8[o * per_oc + k] = q;
      d.weights_fp32[o * per_oc + k] = q / d.weight_scales[o];
    }
  }
  if (c.fp32_weights)  // what the layer will quantize them to
    d.weights_int8 = reference_quantize_weights(d.weights_fp32.data(), c.oc, per_oc, d.weight_scales.data());
  d.bottom = c.inf_bottom_scale ? INFINITY : 90.f;
  d.top = 3.5f;
  if (c.inf_weight_scale_channel >= 0) d.weight_scales[c.inf_weight_scale_channel] = INFINITY;
  ConvDesc& desc = d.desc;
  desc.mb = 1;
  desc.ic = c.ic;
  desc.ih = c.ih;
  desc.iw = c.iw;
  desc.oc = c.oc;
  desc.kh = desc.kw = c.k;
  desc.sh = desc.sw = c.stride;
  desc.dilation_h = desc.dilation_w = c.dilation;
  desc.pad_top = desc.pad_left = desc.pad_bottom = desc.pad_right = c.pad;
  desc.oh = (c.ih + 2 * c.pad - (c.k - 1) * c.dilation - 1) / c.stride + 1;
  desc.ow = (c.iw + 2 * c.pad - (c.k - 1) * c.dilation - 1) / c.stride + 1;
  Int8RefScales rs;
  rs.weight = d.weight_scales.data();
  rs.bottom = d.bottom;
  rs.requantize = c.scale_term > 100;
  rs.top = d.top;
  d.expected.resize(static_cast<size_t>(c.oc) * desc.oh * desc.ow);
  const std::vector<float> src = dense_values(d.src);
  reference_conv2d_int8(desc, src.data(), d.weights_int8.data(), rs, c.bias ? d.bias.data() : nullptr,
                        d.expected.data(), Activation::from_ncnn(c.act_type, c.act_params), c.pad_value);
  return d;
}

std::vector<Mat> model_weights(const LayerCase& c, const LayerData& d) {
  std::vector<Mat> mats;
  const int count = static_cast<int>(d.weights_int8.size());
  if (c.fp32_weights) {
    Mat w(count);
    memcpy(w.data, d.weights_fp32.data(), count * sizeof(float));
    mats.push_back(w);
  } else {
    Mat w(count, static_cast<size_t>(1), 1);
    memcpy(w.data, d.weights_int8.data(), count);
    mats.push_back(w);
  }
  if (c.bias) {
    Mat b(c.oc);
    memcpy(b.data, d.bias.data(), c.oc * sizeof(float));
    mats.push_back(b);
  }
  Mat ws(c.oc);
  memcpy(ws.data, d.weight_scales.data(), c.oc * sizeof(float));
  mats.push_back(ws);
  Mat bs(1);
  bs[0] = d.bottom;
  mats.push_back(bs);
  if (c.scale_term > 100) {
    Mat ts(1);
    ts[0] = d.top;
    mats.push_back(ts);
  }
  return mats;
}

void load_layer(layers::Convolution& layer, const LayerCase& c, const LayerData& d) {
  layer.name = "conv_int8_under_test";
  ParamDict pd;
  pd.set(0, c.oc);
  pd.set(1, c.k);
  pd.set(2, c.dilation);
  pd.set(3, c.stride);
  pd.set(4, c.pad);
  pd.set(5, c.bias ? 1 : 0);
  pd.set(6, static_cast<int>(d.weights_int8.size()));
  pd.set(8, c.scale_term);
  pd.set(9, c.act_type);
  if (!c.act_params.empty()) pd.set(10, c.act_params);
  pd.set(18, c.pad_value);
  layer.load_param(pd);
  layer.load_model(ModelBinFromMatArray(model_weights(c, d)));
}

// Every ISA and input elempack; outputs bit-identical to the reference (exact activations).
void test_layer(const LayerCase& c, uint32_t seed) {
  const LayerData d = make_data(c, seed);
  for (Isa isa : available_isas())
    for (int pack : {1, 4, 8, 16}) {
      if (c.ic % pack) continue;
      SCOPED_TRACE(std::string("isa ") + isa_name(isa) + " input elempack " + std::to_string(pack) +
                   (c.fp32_weights ? " fp32 weights" : " int8 weights") + " scale term " +
                   std::to_string(c.scale_term));
      IsaGuard guard(isa);
      layers::Convolution layer;
      load_layer(layer, c, d);
      Option opt;
      opt.num_threads = 2;
      layer.create_pipeline(opt);
      EXPECT_NE(layer.describe().find("int8"), std::string::npos) << layer.describe();
      Mat in;
      convert_packing(d.src, in, pack, opt);
      Mat top;
      layer.forward(in, top, opt);
      Mat plain;
      convert_packing(top, plain, 1, opt);
      ASSERT_EQ(plain.c, c.oc);
      ASSERT_EQ(plain.h, d.desc.oh);
      ASSERT_EQ(plain.w, d.desc.ow);
      const std::vector<float> got = dense_values(plain);
      int failures = 0;
      for (size_t i = 0; i < got.size() && failures < 5; i++)
        if (memcmp(&got[i], &d.expected[i], sizeof(float)) != 0) {
          ADD_FAILURE() << "output " << i << ": got " << got[i] << ", reference " << d.expected[i];
          failures++;
        }
      layer.destroy_pipeline(opt);
    }
}

// create_pipeline's error message for a case after `mutate` edits the loaded layer.
template <typename Mutate>
std::string pipeline_error(const LayerCase& c, Mutate mutate, bool use_int8 = true) {
  const LayerData d = make_data(c, 5);
  layers::Convolution layer;
  load_layer(layer, c, d);
  mutate(layer);
  Option opt;
  opt.use_int8_inference = use_int8;
  try {
    layer.create_pipeline(opt);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(ConvInt8Layer, Int8WeightsEveryIsaAndElempack) {
  LayerCase c;
  c.ic = 16;
  c.oc = 24;
  test_layer(c, 1);
  c.ic = 3;
  c.oc = 13;
  c.k = 5;
  c.stride = 2;
  c.pad = 2;
  c.act_type = 1;
  test_layer(c, 2);
}

TEST(ConvInt8Layer, Fp32WeightsQuantizedAtCreatePipeline) {
  LayerCase c;
  c.fp32_weights = true;
  c.ic = 32;
  c.oc = 20;
  c.act_type = 2;
  c.act_params = {0.15f};
  test_layer(c, 3);
  c.k = 1;
  c.pad = 0;
  c.scale_term = 101;
  test_layer(c, 4);
}

TEST(ConvInt8Layer, RequantizedOutputAndPadValue) {
  LayerCase c;
  c.scale_term = 101;
  c.ic = 12;
  c.oc = 40;
  c.dilation = 2;
  c.pad = 2;
  c.pad_value = 0.4f;
  c.act_type = 3;
  c.act_params = {-0.2f, 0.9f};
  test_layer(c, 6);
}

TEST(ConvInt8Layer, UnpackedLayout) {
  LayerCase c;
  c.ic = 16;
  c.oc = 20;
  const LayerData d = make_data(c, 8);
  for (Isa isa : available_isas()) {
    SCOPED_TRACE(isa_name(isa));
    IsaGuard guard(isa);
    layers::Convolution layer;
    load_layer(layer, c, d);
    Option opt;
    opt.use_packing_layout = false;
    layer.create_pipeline(opt);
    Mat top;
    layer.forward(d.src, top, opt);
    ASSERT_EQ(top.elempack, 1);
    const std::vector<float> got = dense_values(top);
    ASSERT_EQ(got.size(), d.expected.size());
    EXPECT_EQ(0, memcmp(got.data(), d.expected.data(), got.size() * sizeof(float)));
  }
}

TEST(ConvInt8Layer, FlattenedInputRunsAsInnerProduct) {
  LayerCase c;
  c.ic = 40;
  c.oc = 7;
  c.k = 1;
  c.pad = 0;
  c.ih = c.iw = 1;
  const LayerData d = make_data(c, 9);
  for (Isa isa : available_isas()) {
    SCOPED_TRACE(isa_name(isa));
    IsaGuard guard(isa);
    layers::Convolution layer;
    load_layer(layer, c, d);
    Option opt;
    layer.create_pipeline(opt);
    Mat flat = d.src.reshape(c.ic);
    Mat top;
    layer.forward(flat, top, opt);
    Mat plain;
    convert_packing(top, plain, 1, opt);
    ASSERT_EQ(plain.dims, 1);
    ASSERT_EQ(plain.w, c.oc);
    for (int o = 0; o < c.oc; o++) EXPECT_EQ(plain[o], d.expected[o]) << "output " << o;
  }
}

// ncnn2table writes 127 / absmax unguarded: a pruned (all-zero) filter or a blob that was
// zero through calibration gets an infinite scale, and ncnn dequantizes with 1 / inf = 0,
// giving activation(bias) there.
TEST(ConvInt8Layer, InfiniteScalesGiveTheActivatedBias) {
  LayerCase c;
  c.act_type = 1;
  c.inf_weight_scale_channel = 5;
  const LayerData d = make_data(c, 7);
  const size_t plane = static_cast<size_t>(d.desc.oh) * d.desc.ow;
  for (size_t i = 0; i < plane; i++) ASSERT_EQ(d.expected[5 * plane + i], std::max(0.f, d.bias[5])) << i;
  test_layer(c, 7);
  c.inf_weight_scale_channel = -1;
  c.inf_bottom_scale = true;
  const LayerData all = make_data(c, 8);
  for (int o = 0; o < c.oc; o++)
    for (size_t i = 0; i < plane; i++) ASSERT_EQ(all.expected[o * plane + i], std::max(0.f, all.bias[o])) << o;
  test_layer(c, 8);
}

TEST(ConvInt8Layer, BadScalesAreReported) {
  LayerCase c;
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos && message.find("conv_int8_under_test") != std::string::npos;
  };
  std::string e = pipeline_error(c, [](layers::Convolution& l) { l.bottom_blob_int8_scales[0] = 0.f; });
  EXPECT_TRUE(has(e, "bottom blob scale is 0")) << e;
  e = pipeline_error(c, [](layers::Convolution& l) { static_cast<float*>(l.weight_data_int8_scales.data)[3] = NAN; });
  EXPECT_TRUE(has(e, "weight scale 3 is nan")) << e;
  e = pipeline_error(c, [](layers::Convolution& l) { static_cast<float*>(l.weight_data_int8_scales.data)[0] = -2.f; });
  EXPECT_TRUE(has(e, "weight scale 0 is -2")) << e;
  e = pipeline_error(c, [](layers::Convolution& l) {
    l.weight_data_int8_scales = l.weight_data_int8_scales.range(0, 5);
  });
  EXPECT_TRUE(has(e, "weight_data_int8_scales holds 5 values, expected 12")) << e;
  LayerCase requant = c;
  requant.scale_term = 101;
  e = pipeline_error(requant, [](layers::Convolution& l) { l.top_blob_int8_scales[0] = INFINITY; });
  EXPECT_TRUE(has(e, "top blob scale is inf")) << e;
  e = pipeline_error(c, [](layers::Convolution&) {}, false);
  EXPECT_NE(e.find("int8 weights need use_int8_inference"), std::string::npos) << e;
}

TEST(ConvInt8Layer, ReductionTooLongForInt32IsRejected) {
  LayerCase c;
  c.ic = 14600;  // 14600 * 9 > 131072 products of up to 128 * 128
  c.oc = 1;
  c.ih = c.iw = 3;
  std::string e = pipeline_error(c, [](layers::Convolution&) {});
  EXPECT_NE(e.find("exceeds 131072"), std::string::npos) << e;
}
