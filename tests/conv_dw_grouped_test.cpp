// Grouped convolution (each group on the Convolution paths) against the scalar reference:
// channel counts per group divisible and not divisible by the packing, every per-group
// path, channel multipliers, and thread-count independence.
#include <gtest/gtest.h>

#include "tests/conv_dw_tester.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {

struct GroupCase {
  int ic, oc, groups;
};

// Per group: whole packs of 16/8/4, straddling packs (5, 6, 10, 3 channels; merged into
// whole packs or gathered and scattered), one channel in with several out (channel
// multiplier), and AlexNet's 48 -> 128.
std::vector<GroupCase> group_cases() {
  return {{4, 4, 2},   {8, 16, 2},  {12, 12, 3},  {20, 20, 4}, {16, 16, 4}, {32, 64, 2},  {24, 40, 4},
          {34, 68, 2}, {64, 64, 8}, {32, 32, 16}, {8, 16, 8},  {16, 8, 2},  {9, 27, 3},   {96, 256, 2},
          {48, 48, 3}, {30, 18, 6}, {80, 80, 2},  {16, 32, 16}, {72, 72, 2}};
}

}  // namespace

TEST(ConvGrouped, GroupShapesOnThePathTable) {
  for (Isa isa : available_isas())
    for (const GroupCase& gc : group_cases()) {
      auto t = [&] { return DwTester().isa(isa).channels(gc.ic, gc.oc).groups(gc.groups).seed(gc.ic + gc.oc); };
      t().input(7, 9).kernel(3).pad(1).test_grouped();
      t().input(6, 5).kernel(1).test_grouped();
      t().input(9, 11).kernel(5).stride(2).pad(2).act("relu").test_grouped();
    }
}

TEST(ConvGrouped, EveryPerGroupPath) {
  for (Isa isa : jit_isas())
    for (const char* algo : {"direct", "gemm", "brgemm", "scalar"})
      for (const GroupCase& gc : {GroupCase{20, 20, 4}, GroupCase{32, 48, 2}, GroupCase{64, 64, 8}}) {
        SCOPED_TRACE(algo);
        auto t = [&] { return DwTester().isa(isa).channels(gc.ic, gc.oc).groups(gc.groups); };
        t().input(8, 10).kernel(3).pad(1).test_grouped(algo);
        t().input(7, 6).kernel(1).stride(2).test_grouped(algo);
        t().input(9, 9).kernel(3).dilation(2).pad(1, 2, 0, 3).act("hardswish:0.2:0.5").test_grouped(algo);
      }
}

TEST(ConvGrouped, PaddingModesAndPadValue) {
  for (Isa isa : available_isas())
    for (const GroupCase& gc : {GroupCase{12, 24, 3}, GroupCase{32, 32, 2}}) {
      auto t = [&] { return DwTester().isa(isa).channels(gc.ic, gc.oc).groups(gc.groups); };
      t().input(9, 9).kernel(3).stride(2).pad(kPadSameUpper).test_grouped();
      t().input(9, 8).kernel(4).stride(3).pad(kPadSameLower).test_grouped();
      t().input(8, 8).kernel(3).pad(2).pad_value(0.5f).test_grouped();
      t().input(5, 5).kernel(3).pad(3, 0, 1, 2).act("leaky:0.1").bias(false).test_grouped();
    }
}

TEST(ConvGrouped, EveryElempackPairAndUnpackedLayers) {
  for (Isa isa : jit_isas())
    for (int in : {1, 4, 8, 16})
      for (int out : {1, 4, 8, 16}) {
        if (in > isa_lanes(isa) || out > isa_lanes(isa)) continue;
        DwTester().isa(isa).channels(32, 64).groups(2).elempack(in, out).input(6, 7).kernel(3).pad(1).test_grouped();
        DwTester().isa(isa).channels(48, 48).groups(4).elempack(in, out).input(6, 7).kernel(1).test_grouped();
      }
  for (Isa isa : available_isas())
    DwTester().isa(isa).channels(24, 24).groups(2).elempack(1, 1).kernel(3).pad(1).test_grouped("", false);
}

