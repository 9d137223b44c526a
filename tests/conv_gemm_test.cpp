// Convolution on the GEMM microkernel against the scalar reference: pointwise (incl. K
// blocking with large ic), strided/padded 1x1 (subsample panels), k x k through im2col
// and through batch-reduce over taps, every elempack pair, activations, thread counts.
#include <gtest/gtest.h>

#include <cmath>

#include "jit/gemm_conf.h"
#include "runtime/cpu.h"
#include "tests/conv_tester.h"

using namespace jitconv;
using namespace jitconv::test;

TEST(ConvGemm, Pointwise) {
  for (Isa isa : jit_isas())
    for (int ic : {1, 3, 8, 16, 19, 64, 300, 1024})
      for (int oc : {1, 5, 16, 24, 72, 100, 256})
        ConvTester().isa(isa).ic(ic).oc(oc).input(7, 9 + ic % 5).kernel(1).seed(ic + oc).test_gemm();
}

TEST(ConvGemm, PointwiseLongPlanes) {
  // More pixels than one panel (256) with remainders, so ranges and tails mix.
  for (Isa isa : jit_isas())
    for (int hw : {16, 17, 23, 40})
      ConvTester().isa(isa).ic(32).oc(48).input(hw, hw + 1).kernel(1).act("relu").test_gemm();
}

TEST(ConvGemm, PointwiseLongRuns) {
  // One thread takes ranges of up to 4096 pixels while their B fits half of L2; several
  // threads take 256-pixel ranges, ordered in runs of consecutive ranges per chunk group
  // (the last run shorter). Several ranges or runs with a short last one, a register-block
  // tail in each, one and several chunk groups, and (ic 256) runs cut short by the L2 bound.
  for (Isa isa : jit_isas())
    for (int threads : {1, 2, 3}) {
      ConvTester().isa(isa).ic(16).oc(96).input(71, 73).kernel(1).threads(threads).test_gemm();
      ConvTester().isa(isa).ic(24).oc(72).input(101, 100).kernel(1).act("relu").threads(threads).test_gemm();
      ConvTester().isa(isa).ic(32).oc(20).input(67, 65).kernel(1).threads(threads).test_gemm();
      ConvTester().isa(isa).ic(256).oc(40).input(40, 41).kernel(1).threads(threads).test_gemm();
    }
}

TEST(ConvGemm, PointwiseStridedAndPadded) {
  for (Isa isa : jit_isas()) {
    ConvTester().isa(isa).ic(64).oc(32).input(14, 14).kernel(1).stride(2).test_gemm();
    ConvTester().isa(isa).ic(24).oc(40).input(13, 9).kernel(1).stride(3, 2).test_gemm();
    ConvTester().isa(isa).ic(16).oc(16).input(5, 6).kernel(1).pad(1).test_gemm();
    ConvTester().isa(isa).ic(16).oc(16).input(5, 6).kernel(1).pad(2, 1, 0, 3).pad_value(0.5f).test_gemm();
    ConvTester().isa(isa).ic(512).oc(64).input(12, 12).kernel(1).stride(2).test_gemm();
  }
}

TEST(ConvGemm, PointwiseWholeKAndBalancedRanges) {
  // Calls of 128+ pixels take all of K at once (A up to 256 KB), narrower ones split K
  // through the partial sums; on several threads the pixel ranges are resized to whole
  // rounds of tasks (odd pixel counts, one and several chunk groups).
  for (Isa isa : jit_isas())
    for (int threads : {1, 2, 3}) {
      ConvTester().isa(isa).ic(384).oc(48).input(12, 13).kernel(1).act("relu").threads(threads).test_gemm();
      ConvTester().isa(isa).ic(200).oc(136).input(23, 29).kernel(1).threads(threads).test_gemm();
      ConvTester().isa(isa).ic(1024).oc(16).input(9, 9).kernel(1).threads(threads).test_gemm();
    }
}

