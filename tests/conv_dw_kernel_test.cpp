// Depthwise convolution (generated kernels and the per-ISA loops) against the scalar
// reference, over generated edge cases, on every ISA of the machine (AVX2 also on
// AVX-512 machines, the portable loops on "scalar").
#include <gtest/gtest.h>

#include "jit/conv_dw_conf.h"
#include "jit/kernel_registry.h"
#include "tests/conv_dw_tester.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {

using Kind = ConvDepthwise::Kernel;

// The kernel kinds that can run a pack (3-tap rows, stride sw) on an ISA.
std::vector<Kind> kinds_for(Isa isa, int pack, int sw = 1) {
  std::vector<Kind> kinds = {Kind::loops};
  if (conv_dw_jit_supported(isa, 3, sw, pack, Activation())) kinds.push_back(Kind::jit);
  return kinds;
}

// Output widths that cover a pack's register blocking on `isa` for 3- and 5-tap rows:
// every width up to 64, then each side of one and two whole register blocks.
std::vector<int> output_widths(Isa isa, int pack) {
  std::vector<int> widths;
  for (int ow = 1; ow <= 64; ow++) widths.push_back(ow);
  for (int kw : {3, 5}) {
    const ConvDwConf widest = init_conv_dw_conf(isa, ConvDwProblem{8192, 8192, kw, 1, 1, 0, pack, false, {}});
    const int block = widest.ur_w * widest.pixels;
    for (int k : {1, 2})
      for (int d = -widest.pixels - 1; d <= widest.pixels + 1; d++)
        if (k * block + d > 64) widths.push_back(k * block + d);
  }
  return widths;
}

}  // namespace

TEST(ConvDepthwise, ChannelCountsEveryPack) {
  for (Isa isa : available_isas())
    for (int c = 1; c <= 67; c++)
      for (int pack : depthwise_packs(isa, c)) {
        DwTester().isa(isa).channels(c).elempack(pack).input(7, 9).kernel(3).pad(1).seed(c).test_depthwise();
        DwTester().isa(isa).channels(c).elempack(pack).input(9, 11).kernel(5).stride(2).pad(2).seed(c + 100)
            .test_depthwise();
      }
}

TEST(ConvDepthwise, GeneratedKernelsServeEveryPackedLayout) {
  for (Isa isa : jit_isas())
    for (int pack : {4, 8, 16}) {
      if (pack > isa_lanes(isa)) continue;
      DwTester().isa(isa).channels(48).elempack(pack).kernel(3).pad(1).expect_generated(true).test_depthwise();
      DwTester().isa(isa).channels(48).elempack(pack).kernel(5).stride(2).pad(2).expect_generated(true)
          .test_depthwise();
    }
  // elempack 1: generated with 16 (8) pixels per zmm (ymm) at stride 1 and 2, else the
  // loops, vectorized along the row.
  for (Isa isa : available_isas()) {
    const bool jit = isa != Isa::scalar;
    DwTester().isa(isa).channels(19).elempack(1).expect_generated(jit).test_depthwise();
    DwTester().isa(isa).channels(19).elempack(1).stride(2).expect_generated(jit).test_depthwise();
    DwTester().isa(isa).channels(19).elempack(1).stride(3).expect_generated(false).test_depthwise();
  }
}

TEST(ConvDepthwise, OutputWidthsUpToTwiceTheRegisterBlock) {
  for (Isa isa : jit_isas()) {
    for (int pack : {1, 4, 8, 16}) {
      if (pack > isa_lanes(isa) || !conv_dw_jit_supported(isa, 5, 2, pack, Activation())) continue;
      const int c = pack == 1 ? 3 : 2 * pack;
      for (int ow : output_widths(isa, pack)) {
        auto t = [&] { return DwTester().isa(isa).channels(c).elempack(pack).seed(ow).expect_generated(true); };
        t().input(3, ow).kernel(3).pad(1).test_depthwise();
        t().input(4, 2 * ow).kernel(3).stride(2).pad(1).test_depthwise();
        t().input(5, ow + 4).kernel(5).test_depthwise();
        t().input(3, ow).kernel(5).pad(2).test_depthwise();
        t().input(5, 2 * ow + 3).kernel(5).stride(2).pad(0, 1, 0, 2).test_depthwise();
      }
    }
    // The loops' fused rows against their per-tap edges, at every width.
    for (int ow = 1; ow <= 40; ow++) {
      DwTester().isa(isa).channels(5).elempack(1).input(3, ow).kernel(3).pad(1).seed(ow).test_depthwise();
      DwTester().isa(isa).channels(5).elempack(1).input(4, 2 * ow + 1).kernel(5).stride(2).pad(2).seed(ow)
          .test_depthwise();
    }
  }
}

