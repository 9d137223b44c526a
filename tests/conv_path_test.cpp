// Path choice (the table), autotune (applicable, cached, reproducible through a cache
// file) and `jitconv dump`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "jit/winograd_conf.h"
#include "runtime/conv_autotune.h"
#include "runtime/conv_path.h"
#include "runtime/cpu.h"
#include "runtime/layers/convolution.h"
#include "tests/test_util.h"

using namespace jitconv;

namespace {

ConvParams params(int ic, int oc, int k, int s = 1, int d = 1) {
  ConvParams p;
  p.ic = ic;
  p.oc = oc;
  p.kh = p.kw = k;
  p.sh = p.sw = s;
  p.dh = p.dw = d;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = k / 2 * d;
  return p;
}

std::string run_and_capture(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  return out;
}

}  // namespace

TEST(ConvPath, FollowsTheTable) {
  Option opt;
  opt.num_threads = 1;
  const Isa isa = test::jit_isas().empty() ? Isa::scalar : Isa::avx2;
  if (isa == Isa::scalar) GTEST_SKIP() << "no JIT ISA on this CPU";
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), isa, opt, 56, 56).algo.compare(0, 8, "winograd"), 0);
  EXPECT_EQ(choose_conv_path(params(64, 64, 1), isa, opt, 56, 56).algo, "gemm");
  EXPECT_EQ(choose_conv_path(params(64, 64, 3, 2), isa, opt, 56, 56).algo, "direct");
  // k x k on full-width AVX-512: GEMM for outputs up to 7x7 whose weights outgrow 2 L2
  // (3x3 s2 256->512 @7: 4.7 MB); direct for larger outputs, smaller weights, or no GEMM.
  const double two_l2 = 2.0 * cpu_info().l2_bytes;
  const bool big_weights = 4.0 * 256 * 512 * 9 > two_l2;
  EXPECT_EQ(choose_conv_path(params(256, 512, 3, 2), Isa::avx512, opt, 14, 14).algo,
            full_width_zmm(Isa::avx512) && big_weights ? "gemm" : "direct");
  EXPECT_EQ(choose_conv_path(params(256, 512, 3, 2), Isa::avx512, opt, 16, 16).algo, "direct");  // 8x8 out
  EXPECT_EQ(choose_conv_path(params(256, 512, 3, 2), Isa::avx2, opt, 14, 14).algo, "direct");
  EXPECT_EQ(choose_conv_path(params(16, 32, 3, 2), Isa::avx512, opt, 14, 14).algo, "direct");  // 18 KB
  Option no_sgemm;
  no_sgemm.use_sgemm_convolution = false;
  EXPECT_EQ(choose_conv_path(params(256, 512, 3, 2), Isa::avx512, no_sgemm, 14, 14).algo, "direct");
  // 1x1: GEMM, except layers reducing the channels 4x or more on outputs of 14x14 and
  // up on AVX-512 (direct; 28x28 and up below 2 MiB of L2); unknown sizes take GEMM.
  const char* at14 = cpu_info().l2_bytes >= (size_t(2) << 20) ? "direct" : "gemm";
  EXPECT_EQ(choose_conv_path(params(256, 64, 1), Isa::avx512, opt, 56, 56).algo, "direct");
  EXPECT_EQ(choose_conv_path(params(512, 128, 1), Isa::avx512, opt, 28, 28).algo, "direct");
  EXPECT_EQ(choose_conv_path(params(1024, 256, 1), Isa::avx512, opt, 14, 14).algo, at14);
  // Strided 1x1 on half-width AVX-512 (Zen 4): direct, whatever the channels.
  const bool half_width = !full_width_zmm(Isa::avx512);
  EXPECT_EQ(choose_conv_path(params(1024, 256, 1, 2), Isa::avx512, opt, 28, 28).algo, half_width ? "direct" : at14);
  EXPECT_EQ(choose_conv_path(params(256, 512, 1, 2), Isa::avx512, opt, 56, 56).algo, half_width ? "direct" : "gemm");
  EXPECT_EQ(choose_conv_path(params(256, 512, 1, 2), Isa::avx512, opt).algo, half_width ? "direct" : "gemm");
  EXPECT_EQ(choose_conv_path(params(256, 512, 1, 2), Isa::avx2, opt, 56, 56).algo, "gemm");
  EXPECT_EQ(choose_conv_path(params(256, 512, 1), Isa::avx512, opt, 56, 56).algo, "gemm");  // stride 1
  EXPECT_EQ(choose_conv_path(params(1024, 256, 1), Isa::avx512, opt).algo, "gemm");
  EXPECT_EQ(choose_conv_path(params(2048, 512, 1), Isa::avx512, opt, 7, 7).algo, "gemm");
  EXPECT_EQ(choose_conv_path(params(255, 64, 1), Isa::avx512, opt, 56, 56).algo, "gemm");
  EXPECT_EQ(choose_conv_path(params(64, 256, 1), Isa::avx512, opt, 56, 56).algo, "gemm");
  EXPECT_EQ(choose_conv_path(params(256, 64, 1), Isa::avx2, opt, 56, 56).algo, "gemm");
  const long l2 = static_cast<long>(cpu_info().l2_bytes);
  const int beyond = static_cast<int>(std::sqrt(l2 * 2.0 / (256 * 4)));
  EXPECT_EQ(choose_conv_path(params(256, 128, 1, 2), isa, opt, beyond, beyond).algo, "gemm");
  EXPECT_EQ(choose_conv_path(params(256, 128, 1, 2), isa, opt, 14, 14).algo, "gemm");
  // Dilated 3x3: Winograd on the sub-images in place, the variant by their size (28x28:
  // F(4,3), as undilated 28x28; 7x7: F(2,3)).
  EXPECT_EQ(choose_conv_path(params(64, 64, 3, 1, 2), isa, opt, 56, 56).algo, "winograd43");
  EXPECT_EQ(choose_conv_path(params(64, 64, 3, 1, 2), isa, opt, 14, 14).algo, "winograd23");
  EXPECT_EQ(choose_conv_path(params(512, 512, 3, 1, 4), isa, opt, 28, 28).algo, "winograd23");
  EXPECT_EQ(choose_conv_path(params(8, 8, 3, 1, 2), isa, opt, 56, 56).algo, "direct");  // few channels
  // Taps mostly in the padding (tiny outputs, large dilations): direct, which skips them.
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), isa, opt, 3, 3).algo, "direct");
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), isa, opt, 2, 2).algo, "direct");
  EXPECT_EQ(choose_conv_path(params(512, 512, 3), isa, opt, 4, 4).algo, "winograd23");
  EXPECT_EQ(choose_conv_path(params(256, 256, 3, 1, 12), isa, opt, 33, 33).algo, "direct");
  EXPECT_EQ(choose_conv_path(params(256, 256, 3, 1, 9), isa, opt, 33, 33).algo, "winograd23");
  ConvParams valid_only = params(256, 256, 3);
  valid_only.pad_top = valid_only.pad_left = valid_only.pad_bottom = valid_only.pad_right = 0;
  EXPECT_EQ(choose_conv_path(valid_only, isa, opt, 3, 3).algo, "direct");  // one output: 1 tile of 2x2
  EXPECT_EQ(choose_conv_path(valid_only, isa, opt, 9, 9).algo, "winograd23");
  // Dilations past kWinogradMaxDilation: not Winograd, chosen or forced.
  EXPECT_EQ(choose_conv_path(params(64, 64, 3, 1, 65), isa, opt, 140, 140).algo, "direct");
  std::string why;
  EXPECT_FALSE(conv_path_applies("winograd23", params(64, 64, 3, 1, 65), isa, &why));
  EXPECT_NE(why.find("dilations up to 64"), std::string::npos) << why;
  EXPECT_TRUE(conv_path_applies("winograd23", params(64, 64, 3, 1, 64), isa));
  Option no_winograd;
  no_winograd.use_winograd_convolution = false;
  EXPECT_EQ(choose_conv_path(params(64, 64, 3, 1, 2), isa, no_winograd, 56, 56).algo, "direct");
  EXPECT_EQ(choose_conv_path(params(64, 64, 5, 1, 2), isa, opt, 56, 56).algo, "direct");
  Option no_packing;
  no_packing.use_packing_layout = false;  // ncnn's rule: any square dilated s1 kernel
  EXPECT_EQ(choose_conv_path(params(64, 64, 5, 1, 2), isa, no_packing, 56, 56).algo, "dilated");
  // ncnn's rule: Winograd only when in > 8 or out > 8.
  EXPECT_EQ(choose_conv_path(params(8, 8, 3), isa, opt, 56, 56).algo, "direct");
  EXPECT_EQ(choose_conv_path(params(8, 9, 3), isa, opt, 56, 56).algo.compare(0, 8, "winograd"), 0);
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), Isa::scalar, opt).algo, "scalar");
  // The measured Winograd variants (kWinogradRows).
  EXPECT_EQ(choose_conv_path(params(512, 512, 3), isa, opt, 7, 7).algo, "winograd23");
  // F(5,3) where 5 covers the output tighter (14: 9 tiles of 49 positions against 16 of 36),
  // with 9+ tiles or its weights within L2; not where F(4,3) or F(6,3) use fewer positions.
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), isa, opt, 14, 14).algo, "winograd53");
  EXPECT_EQ(choose_conv_path(params(48, 192, 3), isa, opt, 14, 14).algo, "winograd53");
  EXPECT_EQ(choose_conv_path(params(384, 256, 3), isa, opt, 13, 13).algo, "winograd53");
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), isa, opt, 20, 20).algo, "winograd53");
  EXPECT_EQ(choose_conv_path(params(32, 32, 3), isa, opt, 10, 10).algo, "winograd53");   // 4 tiles, U 196 KB
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), isa, opt, 10, 10).algo, "winograd43");  // 4 tiles, U 12.8 MB
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), isa, opt, 30, 30).algo, "winograd63");    // 40 positions a side
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), isa, opt, 24, 24).algo, "winograd63");    // 35 vs 36: not 10%
  Option no53 = opt;
  no53.use_winograd53_convolution = false;
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), isa, no53, 14, 14).algo, "winograd43");
  Option two_threads = opt;  // 9 tiles do not split well: F(4,3)'s 16
  two_threads.num_threads = 2;
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), isa, two_threads, 14, 14).algo,
            half_rate_ymm(isa) ? "winograd53" : "winograd43");  // Zen 1: its multiplies saved weigh more
  // Half-width AVX-512, two threads: F(5,3)'s 9 tiles too while its U (12.8 MB) fits L3;
  // 512@14's 51 MB does not.
  const bool half_width_u_in_l3 = !full_width_zmm(Isa::avx512) && cpu_info().l3_bytes >= 49u * 256 * 256 * 4;
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), Isa::avx512, two_threads, 14, 14).algo,
            half_width_u_in_l3 ? "winograd53" : "winograd43");
  if (cpu_info().l3_bytes < 49u * 512 * 512 * 4)
    EXPECT_EQ(choose_conv_path(params(512, 512, 3), Isa::avx512, two_threads, 14, 14).algo, "winograd43");
  EXPECT_EQ(choose_conv_path(params(32, 32, 3), isa, two_threads, 14, 14).algo, "winograd53");  // U within L2
  EXPECT_EQ(choose_conv_path(params(128, 128, 3), isa, opt, 28, 28).algo, "winograd43");
  // Full-width AVX-512 (CpuInfo::zmm_half_rate false): F(5,3) needs 18 tiles, however many
  // threads, unless U fits L2 (the choice is made without running code, on any CPU).
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), Isa::avx512, opt, 14, 14).algo,
            full_width_zmm(Isa::avx512) ? "winograd43" : "winograd53");
  EXPECT_EQ(choose_conv_path(params(96, 96, 3), Isa::avx512, opt, 25, 25).algo, "winograd53");  // 25 tiles
  EXPECT_EQ(choose_conv_path(params(96, 96, 3), Isa::avx512, two_threads, 25, 25).algo, "winograd53");
  EXPECT_EQ(choose_conv_path(params(32, 32, 3), Isa::avx512, opt, 14, 14).algo, "winograd53");  // U 196 KB
  // F(6,3) where its tiles cover the output as tightly as F(4,3)'s, from 16 up.
  EXPECT_EQ(choose_conv_path(params(96, 96, 3), isa, opt, 35, 35).algo, "winograd63");
  EXPECT_EQ(choose_conv_path(params(192, 192, 3), isa, opt, 17, 17).algo, "winograd63");
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), isa, opt, 18, 18).algo, "winograd63");
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), isa, opt, 12, 12).algo, "winograd43");
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), isa, opt, 56, 56).algo, "winograd43");
  EXPECT_EQ(choose_conv_path(params(96, 96, 3), isa, opt, 35, 28).algo, "winograd43");  // 28 wide: 30 vs 28
  // Looser tiles on half-width AVX-512 where F(6,3)'s U fits L2 and 48+ channels a side
  // amortise its transforms (f63_loose_pays; the choice is made without running code).
  const bool loose63 = !full_width_zmm(Isa::avx512) && cpu_info().l2_bytes >= 64u * 64 * 64 * 4;
  const char* loose63_or_43 = loose63 ? "winograd63" : "winograd43";
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), Isa::avx512, opt, 56, 56).algo, loose63_or_43);
  EXPECT_EQ(choose_conv_path(params(64, 64, 3, 1, 2), Isa::avx512, opt, 56, 56).algo, loose63_or_43);  // 28x28 sub-images
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), Isa::avx512, two_threads, 56, 56).algo, loose63_or_43);
  EXPECT_EQ(choose_conv_path(params(16, 64, 3), Isa::avx512, opt, 56, 56).algo, "winograd43");   // 16 input channels
  EXPECT_EQ(choose_conv_path(params(32, 128, 3), Isa::avx512, opt, 28, 28).algo, "winograd43");  // 32 input channels
  const bool loose63_48 = !full_width_zmm(Isa::avx512) && cpu_info().l2_bytes >= 48u * 48 * 64 * 4;
  EXPECT_EQ(choose_conv_path(params(48, 48, 3), Isa::avx512, opt, 56, 56).algo, loose63_48 ? "winograd63" : "winograd43");
  EXPECT_EQ(choose_conv_path(params(128, 128, 3), Isa::avx512, opt, 28, 28).algo, "winograd43");  // U 4.2 MB
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), Isa::avx512, opt, 12, 12).algo, "winograd43");    // under 16
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), Isa::avx2, opt, 56, 56).algo, "winograd43");      // not measured
  Option no63 = opt;
  no63.use_winograd63_convolution = false;
  EXPECT_EQ(choose_conv_path(params(96, 96, 3), isa, no63, 35, 35).algo, "winograd43");
  EXPECT_EQ(choose_conv_path(params(32, 128, 3), isa, opt, 28, 28).algo, "winograd43");
  EXPECT_EQ(choose_conv_path(params(128, 128, 3), isa, opt).algo, "winograd43");  // shape unknown
  // Weights streaming from memory (a large network): the measured cold table.
  Option cold = opt;
  cold.weights_cold = true;
  EXPECT_EQ(choose_conv_path(params(512, 512, 3), isa, cold, 7, 7).algo, "winograd23");
  // F(5,3) there only with 1 MiB of L2 or more (measured on Zen 4 only), on one thread.
  const bool large_l2 = cpu_info().l2_bytes >= kWinogradLargeL2Bytes;
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), isa, cold, 14, 14).algo, large_l2 ? "winograd53" : "winograd23");
  EXPECT_EQ(choose_conv_path(params(128, 128, 3), isa, cold, 28, 28).algo, "winograd43");
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), isa, cold, 56, 56).algo, "winograd43");
  EXPECT_EQ(choose_conv_path(params(64, 64, 3), Isa::avx512, cold, 56, 56).algo, loose63_or_43);  // U in L2 only
  if (cpu_info().l2_bytes < 96u * 96 * 64 * 4)
    EXPECT_EQ(choose_conv_path(params(96, 96, 3), Isa::avx512, cold, 35, 35).algo, "winograd43");  // tight, U 2.4 MB
  EXPECT_EQ(choose_conv_path(params(128, 128, 3), Isa::avx512, cold, 28, 28).algo, "winograd43");
  EXPECT_EQ(choose_conv_path(params(192, 128, 3), isa, cold, 13, 13).algo, large_l2 ? "winograd53" : "winograd23");
  EXPECT_EQ(choose_conv_path(params(64, 192, 3), isa, cold, 13, 13).algo, large_l2 ? "winograd53" : "winograd43");
  Option cold_two = cold;
  cold_two.num_threads = 2;
  EXPECT_EQ(choose_conv_path(params(256, 256, 3), isa, cold_two, 14, 14).algo, "winograd23");
  EXPECT_EQ(choose_conv_path(params(96, 96, 3), isa, cold, 35, 35).algo, "winograd43");  // no F(6,3) row
  Option two = opt;
  two.num_threads = 2;
  EXPECT_EQ(choose_conv_path(params(128, 128, 3), isa, two, 28, 28).algo, "winograd43");
}