TEST(ConvGemm, PointwisePrefetchesManyPlanes) {
  // AVX2: inputs of 16+ channel planes past half of L2 (sized from this machine's) run the
  // first chunk group of each range through kernels that prefetch B ahead (past the
  // range's end on the last one): several groups, a channel tail, range tails, K blocks
  // on narrow ranges, 1 and 2 threads.
  const double half_l2 = static_cast<double>(cpu_info().l2_bytes) / 2;
  for (Isa isa : jit_isas()) {
    for (int ic : {128, 136, 1024}) {
      const int side = static_cast<int>(std::sqrt(half_l2 / (4.0 * ic))) + 2;
      for (int threads : {1, 2})
        ConvTester().isa(isa).ic(ic).oc(44).input(side, side + 3).kernel(1).act("relu").threads(threads).test_gemm();
    }
    const std::vector<float> w(128 * 24, 0.5f), b(24, 0.f);
    const int lanes = isa_lanes(isa);
    const int out24 = 24 % lanes == 0 ? lanes : 8;  // oc 24 on AVX-512 goes out in elempack 8
    ConvGemm many(ConvTester().ic(128).oc(24).kernel(1).params(), w.data(), b.data(), isa, lanes, out24);
    const int side = static_cast<int>(std::sqrt(half_l2 / (4.0 * 128))) + 2;
    many.prepare(side, side);
    EXPECT_EQ(many.describe().find("_pfb") != std::string::npos, isa == Isa::avx2) << many.describe();
    ConvGemm small(ConvTester().ic(128).oc(24).kernel(1).params(), w.data(), b.data(), isa, lanes, out24);
    small.prepare(8, 8);  // fits in L2: no prefetching kernels
    EXPECT_EQ(small.describe().find("_pfb"), std::string::npos) << small.describe();
  }
}

TEST(ConvGemm, LargeWeightsPrefetchTheNextBlock) {
  // Weights past L2 (sized from this machine's) stream from L3: every pointwise or panel
  // call prefetches the A block after its own (the last one's wraps to the first), with
  // and without the B-prefetching first group, on K blocks (narrow ranges) and whole K,
  // subsampled and im2col panels, a channel tail, 1 and 2 threads. Weights within L2 get
  // plain kernels.
  const double l2 = static_cast<double>(cpu_info().l2_bytes);
  for (Isa isa : jit_isas()) {
    const int lanes = isa_lanes(isa);
    const int ic = 512;
    const int oc = (static_cast<int>(l2 / (4.0 * ic)) / lanes + 1) * lanes + 3;  // just past L2
    for (int threads : {1, 2}) {
      ConvTester().isa(isa).ic(ic).oc(oc).input(5, 7).kernel(1).act("relu").threads(threads).test_gemm();
      ConvTester().isa(isa).ic(ic).oc(oc).input(12, 13).kernel(1).threads(threads).test_gemm();
      const int side = static_cast<int>(std::sqrt(l2 / (8.0 * ic))) + 2;  // input past half of L2 too
      ConvTester().isa(isa).ic(ic).oc(oc).input(side, side).kernel(1).threads(threads).test_gemm();
      ConvTester().isa(isa).ic(ic).oc(oc).input(9, 11).kernel(1).stride(2).threads(threads).test_gemm();
      ConvTester().isa(isa).ic(ic / 2).oc(oc).input(7, 9).kernel(3).pad(1).threads(threads).test_gemm();
    }
    for (int out : {oc - 3, lanes * 2}) {  // whole vectors for the elempack
      const std::vector<float> w(static_cast<size_t>(ic) * out, 0.5f), b(out, 0.f);
      ConvGemm gemm(ConvTester().ic(ic).oc(out).kernel(1).params(), w.data(), b.data(), isa, lanes, lanes);
      gemm.prepare(7, 7);
      EXPECT_EQ(gemm.describe().find("_pfa") != std::string::npos, out == oc - 3) << gemm.describe();
    }
  }
}

