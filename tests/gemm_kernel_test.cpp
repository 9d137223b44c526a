// The GEMM microkernel against a scalar GEMM: every register sub-tile (ur_oc x width),
// K = 1..3 unrolled groups, strided B and C, partial last chunks, every output elempack,
// bias/residual/activation epilogues, batch-reduce, split-K through the partial-sum
// buffer, and the software prefetches (hints: the results must not change). Sentinels
// around C catch writes outside the tile.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "jit/gemm_conf.h"
#include "jit/gemm_gen.h"
#include "jit/kernel_registry.h"
#include "runtime/packing.h"
#include "tests/conv_tester.h"
#include "tests/test_util.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {

const float kSentinel = -12345.f;

class GemmKernelTester {
 public:
  GemmKernelTester& isa(Isa v) {
    conf_.isa = v;
    conf_.vlen = conf_.out_pack = conf_.last_chunk_lanes = isa_lanes(v);
    return *this;
  }
  GemmKernelTester& tile(int ur_oc, int nr) { conf_.ur_oc = ur_oc; conf_.nr = nr; return *this; }
  GemmKernelTester& pixels(int blocks, int tail) { n_blocks_ = blocks; conf_.n_tail = tail; return *this; }
  GemmKernelTester& k(int k_pack, int k_groups) { conf_.k_pack = k_pack; k_groups_ = k_groups; return *this; }
  GemmKernelTester& pixel_stride_factor(int f) { stride_factor_ = f; return *this; }
  GemmKernelTester& out_pack(int p) { conf_.out_pack = p; return *this; }
  GemmKernelTester& last_lanes(int l) { conf_.last_chunk_lanes = l; return *this; }
  GemmKernelTester& bias(bool b) { conf_.bias = b; return *this; }
  GemmKernelTester& residual(bool r) { conf_.residual = r; return *this; }
  GemmKernelTester& act(const char* a) { conf_.act = Activation::parse(a); return *this; }
  GemmKernelTester& embedded_bcast() { conf_.explicit_bcast = false; return *this; }
  GemmKernelTester& a_fp16() { conf_.a_fp16 = true; return *this; }
  // prefetch_b: prefetch `offset` bytes beyond each B line (any address: a hint).
  GemmKernelTester& prefetch_b(long offset) { conf_.prefetch_b = true; prefetch_offset_ = offset; return *this; }
  // prefetch_a: `lines` lines per k group from a running pointer into `target` (a hint).
  GemmKernelTester& prefetch_a(int lines, const void* target) {
    conf_.prefetch_a_lines = lines;
    a_prefetch_ = target;
    return *this;
  }
  // prefetch_x: up to `lines` lines per k group of a driver's stream starting at `target`,
  // `count` lines in all per call (a hint).
  GemmKernelTester& prefetch_x(int lines, const void* target, long count) {
    conf_.prefetch_x_lines = lines;
    x_prefetch_ = target;
    x_prefetch_count_ = count;
    return *this;
  }
  GemmKernelTester& batch(int n) { batch_ = n; conf_.batch_reduce = n > 0; return *this; }
  // Run K in two calls: the first leaves partial sums, the second loads them and finishes.
  GemmKernelTester& split_k(bool s) { split_k_ = s; return *this; }

