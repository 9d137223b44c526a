// Generated direct-convolution kernels against the scalar reference, over generated edge
// cases, on every JIT ISA of the machine (AVX2 also on AVX-512 machines).
#include <gtest/gtest.h>

#include <cmath>

#include "jit/conv_direct_conf.h"
#include "tests/conv_tester.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {
std::vector<int> channel_counts() {
  std::vector<int> counts;
  for (int c = 1; c <= 33; c++) counts.push_back(c);
  for (int p : {37, 41, 43, 47, 53, 59, 61, 67}) counts.push_back(p);
  return counts;
}

// The kernel names (ConvDirect::describe()) a direct convolution with parameters p generates
// for an ih x iw input; in_pack / out_pack 0: the ISA's preferred elempack.
std::string direct_kernels(const ConvParams& p, Isa isa, int ih, int iw, const ConvDirect::Tuning& tuning = {},
                           int in_pack = 0, int out_pack = 0) {
  const std::vector<float> w(static_cast<size_t>(p.ic) * p.oc * p.kh * p.kw, 0.5f), b(p.oc, 0.f);
  ConvDirect direct(p, w.data(), b.data(), isa, in_pack ? in_pack : preferred_elempack(isa, p.ic),
                    out_pack ? out_pack : preferred_elempack(isa, p.oc), tuning);
  direct.prepare(ih, iw);
  return direct.describe();
}
// The kernel names after one forward of an ih x iw input on `threads` threads.
std::string direct_kernels_after_forward(const ConvParams& p, Isa isa, int ih, int iw, int threads) {
  const std::vector<float> w(static_cast<size_t>(p.ic) * p.oc * p.kh * p.kw, 0.5f), b(p.oc, 0.f);
  const int in_pack = preferred_elempack(isa, p.ic), out_pack = preferred_elempack(isa, p.oc);
  ConvDirect direct(p, w.data(), b.data(), isa, in_pack, out_pack, ConvDirect::Tuning());
  Mat in(iw, ih, p.ic / in_pack, 4u * in_pack, in_pack), out;
  in.fill(0.5f);
  Option opt;
  opt.num_threads = threads;
  direct.forward(in, out, opt);
  return direct.describe();
}
}  // namespace

TEST(ConvDirect, ChannelCounts) {
  for (Isa isa : jit_isas()) {
    const std::vector<int> counts = channel_counts();
    for (size_t i = 0; i < counts.size(); i++) {
      // Every ic meets several oc values (and every oc several ic values).
      for (size_t step : {size_t(0), size_t(7), size_t(20)}) {
        const int ic = counts[i], oc = counts[(i + step) % counts.size()];
        ConvTester().isa(isa).ic(ic).oc(oc).input(6, 7).kernel(3).pad(1).seed(ic * 100 + oc).test_direct();
      }
    }
  }
}

TEST(ConvDirect, OutputWidths) {
  // From 1 pixel to twice the widest register block (28) plus one.
  for (Isa isa : jit_isas())
    for (int ow = 1; ow <= 57; ow++)
      for (int oc : {16, 64, 24})
        ConvTester().isa(isa).ic(8).oc(oc).input(3, ow + 2).kernel(3).seed(ow).test_direct();
}

TEST(ConvDirect, KernelStrideDilationPad) {
  struct K {
    int h, w;
  };
  for (Isa isa : jit_isas())
    for (K k : {K{1, 1}, K{2, 2}, K{3, 3}, K{4, 4}, K{5, 5}, K{6, 6}, K{7, 7}, K{1, 7}, K{7, 1}, K{1, 3}})
      for (int s = 1; s <= 3; s++)
        for (int d = 1; d <= 3; d++) {
          const int ih = (k.h - 1) * d + 1 + 5, iw = (k.w - 1) * d + 1 + 9;
          ConvTester().isa(isa).ic(16).oc(32).input(ih, iw).kernel(k.h, k.w).stride(s).dilation(d).seed(k.h * 10 + s + d).test_direct();
          ConvTester().isa(isa).ic(5).oc(13).input(ih, iw).kernel(k.h, k.w).stride(s, 4 - s).dilation(d, 4 - d).pad(k.h / 2, k.w - 1, 1, 0).test_direct();
        }
}