TEST(ConvGemm, PointwiseFewChunksTakeThreeChunkGroups) {
  // AVX2, 40 and 64 output channels: 3 chunks x 4 pixels, groups of 3 and a last one of 2
  // (other counts and ISAs keep the general blocking). Results against the reference with
  // pixel tails of 1-3, elempacks 1 and 8 out, activations, K blocks, threads (the fused
  // residual: ConvResidual.EveryPathMatchesReferencePlusResidual, gemm 32->64).
  for (Isa isa : jit_isas()) {
    for (int oc : {40, 64}) {
      for (int w : {13, 14, 15, 16})
        ConvTester().isa(isa).ic(24).oc(oc).input(3, w).kernel(1).act("relu").test_gemm();
      ConvTester().isa(isa).ic(32).oc(oc).input(9, 11).kernel(1).act("sigmoid").elempack(8, 1).test_gemm();
      ConvTester().isa(isa).ic(512).oc(oc).input(5, 7).kernel(1).threads(2).test_gemm();
      ConvTester().isa(isa).ic(64).oc(oc).input(31, 33).kernel(1).act("hardswish").threads(2).test_gemm();
    }
    for (int oc : {40, 64, 16, 48, 128}) {
      const std::vector<float> w(64 * oc, 0.5f), b(oc, 0.f);
      const int lanes = isa_lanes(isa);
      const int out_pack = oc % lanes == 0 ? lanes : 8;  // 40 on AVX-512: elempack 8 out
      ConvGemm gemm(ConvTester().ic(64).oc(oc).kernel(1).params(), w.data(), b.data(), isa, lanes, out_pack);
      const GemmBlocking general = choose_gemm_blocking(isa, (oc + lanes - 1) / lanes, Activation());
      const bool three = isa == Isa::avx2 && (oc == 40 || oc == 64);
      const std::string tile = three ? "tile 3x4 " : "tile " + std::to_string(general.ur_oc) + "x" + std::to_string(general.nr) + " ";
      EXPECT_NE(gemm.describe().find(tile), std::string::npos) << tile << ": " << gemm.describe();
      if (three) {
        EXPECT_EQ(general.ur_oc, 2);  // the general blocking would differ
      }
    }
  }
}

TEST(ConvGemm, StridedReadInPlace) {
  // Unpadded strided 1x1 with output rows of 28+ pixels reads B in place, one row per
  // call: odd widths (block tails), strides 2/3 and mixed, channel tails, every elempack
  // pair, K split into blocks (ic 512), threads.
  for (Isa isa : jit_isas()) {
    ConvTester().isa(isa).ic(64).oc(32).input(7, 57).kernel(1).stride(2).test_gemm();
    ConvTester().isa(isa).ic(24).oc(40).input(10, 90).kernel(1).stride(2, 3).act("relu").test_gemm();
    ConvTester().isa(isa).ic(13).oc(29).input(5, 31).kernel(1).stride(3, 1).test_gemm();
    ConvTester().isa(isa).ic(512).oc(48).input(4, 60).kernel(1).stride(2).threads(2).test_gemm();
    for (int in : {1, 4, 8, 16})
      for (int out : {1, 4, 8, 16})
        if (out <= isa_lanes(isa)) ConvTester().isa(isa).ic(32).oc(48).input(3, 61).kernel(1).stride(2).elempack(in, out).test_gemm();
    // Inputs past half of L2 (sized from this machine's): the row's first group prefetches
    // the input two output rows ahead; several groups, K blocks, odd strides, 2 threads.
    const double half_l2 = static_cast<double>(cpu_info().l2_bytes) / 2;
    for (int ic : {64, 40, 512}) {
      const int side = static_cast<int>(std::sqrt(half_l2 / (4.0 * ic))) + 3;
      ConvTester().isa(isa).ic(ic).oc(5 * isa_lanes(isa) + 8).input(side, std::max(side, 60)).kernel(1).stride(2).act("relu").test_gemm();
      ConvTester().isa(isa).ic(ic).oc(48).input(side, std::max(side, 90)).kernel(1).stride(3, 2).threads(2).test_gemm();
    }
    const std::vector<float> w(64 * 64, 0.5f), b(64, 0.f);
    ConvGemm gemm(ConvTester().ic(64).oc(64).kernel(1).stride(2).params(), w.data(), b.data(), isa, isa_lanes(isa),
                  isa_lanes(isa));
    gemm.prepare(60, 60);
    EXPECT_NE(gemm.describe().find("_pfb"), std::string::npos) << gemm.describe();
  }
}