  void test() {
    GemmConf& c = conf_;
    c.b_pixel_stride = static_cast<long>(c.k_pack) * 4 * stride_factor_;
    SCOPED_TRACE(c.name() + " blocks " + std::to_string(n_blocks_) + " kgroups " + std::to_string(k_groups_) +
                 (split_k_ ? " split" : ""));
    const int n = n_blocks_ * c.nr + c.n_tail;
    const int m = c.ur_oc * c.vlen;
    const int valid_m = (c.ur_oc - 1) * c.vlen + c.last_chunk_lanes;
    const int batches = std::max(1, batch_);
    const int k = k_groups_ * c.k_pack;
    const long b_k_stride = static_cast<long>(n) * c.b_pixel_stride + 64;  // padding between k groups
    std::vector<std::vector<float>> a(batches), b(batches);
    std::vector<std::vector<uint16_t>> a_half(batches);
    for (int i = 0; i < batches; i++) {
      a[i] = random_vector(static_cast<size_t>(k) * m, 10 + i);
      if (c.a_fp16) {  // the kernel sees fp16 weights: the reference uses their exact values
        a_half[i].resize(a[i].size());
        for (size_t j = 0; j < a[i].size(); j++) {
          a_half[i][j] = float32_to_float16(a[i][j]);
          a[i][j] = float16_to_float32(a_half[i][j]);
        }
      }
      b[i] = random_vector(static_cast<size_t>(k_groups_) * b_k_stride / 4 + 64, 20 + i);
    }
    const std::vector<float> bias = random_vector(m, 30);
    const int planes = m / c.out_pack;
    const long plane_floats = static_cast<long>(n) * c.out_pack + 16;  // padded planes
    std::vector<float> residual = random_vector(planes * plane_floats, 40);
    std::vector<float> out(planes * plane_floats + 16, kSentinel);
    std::vector<float> acc(static_cast<size_t>(c.ur_oc) * (n * c.vlen + 16), kSentinel);

    // Reference.
    std::vector<double> expected(static_cast<size_t>(n) * m, 0.0);
    for (int mi = 0; mi < m; mi++)
      for (int ni = 0; ni < n; ni++) {
        double s = c.bias ? bias[mi] : 0.0;
        for (int bi = 0; bi < batches; bi++)
          for (int ki = 0; ki < k; ki++) {
            const long b_index = (ki / c.k_pack) * b_k_stride / 4 + ni * c.b_pixel_stride / 4 + ki % c.k_pack;
            s += static_cast<double>(a[bi][static_cast<size_t>(ki) * m + mi]) * b[bi][b_index];
          }
        const int plane = mi / c.out_pack, lane = mi % c.out_pack;
        if (c.residual) s += residual[plane * plane_floats + ni * c.out_pack + lane];
        expected[static_cast<size_t>(ni) * m + mi] = c.act.apply(s);
      }

    JitKernelPtr kernel =
        KernelRegistry::instance().get(c.name(), [c] { return std::make_unique<GemmGenerator>(c); });
    std::vector<const float*> a_list(batches), b_list(batches);
    for (int i = 0; i < batches; i++) {
      a_list[i] = c.a_fp16 ? reinterpret_cast<const float*>(a_half[i].data()) : a[i].data();
      b_list[i] = b[i].data();
    }
    auto call = [&](int k_begin, int k_count, long flags) {
      GemmArgs args{};
      std::vector<const float*> a_off(batches), b_off(batches);
      for (int i = 0; i < batches; i++) {
        a_off[i] = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a_list[i]) +
                                                  static_cast<long>(k_begin) * c.k_pack * m * (c.a_fp16 ? 2 : 4));
        b_off[i] = b_list[i] + k_begin * b_k_stride / 4;
      }
      args.a = c.batch_reduce ? reinterpret_cast<const float*>(a_off.data()) : a_off[0];
      args.b = c.batch_reduce ? reinterpret_cast<const float*>(b_off.data()) : b_off[0];
      args.c = out.data();
      args.acc = acc.data();
      args.bias = c.bias ? bias.data() : nullptr;
      args.residual = c.residual ? residual.data() : nullptr;
      args.k_groups = k_count;
      args.n_blocks = n_blocks_;
      args.b_k_stride = b_k_stride;
      args.c_plane_stride = plane_floats * 4;
      args.acc_chunk_stride = (static_cast<long>(n) * c.vlen + 16) * 4;
      args.residual_plane_stride = plane_floats * 4;
      args.flags = flags;
      args.batch = batches;
      args.b_prefetch_offset = prefetch_offset_;
      args.a_prefetch = a_prefetch_;
      args.x_prefetch = x_prefetch_;
      args.x_prefetch_lines = x_prefetch_count_;
      kernel->entry<GemmKernelFn>()(&args);
    };
    if (split_k_ && k_groups_ > 1) {
      call(0, 1, 0);
      call(1, k_groups_ - 1, kGemmLoadAcc | kGemmFinal);
    } else {
      call(0, k_groups_, kGemmFinal);
    }

    double max_err = 0, max_ref = 0;
    for (int mi = 0; mi < m; mi++) {
      const int plane = mi / c.out_pack, lane = mi % c.out_pack;
      for (int ni = 0; ni < n; ni++) {
        const float got = out[plane * plane_floats + ni * c.out_pack + lane];
        if (mi >= valid_m) {
          EXPECT_EQ(got, kSentinel) << "wrote invalid lane " << mi;
          continue;
        }
        const double ref = expected[static_cast<size_t>(ni) * m + mi];
        max_ref = std::max(max_ref, std::fabs(ref));
        max_err = std::max(max_err, std::fabs(got - ref));
      }
      // Plane padding after the last pixel stays untouched.
      for (int pad = n * c.out_pack; pad < plane_floats; pad++) ASSERT_EQ(out[plane * plane_floats + pad], kSentinel);
    }
    EXPECT_LE(max_err, (2e-7 * std::sqrt(double(k * batches)) + 1e-6) * std::max(1.0, max_ref));
  }

 private:
  GemmConf conf_;
  long prefetch_offset_ = 0;
  const void* a_prefetch_ = nullptr;
  const void* x_prefetch_ = nullptr;
  long x_prefetch_count_ = 0;
  int n_blocks_ = 1;
  int k_groups_ = 1;
  int stride_factor_ = 1;
  int batch_ = 0;
  bool split_k_ = false;
};

}  // namespace

