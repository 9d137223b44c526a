// F(6,3) with F(4,3) borders (algo "winograd63_43"): the split of the output between the
// two variants, and the outputs of both instances against the reference on every ISA.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_tester.h"
#include "runtime/conv_path.h"
#include "runtime/conv_winograd.h"

namespace jitconv {
namespace {
using namespace test;

TEST(ConvWinogradBorders, SplitTakesTheFewestMultiplies) {
  int rows, columns;
  // 28 = 4 x 6 + 4: 16 F(6,3) tiles and 13 F(4,3) tiles, 16 x 64 + 13 x 36 multiplies
  // against 49 x 36 on F(4,3) and 25 x 64 on F(6,3).
  ConvWinograd::border_split(28, 28, 6, 4, rows, columns);
  EXPECT_EQ(rows, 24);
  EXPECT_EQ(columns, 24);
  EXPECT_EQ(ConvWinograd::border_split_positions(28, 28, 6, 4), 16 * 64 + 13 * 36);
  // 56 = 8 x 6 + 2 x 4.
  ConvWinograd::border_split(56, 56, 6, 4, rows, columns);
  EXPECT_EQ(rows, 48);
  EXPECT_EQ(columns, 48);
  EXPECT_EQ(ConvWinograd::border_split_positions(56, 56, 6, 4), 64 * 64 + (2 * 14 + 12 * 2) * 36);
  // Multiples of 6: no border.
  ConvWinograd::border_split(24, 12, 6, 4, rows, columns);
  EXPECT_EQ(rows, 24);
  EXPECT_EQ(columns, 12);
  // Too small for an F(6,3) tile to pay: all on F(4,3).
  ConvWinograd::border_split(7, 7, 6, 4, rows, columns);
  EXPECT_EQ(rows * columns, 0);
  EXPECT_EQ(ConvWinograd::border_split_positions(7, 7, 6, 4), 4 * 36);
  // Never more than plain F(4,3).
  for (int h = 1; h <= 40; h++)
    for (int w = 1; w <= 40; w += 3)
      EXPECT_LE(ConvWinograd::border_split_positions(h, w, 6, 4), 36L * ((h + 3) / 4) * ((w + 3) / 4)) << h << "x" << w;
}

TEST(ConvWinogradBorders, OutputSizesChannelTailsAndElempacks) {
  const double bound = winograd_bound(6);
  for (Isa isa : jit_isas()) {
    SCOPED_TRACE(isa_name(isa));
    // Outputs with and without an interior, borders of 1..5 rows / columns, one side only.
    for (const auto& hw : std::vector<std::pair<int, int>>{
             {5, 5}, {6, 6}, {7, 9}, {10, 10}, {11, 16}, {12, 17}, {16, 13}, {22, 22}, {28, 28}, {29, 26}, {18, 31}})
      ConvTester().isa(isa).ic(19).oc(37).input(hw.first, hw.second).kernel(3).pad(1).seed(hw.first * 31 + hw.second).test_winograd(6, bound, 4);
    for (int in : {1, 4, 8, 16})
      for (int out : {1, 4, 8, 16}) {
        if (in > isa_lanes(isa) || out > isa_lanes(isa)) continue;
        ConvTester().isa(isa).ic(48).oc(48).input(16, 15).kernel(3).pad(1).elempack(in, out).test_winograd(6, bound, 4);
      }
  }
}

TEST(ConvWinogradBorders, PaddingsActivationsThreads) {
  const double bound = winograd_bound(6);
  for (Isa isa : jit_isas()) {
    SCOPED_TRACE(isa_name(isa));
    ConvTester().isa(isa).ic(16).oc(32).input(16, 16).kernel(3).test_winograd(6, bound, 4);  // no pad: 14x14
    ConvTester().isa(isa).ic(16).oc(32).input(17, 19).kernel(3).pad(2, 0, 1, 3).test_winograd(6, bound, 4);
    ConvTester().isa(isa).ic(12).oc(20).input(15, 15).kernel(3).pad(1).pad_value(0.5f).test_winograd(6, bound, 4);
    for (const char* act : {"relu", "leaky:0.1", "clip:-0.5:0.5"})
      ConvTester().isa(isa).ic(24).oc(40).input(16, 16).kernel(3).pad(1).act(act).test_winograd(6, bound, 4);
    ConvTester t = ConvTester().isa(isa).ic(32).oc(48).input(28, 28).kernel(3).pad(1);
    const std::vector<float> one = t.threads(1).test_winograd(6, bound, 4);
    EXPECT_EQ(one, t.threads(2).test_winograd(6, bound, 4));
    EXPECT_EQ(one, t.threads(5).test_winograd(6, bound, 4));
  }
}

TEST(ConvWinogradBorders, OnlyUndilatedLayers) {
  ConvParams p;
  p.ic = p.oc = 16;
  p.kh = p.kw = 3;
  EXPECT_TRUE(conv_path_applies("winograd63_43", p, Isa::avx2));
  p.dh = p.dw = 2;
  std::string why;
  EXPECT_FALSE(conv_path_applies("winograd63_43", p, Isa::avx2, &why));
  EXPECT_NE(why.find("dilation 1"), std::string::npos);
  std::vector<float> w(16 * 16 * 9, 0.1f);
  EXPECT_THROW(ConvWinograd(p, w.data(), nullptr, Isa::avx2, 8, 8, 6, 4), std::exception);
  p.dh = p.dw = 1;
  EXPECT_THROW(ConvWinograd(p, w.data(), nullptr, Isa::avx2, 8, 8, 6, 6), std::exception);
  EXPECT_EQ(ConvWinograd(p, w.data(), nullptr, Isa::avx2, 8, 8, 6, 4).name(), "winograd63_43");
}

}  // namespace
}  // namespace jitconv