TEST(ConvDirect, AsymmetricAndLargePadding) {
  for (Isa isa : jit_isas()) {
    ConvTester().isa(isa).ic(16).oc(16).input(10, 10).kernel(5).pad(7).test_direct();  // whole rows of padding
    ConvTester().isa(isa).ic(16).oc(16).input(10, 10).kernel(3).pad(0, 2, 3, 1).test_direct();
    ConvTester().isa(isa).ic(4).oc(20).input(1, 1).kernel(3).pad(1).test_direct();
    ConvTester().isa(isa).ic(3).oc(64).input(13, 17).kernel(7).stride(2).pad(3).test_direct();
    ConvTester().isa(isa).ic(16).oc(32).input(7, 7).kernel(3).pad(4, 3, 2, 5).dilation(2).test_direct();
    ConvTester().isa(isa).ic(8).oc(8).input(9, 9).kernel(3).pad(kPadSameUpper).stride(2).test_direct();
    ConvTester().isa(isa).ic(8).oc(8).input(9, 8).kernel(4).pad(kPadSameLower).stride(3).test_direct();
    ConvTester().isa(isa).ic(12).oc(28).input(9, 9).kernel(3).pad(2).pad_value(0.75f).test_direct();
  }
}

TEST(ConvDirect, EveryElempackPair) {
  for (Isa isa : jit_isas())
    for (int in : {1, 4, 8, 16})
      for (int out : {1, 4, 8, 16}) {
        if (out > isa_lanes(isa)) continue;
        ConvTester().isa(isa).ic(48).oc(48).input(8, 11).kernel(3).pad(1).elempack(in, out).test_direct();
        ConvTester().isa(isa).ic(16).oc(80).input(5, 30).kernel(1).elempack(in, out).test_direct();
      }
}

TEST(ConvDirect, EveryActivation) {
  for (Isa isa : jit_isas())
    for (const char* act : {"none", "relu", "leaky:0.1", "clip:-0.5:0.7", "sigmoid", "mish", "hardswish:0.2:0.5"})
      for (int oc : {16, 40, 7}) {
        ConvTester().isa(isa).ic(9).oc(oc).input(7, 31).kernel(3).pad(1).act(act).test_direct();
        ConvTester().isa(isa).ic(9).oc(oc).input(7, 31).kernel(3).pad(1).act(act).bias(false).test_direct();
      }
}

TEST(ConvDirect, ThreadsAreBitIdentical) {
  for (Isa isa : jit_isas()) {
    ConvTester t;
    t.isa(isa).ic(32).oc(48).input(19, 23).kernel(3).pad(1).act("relu");
    const std::vector<float> one = t.threads(1).test_direct();
    const std::vector<float> two = t.threads(2).test_direct();
    const std::vector<float> eight = t.threads(8).test_direct();
    ASSERT_EQ(one.size(), two.size());
    EXPECT_EQ(0, memcmp(one.data(), two.data(), one.size() * sizeof(float)));
    EXPECT_EQ(0, memcmp(one.data(), eight.data(), one.size() * sizeof(float)));
  }
}

TEST(ConvDirect, HeadlineShapesSmallBatch) {
  // Real layer geometries (reduced spatial size where the full one is slow to check).
  for (Isa isa : jit_isas()) {
    ConvTester().isa(isa).ic(3).oc(64).input(30, 30).kernel(7).stride(2).pad(3).test_direct();
    ConvTester().isa(isa).ic(64).oc(64).input(14, 14).kernel(3).pad(1).test_direct();
    ConvTester().isa(isa).ic(128).oc(128).input(7, 7).kernel(3).stride(2).pad(1).test_direct();
    ConvTester().isa(isa).ic(96).oc(96).input(9, 9).kernel(3).pad(1).test_direct();
    ConvTester().isa(isa).ic(40).oc(120).input(8, 8).kernel(5).pad(2).test_direct();
    ConvTester().isa(isa).ic(64).oc(64).input(12, 12).kernel(3).pad(2).dilation(2).test_direct();
    ConvTester().isa(isa).ic(256).oc(64).input(6, 6).kernel(1).test_direct();
  }
}