TEST(GemmKernel, EverySubTile) {
  for (Isa isa : jit_isas()) {
    const int max_ur = isa == Isa::avx512 ? 6 : 3;
    for (int ur = 1; ur <= max_ur; ur++) {
      const int nr = gemm_max_nr(isa, ur, true, Activation());
      for (int tail = 0; tail < nr; tail++)
        GemmKernelTester().isa(isa).tile(ur, nr).pixels(tail % 3, tail).k(isa_lanes(isa), 1 + tail % 3).test();
    }
  }
}

TEST(GemmKernel, KUnrollAndStrides) {
  for (Isa isa : jit_isas())
    for (int kp : {1, 4, 8, 16})
      for (int groups = 1; groups <= 3; groups++)
        for (int stride : {1, 3})
          GemmKernelTester().isa(isa).tile(2, 5).pixels(2, 3).k(kp, groups).pixel_stride_factor(stride).test();
}

TEST(GemmKernel, OutputElempacksAndTails) {
  for (Isa isa : jit_isas())
    for (int op : {1, 4, 8, 16}) {
      if (op > isa_lanes(isa)) continue;
      for (int lanes = op; lanes <= isa_lanes(isa); lanes += op)
        GemmKernelTester().isa(isa).tile(2, 4).pixels(1, 3).k(4, 2).out_pack(op).last_lanes(lanes).test();
    }
}

TEST(GemmKernel, PackOneStoresEveryWidth) {
  // Pack-1 outputs are stored after a 4-pixel transpose (store_chunk_planes): every
  // block width up to the widest (one, two, three, four groups of four, short last
  // groups of 1-3 pixels), every tail, channel tails, with and without bias/activation.
  for (Isa isa : jit_isas())
    for (int ur : {1, 2, 4}) {
      if (isa == Isa::avx2 && ur == 4) continue;
      const int widest = gemm_max_nr(isa, ur, true, Activation::parse("relu"));
      for (int nr = 1; nr <= widest; nr++)
        for (int lanes : {1, 7, isa_lanes(isa)})
          GemmKernelTester().isa(isa).tile(ur, nr).pixels(2, (nr + 2) % nr).k(4, 2).out_pack(1).last_lanes(lanes).bias(nr % 2 == 0).act(nr % 3 == 0 ? "relu" : "none").test();
    }
}

TEST(GemmKernel, Epilogues) {
  for (Isa isa : jit_isas())
    for (const char* act : {"none", "relu", "leaky:0.2", "clip:-0.3:0.4", "sigmoid", "mish", "hardswish:0.2:0.5"})
      for (bool bias : {false, true})
        for (bool residual : {false, true}) {
          const int ur = isa == Isa::avx512 ? 4 : 2;
          GemmKernelTester t;
          t.isa(isa).tile(ur, gemm_max_nr(isa, ur, true, Activation::parse(act))).pixels(2, 1).k(8, 2);
          t.bias(bias).residual(residual).act(act).test();
        }
}

