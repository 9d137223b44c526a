// The int8 convolution (ConvInt8 on the int8 GEMM kernel) against the exact int8
// reference and the fp32 quantization bound, for every (ISA, dot product) this machine
// runs (AVX-512 / AVX2, VNNI / madd16) and both forms (rows, im2col): channel counts
// 1..33 and primes, kernels 1/3/5/7, strides, dilations, pads incl. SAME, every elempack
// pair, bias, every activation, requantization, fp32 and int8 weights, thread counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tests/conv_int8_tester.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {

const ConvInt8::Form kForms[] = {ConvInt8::Form::rows, ConvInt8::Form::im2col};

std::vector<int> channel_counts() {
  std::vector<int> counts;
  for (int c = 1; c <= 33; c++) counts.push_back(c);
  for (int prime : {37, 41, 43, 47, 53, 59, 61, 67}) counts.push_back(prime);
  return counts;
}

// Tests of generated code skip, saying why, on CPUs that cannot run it.
class ConvInt8Jit : public ::testing::Test {
 protected:
  void SetUp() override {
    if (int8_kernel_variants().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  }
};

}  // namespace

TEST_F(ConvInt8Jit, InputChannelSweep) {
  for (auto [isa, dot] : int8_kernel_variants())
    for (ConvInt8::Form form : kForms)
      for (int ic : channel_counts())
        Int8ConvTester().isa(isa).dot(dot).form(form).ic(ic).oc(ic % 7 + 5).input(5, 7).kernel(3).pad(1)
            .bias(false).seed(ic).test();
}

TEST_F(ConvInt8Jit, OutputChannelSweep) {
  for (auto [isa, dot] : int8_kernel_variants())
    for (ConvInt8::Form form : kForms)
      for (int oc : channel_counts())
        Int8ConvTester().isa(isa).dot(dot).form(form).ic(oc % 5 + 3).oc(oc).input(4, 9).kernel(oc % 2 ? 1 : 3)
            .bias(false).seed(oc + 100).test();
}

TEST_F(ConvInt8Jit, Geometry) {
  struct Pads { int t, l, b, r; };
  const int up = kPadSameUpper, low = kPadSameLower;
  const Pads pads[] = {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 1, 0, 3}, {up, up, up, up}, {low, low, low, low}};
  for (auto [isa, dot] : int8_kernel_variants())
    for (ConvInt8::Form form : kForms)
      for (int k : {1, 3, 5, 7})
        for (int s : {1, 2})
          for (int dl : {1, 2})
            for (const Pads& p : pads) {
              if (k == 1 && dl == 2) continue;
              Int8ConvTester().isa(isa).dot(dot).form(form).ic(5).oc(19).input(15, 14).kernel(k).stride(s)
                  .dilation(dl).pad(p.t, p.l, p.b, p.r).seed(k * 10 + s + dl).test();
            }
}

TEST_F(ConvInt8Jit, RectangularKernelsStridesAndPadValue) {
  for (const auto& variant : int8_kernel_variants())
    for (ConvInt8::Form form : kForms) {
      auto base = [&] { return Int8ConvTester().isa(variant.first).dot(variant.second).form(form); };
      base().ic(7).oc(9).input(9, 13).kernel(1, 5).stride(1, 2).pad(0, 2, 0, 2).test();
      base().ic(12).oc(20).input(11, 8).kernel(3, 1).stride(2, 1).dilation(2, 1).pad(2, 0, 1, 0).test();
      base().ic(3).oc(16).input(12, 12).kernel(3).stride(3).pad(1).pad_value(0.75f).fp32_weights(true).test();
      base().ic(17).oc(16).input(6, 7).kernel(3).pad(2).pad_value(-0.3f).fp32_weights(true).test();
      // A pad value beyond the input range saturates at -127 like any input.
      base().ic(4).oc(8).input(5, 5).kernel(3).pad(1).pad_value(-500.f).check_fp32_bound(false).test();
    }
}

TEST_F(ConvInt8Jit, StridedPointwiseQuantizesOnlySampledPixels) {
  for (auto [isa, dot] : int8_kernel_variants())
    for (int in_pack : {1, 4, 16}) {
      Int8ConvTester().isa(isa).dot(dot).ic(32).oc(24).input(13, 11).kernel(1).stride(2).elempack(in_pack, 0).test();
      Int8ConvTester().isa(isa).dot(dot).ic(16).oc(17).input(9, 14).kernel(1).stride(3, 1).elempack(in_pack, 0).test();
      Int8ConvTester().isa(isa).dot(dot).ic(48).oc(8).input(7, 300).kernel(1).stride(1, 2).elempack(in_pack, 0).test();
      Int8ConvTester().isa(isa).dot(dot).ic(32).oc(9).input(8, 8).kernel(1).stride(2).pad(kPadSameUpper, kPadSameUpper,
          kPadSameUpper, kPadSameUpper).elempack(in_pack, 0).test();
    }
}

TEST_F(ConvInt8Jit, EveryElempackPair) {
  for (auto [isa, dot] : int8_kernel_variants())
    for (ConvInt8::Form form : kForms)
      for (int in : {1, 4, 8, 16})
        for (int out : {1, 4, 8, 16}) {
          if (out > isa_lanes(isa)) continue;
          Int8ConvTester().isa(isa).dot(dot).form(form).ic(32).oc(48).input(5, 6).kernel(3).pad(1).elempack(in, out)
              .act("relu").test();
          Int8ConvTester().isa(isa).dot(dot).form(form).ic(16).oc(80).input(4, 5).kernel(1).elempack(in, out)
              .requantize(true).test();
        }
}