TEST(ConvDepthwise, KernelStrideDilationPad) {
  struct K {
    int h, w;
  };
  for (Isa isa : available_isas())
    for (K k : {K{1, 1}, K{2, 2}, K{3, 3}, K{4, 4}, K{5, 5}, K{7, 7}, K{3, 5}, K{1, 7}, K{7, 1}})
      for (int s = 1; s <= 3; s++)
        for (int d = 1; d <= 2; d++) {
          const int ih = (k.h - 1) * d + 1 + 6, iw = (k.w - 1) * d + 1 + 11;
          for (int pack : depthwise_packs(isa, 48)) {
            const int c = pack == 1 ? 19 : 48;
            for (Kind kind : kinds_for(isa, pack, s))
              DwTester().isa(isa).channels(c).elempack(pack).kernel_kind(kind).input(ih, iw).kernel(k.h, k.w)
                  .stride(s).dilation(d).seed(k.h * 10 + k.w + s + d).test_depthwise();
            for (Kind kind : kinds_for(isa, pack, 4 - s))
              DwTester().isa(isa).channels(c).elempack(pack).kernel_kind(kind).input(ih, iw).kernel(k.h, k.w)
                  .stride(s, 4 - s).dilation(d, 3 - d).pad(k.h / 2, k.w - 1, 1, 0).seed(s * 7 + d).test_depthwise();
          }
        }
}

TEST(ConvDepthwise, AsymmetricLargeAndSamePadding) {
  for (Isa isa : available_isas())
    for (int pack : depthwise_packs(isa, 16))
      for (Kind kind : kinds_for(isa, pack)) {
        const int c = pack == 1 ? 7 : 16;
        auto t = [&] { return DwTester().isa(isa).channels(c).elempack(pack).kernel_kind(kind); };
        t().input(10, 10).kernel(5).pad(7).test_depthwise();  // whole rows and columns of padding
        t().input(10, 10).kernel(3).pad(0, 2, 3, 1).test_depthwise();
        t().input(1, 1).kernel(3).pad(1).test_depthwise();
        t().input(2, 3).kernel(5).pad(4, 1, 0, 6).test_depthwise();
        t().input(13, 17).kernel(7).stride(2).pad(3).test_depthwise();
        t().input(7, 7).kernel(3).pad(4, 3, 2, 5).dilation(2).test_depthwise();
        t().input(9, 9).kernel(3).pad(kPadSameUpper).stride(2).test_depthwise();
        if (kind != Kind::jit || conv_dw_jit_supported(isa, 4, 3, pack, Activation()))
          t().input(9, 8).kernel(4).pad(kPadSameLower).stride(3).test_depthwise();
        t().input(8, 10).kernel(5).pad(kPadSameUpper).test_depthwise();
        t().input(9, 9).kernel(3).pad(2).pad_value(0.75f).test_depthwise();
        t().input(6, 11).kernel(5).stride(2).pad(kPadSameLower).pad_value(-1.5f).test_depthwise();
      }
}

TEST(ConvDepthwise, EveryActivationAndNoBias) {
  for (Isa isa : available_isas())
    for (const char* act : {"none", "relu", "leaky:0.1", "clip:-0.5:0.7", "sigmoid", "mish", "hardswish:0.2:0.5"})
      for (int pack : depthwise_packs(isa, 48))
        for (Kind kind : kinds_for(isa, pack)) {
          const int c = pack == 1 ? 13 : 48;
          DwTester().isa(isa).channels(c).elempack(pack).kernel_kind(kind).act(act).input(9, 30).kernel(3).pad(1)
              .test_depthwise();
          DwTester().isa(isa).channels(c).elempack(pack).kernel_kind(kind).act(act).bias(false).input(8, 13)
              .kernel(5).stride(2).pad(2).test_depthwise();
        }
}

TEST(ConvDepthwise, WideKernelsFallBackToTheLoops) {
  if (!isa_supported(Isa::avx2)) GTEST_SKIP() << "needs AVX2";
  // AVX2 has 16 registers: 13 taps + input + 2 accumulators fit, 15 taps do not.
  EXPECT_TRUE(conv_dw_jit_supported(Isa::avx2, 13, 1, 8, Activation()));
  EXPECT_FALSE(conv_dw_jit_supported(Isa::avx2, 15, 1, 8, Activation()));
  DwTester().isa(Isa::avx2).channels(16).elempack(8).input(5, 30).kernel(1, 13).pad(0, 6, 0, 6)
      .expect_generated(true).test_depthwise();
  DwTester().isa(Isa::avx2).channels(16).elempack(8).input(5, 30).kernel(3, 15).pad(1, 7, 1, 7)
      .expect_generated(false).test_depthwise();
  EXPECT_THROW(ConvDepthwise(DwTester().channels(16).kernel(3, 15).params(), std::vector<float>(16 * 45).data(),
                             nullptr, Isa::avx2, 8, Kind::jit),
               Error);
}