TEST(ConvDirect, EveryChunkGroupSize) {
  // The weight layout and register block follow ur_oc; force each size the generator
  // supports (the cost model stops at 4 on AVX-512), with oc tails so that the last group
  // is partial.
  for (Isa isa : jit_isas()) {
    const int max_ur = isa == Isa::avx512 ? 6 : 3;
    for (int ur = 1; ur <= max_ur; ur++)
      for (int oc : {isa_lanes(isa) * ur, isa_lanes(isa) * ur * 2 + 4, 7 * isa_lanes(isa) - 8})
        for (int width : {5, 19, 40})
          ConvTester().isa(isa).ic(12).oc(oc).input(4, width).kernel(3).pad(1).act("mish").test_direct(ur);
  }
}

TEST(ConvDirect, LaneLoops) {
  // Kernels whose kh-loop body would exceed ~1024 instructions fully unrolled run the input
  // lanes of each tap in a loop (conv_direct_lane_unroll): 3x3 at 16 lanes on AVX-512,
  // 5x5 / 7x7 at 8 lanes on AVX2. Each case checks the kernel is the rolled form ("_lu")
  // and matches the reference: edge blocks with skipped taps, strides and dilations,
  // channel tails, the embedded-broadcast form (one chunk) and the cold-weight prefetch.
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    struct Case { int ic, oc, ih, iw, k, stride_w, dilation_w, pad; const char* act; bool prefetch; };
    const bool wide = isa == Isa::avx512;  // 16 lanes: 3x3 already rolls; 8 lanes: 7x7 does
    const Case cases[] = {
        {2 * vlen, 2 * vlen, 5, 30, wide ? 3 : 7, 1, 1, wide ? 1 : 3, "relu", false},
        {3 * vlen, vlen + 5, 9, 47, wide ? 5 : 7, 2, 1, 2, "mish", false},
        {2 * vlen, 5 * vlen, 11, 41, 7, 1, 2, 3, "none", true},  // several groups: the prefetch runs
        {2 * vlen, vlen, 9, 28, wide ? 3 : 7, 1, 1, wide ? 1 : 3, "leaky:0.1", false},  // one chunk
    };
    for (const Case& c : cases) {
      ConvTester t;
      t.isa(isa).ic(c.ic).oc(c.oc).input(c.ih, c.iw).kernel(c.k).stride(1, c.stride_w).dilation(1, c.dilation_w).pad(c.pad);
      if (std::string(c.act) != "none") t.act(c.act);
      t.test_direct(0, c.prefetch);
      int oh = 0, ow = 0;
      t.params().output_size(c.ih, c.iw, oh, ow);
      ConvDirect::Tuning tuning;
      tuning.expected_ow = ow;
      tuning.prefetch_weights = c.prefetch;
      const std::string kernels = direct_kernels(t.params(), isa, c.ih, c.iw, tuning);
      EXPECT_NE(kernels.find("_lu"), std::string::npos) << kernels;
    }
  }
  // A 1x7 kernel on an input past half of L2: rolled lanes with the input-row prefetch
  // (issued per tap), including edge blocks whose last taps are all padding.
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    const int ic = 2 * vlen;
    const int side = static_cast<int>(std::sqrt(static_cast<double>(cpu_info().l2_bytes) / 2 / (4.0 * ic))) + 3;
    ConvTester t;
    t.isa(isa).ic(ic).oc(3 * vlen).input(side, side).kernel(1, 7).pad(0, 3, 0, 3).act("relu");
    t.test_direct();
    ConvDirect::Tuning tuning;
    tuning.expected_ow = side;
    const std::string kernels = direct_kernels(t.params(), isa, side, side, tuning);
    EXPECT_NE(kernels.find("_lu"), std::string::npos) << kernels;
    EXPECT_NE(kernels.find("_pfr"), std::string::npos) << kernels;
  }
  // 1x1 bodies stay unrolled.
  for (Isa isa : jit_isas()) {
    const std::string kernels = direct_kernels(ConvTester().ic(64).oc(64).kernel(1).params(), isa, 56, 56);
    EXPECT_EQ(kernels.find("_lu"), std::string::npos) << kernels;
  }
}