TEST(GemmKernel, EmbeddedBroadcast) {
  if (!isa_supported(Isa::avx512)) GTEST_SKIP() << "embedded broadcasts are an AVX-512 form";
  for (int tail = 0; tail < 28; tail += 3)
    GemmKernelTester().isa(Isa::avx512).tile(1, 28).pixels(1, tail).k(16, 2).embedded_bcast().test();
}

TEST(GemmKernel, FourBySevenFromMemoryBroadcasts) {
  // The AVX-512 pointwise tile for K <= 32 (choose_pointwise_blocking): 28 accumulators and
  // 4 weight registers, broadcasts from memory; with bias, activations that need scratch
  // registers (fewer pixels then), split K, output packs and a narrow last chunk.
  if (!isa_supported(Isa::avx512)) GTEST_SKIP() << "embedded broadcasts are an AVX-512 form";
  // Chosen only where zmm runs on 256-bit halves (Zen 4); full-width cores keep 4 x 6.
  const GemmBlocking b = choose_pointwise_blocking(Isa::avx512, 4, 32, Activation());
  EXPECT_EQ(b.ur_oc, 4);
  EXPECT_EQ(b.nr, cpu_info().zmm_half_rate ? 7 : 6);
  EXPECT_EQ(b.explicit_bcast, !cpu_info().zmm_half_rate);
  EXPECT_TRUE(choose_pointwise_blocking(Isa::avx512, 4, 64, Activation()).explicit_bcast);  // longer K: 4 x 6
  for (const char* act : {"none", "relu", "sigmoid"}) {
    const int nr = gemm_max_nr(Isa::avx512, 4, false, Activation::parse(act));
    for (int tail = 0; tail < nr; tail += 2)
      GemmKernelTester().isa(Isa::avx512).tile(4, nr).pixels(2, tail).k(16, 2).embedded_bcast().bias(true).act(act).test();
    GemmKernelTester().isa(Isa::avx512).tile(4, nr).pixels(1, 3).k(16, 3).embedded_bcast().split_k(true).act(act).test();
    GemmKernelTester().isa(Isa::avx512).tile(4, nr).pixels(1, 1).k(8, 2).embedded_bcast().out_pack(8).last_lanes(8).test();
  }
}

TEST(GemmKernel, NarrowLastChunkRunsOnYmmHalves) {
  // AVX-512, a last chunk of 8 lanes or fewer (72 = 4 x 16 + 8 output channels): its k loop
  // on ymm halves, both broadcast forms, with bias, activations, split K (partial sums go
  // out and back whole), fp16 weights and every output pack that divides the lanes.
  if (!isa_supported(Isa::avx512)) GTEST_SKIP() << "a zmm-only question";
  for (int ur : {1, 2, 5})
    for (int lanes : {1, 4, 8, 12})
      for (int op : {1, 4}) {
        if (lanes % op) continue;
        GemmKernelTester().isa(Isa::avx512).tile(ur, 4).pixels(2, 3).k(16, 2).out_pack(op).last_lanes(lanes).bias(true).act("relu").test();
        GemmKernelTester().isa(Isa::avx512).tile(ur, 5).pixels(1, 2).k(8, 3).out_pack(op).last_lanes(lanes).embedded_bcast().split_k(true).act("sigmoid").test();
        GemmKernelTester().isa(Isa::avx512).tile(ur, 2).pixels(1, 1).k(16, 2).out_pack(op).last_lanes(lanes).a_fp16().bias(true).test();
      }
}

TEST(GemmKernel, BatchReduceAndSplitK) {
  for (Isa isa : jit_isas()) {
    for (int batch : {1, 3, 9})
      GemmKernelTester().isa(isa).tile(2, 6).pixels(2, 2).k(4, 2).batch(batch).bias(true).act("relu").test();
    for (int groups = 2; groups <= 4; groups++) {
      GemmKernelTester().isa(isa).tile(3, 4).pixels(3, 1).k(8, groups).split_k(true).bias(true).act("sigmoid").test();
      GemmKernelTester().isa(isa).tile(2, 4).pixels(1, 2).k(4, groups).split_k(true).out_pack(4).last_lanes(4).test();
    }
  }
}