TEST(ConvGemm, Im2colAndBrgemm) {
  for (Isa isa : jit_isas())
    for (const char* form : {"", "brgemm"}) {
      ConvTester().isa(isa).ic(3).oc(64).input(23, 21).kernel(7).stride(2).pad(3).test_gemm(form);
      ConvTester().isa(isa).ic(3).oc(64).input(17, 17).kernel(3).stride(2).pad(1).test_gemm(form);
      ConvTester().isa(isa).ic(40).oc(120).input(9, 11).kernel(5).pad(2).test_gemm(form);
      ConvTester().isa(isa).ic(13).oc(29).input(8, 8).kernel(3).dilation(2).pad(2, 1, 0, 3).test_gemm(form);
      ConvTester().isa(isa).ic(16).oc(16).input(6, 7).kernel(1, 5).stride(1, 2).pad(0, 2, 0, 2).test_gemm(form);
      ConvTester().isa(isa).ic(64).oc(64).input(9, 9).kernel(3).pad(1).act("mish").test_gemm(form);
      ConvTester().isa(isa).ic(8).oc(8).input(7, 7).kernel(3).pad(1).pad_value(-0.25f).test_gemm(form);
    }
}

TEST(ConvGemm, BrgemmOverKernelRows) {
  // Unpacked inputs batch over kernel rows with the kw taps of a channel as B's k lanes:
  // kernel widths 2..7 (and 1 wide, which stays per tap), strides, asymmetric pads, a pad
  // value, channel counts 1..5 and wide / narrow rows against the register block.
  for (Isa isa : jit_isas()) {
    for (int kw = 1; kw <= 7; kw++)
      for (int ic : {1, 2, 3, 5})
        ConvTester().isa(isa).ic(ic).oc(kw * 7).input(9, 13 + kw).kernel(kw == 1 ? 3 : 2, kw).stride(1, kw % 3 + 1)
            .pad(1, kw / 2, 0, kw - 1).elempack(1, 0).test_gemm("brgemm");
    ConvTester().isa(isa).ic(3).oc(24).input(12, 41).kernel(3).stride(2).pad(1).pad_value(0.5f).elempack(1, 8).act("relu").test_gemm("brgemm");
    ConvTester().isa(isa).ic(3).oc(64).input(30, 30).kernel(7).stride(2).pad(3).threads(2).test_gemm("brgemm");
    // It is the rows form; dilated widths keep one entry per tap.
    const std::vector<float> w(64 * 3 * 49, 0.25f), b(64, 0.f);
    const ConvParams rows = ConvTester().ic(3).oc(64).kernel(7).stride(2).pad(3).params();
    EXPECT_NE(ConvGemm(rows, w.data(), b.data(), isa, 1, isa_lanes(isa), "brgemm").describe().find("(kernel rows)"),
              std::string::npos);
    const ConvParams dilated = ConvTester().ic(3).oc(64).kernel(3).dilation(2).pad(2).params();
    EXPECT_EQ(ConvGemm(dilated, w.data(), b.data(), isa, 1, isa_lanes(isa), "brgemm").describe().find("(kernel rows)"),
              std::string::npos);
  }
}