TEST(ConvDirect, ChunkGroupChoices) {
  // The measured choices the cost model encodes (jit/conv_direct_conf.cpp): 1x1 layers
  // take big chunk groups (each group re-reads the input), 14-wide rows whose weights
  // stream from L2 keep one block per row, and groups stop at 4 chunks on AVX-512.
  auto ur = [](Isa isa, int ic, int oc, int ow, int k, int sw, long l2_bytes = 0, bool fast_l3 = false) {
    ConvDirectProblem p;
    p.l2_bytes = l2_bytes;
    p.fast_l3 = fast_l3;
    p.ic = ic;
    p.oc = oc;
    p.ow = ow;
    p.kh = p.kw = k;
    p.sw = sw;
    p.in_pack = p.out_pack = isa_lanes(isa);
    return conv_direct_ur_oc(isa, p);
  };
  EXPECT_EQ(ur(Isa::avx512, 64, 256, 56, 1, 1), 4);
  EXPECT_EQ(ur(Isa::avx512, 256, 128, 28, 1, 2), 4);
  EXPECT_EQ(ur(Isa::avx512, 1024, 256, 14, 1, 1), 4);
  EXPECT_EQ(ur(Isa::avx512, 96, 96, 35, 3, 1), 3);
  EXPECT_EQ(ur(Isa::avx512, 256, 256, 14, 3, 1), 2);
  EXPECT_EQ(ur(Isa::avx512, 64, 64, 56, 3, 1), 2);
  EXPECT_EQ(ur(Isa::avx2, 64, 256, 56, 1, 1), 3);
  EXPECT_EQ(ur(Isa::avx2, 256, 256, 14, 3, 1), 1);
  // Weights that stay in half of a 2 MB L2 stream at no extra cost: k x k layers then take
  // the groups that read the input once (or fewest times), 96@35 stays at 3 + 3 chunks
  // (not 4 + 2), and weights past it (256@14: 2.4 MB) keep the 14-wide blocks.
  const long l2 = 2L << 20;
  EXPECT_EQ(ur(Isa::avx512, 64, 64, 56, 3, 1, l2), 4);
  EXPECT_EQ(ur(Isa::avx512, 128, 128, 28, 3, 1, l2), 4);
  EXPECT_EQ(ur(Isa::avx512, 96, 96, 35, 3, 1, l2), 3);
  EXPECT_EQ(ur(Isa::avx512, 256, 256, 14, 3, 1, l2), 2);
  EXPECT_EQ(ur(Isa::avx512, 64, 256, 56, 1, 1, l2), 4);
  EXPECT_EQ(ur(Isa::avx2, 64, 64, 56, 3, 1, l2), 3);
  EXPECT_EQ(ur(Isa::avx2, 256, 256, 14, 3, 1, l2), 1);
  // Where L3 streams weights at no extra cost (Zen 3, 512 KB L2), k x k layers whose
  // weights outgrow half of L2 leave the 14 x 1 blocks for groups that read the input
  // fewer times (forced direct, one thread, x oneDNN, 1 chunk / 2 / 3: 5x5 40->120 @28
  // 0.83 / 1.01 / 1.02, 3x3s2 128@28 0.80 / 1.14 / 1.07, 3x3 256@14 0.98 / 1.09 / 1.08,
  // 128@28 0.94 / 1.10 / 1.07).
  const long zen3_l2 = 512L << 10;
  EXPECT_EQ(ur(Isa::avx2, 40, 120, 28, 5, 1, zen3_l2), 1);
  EXPECT_EQ(ur(Isa::avx2, 128, 128, 14, 3, 2, zen3_l2), 1);
  EXPECT_GE(ur(Isa::avx2, 40, 120, 28, 5, 1, zen3_l2, true), 2);
  EXPECT_GE(ur(Isa::avx2, 128, 128, 14, 3, 2, zen3_l2, true), 2);
  EXPECT_GE(ur(Isa::avx2, 256, 256, 14, 3, 1, zen3_l2, true), 2);
  EXPECT_GE(ur(Isa::avx2, 128, 128, 28, 3, 1, zen3_l2, true), 2);
}