TEST(ConvPath, DisabledWinogradFallsBack) {
  if (test::jit_isas().empty()) GTEST_SKIP() << "no JIT ISA on this CPU";
  Option opt;
  const ConvParams p = params(64, 64, 3);
  const std::string first = choose_conv_path(p, Isa::avx2, opt, 56, 56).algo;
  opt.use_winograd63_convolution = false;
  opt.use_winograd43_convolution = false;
  EXPECT_EQ(choose_conv_path(p, Isa::avx2, opt, 56, 56).algo, "winograd23") << "first choice was " << first;
  opt.use_winograd23_convolution = false;
  EXPECT_EQ(choose_conv_path(p, Isa::avx2, opt, 56, 56).algo, "direct");
  opt = Option();
  opt.use_winograd_convolution = false;
  EXPECT_EQ(choose_conv_path(p, Isa::avx2, opt, 56, 56).algo, "direct");
  opt = Option();
  opt.use_sgemm_convolution = false;
  EXPECT_EQ(choose_conv_path(params(64, 64, 1), Isa::avx2, opt, 56, 56).algo, "direct");
}

TEST(ConvPath, ApplicablePaths) {
  Option opt;
  const std::vector<std::string> s2 = applicable_conv_paths(params(16, 16, 3, 2), Isa::avx2, opt);
  EXPECT_EQ(std::count(s2.begin(), s2.end(), "winograd43"), 0);
  EXPECT_EQ(std::count(s2.begin(), s2.end(), "direct"), 1);
  const std::vector<std::string> s1 = applicable_conv_paths(params(16, 16, 3), Isa::avx2, opt);
  EXPECT_EQ(std::count(s1.begin(), s1.end(), "winograd63"), 1);
  std::string why;
  EXPECT_FALSE(conv_path_applies("winograd43", params(16, 16, 5), Isa::avx2, &why));
  EXPECT_NE(why.find("3x3"), std::string::npos);
}