TEST(ConvGrouped, DepthwiseShapesAlsoRunGroupByGroup) {
  for (Isa isa : jit_isas()) {
    DwTester().isa(isa).channels(16).kernel(3).pad(1).test_grouped("direct");
    DwTester().isa(isa).channels(12).kernel(3).stride(2).pad(1).test_grouped();
  }
}

TEST(ConvGrouped, SmallGroupsMergeIntoWholePacksLargeOnesAreGathered) {
  if (!isa_supported(Isa::avx512)) GTEST_SKIP() << "the elempacks below are AVX-512's";
  auto describe = [](int ic, int oc, int groups) {
    const ConvParams p = DwTester().channels(ic, oc).kernel(3).pad(1).bias(false).params();
    const std::vector<float> w(static_cast<size_t>(oc) * (ic / groups) * 9, 0.25f);
    return ConvGrouped(p, groups, w.data(), nullptr, Isa::avx512, preferred_elempack(Isa::avx512, ic),
                       preferred_elempack(Isa::avx512, oc), "", Option())
        .describe();
  };
  EXPECT_NE(describe(512, 512, 64).find("merged 2 groups per run"), std::string::npos);   // 8 per group
  EXPECT_NE(describe(512, 512, 128).find("merged 4 groups per run"), std::string::npos);  // 4 per group
  EXPECT_NE(describe(20, 20, 4).find("merged 4 groups per run"), std::string::npos);      // 5 in packs of 4
  const std::string alexnet = describe(96, 256, 2);
  EXPECT_EQ(alexnet.find("merged"), std::string::npos) << alexnet;
  EXPECT_EQ(alexnet.find("gathered"), std::string::npos) << alexnet;
  const std::string wide = describe(80, 80, 2);  // 40 per group: merging would double big work
  EXPECT_EQ(wide.find("merged"), std::string::npos) << wide;
  EXPECT_NE(wide.find("input gathered per run"), std::string::npos) << wide;
}

TEST(ConvGrouped, ThreadCountsGiveIdenticalResults) {
  for (Isa isa : available_isas())
    for (const GroupCase& gc : {GroupCase{20, 20, 4}, GroupCase{64, 32, 2}}) {
      auto t = [&] { return DwTester().isa(isa).channels(gc.ic, gc.oc).groups(gc.groups).input(17, 15); };
      const std::vector<float> one = t().kernel(3).pad(1).threads(1).test_grouped();
      for (int threads : {2, 3}) EXPECT_EQ(one, t().kernel(3).pad(1).threads(threads).test_grouped());
    }
}

TEST(ConvGrouped, CopyChannelsBetweenPackings) {
  Option opt;
  Mat plain(5, 3, 24);
  fill_random(plain, 3);
  for (int src_pack : {1, 4, 8})
    for (int dst_pack : {1, 4, 8}) {
      Mat src, dst(5, 3, 16 / dst_pack, 4u * dst_pack, dst_pack);
      convert_packing(plain, src, src_pack, opt);
      dst.fill(0.f);
      copy_channels(src, 7, dst, 2, 9, 2);  // channels 7..15 into 2..10
      Mat back;
      convert_packing(dst, back, 1, opt);
      for (int c = 0; c < 16; c++)
        for (int i = 0; i < 15; i++) {
          const float want = c >= 2 && c < 11 ? static_cast<const float*>(plain.channel(c + 5).data)[i] : 0.f;
          ASSERT_EQ(static_cast<const float*>(back.channel(c).data)[i], want)
              << "channel " << c << " pixel " << i << " packs " << src_pack << "->" << dst_pack;
        }
    }
}

TEST(ConvGrouped, RejectsGroupsThatDoNotDivide) {
  const std::vector<float> w(64 * 9, 1.f);
  ConvParams p = DwTester().channels(12, 16).kernel(3).params();
  EXPECT_THROW(ConvGrouped(p, 5, w.data(), nullptr, Isa::scalar, 1, 1, "", Option()), Error);
  EXPECT_THROW(ConvGrouped(p, 4, w.data(), nullptr, Isa::scalar, 8, 1, "", Option()), Error);
  EXPECT_THROW(ConvGrouped(p, 4, w.data(), nullptr, Isa::scalar, 1, 1, "winograd43", Option()), Error);
}