TEST(GemmKernel, BPrefetch) {
  // The prefetch offset lives in the register batch-reduced calls use for their list
  // index: every sub-tile, k packing, pixel stride, split K and epilogue around it.
  for (Isa isa : jit_isas()) {
    for (int ur = 1; ur <= 3; ur++)
      for (int tail : {0, 1, 3})
        for (int kp : {1, 4, 16})
          for (int stride : {1, 2})
            GemmKernelTester().isa(isa).tile(ur, 4).pixels(2, tail).k(kp, 3).pixel_stride_factor(stride)
                .prefetch_b(tail == 1 ? -4096 : 1 << 16).test();
    GemmKernelTester().isa(isa).tile(2, 5).pixels(1, 2).k(8, 4).split_k(true).bias(true).residual(true).act("mish")
        .prefetch_b(512).test();
  }
}

TEST(GemmKernel, APrefetch) {
  // The A prefetch pointer takes the register batch-reduced calls use for their list
  // index and advances once per k group: every sub-tile, k packing, line count (fewer,
  // as many and more lines than lanes), split K and epilogue around it. The pointer may
  // run past its panel (a hint never faults); here it starts in a real buffer.
  const std::vector<float> next_panel(1 << 16, 1.f);
  for (Isa isa : jit_isas()) {
    for (int ur = 1; ur <= (isa == Isa::avx512 ? 4 : 3); ur++)
      for (int tail : {0, 1, 3})
        for (int kp : {1, 4, 16})
          for (int lines : {1, 5, 22})
            GemmKernelTester().isa(isa).tile(ur, 4).pixels(2, tail).k(kp, 3).prefetch_a(lines, next_panel.data()).test();
    GemmKernelTester().isa(isa).tile(2, 5).pixels(1, 2).k(16, 4).split_k(true).bias(true).residual(true).act("mish")
        .prefetch_a(8, next_panel.data()).test();
    GemmKernelTester().isa(isa).tile(2, 6).pixels(0, 4).k(8, 2).prefetch_a(3, next_panel.data()).test();
  }
}

TEST(GemmKernel, XPrefetch) {
  // The driver's stream lives in two stack slots between k loops and in two temporaries
  // within one (plain and batch-reduced calls alike): every sub-tile,
  // k packing, lines per k group, a count that runs out before, at and never within the
  // call's k groups (0: none), beside the A prefetch (as Winograd runs it), batch-reduced,
  // split K and epilogues around it.
  const std::vector<float> stream(1 << 16, 1.f);
  for (Isa isa : jit_isas()) {
    for (int ur = 1; ur <= (isa == Isa::avx512 ? 4 : 3); ur++)
      for (int tail : {0, 1, 3})
        for (int kp : {1, 8, 16})
          for (int lines : {1, 3})
            for (long count : {0L, 2L, 9L, 1000L})
              GemmKernelTester().isa(isa).tile(ur, 4).pixels(2, tail).k(kp, 3).prefetch_x(lines, stream.data(), count)
                  .test();
    GemmKernelTester().isa(isa).tile(2, 6).pixels(3, 4).k(8, 8).prefetch_a(2, stream.data())
        .prefetch_x(1, stream.data() + 4096, 20).test();
    GemmKernelTester().isa(isa).tile(2, 5).pixels(1, 2).k(16, 4).split_k(true).bias(true).residual(true).act("mish")
        .prefetch_x(2, stream.data(), 7).test();
    GemmKernelTester().isa(isa).tile(3, 4).pixels(2, 1).k(8, 2).batch(3).act("relu").prefetch_x(1, stream.data(), 100)
        .test();
  }
}

TEST(GemmKernel, HalfPrecisionWeights) {
  // fp16 A panels (InnerProduct's weight storage): exact against the fp16 values, every
  // sub-tile of a GEMV-shaped block and K splits.
  for (Isa isa : jit_isas())
    for (int ur = 1; ur <= (isa == Isa::avx512 ? 8 : 4); ur++) {
      GemmKernelTester().isa(isa).tile(ur, 1).pixels(1, 0).k(16, 3).a_fp16().bias(true).test();
      GemmKernelTester().isa(isa).tile(ur, 2).pixels(2, 1).k(8, 2).a_fp16().act("relu").split_k(true).test();
    }
}