TEST(ConvAutotune, PicksAnApplicablePathAndIsReproducibleFromTheCacheFile) {
  if (test::jit_isas().empty()) GTEST_SKIP() << "no JIT ISA on this CPU";
  const std::string file = testing::TempDir() + "jitconv_tune_cache.txt";
  std::remove(file.c_str());
  setenv("JITCONV_TUNE_CACHE", file.c_str(), 1);
  autotune_reset_cache();
  const Isa isa = test::jit_isas()[0];
  const ConvParams p = params(32, 48, 3);
  const std::vector<float> w = test::random_vector(32 * 48 * 9, 1), b = test::random_vector(48, 2);
  Option opt;
  opt.num_threads = 1;
  // Drive the real layer twice with autotune on: the first run times and records, the
  // second (fresh process state, same file) must take the recorded path untimed.
  auto build = [&](std::string* reason) {
    layers::Convolution conv;
    ParamDict pd;
    pd.set(0, 48);
    pd.set(1, 3);
    pd.set(4, 1);
    pd.set(5, 1);
    pd.set(6, 32 * 48 * 9);
    conv.load_param(pd);
    Mat wm(32 * 48 * 9), bm(48);
    std::copy(w.begin(), w.end(), static_cast<float*>(wm.data));
    std::copy(b.begin(), b.end(), static_cast<float*>(bm.data));
    conv.load_model(ModelBinFromMatArray({wm, bm}));
    conv.force_isa = true;
    conv.forced_isa = isa;
    conv.hint_w = 20;
    conv.hint_h = 18;
    Option o = opt;
    o.use_autotune = true;
    conv.create_pipeline(o);
    *reason = conv.describe();
    return conv.describe().substr(0, conv.describe().find(' '));
  };
  std::string reason1, reason2;
  const std::string first = build(&reason1);
  const std::vector<std::string> paths = applicable_conv_paths(p, isa, opt);
  EXPECT_NE(std::find(paths.begin(), paths.end(), first), paths.end()) << reason1;
  EXPECT_NE(reason1.find("autotune:"), std::string::npos) << reason1;

  // Rewrite the file to force a different (still applicable) choice: it must be obeyed.
  std::ifstream in(file);
  std::string line;
  ASSERT_TRUE(static_cast<bool>(std::getline(in, line))) << "cache file " << file << " was not written";
  const std::string key = line.substr(0, line.rfind(' '));
  const std::string other = first == "direct" ? "brgemm" : "direct";
  std::ofstream(file) << key << ' ' << other << '\n';
  autotune_reset_cache();
  const std::string second = build(&reason2);
  EXPECT_EQ(second, other) << reason2;
  EXPECT_NE(reason2.find("autotune (cached)"), std::string::npos) << reason2;
  unsetenv("JITCONV_TUNE_CACHE");
  autotune_reset_cache();
  std::remove(file.c_str());
}

TEST(JitconvDump, ListsPathKernelsAndDisassembly) {
  if (test::jit_isas().empty()) GTEST_SKIP() << "no JIT ISA on this CPU";
  const std::string out = run_and_capture(std::string(JITCONV_CLI_PATH) +
                                          " dump --conv mb1ic32ih20oc32oh20kh3ph1 --algo direct --act relu 2>&1");
  EXPECT_NE(out.find("path     direct"), std::string::npos) << out;
  EXPECT_NE(out.find("kernel conv_direct_"), std::string::npos) << out;
  EXPECT_NE(out.find("vfmadd231ps"), std::string::npos) << out;
  EXPECT_NE(out.find("_relu"), std::string::npos) << out;
  const std::string skip = run_and_capture(std::string(JITCONV_CLI_PATH) +
                                           " dump --conv mb1ic32ih20oc32oh10kh3sh2ph1 --algo winograd43 2>&1");
  EXPECT_NE(skip.find("does not apply"), std::string::npos) << skip;
}