TEST_F(ConvInt8Jit, ActivationsBiasAndRequantize) {
  const char* acts[] = {"none", "relu", "leaky:0.1", "clip:-0.5:0.7", "sigmoid", "mish", "hardswish:0.2:0.5"};
  for (auto [isa, dot] : int8_kernel_variants())
    for (const char* act : acts)
      for (bool bias : {false, true})
        for (bool requant : {false, true})
          for (bool fp32 : {false, true})
            Int8ConvTester().isa(isa).dot(dot).ic(24).oc(37).input(6, 9).kernel(3).pad(1).act(act).bias(bias)
                .requantize(requant).fp32_weights(fp32).test();
}

TEST_F(ConvInt8Jit, RequantizeRoundsHalfAwayFromZero) {
  // Small integers with a top scale of 0.5 put every odd sum on a tie (k + 0.5).
  for (auto [isa, dot] : int8_kernel_variants())
    for (ConvInt8::Form form : kForms)
      Int8ConvTester().isa(isa).dot(dot).form(form).ic(2).oc(20).input(6, 6).kernel(1).bias(false)
          .int8_range(2, 3).requantize(true).top_scale(0.5f).test();
}

TEST_F(ConvInt8Jit, ZeroWeightScaleGivesBias) {
  for (auto [isa, dot] : int8_kernel_variants())
    for (bool fp32 : {false, true})
      Int8ConvTester().isa(isa).dot(dot).ic(9).oc(17).input(5, 5).kernel(3).pad(1).zero_channel(true)
          .fp32_weights(fp32).test();
}

TEST_F(ConvInt8Jit, LongReductionsAndWideLayers) {
  for (auto [isa, dot] : int8_kernel_variants()) {
    Int8ConvTester().isa(isa).dot(dot).ic(300).oc(40).input(5, 6).kernel(3).pad(1).bias(false).test();
    Int8ConvTester().isa(isa).dot(dot).ic(1024).oc(70).input(3, 7).kernel(1).bias(false).test();
    Int8ConvTester().isa(isa).dot(dot).ic(64).oc(200).input(16, 17).kernel(1).act("relu").test();
    Int8ConvTester().isa(isa).dot(dot).ic(3).oc(64).input(23, 21).kernel(7).stride(2).pad(3).fp32_weights(true).test();
  }
}

TEST_F(ConvInt8Jit, ThreadsGiveIdenticalResults) {
  for (auto [isa, dot] : int8_kernel_variants())
    for (ConvInt8::Form form : kForms) {
      Int8ConvTester t;
      t.isa(isa).dot(dot).form(form).ic(20).oc(72).input(19, 23).kernel(3).pad(1).act("leaky:0.2");
      const std::vector<float> one = t.threads(1).test();
      const std::vector<float> two = t.threads(2).test();
      ASSERT_EQ(one.size(), two.size());
      EXPECT_EQ(0, memcmp(one.data(), two.data(), one.size() * sizeof(float)));
      Int8ConvTester p;
      p.isa(isa).dot(dot).form(form).ic(48).oc(40).input(21, 20).kernel(1).requantize(true);
      const std::vector<float> p1 = p.threads(1).test();
      const std::vector<float> p3 = p.threads(3).test();
      EXPECT_EQ(0, memcmp(p1.data(), p3.data(), p1.size() * sizeof(float)));
      // One panel's pixels (at most 96: 7x7 here) cut into a range per thread.
      Int8ConvTester s;
      s.isa(isa).dot(dot).form(form).ic(40).oc(48).input(9, 9).kernel(3).act("relu");
      const std::vector<float> s1 = s.threads(1).test();
      for (int threads : {2, 3}) {
        const std::vector<float> many = s.threads(threads).test();
        EXPECT_EQ(0, memcmp(s1.data(), many.data(), s1.size() * sizeof(float))) << threads << " threads";
      }
    }
}

TEST(ConvInt8, PortableKernelMatches) {
  // Isa::scalar runs the kernel contract in C++ (JITCONV_ISA=scalar).
  Int8ConvTester().isa(Isa::scalar).ic(13).oc(21).input(6, 7).kernel(3).pad(1).act("relu").test();
  Int8ConvTester().isa(Isa::scalar).ic(20).oc(9).input(5, 4).kernel(1).requantize(true).fp32_weights(true).test();
  Int8ConvTester().isa(Isa::scalar).form(ConvInt8::Form::im2col).ic(3).oc(5).input(7, 7).kernel(5).stride(2).pad(2)
      .test();
}

TEST(ConvInt8, KernelNamesSpellEveryParameter) {
  // Equal names share one kernel in the registry: every field must change the name.
  GemmInt8Conf base;
  base.isa = Isa::avx512;
  base.vlen = 16;
  base.ur_oc = 4;
  base.nr = 6;
  std::vector<GemmInt8Conf> confs(12, base);
  confs[1].isa = Isa::avx2;
  confs[1].vlen = 8;
  confs[1].last_chunk_lanes = 8;
  confs[2].dot = Int8Dot::madd16;
  confs[3].ur_oc = 3;
  confs[4].nr = 5;
  confs[5].n_tail = 2;
  confs[6].b_pixel_stride = 8;
  confs[7].out_pack = 8;
  confs[8].last_chunk_lanes = 4;
  confs[9].bias = true;
  confs[10].requantize = true;
  confs[11].act = Activation::parse("leaky:0.1");
  std::vector<std::string> names;
  for (const GemmInt8Conf& c : confs) {
    EXPECT_EQ(std::count(names.begin(), names.end(), c.name()), 0) << c.name();
    names.push_back(c.name());
  }
  GemmInt8Conf other_slope = confs[11];
  other_slope.act = Activation::parse("leaky:0.2");
  EXPECT_NE(other_slope.name(), confs[11].name());
}
