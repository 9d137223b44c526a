// Residual fusion: Convolution::fuse_residual on every path and ISA against the scalar
// reference convolution plus the residual, and the Net's Convolution -> Eltwise(sum)
// [-> ReLU] rewrite (runtime/net_fusion.cpp) against the same graph run unfused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference/layer_ref_registry.h"
#include "reference/reference_executor.h"
#include "runtime/error.h"
#include "runtime/layers/convolution.h"
#include "runtime/packing.h"
#include "tests/layer_tester.h"
#include "tests/net_test_util.h"

namespace jitconv {
namespace test {
namespace {

struct Case {
  std::string algo;
  int ic, oc;
  int k, stride, dilation, pad;
  int w, h;
};

ParamDict conv_params(const Case& c, const Activation& act) {
  ParamDict pd;
  pd.set(0, c.oc);
  pd.set(1, c.k);
  pd.set(3, c.stride);
  pd.set(2, c.dilation);
  pd.set(4, c.pad);
  pd.set(5, 1);
  pd.set(6, c.oc * c.ic * c.k * c.k);
  if (act.type != ActivationType::none) {
    pd.set(9, static_cast<int>(act.type));
    pd.set(10, std::vector<float>{act.alpha, act.beta});
  }
  return pd;
}

// act(reference conv + residual), plain layout.
Mat expected_output(const Case& c, const Activation& act, const Mat& weights, const Mat& bias, const Mat& input,
                    const Mat& residual) {
  std::unique_ptr<Layer> ref = create_reference_layer("Convolution");
  ref->load_param(conv_params(c, Activation()));
  std::vector<Mat> blobs = {weights.clone(), bias.clone()};
  ref->load_model(ModelBinFromMatArray(blobs));
  Option opt;
  ref->create_pipeline(opt);
  Mat out;
  ref->forward(input, out, opt);
  for (int q = 0; q < out.c; q++) {
    float* o = out.channel(q);
    const float* r = residual.channel(q);
    for (int i = 0; i < out.w * out.h; i++) o[i] = act.apply(o[i] + r[i]);
  }
  return out;
}

void check_case(const Case& c, const Activation& act, uint32_t seed) {
  const Mat weights = random_mat(c.oc * c.ic * c.k * c.k, seed);
  const Mat bias = random_mat(c.oc, seed + 1);
  const Mat input = random_mat(c.w, c.h, c.ic, seed + 2);
  const int extent = (c.k - 1) * c.dilation + 1;
  const int ow = (c.w + 2 * c.pad - extent) / c.stride + 1, oh = (c.h + 2 * c.pad - extent) / c.stride + 1;
  const Mat residual = random_mat(ow, oh, c.oc, seed + 3);
  const Mat expected = expected_output(c, act, weights, bias, input, residual);
  const bool winograd = c.algo.rfind("winograd", 0) == 0;
  const bool f63_or_53 = c.algo == "winograd63" || c.algo == "winograd53" || c.algo == "winograd63_43";
  const double tolerance = f63_or_53 ? 1.5e-4 : winograd ? 1e-4 : 1e-5;
  for (Isa isa : available_isas()) {
    if (isa == Isa::scalar && c.algo != "scalar") continue;
    for (bool packed_residual : {true, false}) {
      SCOPED_TRACE(c.algo + " " + isa_name(isa) + " ic" + std::to_string(c.ic) + " oc" + std::to_string(c.oc) + " k" +
                   std::to_string(c.k) + " s" + std::to_string(c.stride) + " d" + std::to_string(c.dilation) + " " +
                   act.to_string() + (packed_residual ? " packed residual" : " plain residual"));
      layers::Convolution conv;
      conv.name = "fused";
      conv.load_param(conv_params(c, act));
      std::vector<Mat> blobs = {weights.clone(), bias.clone()};
      conv.load_model(ModelBinFromMatArray(blobs));
      conv.forced_algo = c.algo;
      conv.force_isa = true;
      conv.forced_isa = isa;
      conv.fuse_residual = true;
      Option opt;
      opt.num_threads = 2;
      conv.create_pipeline(opt);
      // The kernels add the residual where the output is packed by whole vectors
      // (Winograd: always); elsewhere the layer adds it.
      const bool kernel_path = c.algo == "direct" || c.algo == "gemm" || c.algo == "brgemm" || winograd;
      const bool whole_vectors = isa != Isa::scalar && c.oc % isa_lanes(isa) == 0;
      const bool in_kernels = kernel_path && (winograd || whole_vectors);
      EXPECT_NE(conv.describe().find(in_kernels ? "fused into the kernels" : "added by the layer"), std::string::npos)
          << conv.describe();
      Mat in, res;
      convert_packing(input, in, preferred_elempack(isa, c.ic), opt);
      convert_packing(residual, res, packed_residual ? preferred_elempack(isa, c.oc) : 1, opt);
      std::vector<Mat> tops;
      conv.forward(std::vector<Mat>{in, res}, tops, opt);
      ASSERT_EQ(tops.size(), 1u);
      Mat got;
      convert_packing(tops[0], got, 1, opt);
      ASSERT_EQ(got.w, expected.w);
      ASSERT_EQ(got.h, expected.h);
      ASSERT_EQ(got.c, expected.c);
      const std::vector<float> g = dense_values(got), e = dense_values(expected);
      const ErrorStats s = compare(g.data(), e.data(), g.size());
      EXPECT_FALSE(s.has_nan);
      EXPECT_LE(s.max_rel(), tolerance) << "worst index " << s.worst_index;
    }
  }
}

}  // namespace

TEST(ConvResidual, EveryPathMatchesReferencePlusResidual) {
  const std::vector<Case> cases = {
      {"direct", 16, 32, 3, 1, 1, 1, 13, 9},      {"direct", 8, 24, 3, 2, 1, 1, 15, 11},
      {"direct", 5, 7, 5, 1, 1, 2, 9, 8},         {"direct", 16, 48, 3, 1, 2, 2, 12, 10},
      {"direct", 800, 32, 1, 1, 1, 0, 41, 3},    {"direct", 64, 48, 1, 1, 1, 0, 23, 29},
      {"gemm", 32, 64, 1, 1, 1, 0, 17, 15},       {"gemm", 24, 40, 1, 2, 1, 0, 13, 9},
      {"gemm", 16, 32, 3, 1, 1, 1, 11, 7},        {"gemm", 7, 12, 1, 1, 1, 0, 9, 9},
      {"gemm", 16, 32, 1, 2, 1, 0, 61, 5},        {"gemm", 5, 16, 3, 2, 1, 1, 21, 9},
      {"brgemm", 16, 32, 3, 1, 1, 1, 19, 6},      {"winograd23", 16, 32, 3, 1, 1, 1, 11, 9},
      {"winograd43", 16, 24, 3, 1, 1, 1, 13, 10}, {"winograd63", 8, 32, 3, 1, 1, 1, 15, 14},
      {"winograd43", 5, 7, 3, 1, 1, 1, 9, 7},     {"dilated", 16, 32, 3, 1, 2, 2, 14, 12},
      {"winograd53", 16, 40, 3, 1, 1, 1, 14, 11}, {"winograd53", 24, 24, 3, 1, 2, 1, 19, 16},
      {"scalar", 6, 10, 3, 1, 1, 1, 7, 6},
      // Dilated Winograd, in place: sub-image tiles straight into the tensor (oc 32) and
      // through the scratch tile with its residual gathered (oc 24 packed by 8 on AVX-512).
      {"winograd43", 16, 32, 3, 1, 2, 2, 14, 12}, {"winograd63", 16, 24, 3, 1, 3, 2, 17, 13},
      // Two threads split this one by output channels (ConvWinograd::Split::by_channels).
      {"winograd23", 512, 509, 3, 1, 1, 1, 7, 7},
      // F(6,3) with F(4,3) borders: both instances add the residual in their rectangles.
      {"winograd63_43", 16, 32, 3, 1, 1, 1, 16, 15}, {"winograd63_43", 16, 24, 3, 1, 1, 1, 10, 17},
  };
  const std::vector<Activation> acts = {Activation(), Activation::parse("relu"), Activation::parse("leaky:0.1")};
  uint32_t seed = 52000;
  for (const Case& c : cases)
    for (const Activation& act : acts) {
      check_case(c, act, seed);
      seed += 4;
    }
}

TEST(ConvResidual, LayerRejectsMismatchedResidual) {
  const Case c{"direct", 16, 32, 3, 1, 1, 1, 9, 9};
  layers::Convolution conv;
  conv.name = "fused";
  conv.load_param(conv_params(c, Activation()));
  std::vector<Mat> blobs = {random_mat(c.oc * c.ic * 9, 1u), random_mat(c.oc, 2u)};
  conv.load_model(ModelBinFromMatArray(blobs));
  conv.fuse_residual = true;
  Option opt;
  conv.create_pipeline(opt);
  std::vector<Mat> tops;
  const Mat input = random_mat(9, 9, 16, 3u);
  try {
    conv.forward(std::vector<Mat>{input, random_mat(8, 9, 32, 4u)}, tops, opt);
    FAIL() << "a residual of the wrong size was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("residual input is 8x9x32, the output is 9x9x32"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(conv.forward(std::vector<Mat>{input}, tops, opt), Error);
  Mat top;
  EXPECT_THROW(conv.forward(input, top, opt), Error);
}

namespace {

// A residual stage: two shortcut blocks (identity, then a strided one whose shortcut is a
// 1x1 convolution), each ending in Eltwise sum + ReLU, and cases the rewrite must leave.
const char* const kResidualModel = R"(7767517
16 18
Input            data     0 1 data -23330=4,3,14,12,16
Convolution      c1       1 1 data c1 0=16 1=3 4=1 5=1 6=2304 9=1
Convolution      c2       1 1 c1 c2 0=16 1=3 4=1 5=1 6=2304
Eltwise          sum1     2 1 c2 data s1 0=1
ReLU             relu1    1 1 s1 r1
Split            split1   1 2 r1 r1a r1b
Convolution      down     1 1 r1b down 0=32 1=1 3=2 5=1 6=512
Convolution      c3       1 1 r1a c3 0=32 1=3 3=2 4=1 5=1 6=4608 9=1
Convolution      c4       1 1 c3 c4 0=32 1=1 5=1 6=1024
Eltwise          sum2     2 1 down c4 s2 0=1
ReLU             relu2    1 1 s2 r2 0=0.1
Convolution      c5       1 1 r2 c5 0=32 1=1 5=1 6=1024
Split            split2   1 2 c5 c5a c5b
Eltwise          weighted 2 1 c5a r2 s3 0=1 -23301=2,2.0,1.0
Eltwise          twice    2 1 c5b s3 s4 0=1
Eltwise          prod     2 1 s4 r2 out 0=0
)";

}  // namespace

TEST(ConvResidual, NetFusesResidualBlocksAndMatchesUnfused) {
  for (Isa isa : available_isas()) {
    SCOPED_TRACE(isa_name(isa));
    IsaGuard guard(isa);
    for (bool lightmode : {true, false}) {
      Net fused, plain;
      plain.opt.use_residual_fusion = false;
      for (Net* net : {&fused, &plain}) {
        net->opt.lightmode = lightmode;
        net->opt.num_threads = 2;
        net->load_param_mem(kResidualModel);
        RandomWeights weights(net->graph(), 5);
        net->load_model(weights);
      }
      // c2 absorbs sum1 + relu1; c4 (the later operand) absorbs sum2 + the leaky relu2;
      // c5 feeds a Split, the weighted sum has coeffs, prod multiplies: left alone.
      const auto& c2 = static_cast<const layers::Convolution&>(fused.layer(fused.find_layer("c2")));
      const auto& c4 = static_cast<const layers::Convolution&>(fused.layer(fused.find_layer("c4")));
      const auto& down = static_cast<const layers::Convolution&>(fused.layer(fused.find_layer("down")));
      EXPECT_TRUE(c2.fuse_residual);
      EXPECT_EQ(c2.activation_type, 1);
      EXPECT_TRUE(c4.fuse_residual);
      EXPECT_EQ(c4.activation_type, 2);
      EXPECT_FALSE(down.fuse_residual);
      for (const char* name : {"c1", "c3", "c5"})
        EXPECT_FALSE(static_cast<const layers::Convolution&>(fused.layer(fused.find_layer(name))).fuse_residual) << name;
      EXPECT_EQ(fused.fused_into(fused.find_blob("c2")), fused.find_layer("c2"));
      EXPECT_EQ(fused.fused_into(fused.find_blob("s2")), fused.find_layer("c4"));
      EXPECT_EQ(fused.fused_into(fused.find_blob("s4")), -1);
      EXPECT_EQ(fused.output_names(), std::vector<std::string>{"out"});
      EXPECT_FALSE(plain.layer(plain.find_layer("c2")).describe().find("residual") != std::string::npos);

      Mat input = random_mat(14, 12, 16, 77);
      for (const char* blob : {"out", "r1", "r2", "s3"}) {
        SCOPED_TRACE(blob);
        Mat a, b;
        Extractor ea = fused.create_extractor(), eb = plain.create_extractor();
        ea.input("data", input);
        eb.input("data", input);
        ea.extract(blob, a);
        eb.extract(blob, b);
        ASSERT_EQ(a.total(), b.total());
        const std::vector<float> va = dense_values(a), vb = dense_values(b);
        // The same additions in the same order: identical results.
        for (size_t i = 0; i < va.size(); i++) ASSERT_EQ(va[i], vb[i]) << "at " << i;
      }
      Extractor ex = fused.create_extractor();
      ex.input("data", input);
      Mat gone;
      try {
        ex.extract("s1", gone);
        FAIL() << "a fused-away blob was extracted";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("residual fusion folded it into"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("use_residual_fusion"), std::string::npos) << e.what();
      }
      // Setting it would be ignored just the same: an error too, for the blob itself and
      // for a convolution's own output that the fusion folded.
      for (const char* folded : {"s1", "c2"}) {
        Extractor ei = fused.create_extractor();
        try {
          ei.input(folded, random_mat(14, 12, 16, 78));
          ADD_FAILURE() << "a value was set on the fused-away blob " << folded;
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("residual fusion folded this blob into"), std::string::npos) << e.what();
        }
      }
      Extractor ep = plain.create_extractor();
      ep.input("data", input);
      EXPECT_NO_THROW(ep.extract("s1", gone));
      EXPECT_NO_THROW(ep.input("s1", gone));
    }
  }
}

TEST(ConvResidual, NetMatchesReferenceExecutor) {
  Net net;
  net.opt.num_threads = 2;
  net.load_param_mem(kResidualModel);
  RandomWeights weights(net.graph(), 9);
  net.load_model(weights);
  ReferenceExecutor ref;
  ref.load_param_mem(kResidualModel);
  RandomWeights ref_weights(ref.graph(), 9);
  ref.load_model(ref_weights);
  Mat input = random_mat(14, 12, 16, 78);
  Mat a, b;
  Extractor ea = net.create_extractor(), eb = ref.create_extractor();
  ea.input("data", input);
  eb.input("data", input);
  ea.extract("out", a);
  eb.extract("out", b);
  const std::vector<float> va = dense_values(a), vb = dense_values(b);
  ASSERT_EQ(va.size(), vb.size());
  const ErrorStats s = compare(va.data(), vb.data(), va.size());
  EXPECT_LE(s.max_rel(), 1e-4);
}

}  // namespace test
}  // namespace jitconv
