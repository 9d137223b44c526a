// Pooling: max/avg windows over every pad_mode (full/ceil, valid/floor, SAME_UPPER,
// SAME_LOWER), asymmetric pads, count_include_pad, global and adaptive pooling.
#include <gtest/gtest.h>

#include <cfloat>

#include "tests/layers_math_util.h"

namespace jitconv {
namespace test {
namespace {

struct Window {
  int kw, kh, sw, sh;
};

TEST(MathPooling, WindowsMatchReference) {
  const std::vector<Window> windows = {{2, 2, 2, 2}, {3, 3, 1, 1}, {3, 3, 2, 2}, {3, 2, 1, 2},
                                       {5, 4, 3, 2}, {1, 1, 2, 2}, {2, 3, 3, 1}};
  const std::vector<std::vector<int>> pads = {{0, 0, 0, 0}, {1, 1, 1, 1}, {1, 0, 2, 1}, {0, 1, 0, 1}};
  const std::vector<ShapeCase> inputs = {{3, 7, 7, 1, 16}, {3, 9, 6, 1, 5}, {3, 12, 11, 1, 24}, {3, 5, 8, 1, 32}};
  uint32_t seed = 4000;
  int cases = 0, rejected = 0;
  for (int type = 0; type <= 1; type++)
    for (int pad_mode = 0; pad_mode <= 3; pad_mode++)
      for (int include_pad = 0; include_pad <= type; include_pad++)
        for (size_t wi = 0; wi < windows.size(); wi++)
          for (size_t pi = 0; pi < pads.size(); pi++) {
            const Window& win = windows[wi];
            const std::vector<int>& p = pads[pi];
            // Pads must stay below the kernel (otherwise a window sees only padding).
            if (p[0] >= win.kw || p[1] >= win.kw || p[2] >= win.kh || p[3] >= win.kh) continue;
            const ShapeCase& s = inputs[(wi + pi + pad_mode) % inputs.size()];
            SCOPED_TRACE("type " + std::to_string(type) + " pad_mode " + std::to_string(pad_mode) + " include_pad " +
                         std::to_string(include_pad) + " k" + std::to_string(win.kw) + "x" + std::to_string(win.kh) +
                         " s" + std::to_string(win.sw) + "x" + std::to_string(win.sh) + " pads " +
                         std::to_string(p[0]) + std::to_string(p[1]) + std::to_string(p[2]) + std::to_string(p[3]) +
                         " " + s.name());
            // ncnn keeps a last window that starts in the padding; an average that excludes
            // padding cannot divide by its empty count, so that form must be rejected.
            std::unique_ptr<Layer> probe = create_layer("Pooling");
            ParamDict pd;
            const int ids[] = {0, 1, 11, 2, 12, 3, 14, 13, 15, 5, 6};
            const int vals[] = {type, win.kw, win.kh, win.sw, win.sh, p[0], p[1], p[2], p[3], pad_mode, include_pad};
            for (int i = 0; i < 11; i++) pd.set(ids[i], vals[i]);
            probe->load_param(pd);
            Mat probe_out;
            const Mat in = make_input(s, seed++);
            const std::string err = error_of([&] { probe->forward(in, probe_out, Option()); });
            if (!err.empty()) {
              EXPECT_TRUE(type == 1 && include_pad == 0 && err.find("nothing to count") != std::string::npos) << err;
              rejected++;
              continue;
            }
            LayerTester("Pooling")
                .param(0, type)
                .param(1, win.kw)
                .param(11, win.kh)
                .param(2, win.sw)
                .param(12, win.sh)
                .param(3, p[0])
                .param(14, p[1])
                .param(13, p[2])
                .param(15, p[3])
                .param(5, pad_mode)
                .param(6, include_pad)
                .input(in)
                .test();
            cases++;
          }
  EXPECT_GT(cases, 200);
  EXPECT_GT(rejected, 0);
}

TEST(MathPooling, LargeWindowsAndDefaults) {
  // kernel_h/stride_h/pads default to the w values.
  LayerTester("Pooling").param(0, 0).param(1, 3).param(2, 2).param(3, 1).input(make_input(3, 31, 29, 1, 8, 1)).test();
  LayerTester("Pooling").param(0, 1).param(1, 7).param(2, 1).input(make_input(3, 19, 23, 1, 3, 2)).threads(3).test();
  LayerTester("Pooling").param(0, 1).param(1, 2).param(2, 2).param(5, 1).input(make_input(3, 64, 48, 1, 4, 3)).test();
}

TEST(MathPooling, GlobalMatchesReference) {
  uint32_t seed = 5000;
  for (int type = 0; type <= 1; type++)
    for (const ShapeCase& s : {ShapeCase{3, 7, 5, 1, 16}, ShapeCase{3, 1, 1, 1, 24}, ShapeCase{3, 13, 11, 1, 19},
                               ShapeCase{3, 3, 2, 1, 32}, ShapeCase{3, 56, 56, 1, 4}}) {
      SCOPED_TRACE("type " + std::to_string(type) + " " + s.name());
      LayerTester("Pooling").param(0, type).param(4, 1).input(make_input(s, seed++)).test();
    }
}

TEST(MathPooling, AdaptiveMatchesReference) {
  uint32_t seed = 6000;
  const std::vector<std::pair<int, int>> outs = {{1, 1}, {3, 2}, {7, 7}, {5, 9}, {13, 4}};
  for (int type = 0; type <= 1; type++)
    for (const auto& o : outs)
      for (const ShapeCase& s : {ShapeCase{3, 7, 7, 1, 16}, ShapeCase{3, 10, 5, 1, 3}}) {
        SCOPED_TRACE("type " + std::to_string(type) + " out " + std::to_string(o.first) + "x" +
                     std::to_string(o.second) + " " + s.name());
        LayerTester("Pooling")
            .param(0, type)
            .param(7, 1)
            .param(8, o.first)
            .param(18, o.second)
            .input(make_input(s, seed++))
            .test();
      }
}

// An average that excludes padding in the SAME modes sums and counts the positions inside
// the region the pad *parameters* give, as ncnn's loop does (`if (sy < pad_top) continue;
// ... sum += val; area += 1;` over the SAME-padded blob). Hand-computed on a 3x3 input
// 1..9, kernel 3, stride 1 (computed SAME pads 1 on every side): parameters 0 count the
// padding as zeros, 1 give the usual excluding average, 2 leave only the centre sample.
TEST(MathPooling, ExcludingAverageInSameModesSumsWhatItCounts) {
  const float sums[9] = {12, 21, 16, 27, 45, 33, 24, 39, 28};  // each window's input samples
  const float areas_pad1[9] = {4, 6, 4, 6, 9, 6, 4, 6, 4};
  for (int pad_mode : {2, 3})
    for (int pad_param : {0, 1, 2})
      for (int pack : {1, 4}) {
        SCOPED_TRACE("pad_mode " + std::to_string(pad_mode) + " pad params " + std::to_string(pad_param) +
                     " elempack " + std::to_string(pack));
        std::unique_ptr<Layer> pool = create_layer("Pooling");
        ParamDict pd;
        pd.set(0, 1);
        pd.set(1, 3);
        pd.set(2, 1);
        pd.set(3, pad_param);
        pd.set(5, pad_mode);
        pd.set(6, 0);
        pool->load_param(pd);
        Mat plain(3, 3, 4);
        for (int q = 0; q < 4; q++)
          for (int i = 0; i < 9; i++) plain.channel(q)[i] = static_cast<float>(i + 1);
        Mat in, out, out_plain;
        convert_packing(plain, in, pack, Option());
        pool->forward(in, out, Option());
        convert_packing(out, out_plain, 1, Option());
        ASSERT_EQ(out_plain.w, 3);
        ASSERT_EQ(out_plain.h, 3);
        for (int q = 0; q < 4; q++)
          for (int i = 0; i < 9; i++) {
            const float want = pad_param == 0 ? sums[i] / 9 : pad_param == 1 ? sums[i] / areas_pad1[i] : 5.f;
            EXPECT_FLOAT_EQ(out_plain.channel(q)[i], want) << "channel " << q << " output " << i;
          }
      }
  // The same settings on larger inputs, against the reference layer.
  uint32_t seed = 4900;
  for (int pad_mode : {2, 3})
    for (int pad_param : {2, 3})
      for (const ShapeCase& s : {ShapeCase{3, 9, 7, 1, 8}, ShapeCase{3, 8, 10, 1, 3}})
        LayerTester("Pooling")
            .param(0, 1)
            .param(1, 5)
            .param(11, 4)
            .param(2, 1)
            .param(12, 2)
            .param(3, pad_param)
            .param(14, pad_param - 1)
            .param(13, pad_param)
            .param(15, 1)
            .param(5, pad_mode)
            .input(make_input(s, seed++))
            .test();
}

// out_w / out_h -233 keep the input's extent (ncnn, as pnnx writes AdaptiveAvgPool2d((None, n))).
TEST(MathPooling, AdaptiveMinus233KeepsTheInputExtent) {
  uint32_t seed = 6100;
  for (int type = 0; type <= 1; type++)
    for (const auto& o : std::vector<std::pair<int, int>>{{-233, 2}, {3, -233}, {-233, -233}})
      LayerTester("Pooling")
          .param(0, type)
          .param(7, 1)
          .param(8, o.first)
          .param(18, o.second)
          .input(make_input(ShapeCase{3, 7, 5, 1, 8}, seed++))
          .test();
  std::unique_ptr<Layer> pool = create_layer("Pooling");
  ParamDict pd;
  pd.set(0, 1);
  pd.set(7, 1);
  pd.set(8, -233);
  pd.set(18, 2);
  pool->load_param(pd);
  Mat in(4, 3, 1), out;
  for (int i = 0; i < 12; i++) in[i] = static_cast<float>(i);
  pool->forward(in, out, Option());
  ASSERT_EQ(out.w, 4);
  ASSERT_EQ(out.h, 2);
  // Rows [0, 2) and [1, 3): each column's mean over two rows.
  for (int x = 0; x < 4; x++) {
    EXPECT_FLOAT_EQ(out.row(0)[x], (x + (4 + x)) / 2.f);
    EXPECT_FLOAT_EQ(out.row(1)[x], ((4 + x) + (8 + x)) / 2.f);
  }
  pd.set(8, -5);
  EXPECT_NE(error_of([&] { create_layer("Pooling")->load_param(pd); }).find("-233"), std::string::npos);
}

TEST(MathPooling, FullPaddingRoundsUpValidRoundsDown) {
  // 6 columns, kernel 3, stride 2: ceil -> 3 outputs (a tail column of padding), floor -> 2.
  for (int pad_mode : {0, 1}) {
    std::unique_ptr<Layer> pool = create_layer("Pooling");
    ParamDict pd;
    pd.set(0, 0);
    pd.set(1, 3);
    pd.set(2, 2);
    pd.set(5, pad_mode);
    pool->load_param(pd);
    Mat out;
    pool->forward(random_mat(6, 6, 2, 1u), out, Option());
    EXPECT_EQ(out.w, pad_mode == 0 ? 3 : 2);
    EXPECT_EQ(out.h, pad_mode == 0 ? 3 : 2);
  }
}

TEST(MathPooling, WindowInPaddingFollowsNcnn) {
  // 9 columns, kernel 2, stride 2, pads 1 with the full-padding tail: the last window
  // covers only padding, so max gives -FLT_MAX and an including average gives 0.
  for (int type = 0; type <= 1; type++) {
    std::unique_ptr<Layer> pool = create_layer("Pooling");
    ParamDict pd;
    pd.set(0, type);
    pd.set(1, 2);
    pd.set(2, 2);
    pd.set(3, 1);
    pd.set(6, 1);
    pool->load_param(pd);
    Mat out;
    pool->forward(random_mat(9, 6, 1, 1u), out, Option());
    ASSERT_EQ(out.w, 6);
    EXPECT_EQ(out.row(0)[5], type == 0 ? -FLT_MAX : 0.f);
  }
  LayerTester("Pooling").param(0, 0).param(1, 2).param(2, 2).param(3, 1).input(make_input(3, 9, 6, 1, 8, 3)).test();
}

TEST(MathPooling, RejectsBadParamsAndInputs) {
  auto load = [](std::vector<std::pair<int, int>> params) {
    std::unique_ptr<Layer> pool = create_layer("Pooling");
    pool->name = "pool3";
    ParamDict pd;
    for (auto& p : params) pd.set(p.first, p.second);
    return error_of([&] { pool->load_param(pd); });
  };
  EXPECT_NE(load({{1, 0}}).find("Pooling pool3: kernel"), std::string::npos);
  EXPECT_NE(load({{1, 2}, {2, 0}}).find("stride"), std::string::npos);
  EXPECT_NE(load({{0, 2}, {1, 2}}).find("pooling_type"), std::string::npos);
  EXPECT_NE(load({{1, 2}, {5, 4}}).find("pad_mode"), std::string::npos);
  EXPECT_NE(load({{1, 2}, {3, -1}}).find("negative"), std::string::npos);
  EXPECT_NE(load({{7, 1}}).find("out_w"), std::string::npos);

  auto run = [](std::vector<std::pair<int, int>> params, const Mat& in) {
    std::unique_ptr<Layer> pool = create_layer("Pooling");
    pool->name = "pool4";
    ParamDict pd;
    for (auto& p : params) pd.set(p.first, p.second);
    pool->load_param(pd);
    Mat out;
    return error_of([&] { pool->forward(in, out, Option()); });
  };
  EXPECT_NE(run({{1, 2}}, random_mat(8, 8, 1u)).find("3-D"), std::string::npos);
  EXPECT_NE(run({{1, 9}, {5, 1}}, random_mat(8, 8, 2, 1u)).find("larger than the padded input"), std::string::npos);
  // 9 columns, kernel 2, stride 2, pads 1: the 6th window is all padding.
  EXPECT_NE(run({{0, 1}, {1, 2}, {2, 2}, {3, 1}}, random_mat(9, 6, 2, 1u)).find("nothing to count"),
            std::string::npos);
}

}  // namespace
}  // namespace test
}  // namespace jitconv