TEST(ConvDepthwise, ThreadCountsGiveIdenticalResults) {
  for (Isa isa : available_isas())
    for (int pack : depthwise_packs(isa, 32))
      for (Kind kind : kinds_for(isa, pack)) {
        // Few packs with many rows split rows across tasks; edge rows land in every block.
        auto t = [&] {
          return DwTester().isa(isa).channels(pack == 1 ? 3 : 32).elempack(pack).kernel_kind(kind).input(23, 19);
        };
        const std::vector<float> one = t().kernel(3).pad(1).threads(1).test_depthwise();
        for (int threads : {2, 3, 5}) EXPECT_EQ(one, t().kernel(3).pad(1).threads(threads).test_depthwise());
        const std::vector<float> strided = t().kernel(5).stride(2).pad(2).act("mish").threads(1).test_depthwise();
        for (int threads : {2, 7})
          EXPECT_EQ(strided, t().kernel(5).stride(2).pad(2).act("mish").threads(threads).test_depthwise());
      }
}

TEST(ConvDepthwise, KernelsAreSharedAndNamedByEveryParameter) {
  if (jit_isas().empty()) GTEST_SKIP() << "needs AVX2 or AVX-512";
  const Isa isa = jit_isas().front();
  ConvDwProblem p{56, 56, 3, 1, 1, 1, 8, true, Activation::parse("leaky:0.1")};
  ConvDwProblem q = p;
  q.act = Activation::parse("leaky:0.2");
  EXPECT_NE(init_conv_dw_conf(isa, p).name(), init_conv_dw_conf(isa, q).name());
  for (auto change : std::vector<void (*)(ConvDwProblem&)>{
           [](ConvDwProblem& x) { x.iw = 57; }, [](ConvDwProblem& x) { x.kw = 5; }, [](ConvDwProblem& x) { x.sw = 2; },
           [](ConvDwProblem& x) { x.dw = 2; }, [](ConvDwProblem& x) { x.pad_left = 0; },
           [](ConvDwProblem& x) { x.pack = 4; }, [](ConvDwProblem& x) { x.bias = false; }}) {
    ConvDwProblem changed = p;
    change(changed);
    EXPECT_NE(init_conv_dw_conf(isa, p).name(), init_conv_dw_conf(isa, changed).name());
  }
  // Two layers with the same geometry share one generated kernel.
  const std::vector<float> w(24 * 9, 0.5f);
  ConvParams params = DwTester().channels(24).kernel(3).pad(1).bias(false).params();
  params.act = Activation::parse("clip:-0.25:0.3125");
  ConvDepthwise a(params, w.data(), nullptr, isa, 8), b(params, w.data(), nullptr, isa, 8);
  a.prepare(19, 23);
  const size_t before = KernelRegistry::instance().generated_count();
  b.prepare(19, 23);
  EXPECT_EQ(KernelRegistry::instance().generated_count(), before);
  EXPECT_NE(b.describe().find("conv_dw_"), std::string::npos) << b.describe();
}

TEST(ConvDepthwise, RejectsBadLayoutsAndInputs) {
  const std::vector<float> w(16 * 9, 1.f);
  const ConvParams p = DwTester().channels(16).kernel(3).pad(1).bias(false).params();
  EXPECT_THROW(ConvDepthwise(DwTester().channels(16).params(), w.data(), nullptr, Isa::scalar, 1), Error);
  EXPECT_THROW(ConvDepthwise(p, w.data(), nullptr, Isa::scalar, 3), Error);
  ConvParams mismatched = p;
  mismatched.oc = 32;
  EXPECT_THROW(ConvDepthwise(mismatched, w.data(), nullptr, Isa::scalar, 1), Error);
  ConvParams odd = DwTester().channels(6).kernel(3).bias(false).params();
  EXPECT_THROW(ConvDepthwise(odd, w.data(), nullptr, Isa::scalar, 4), Error);
  EXPECT_THROW(ConvDepthwise(p, w.data(), nullptr, Isa::scalar, 4, Kind::jit), Error);

  ConvDepthwise dw(p, w.data(), nullptr, Isa::scalar, 4);
  Mat out;
  Mat wrong_pack(5, 5, 16);
  EXPECT_THROW(dw.forward(wrong_pack, out, Option()), Error);
  Mat wrong_channels(5, 5, 3, 16u, 4);
  EXPECT_THROW(dw.forward(wrong_channels, out, Option()), Error);
  Mat too_small(1, 1, 4, 16u, 4);
  ConvDepthwise no_pad(DwTester().channels(16).kernel(3).bias(false).params(), w.data(), nullptr, Isa::scalar, 4);
  EXPECT_THROW(no_pad.forward(too_small, out, Option()), Error);
}