TEST(ConvGemm, BrgemmReadsTheInputInPlace) {
  // No padded copy: kernel rows outside the input leave the batch (rows of output with no
  // valid kernel row get bias + activation only) and left / right padding comes from a
  // per-task zero-bordered window of the valid rows. Widths from 1 (all edge) up, pads
  // larger than the kernel, strides, dilation, packed and unpacked inputs, several chunk
  // groups; a non-zero pad value still takes the padded copy.
  for (Isa isa : jit_isas())
    for (int in_pack : {1, 4, isa_lanes(isa)}) {
      const int ic = in_pack == 1 ? 3 : 2 * in_pack;
      for (int w : {1, 2, 5, 9, 23})
        for (int s : {1, 2, 3}) {
          ConvTester().isa(isa).ic(ic).oc(5 * isa_lanes(isa) + 3).input(7, w).kernel(3).stride(s).pad(1).elempack(in_pack, 0)
              .act("relu").test_gemm("brgemm");
          ConvTester().isa(isa).ic(ic).oc(20).input(6, w).kernel(3, 5).stride(s, 1).pad(4, 5, 3, 2).elempack(in_pack, 0)
              .act("sigmoid").test_gemm("brgemm");
          ConvTester().isa(isa).ic(ic).oc(20).input(8, w + 4).kernel(3).dilation(2).stride(s).pad(2, 3, 1, 2)
              .elempack(in_pack, 0).test_gemm("brgemm");
        }
      ConvTester().isa(isa).ic(ic).oc(17).input(9, 12).kernel(3).pad(2).pad_value(0.75f).elempack(in_pack, 0).test_gemm("brgemm");
      ConvTester().isa(isa).ic(ic).oc(64).input(19, 37).kernel(5).stride(2).pad(2).elempack(in_pack, 0).threads(2).test_gemm("brgemm");
      // A task takes a row's chunk groups whole, or in equal parts where rows are few
      // against 32 tasks per thread: 1, 2 and 3 parts of 2-9 groups, 1 and 2 threads.
      for (int threads : {1, 2}) {
        ConvTester().isa(isa).ic(ic).oc(64).input(25, 30).kernel(3).pad(1).elempack(in_pack, 0).threads(threads)
            .test_gemm("brgemm");
        ConvTester().isa(isa).ic(ic).oc(5 * isa_lanes(isa)).input(12, 20).kernel(3).pad(1).elempack(in_pack, 0)
            .threads(threads).test_gemm("brgemm");
        ConvTester().isa(isa).ic(ic).oc(9 * isa_lanes(isa) - 1).input(112, 9).kernel(3).stride(2).pad(1).elempack(in_pack, 0)
            .threads(threads).test_gemm("brgemm");
      }
    }
}

TEST(ConvGemm, EveryElempackPair) {
  for (Isa isa : jit_isas())
    for (int in : {1, 4, 8, 16})
      for (int out : {1, 4, 8, 16}) {
        if (out > isa_lanes(isa)) continue;
        ConvTester().isa(isa).ic(48).oc(48).input(6, 9).kernel(1).elempack(in, out).test_gemm();
        ConvTester().isa(isa).ic(16).oc(32).input(6, 7).kernel(3).pad(1).elempack(in, out).test_gemm();
        ConvTester().isa(isa).ic(16).oc(32).input(6, 7).kernel(3).pad(1).elempack(in, out).test_gemm("brgemm");
      }
}

TEST(ConvGemm, SmallOutputsSplitAcrossThreads) {
  // Outputs of one panel's pixels (at most 256) are cut into a range per thread instead of
  // running on one thread; ranges under 128 pixels take K in blocks. Every thread count
  // gives the one-thread result bit for bit: im2col, subsample panels (rows under 28
  // pixels), pointwise.
  for (Isa isa : jit_isas()) {
    ConvTester im2col, subsample, pointwise;
    im2col.isa(isa).ic(40).oc(48).input(13, 11).kernel(3).act("relu");
    subsample.isa(isa).ic(96).oc(80).input(14, 14).kernel(1).stride(2);
    pointwise.isa(isa).ic(300).oc(24).input(7, 7).kernel(1).act("leaky:0.1");
    for (ConvTester* t : {&im2col, &subsample, &pointwise}) {
      const std::vector<float> one = t->threads(1).test_gemm();
      for (int threads : {2, 3, 8}) {
        const std::vector<float> many = t->threads(threads).test_gemm();
        ASSERT_EQ(one.size(), many.size());
        EXPECT_EQ(0, memcmp(one.data(), many.data(), one.size() * sizeof(float))) << threads << " threads";
      }
    }
  }
}

TEST(ConvGemm, ActivationsAndThreads) {
  for (Isa isa : jit_isas())
    for (const char* act : {"relu", "leaky:0.1", "clip:0:6", "sigmoid", "mish", "hardswish:0.2:0.5"}) {
      ConvTester t;
      t.isa(isa).ic(200).oc(40).input(17, 19).kernel(1).act(act);
      const std::vector<float> one = t.threads(1).test_gemm();
      const std::vector<float> three = t.threads(3).test_gemm();
      EXPECT_EQ(0, memcmp(one.data(), three.data(), one.size() * sizeof(float)));
    }
}