TEST(ConvDirect, InputChannelBlocks) {
  // 1x1 groups whose weights outgrow L1 run as several calls per row over blocks of input
  // channels (the first from the bias, later ones from dst, the last one activating): full
  // and partial trailing blocks, every chunk-group size, activations that are not
  // idempotent, two threads, and the cold-weight prefetch on top.
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    for (int ur : {1, 2, 4})
      for (int ic : {40 * vlen, 25 * vlen + 0, 37 * vlen})
        ConvTester().isa(isa).ic(ic).oc(vlen * ur * 2).input(3, 41).kernel(1).act("mish").test_direct(ur);
    ConvTester().isa(isa).ic(48 * vlen).oc(3 * vlen).input(2, 57).kernel(1).act("leaky:0.1").threads(2).test_direct();
    ConvTester().isa(isa).ic(33 * vlen).oc(5 * vlen).input(4, 30).kernel(1).stride(1, 2).act("hardswish").test_direct(2, true);
  }
}

TEST(ConvDirect, PointwiseImagesRunAsLongRows) {
  // 1x1 stride-1 unpadded images run as rows of up to 224 pixels regardless of their own
  // rows (kMaxRunPixels), the last one shorter with kernels of its own: one run, equal
  // runs, a shorter last run, channel tails, elempacks, input-channel blocks, two threads.
  struct Image { int h, w; };
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    for (Image im : {Image{1, 1}, Image{7, 31}, Image{15, 15}, Image{17, 19}, Image{21, 32}, Image{23, 29}})
      for (int oc : {vlen, 3 * vlen + 5}) {
        ConvTester().isa(isa).ic(24).oc(oc).input(im.h, im.w).kernel(1).act("relu").seed(im.h * im.w).test_direct();
        ConvTester().isa(isa).ic(20).oc(oc).input(im.h, im.w).kernel(1).elempack(4, 1).test_direct();
      }
    ConvTester().isa(isa).ic(40 * vlen).oc(2 * vlen).input(23, 29).kernel(1).act("mish").threads(2).test_direct();
    // 667 pixels: three runs of 223, 223 and 221 pixels.
    const std::string kernels = direct_kernels(ConvTester().ic(32).oc(32).kernel(1).params(), isa, 23, 29);
    EXPECT_NE(kernels.find("_iw223ow223"), std::string::npos) << kernels;
    EXPECT_NE(kernels.find("_iw221ow221"), std::string::npos) << kernels;
    // Several threads cut small images into more runs (about four tasks per thread, none
    // shorter than the image's rows): 196 pixels of one chunk group in 8 runs of 25 (the
    // last 21) for two threads; the results do not change.
    ConvTester small;
    small.isa(isa).ic(32).oc(vlen).input(14, 14).kernel(1).act("relu");
    const std::vector<float> one = small.threads(1).test_direct();
    const std::vector<float> two = small.threads(2).test_direct();
    EXPECT_EQ(0, memcmp(one.data(), two.data(), one.size() * sizeof(float)));
    const std::string one_thread = direct_kernels_after_forward(small.params(), isa, 14, 14, 1);
    EXPECT_NE(one_thread.find("_iw196ow196"), std::string::npos) << one_thread;
    const std::string two_threads = direct_kernels_after_forward(small.params(), isa, 14, 14, 2);
    EXPECT_NE(two_threads.find("_iw25ow25"), std::string::npos) << two_threads;
    EXPECT_NE(two_threads.find("_iw21ow21"), std::string::npos) << two_threads;
    // Padding or a stride keeps the image's rows.
    const std::string padded = direct_kernels(ConvTester().ic(32).oc(32).kernel(1).pad(1).params(), isa, 23, 29);
    EXPECT_NE(padded.find("_iw29ow31"), std::string::npos) << padded;
    const std::string strided = direct_kernels(ConvTester().ic(32).oc(32).kernel(1).stride(1, 2).params(), isa, 23, 29);
    EXPECT_NE(strided.find("_iw29ow15"), std::string::npos) << strided;
  }
}

TEST(ConvDirect, RowsOuterOnLargeInputs) {
  // Inputs past half of L2 with small weights run every group of a row back to back
  // (ConvDirect::rows_outer; on this machine's 2 MB L2 from 1 MB of input).
  for (Isa isa : jit_isas()) {
    ConvTester().isa(isa).ic(128).oc(96).input(45, 47).kernel(1).stride(2).act("relu").threads(2).test_direct(1);
    ConvTester().isa(isa).ic(64).oc(40).input(66, 65).kernel(3).pad(1).test_direct(1);
  }
}

TEST(ConvDirect, InputRowPrefetchingKernels) {
  // 1x1 kernels on inputs past half of L2 prefetch the input rows two output rows ahead
  // (unpadded stride-1 ones, run as runs of pixels: each plane 1 KB ahead), spread over
  // each input-channel step (prefetch_next_row; the pointer takes the register that
  // otherwise holds kh_count). The input is sized from this machine's L2; strides,
  // elempacks, channel tails, pads (rows with no valid tap), input-channel blocks and the
  // cold-weight prefetch beside it.
  const double half_l2 = static_cast<double>(cpu_info().l2_bytes) / 2;
  auto side_for = [half_l2](int ic) { return static_cast<int>(std::sqrt(half_l2 / (4.0 * ic))) + 3; };
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    struct Case { int ic, oc, stride_h, stride_w, pad, in_pack, out_pack; };
    const Case cases[] = {
        {64, 3 * vlen, 2, 2, 0, 0, 0},   {40, 37, 2, 2, 0, 8, 1},  {36, 20, 3, 1, 1, 4, 4},
        {24, 2 * vlen, 1, 2, 0, 1, 0},   {48, 5 * vlen, 1, 1, 0, 0, 0},
    };
    for (const Case& c : cases) {
      const int side = side_for(c.ic);
      ConvTester t;
      t.isa(isa).ic(c.ic).oc(c.oc).input(side, side - 2).kernel(1).stride(c.stride_h, c.stride_w).pad(c.pad);
      t.elempack(c.in_pack, c.out_pack).act("relu");
      t.test_direct();
      t.threads(2).test_direct(1, true);
      // The kernels do carry the prefetch.
      const std::string kernels = direct_kernels(t.params(), isa, side, side - 2, {}, c.in_pack, c.out_pack);
      EXPECT_NE(kernels.find("_pfr"), std::string::npos) << kernels;
    }
    // Input-channel blocks (several calls per row, each prefetching its own channels).
    const int ic = 40 * vlen;
    ConvTester().isa(isa).ic(ic).oc(3 * vlen).input(side_for(ic), 41).kernel(1).stride(2).act("mish").test_direct(1);
  }
  // Small inputs and k x k kernels do not prefetch rows.
  for (Isa isa : jit_isas()) {
    const std::string small = direct_kernels(ConvTester().ic(64).oc(64).kernel(1).stride(2).params(), isa, 20, 20);
    EXPECT_EQ(small.find("_pfr"), std::string::npos) << small;
    const int side = side_for(64);
    const std::string kxk = direct_kernels(ConvTester().ic(64).oc(64).kernel(3).pad(1).params(), isa, side, side);
    EXPECT_EQ(kxk.find("_pfr"), std::string::npos) << kxk;
  }
}

TEST(ConvDirect, WeightPrefetchingKernels) {
  // Cold-weight kernels prefetch a slice of the next chunk group per input-channel step;
  // the prefetch address lives on the kernel's stack beside the channel counter.
  for (Isa isa : jit_isas())
    for (int ur : {1, 2, 4})
      for (int oc : {isa_lanes(isa) * ur * 3, isa_lanes(isa) * ur * 2 + 4})
        for (int h : {1, 2, 7})
          ConvTester().isa(isa).ic(24).oc(oc).input(h, 9).kernel(3).pad(1).act("relu").test_direct(ur, true);
}

TEST(ConvDirect, ActivationParametersAreNotShared) {
  // Kernels are shared by name: two slopes on the same shape must get two kernels.
  for (Isa isa : jit_isas())
    for (const char* act : {"leaky:0.1", "leaky:0.3", "clip:-1:1", "clip:0:6", "hardswish:0.2:0.5", "hardswish:0.1667:0.5"})
      ConvTester().isa(isa).ic(8).oc(16).input(5, 5).kernel(3).pad(1).act(act).test_direct();
}
