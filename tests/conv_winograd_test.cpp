// Winograd F(2,3) / F(4,3) / F(6,3) against the scalar reference. The bound per variant
// comes from measurement (README, "Winograd accuracy"): the error relative to the output
// norm grows with the tile size because the transforms scale values by up to 32 (F(6,3)).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "jit/gemm_conf.h"
#include "runtime/conv_winograd.h"
#include "runtime/cpu.h"
#include "tests/conv_tester.h"

using namespace jitconv;
using namespace jitconv::test;

namespace {
// A 3x3 pad-1 layer on one channel pack (vlen in and out) with bias and fixed weights, and
// twelve input shapes (h, w) for it.
struct OnePackLayer {
  int vlen;
  ConvParams params;
  std::vector<float> weights, bias;
  explicit OnePackLayer(int lanes) : vlen(lanes) {
    params.ic = params.oc = vlen;
    params.kh = params.kw = 3;
    params.pad_top = params.pad_left = params.pad_bottom = params.pad_right = 1;
    params.bias = true;
    weights.resize(static_cast<size_t>(vlen) * vlen * 9);
    for (size_t i = 0; i < weights.size(); i++) weights[i] = static_cast<float>((i * 29) % 23) / 23.f - 0.5f;
    bias.assign(vlen, 0.125f);
  }
  std::unique_ptr<ConvWinograd> make(Isa isa, int m) const {
    return std::make_unique<ConvWinograd>(params, weights.data(), bias.data(), isa, vlen, vlen, m);
  }
};
const int kTwelveShapes[12][2] = {{3, 4}, {3, 7}, {4, 4}, {5, 9}, {5, 5}, {9, 5}, {7, 8}, {8, 7}, {11, 12}, {11, 13}, {13, 11}, {14, 14}};

Mat one_pack_input(int h, int w, int vlen) {
  Mat in(w, h, 1, vlen * 4u, vlen);
  for (int i = 0; i < w * h * vlen; i++) static_cast<float*>(in.data)[i] = static_cast<float>(i % 19) / 19.f;
  return in;
}

// `bytes` of read-write memory that end (or start) right at an inaccessible page.
class GuardedBlock {
 public:
  GuardedBlock(long bytes, bool at_end) : page_(sysconf(_SC_PAGESIZE)) {
    inside_ = (bytes + page_ - 1) / page_ * page_;
    region_ = static_cast<char*>(
        mmap(nullptr, inside_ + 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (region_ == MAP_FAILED) throw std::runtime_error("mmap failed");
    mprotect(region_, page_, PROT_NONE);
    mprotect(region_ + page_ + inside_, page_, PROT_NONE);
    data_ = region_ + page_ + (at_end ? inside_ - bytes : 0);
  }
  ~GuardedBlock() { munmap(region_, inside_ + 2 * page_); }
  GuardedBlock(const GuardedBlock&) = delete;
  GuardedBlock& operator=(const GuardedBlock&) = delete;
  float* data() const { return reinterpret_cast<float*>(data_); }

 private:
  long page_, inside_;
  char* region_;
  char* data_;
};

// Hands out blocks that end right before an inaccessible page (64-byte aligned: the block
// is the request rounded up to 64 bytes).
class GuardedAllocator final : public Allocator {
 public:
  void* fast_malloc(size_t size) override {
    blocks_.push_back(std::make_unique<GuardedBlock>((static_cast<long>(size) + 63) / 64 * 64, true));
    return blocks_.back()->data();
  }
  void fast_free(void*) override {}  // blocks live as long as the allocator

 private:
  std::vector<std::unique_ptr<GuardedBlock>> blocks_;
};
}  // namespace

TEST(ConvWinograd, OutputSizesAndTails) {
  // Outputs 1x1 .. 17x17 (every partial last tile of every variant), odd channel counts.
  for (Isa isa : jit_isas())
    for (int m : {2, 4, 5, 6})
      for (int size = 1; size <= 17; size++) {
        const int ic = 5 + size % 7 * 3, oc = 3 + size * 2;
        ConvTester().isa(isa).ic(ic).oc(oc).input(size, size + size % 3).kernel(3).pad(1).seed(size * 7 + m).test_winograd(m, winograd_bound(m));
      }
}

TEST(ConvWinograd, ChannelTailsAndElempacks) {
  for (Isa isa : jit_isas())
    for (int m : {2, 4, 5, 6})
      for (int in : {1, 4, 8, 16})
        for (int out : {1, 4, 8, 16}) {
          if (out > isa_lanes(isa)) continue;
          ConvTester().isa(isa).ic(48).oc(48).input(9, 11).kernel(3).pad(1).elempack(in, out).test_winograd(m, winograd_bound(m));
          ConvTester().isa(isa).ic(16).oc(80).input(7, 13).kernel(3).pad(1).elempack(in, out).test_winograd(m, winograd_bound(m));
        }
}

TEST(ConvWinograd, PaddingsActivationsThreads) {
  for (Isa isa : jit_isas())
    for (int m : {2, 4, 5, 6}) {
      ConvTester().isa(isa).ic(16).oc(32).input(12, 12).kernel(3).test_winograd(m, winograd_bound(m));  // no pad
      ConvTester().isa(isa).ic(16).oc(32).input(10, 13).kernel(3).pad(2, 0, 1, 3).test_winograd(m, winograd_bound(m));
      ConvTester().isa(isa).ic(16).oc(32).input(10, 13).kernel(3).pad(kPadSameUpper).test_winograd(m, winograd_bound(m));
      ConvTester().isa(isa).ic(12).oc(20).input(9, 9).kernel(3).pad(1).pad_value(0.5f).test_winograd(m, winograd_bound(m));
      for (const char* act : {"relu", "leaky:0.1", "clip:-0.5:0.5", "sigmoid", "mish", "hardswish:0.2:0.5"})
        ConvTester().isa(isa).ic(24).oc(40).input(11, 11).kernel(3).pad(1).act(act).test_winograd(m, winograd_bound(m));
      ConvTester t;
      t.isa(isa).ic(64).oc(64).input(29, 31).kernel(3).pad(1);
      const std::vector<float> one = t.threads(1).test_winograd(m, winograd_bound(m));
      const std::vector<float> two = t.threads(2).test_winograd(m, winograd_bound(m));
      const std::vector<float> five = t.threads(5).test_winograd(m, winograd_bound(m));
      EXPECT_EQ(0, memcmp(one.data(), two.data(), one.size() * sizeof(float)));
      EXPECT_EQ(0, memcmp(one.data(), five.data(), one.size() * sizeof(float)));
    }
}

TEST(ConvWinograd, DilatedLayersRunTheirSubImagesInPlace) {
  // A dilated layer is dh x dw undilated sub-images (every dh-th row, dw-th column),
  // transformed in place by strided transforms. Sub-images of unequal sizes (odd extents),
  // pads below, equal to and above the dilation (windows and whole tiles in the padding),
  // asymmetric dilations, channel tails, every elempack pair, activations.
  struct Case {
    int ic, oc, h, w, dh, dw, top, left, bottom, right;
  };
  const Case cases[] = {{16, 32, 14, 14, 2, 2, 2, 2, 2, 2},   {19, 33, 23, 17, 2, 2, 1, 2, 1, 2},
                        {8, 20, 5, 9, 2, 3, 3, 0, 3, 0},      {16, 16, 4, 4, 5, 5, 7, 7, 7, 7},
                        {24, 40, 13, 11, 3, 3, 0, 0, 0, 0},   {12, 28, 20, 9, 1, 2, 1, 2, 1, 2},
                        {32, 24, 9, 31, 3, 1, 4, 1, 2, 0},    {5, 7, 7, 6, 2, 2, 2, 2, 2, 2},
                        {16, 48, 2, 3, 2, 2, 4, 4, 4, 4},     {16, 16, 3, 2, 64, 64, 64, 64, 64, 64}};  // the largest
  for (Isa isa : jit_isas())
    for (int m : {2, 4, 5, 6}) {
      for (const Case& c : cases)
        ConvTester()
            .isa(isa)
            .ic(c.ic)
            .oc(c.oc)
            .input(c.h, c.w)
            .kernel(3)
            .dilation(c.dh, c.dw)
            .pad(c.top, c.left, c.bottom, c.right)
            .seed(c.ic * 31 + c.h + m)
            .test_winograd(m, winograd_bound(m));
      for (int in : {1, 4, 8, 16})
        for (int out : {1, 4, 8, 16}) {
          if (out > isa_lanes(isa) || in > isa_lanes(isa)) continue;
          ConvTester().isa(isa).ic(48).oc(48).input(11, 10).kernel(3).dilation(2).pad(2).elempack(in, out).test_winograd(m, winograd_bound(m));
        }
      for (const char* act : {"relu", "leaky:0.1", "clip:-0.5:0.5", "sigmoid", "mish", "hardswish:0.2:0.5"})
        ConvTester().isa(isa).ic(24).oc(40).input(13, 12).kernel(3).dilation(3).pad(3).act(act).test_winograd(m, winograd_bound(m));
      ConvTester().isa(isa).ic(16).oc(32).input(15, 16).kernel(3).dilation(2).pad(kPadSameUpper).test_winograd(m, winograd_bound(m));
      ConvTester().isa(isa).ic(12).oc(20).input(9, 12).kernel(3).dilation(2).pad(2).pad_value(0.5f).test_winograd(m, winograd_bound(m));
      // Blocks of tiles span sub-images; every split of them gives the same values.
      ConvTester t;
      t.isa(isa).ic(64).oc(64).input(29, 31).kernel(3).dilation(2).pad(2);
      const std::vector<float> one = t.threads(1).test_winograd(m, winograd_bound(m));
      for (int threads : {2, 5}) {
        const std::vector<float> more = t.threads(threads).test_winograd(m, winograd_bound(m));
        EXPECT_EQ(0, memcmp(one.data(), more.data(), one.size() * sizeof(float))) << threads << " threads";
      }
    }
}

TEST(ConvWinograd, EdgeWindowsReadOnlyTheTensor) {
  // Tiles whose window crosses the border are transformed straight from the tensor by
  // kernels that skip the window's rows and columns in the padding. Here the input (one
  // channel pack, so one plane) starts right after, or ends right before, an inaccessible
  // page: any read outside it faults. Results must equal those from an ordinary copy of
  // the input (which the tests above check against the reference).
  const long page = sysconf(_SC_PAGESIZE);
  struct Case {
    int h, w, top, left, bottom, right;
  };
  const Case cases[] = {{7, 9, 1, 1, 1, 1}, {1, 1, 2, 1, 0, 3}, {5, 3, 0, 3, 2, 1}, {13, 11, 2, 2, 2, 2}, {2, 6, 1, 0, 1, 0}};
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    // {m, border_m}: F(6,3) with F(4,3) borders too (13x11 with pads 2 has both parts).
    for (const auto& variant : std::vector<std::pair<int, int>>{{2, 0}, {4, 0}, {5, 0}, {6, 0}, {6, 4}})
      for (const Case& k : cases)
        for (bool at_start : {true, false}) {
          const int m = variant.first, border_m = variant.second;
          ConvParams p;
          p.ic = vlen;
          p.oc = vlen;
          p.kh = p.kw = 3;
          p.pad_top = k.top, p.pad_left = k.left, p.pad_bottom = k.bottom, p.pad_right = k.right;
          p.pad_value = 0.25f;
          std::vector<float> weights(static_cast<size_t>(p.oc) * p.ic * 9);
          for (size_t i = 0; i < weights.size(); i++) weights[i] = static_cast<float>((i * 37) % 17) / 17.f - 0.5f;
          ConvWinograd conv(p, weights.data(), nullptr, isa, vlen, vlen, m, border_m);
          const long bytes = (static_cast<long>(k.h) * k.w * vlen * 4 + 63) / 64 * 64;  // the plane, cstep aligned
          const long inside = (bytes + page - 1) / page * page;
          char* region = static_cast<char*>(
              mmap(nullptr, inside + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
          ASSERT_NE(region, MAP_FAILED);
          ASSERT_EQ(0, mprotect(region, page, PROT_NONE));
          ASSERT_EQ(0, mprotect(region + page + inside, page, PROT_NONE));
          float* data = reinterpret_cast<float*>(region + page + (at_start ? 0 : inside - bytes));
          for (long i = 0; i < bytes / 4; i++) data[i] = static_cast<float>((i * 13) % 29) / 29.f - 0.5f;
          Mat guarded(k.w, k.h, 1, data, vlen * 4u, vlen);
          ASSERT_EQ(static_cast<long>(guarded.cstep) * vlen * 4, bytes);
          const Mat copy = guarded.clone();
          Option opt;
          opt.num_threads = 1;
          Mat from_guarded, from_copy;
          conv.forward(guarded, from_guarded, opt);
          conv.forward(copy, from_copy, opt);
          ASSERT_EQ(from_guarded.total(), from_copy.total());
          ASSERT_EQ(from_copy.c, 1);
          // The plane only (cstep padding is not written).
          EXPECT_EQ(0, memcmp(from_guarded.data, from_copy.data, from_copy.w * from_copy.h * from_copy.elemsize))
              << isa_name(isa) << " F(" << m << ",3) borders " << border_m << " " << k.h << "x" << k.w;
          // Each shape has windows that cross an edge; jitconv dump lists their kernels (a
          // border split's on either instance).
          const std::string prefix = "\n  kernel winograd_input_" + std::string(isa_name(isa)) + "_f";
          const bool listed = conv.describe().find(prefix + std::to_string(m) + "x3_edge_t") != std::string::npos ||
                              (border_m > 0 &&
                               conv.describe().find(prefix + std::to_string(border_m) + "x3_edge_t") != std::string::npos);
          EXPECT_TRUE(listed) << conv.describe();
          munmap(region, inside + 2 * page);
        }
  }
}

TEST(ConvWinograd, InputShapeChangesBetweenForwards) {
  // A layer keeps the tile plans of its latest input shapes: twelve shapes through one
  // layer and back to the first must give what a fresh layer gives for each.
  for (Isa isa : jit_isas()) {
    const OnePackLayer layer(isa_lanes(isa));
    for (int m : {2, 4, 5, 6}) {
      const std::unique_ptr<ConvWinograd> shared = layer.make(isa, m);
      Option opt;
      opt.num_threads = 1;
      for (int s = 0; s <= 12; s++) {
        const int h = kTwelveShapes[s % 12][0], w = kTwelveShapes[s % 12][1];  // and back to the first
        const Mat in = one_pack_input(h, w, layer.vlen);
        Mat a, b;
        shared->forward(in, a, opt);
        layer.make(isa, m)->forward(in, b, opt);
        ASSERT_EQ(a.w * a.h, b.w * b.h);
        EXPECT_EQ(0, memcmp(a.data, b.data, a.w * a.h * a.elemsize)) << isa_name(isa) << " F(" << m << ",3) " << h << "x" << w;
      }
    }
  }
}

TEST(ConvWinograd, EdgeTilesTouchOnlyTheirTensors) {
  // Large and asymmetric pads on small inputs (windows entirely in the padding), with a
  // residual and an activation: the input plane and the residual end at an inaccessible
  // page, the output comes from an allocator whose blocks do too, so any read or write
  // past them faults. Results must equal those from ordinary copies. Dilated too: the
  // sub-images' windows and tiles in place, with strided rows and pixels.
  struct Case {
    int h, w, top, left, bottom, right;
  };
  const Case cases[] = {{1, 1, 9, 9, 9, 9}, {2, 2, 0, 0, 1, 1}, {3, 3, 0, 0, 0, 0}, {1, 3, 1, 0, 1, 0},
                        {4, 5, 7, 1, 0, 6}, {3, 1, 0, 17, 0, 0}, {6, 7, 3, 2, 5, 4}, {1, 2, 2, 5, 3, 0},
                        {9, 8, 3, 2, 5, 4}};
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    // {m, border_m}: F(6,3) with F(4,3) borders too (undilated; 9x8 has both parts).
    for (const auto& variant : std::vector<std::pair<int, int>>{{2, 0}, {4, 0}, {5, 0}, {6, 0}, {6, 4}})
      for (int d : {1, 2, 3})
        for (const Case& k : cases) {
          const int m = variant.first, border_m = variant.second;
          if (k.h + k.top + k.bottom < 2 * d + 1 || k.w + k.left + k.right < 2 * d + 1) continue;  // no output
          if (border_m > 0 && d != 1) continue;
          ConvParams p;
          p.dh = p.dw = d;
          p.ic = p.oc = vlen;
          p.kh = p.kw = 3;
          p.pad_top = k.top, p.pad_left = k.left, p.pad_bottom = k.bottom, p.pad_right = k.right;
          p.pad_value = 0.25f;
          p.bias = p.residual = true;
          p.act = Activation::parse("leaky:0.1");
          std::vector<float> weights(static_cast<size_t>(p.oc) * p.ic * 9), bias(p.oc, 0.5f);
          for (size_t i = 0; i < weights.size(); i++) weights[i] = static_cast<float>((i * 37) % 17) / 17.f - 0.5f;
          ConvWinograd conv(p, weights.data(), bias.data(), isa, vlen, vlen, m, border_m);
          int oh, ow;
          p.output_size(k.h, k.w, oh, ow);
          const long in_bytes = static_cast<long>(k.h) * k.w * vlen * 4, out_bytes = static_cast<long>(oh) * ow * vlen * 4;
          // Planes end at the guard (their cstep padding, if any, would lie past it: never read).
          GuardedBlock in_block(in_bytes, true), residual_block(out_bytes, true);
          for (long i = 0; i < in_bytes / 4; i++) in_block.data()[i] = static_cast<float>((i * 13) % 29) / 29.f - 0.5f;
          for (long i = 0; i < out_bytes / 4; i++) residual_block.data()[i] = static_cast<float>((i * 7) % 31) / 31.f - 0.5f;
          const Mat in(k.w, k.h, 1, in_block.data(), vlen * 4u, vlen), residual(ow, oh, 1, residual_block.data(), vlen * 4u, vlen);
          // Copies of the planes (clone() would read the cstep padding past the guard).
          Mat in_copy(k.w, k.h, 1, vlen * 4u, vlen), residual_copy(ow, oh, 1, vlen * 4u, vlen);
          memcpy(in_copy.data, in.data, in_bytes);
          memcpy(residual_copy.data, residual.data, out_bytes);
          GuardedAllocator output_allocator;
          Option guarded, plain;
          guarded.num_threads = plain.num_threads = 1;
          guarded.blob_allocator = &output_allocator;
          Mat from_guarded, from_copies;
          conv.forward_residual(in, residual, from_guarded, guarded);
          conv.forward_residual(in_copy, residual_copy, from_copies, plain);
          EXPECT_EQ(0, memcmp(from_guarded.data, from_copies.data, out_bytes))
              << isa_name(isa) << " F(" << m << ",3) borders " << border_m << " d" << d << " " << k.h << "x" << k.w << " pads " << k.top << "," << k.left << ","
              << k.bottom << "," << k.right;
        }
  }
}

TEST(ConvWinograd, ConcurrentForwardsAcrossShapes) {
  // forward() is const: threads may share a layer. Four threads run 12 input shapes (more
  // than the tile plans kept) through one layer at once; each result must equal a fresh
  // layer's for that shape.
  for (Isa isa : jit_isas()) {
    const OnePackLayer layer(isa_lanes(isa));
    for (int m : {2, 4, 5, 6}) {
      const std::unique_ptr<ConvWinograd> shared = layer.make(isa, m);
      std::vector<Mat> inputs, expected;
      for (const auto& shape : kTwelveShapes) {
        inputs.push_back(one_pack_input(shape[0], shape[1], layer.vlen));
        Option opt;
        opt.num_threads = 1;
        Mat out;
        layer.make(isa, m)->forward(inputs.back(), out, opt);
        expected.push_back(out);
      }
      std::atomic<int> wrong{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
          Option opt;
          opt.num_threads = 1;
          for (int i = 0; i < 60; i++) {
            const int s = (i * 5 + t * 3) % 12;
            Mat out;
            shared->forward(inputs[s], out, opt);
            if (memcmp(out.data, expected[s].data, out.w * out.h * out.elemsize) != 0) wrong++;
          }
        });
      for (std::thread& t : threads) t.join();
      EXPECT_EQ(wrong.load(), 0) << isa_name(isa) << " F(" << m << ",3)";
    }
  }
}

TEST(ConvWinograd, TilePlansKeptForTheLastEightShapes) {
  // A plan (its sub-images; per sub-image and way the edge of each tile row / column and
  // the kernel of each edge) is built once per input shape; the 8 shapes used last keep
  // theirs, whatever order they come in.
  const Isa isa = jit_isas().front();
  const int vlen = isa_lanes(isa);
  ConvParams p;
  p.ic = p.oc = vlen;
  p.kh = p.kw = 3;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  std::vector<float> weights(static_cast<size_t>(p.oc) * p.ic * 9, 0.1f);
  Option opt;
  opt.num_threads = 1;
  for (int shapes : {8, 9}) {
    ConvWinograd conv(p, weights.data(), nullptr, isa, vlen, vlen, 4);
    for (int round = 0; round < 3; round++)
      for (int s = 0; s < shapes; s++) {
        const int size = 8 + (round % 2 ? shapes - 1 - s : s);  // forwards, then backwards
        Mat in(size, size, 1, vlen * 4u, vlen), out;
        in.fill(0.5f);
        conv.forward(in, out, opt);
      }
    if (shapes == 8)
      EXPECT_EQ(conv.tile_plans_built(), 8) << "each shape's plan built once";
    else  // the first round builds 9 shapes; each later round misses only the shape evicted last
      EXPECT_EQ(conv.tile_plans_built(), 11) << "a ninth shape evicts the least recently used";
  }
}

TEST(ConvWinograd, UPrefetchWhenUOutgrowsL2) {
  // U (transformed weights) past half of L2 streams from L3 each forward: the GEMM kernels
  // then prefetch the next (position, group) panel while multiplying by the current one
  // (one thread, F(4,3): 128@28 2.42 -> 2.72x oneDNN, 256@14 1.74 -> 2.15x). U that stays
  // in L2 gets plain kernels, except on full-width AVX-512, where the first block would
  // wait on a U that something else sent back to L3. Sizes follow this machine's L2;
  // results exact on one, two and three threads (every plan: blocked and phased).
  const double half_l2 = static_cast<double>(cpu_info().l2_bytes) / 2;
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    for (int m : {2, 4, 5, 6}) {
      const int positions = (m + 2) * (m + 2);
      // Channels so that U = positions * c * c * 4 bytes is just past half of L2.
      const int big = (static_cast<int>(std::sqrt(half_l2 / (4.0 * positions))) / vlen + 1) * vlen;
      const int small = std::max(vlen, (static_cast<int>(std::sqrt(half_l2 / (4.0 * positions))) / vlen - 1) * vlen);
      for (int c : {big, small}) {
        const std::vector<float> w(static_cast<size_t>(c) * c * 9, 0.25f), b(c, 0.f);
        const ConvParams p = ConvTester().ic(c).oc(c).kernel(3).pad(1).params();
        ConvWinograd wino(p, w.data(), b.data(), isa, vlen, vlen, m);
        wino.prepare(13, 15);
        const bool prefetches = wino.describe().find("_pfa") != std::string::npos;
        EXPECT_EQ(prefetches, c == big || full_width_zmm(isa)) << "F(" << m << ",3) " << c << " channels\n"
                                                               << wino.describe();
      }
      for (int threads : {1, 2, 3})
        ConvTester().isa(isa).ic(big).oc(big - 3).input(13, 15).kernel(3).pad(1).act("relu").threads(threads)
            .test_winograd(m, winograd_bound(m));
    }
  }
}

TEST(ConvWinograd, StreamBandsAreTheRowsABlockReadsAndWrites) {
  // The blocked plan's GEMM prefetches the next block's input rows and the block's output
  // rows: tile_rows must give the band of whole rows the block's transforms touch, from
  // the tile order of conv_winograd.h (tile row ty of every sub-image, then ty + 1),
  // for every variant, dilation, padding and block of tiles. A wrong band costs only
  // time, which no other test would see.
  const Isa isa = jit_isas().front();
  const int vlen = isa_lanes(isa);
  const std::vector<float> w(static_cast<size_t>(vlen) * vlen * 9, 0.25f), b(vlen, 0.f);
  for (int m : {2, 4, 5, 6})
    for (int d : {1, 2, 3})
      for (int pad : {0, 1, 3})
        for (const auto& hw : {std::make_pair(9, 11), std::make_pair(23, 7), std::make_pair(16, 16)}) {
          const int ih = hw.first, iw = hw.second;
          const ConvParams p = ConvTester().ic(vlen).oc(vlen).kernel(3).dilation(d).pad(pad).params();
          int oh, ow;
          p.output_size(ih, iw, oh, ow);
          if (oh < 1 || ow < 1) continue;
          SCOPED_TRACE("F(" + std::to_string(m) + ",3) d" + std::to_string(d) + " pad " + std::to_string(pad) + " " +
                       std::to_string(ih) + "x" + std::to_string(iw));
          ConvWinograd wino(p, w.data(), b.data(), isa, vlen, vlen, m);
          // Each tile's sub-image (ry, rx) and tile row ty, in the plan's order.
          struct Tile {
            int ry, ty;
          };
          std::vector<Tile> order;
          const int parts_h = std::min(d, oh), parts_w = std::min(d, ow);
          for (int ty = 0;; ty++) {
            const size_t before = order.size();
            for (int ry = 0; ry < parts_h; ry++)
              for (int rx = 0; rx < parts_w; rx++) {
                const int out_h = (oh - ry + d - 1) / d, out_w = (ow - rx + d - 1) / d;
                if (ty >= (out_h + m - 1) / m) continue;
                for (int tx = 0; tx < (out_w + m - 1) / m; tx++) order.push_back(Tile{ry, ty});
              }
            if (order.size() == before) break;
          }
          const long tiles = static_cast<long>(order.size());
          for (long first = 0; first < tiles; first += 3)
            for (int count : {1, 2, 5, 17}) {
              if (first + count > tiles) continue;
              for (bool input : {true, false}) {
                // Input: window rows ry - pad + d (ty m + j), j < m + 2; output: ry + d (ty m + i), i < m.
                int lo = input ? ih : oh, hi = -1;
                for (long t = first; t < first + count; t++)
                  for (int j = 0; j < (input ? m + 2 : m); j++) {
                    const int row = order[t].ry - (input ? pad : 0) + d * (order[t].ty * m + j);
                    if (row < 0 || row >= (input ? ih : oh)) continue;
                    lo = std::min(lo, row);
                    hi = std::max(hi, row);
                  }
                int begin = -1, end = -1;
                wino.tile_rows(ih, iw, input, first, count, begin, end);
                if (hi < 0) {
                  EXPECT_EQ(begin, end);
                } else {
                  EXPECT_EQ(begin, lo) << (input ? "input" : "output") << " tiles " << first << "+" << count;
                  EXPECT_EQ(end, hi + 1) << (input ? "input" : "output") << " tiles " << first << "+" << count;
                }
              }
            }
        }
}

TEST(ConvWinograd, StreamSlicesCoverItsBandsInOrder) {
  // Slices are contiguous runs within one band, at most per_call and the call's capacity
  // lines, and together every line of every band once, in order; then empty.
  const Mat mat(13, 11, 3, 8 * 4u, 8);  // three planes of 11 rows of 13 pixels x 32 bytes
  for (long per_call : {1L, 7L, 64L, 5000L})
    for (long capacity : {1L, 3L, 40L}) {
      ConvWinograd::PrefetchStream stream;
      ConvWinograd::add_rows(stream, mat, 2, 7);
      ConvWinograd::add_rows(stream, mat, 0, 0);  // nothing
      ASSERT_EQ(stream.bands.size(), 3u);
      const long row_bytes = 13 * 32;
      for (int c = 0; c < 3; c++) {
        const char* plane = static_cast<const char*>(mat.data) + mat.cstep * mat.elemsize * c;
        const uintptr_t first = reinterpret_cast<uintptr_t>(plane + 2 * row_bytes);
        const uintptr_t last = reinterpret_cast<uintptr_t>(plane + 7 * row_bytes) - 1;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(stream.bands[c].begin), first / 64 * 64);
        EXPECT_EQ(stream.bands[c].lines, static_cast<long>(last / 64 - first / 64 + 1));
      }
      stream.per_call = per_call;
      std::vector<const char*> fetched;
      for (int call = 0; call < 100000; call++) {
        const void* slice = nullptr;
        long lines = -1;
        stream.next_slice(capacity, &slice, &lines);
        ASSERT_LE(lines, std::min(per_call, capacity));
        if (lines == 0) {
          EXPECT_EQ(slice, nullptr);
          break;
        }
        ASSERT_GT(lines, 0);
        for (long l = 0; l < lines; l++) fetched.push_back(static_cast<const char*>(slice) + l * 64);
      }
      std::vector<const char*> expected;
      for (const auto& band : stream.bands)
        for (long l = 0; l < band.lines; l++) expected.push_back(band.begin + l * 64);
      EXPECT_EQ(fetched, expected) << "per_call " << per_call << " capacity " << capacity;
      EXPECT_EQ(stream.total_lines(), static_cast<long>(expected.size()));
    }
}

TEST(ConvWinograd, GemmKernelsFetchTheStream) {
  // The GEMM kernels carry the stream (_pfx); a layer of one channel pack gets more lines
  // per k group than one of 64 channels (each k group covers fewer channels' worth of
  // rows). Exact results with the stream running (the other tests run every plan on it).
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    std::vector<int> lines_per_group;
    for (int c : {vlen, 64}) {
      const std::vector<float> w(static_cast<size_t>(c) * c * 9, 0.25f), b(c, 0.f);
      ConvWinograd wino(ConvTester().ic(c).oc(c).kernel(3).pad(1).params(), w.data(), b.data(), isa, vlen, vlen, 4);
      wino.prepare(40, 40);
      ASSERT_EQ(wino.plan(100, 1).split, ConvWinograd::Split::blocked);
      const std::string d = wino.describe();
      const size_t at = d.find("_pfx");
      ASSERT_NE(at, std::string::npos) << d;
      lines_per_group.push_back(std::atoi(d.c_str() + at + 4));
      EXPECT_GE(lines_per_group.back(), 1) << d;
      EXPECT_LE(lines_per_group.back(), 8) << d;
    }
    // One pack: more lines per k group (AVX2 64 channels: 1; AVX-512, 4 packs in one group: 7).
    EXPECT_GT(lines_per_group[0], lines_per_group[1]) << isa_name(isa);
    for (int threads : {1, 2})
      ConvTester().isa(isa).ic(vlen * 3).oc(vlen * 2 + 1).input(37, 29).kernel(3).pad(1).bias(true)
          .threads(threads).test_winograd(4, winograd_bound(4));
  }
}

TEST(ConvWinograd, LongKKeepsTwoChunksOnAvx2) {
  // The GEMM tile shrinks until its A panel (K x chunks x vector) fits two thirds of L1,
  // but on AVX2 not below two chunks: a one-chunk tile broadcasts each B value for a single
  // FMA (Zen 3: 512@7 F(2,3) 1.66 -> 1.92x oneDNN with 2 x 6 instead of 1 x 14). AVX-512
  // keeps the rule. K = 400 with 64 output channels: 25.6 / 51 KB for two chunks. (The
  // choice is a pure function: both ISAs are checked on any machine.)
  for (Isa isa : {Isa::avx2, Isa::avx512}) {
    const int vlen = isa_lanes(isa);
    const GemmBlocking b = choose_gemm_blocking_for_k(isa, 64 / vlen, 400, 32 * 1024, Activation());
    EXPECT_EQ(b.ur_oc, isa == Isa::avx2 ? 2 : 1) << isa_name(isa);
    EXPECT_EQ(b.nr, gemm_max_nr(isa, b.ur_oc, b.explicit_bcast, Activation())) << isa_name(isa);
    // A short K keeps the general choice; AVX2's three-chunk tiles still shrink to two.
    EXPECT_EQ(choose_gemm_blocking_for_k(isa, 64 / vlen, 64, 32 * 1024, Activation()).ur_oc,
              choose_gemm_blocking(isa, 64 / vlen, Activation()).ur_oc);
    if (isa == Isa::avx2) {
      EXPECT_EQ(choose_gemm_blocking_for_k(isa, 6, 400, 32 * 1024, Activation()).ur_oc, 2);
    }
  }
  // Such a layer runs on it exactly, with channel tails.
  for (Isa isa : jit_isas())
    ConvTester().isa(isa).ic(400).oc(61).input(9, 10).kernel(3).pad(1).act("relu").test_winograd(2, winograd_bound(2));
}

TEST(ConvWinograd, PlansShareTilesEvenlyAndSplitLargeUByPhase) {
  // Blocked plans give each thread an equal share of the tiles (F(4,3) 128@28 on two
  // threads, 49 tiles: 25 + 24, not blocks of 30 + 19), in blocks of at most plan.block;
  // when U outgrows L2 and the tiles are few, two threads split the phases instead (each
  // streams half of U once).
  const double half_l2 = static_cast<double>(cpu_info().l2_bytes) / 2;
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    const int small = vlen * 2;  // U of F(4,3): 36 * 32 * 32 * 4 = 147 KB at most
    const std::vector<float> w(static_cast<size_t>(small) * small * 9, 0.25f), b(small, 0.f);
    ConvWinograd wino(ConvTester().ic(small).oc(small).kernel(3).pad(1).params(), w.data(), b.data(), isa, vlen, vlen, 4);
    for (long tiles : {1L, 5L, 49L, 196L, 1000L})
      for (int threads : {1, 2, 3, 5}) {
        SCOPED_TRACE("tiles " + std::to_string(tiles) + " threads " + std::to_string(threads));
        const ConvWinograd::Plan plan = wino.plan(tiles, threads);
        EXPECT_EQ(plan.split, ConvWinograd::Split::blocked);  // U in L2: nothing to gain from splitting it
        const long share = (tiles + threads - 1) / threads;
        EXPECT_LE(plan.block, share);
        for (int size : ConvWinograd::block_sizes(tiles, threads, plan)) {
          EXPECT_GE(size, 1);
          EXPECT_LE(size, plan.block);
        }
        // The teams' blocks cover every tile once, in order; shares differ by one tile at most.
        const int teams = static_cast<int>(std::min<long>(threads, tiles));
        long next = 0, least = tiles, most = 0;
        for (int t = 0; t < teams; t++) {
          long share_tiles = 0;
          for (const ConvWinograd::TileBlock& blk : ConvWinograd::team_blocks(tiles, teams, t, plan.block)) {
            EXPECT_EQ(blk.first, next);
            EXPECT_GE(blk.count, 1);
            EXPECT_LE(blk.count, plan.block);
            next += blk.count;
            share_tiles += blk.count;
          }
          least = std::min(least, share_tiles);
          most = std::max(most, share_tiles);
        }
        EXPECT_EQ(next, tiles);
        EXPECT_LE(most - least, 1);
      }
    // 128 channels x 128 at 28x28 (49 tiles) on two threads: one block per thread.
    const int mid = 128;
    const std::vector<float> w2(static_cast<size_t>(mid) * mid * 9, 0.25f), b2(mid, 0.f);
    ConvWinograd wino2(ConvTester().ic(mid).oc(mid).kernel(3).pad(1).params(), w2.data(), b2.data(), isa, vlen, vlen, 4);
    // U = 2.4 MB streams from L3. Where a share's V and M, overlapped in 25 tiles x 18 KB,
    // fit in 3/4 of L2 (1 or 2 MB L2), each thread takes its share as one block; where they
    // do not (Zen 3's 512 KB L2), blocks would re-stream U several times, and the threads
    // split the phases.
    const ConvWinograd::Plan two = wino2.plan(49, 2);
    const bool share_fits = 25 * 36.0 * mid * 4 <= 1.5 * half_l2;
    // Where ymm FMAs run on 128-bit halves (Zen 1), a U within half of L3 refills beside the
    // GEMM at no cost: blocks whatever their count.
    const double l3 = static_cast<double>(cpu_info().l3_bytes);
    auto refills_free = [&](int c) { return half_rate_ymm(isa) && 36.0 * c * c * 4 <= 0.5 * l3; };
    if (!outgrows_half_l2(36.0 * mid * mid * 4) || share_fits || refills_free(mid))
      EXPECT_EQ(two.split, ConvWinograd::Split::blocked);
    else
      EXPECT_EQ(two.split, ConvWinograd::Split::phased);
    // With 1 MiB of L2 or more, the blocks run smaller: V and M of a sixth of L2 (Zen 4:
    // 3 blocks of 8-9 tiles), down to kLargeL2BlockTiles while U is within 4 L2; on
    // full-width AVX-512 not below kFullRateBlockTiles (a share of 25 stays one block).
    const double l2 = 2 * half_l2;
    const bool large_l2 = l2 >= static_cast<double>(kWinogradLargeL2Bytes) && !full_width_zmm(isa);
    const double tile_bytes = 36.0 * mid * 4;
    if (outgrows_half_l2(36.0 * mid * mid * 4) && share_fits) {
      std::vector<int> sizes = ConvWinograd::block_sizes(49, 2, two);
      std::sort(sizes.begin(), sizes.end());
      if (large_l2) {
        EXPECT_LT(two.block, 25);
        EXPECT_GE(two.block, ConvWinograd::kLargeL2BlockTiles);
        EXPECT_TRUE(two.block * tile_bytes <= l2 / 6 + tile_bytes || two.block < 2 * ConvWinograd::kLargeL2BlockTiles)
            << two.block;
        EXPECT_LE(sizes.back() - sizes.front(), 1);
      } else {
        EXPECT_EQ(two.block, 25);
        EXPECT_EQ(sizes, (std::vector<int>{24, 25}));
      }
    }
    // Channels whose U is several times L2, 16 tiles: phases on two threads, blocks on one.
    const int big = (static_cast<int>(std::sqrt(4 * half_l2 / (4.0 * 36))) / vlen + 1) * vlen;
    const std::vector<float> w3(static_cast<size_t>(big) * big * 9, 0.25f), b3(big, 0.f);
    ConvWinograd wino3(ConvTester().ic(big).oc(big).kernel(3).pad(1).params(), w3.data(), b3.data(), isa, vlen, vlen, 4);
    // (Their input transform costs too much next to the GEMM to be repeated on each thread.)
    EXPECT_EQ(wino3.plan(16, 2).split, refills_free(big) ? ConvWinograd::Split::blocked : ConvWinograd::Split::phased)
        << big << " channels";
    EXPECT_EQ(wino3.plan(16, 1).split, ConvWinograd::Split::blocked);
    // While U streams, blocks keep at least kStreamingBlockTiles tiles (where the share
    // has them) even when their V and M outgrow L2: one block for 16 tiles; with a large
    // L2 and U within 4 L2 (this U is about 2 L2), at least kLargeL2BlockTiles.
    const bool fewest_small = large_l2 && 36.0 * big * big * 4 <= 4 * l2;
    if (fewest_small) {
      EXPECT_LT(wino3.plan(16, 1).block, 16);
      EXPECT_GE(wino3.plan(16, 1).block, ConvWinograd::kLargeL2BlockTiles);
    } else {
      EXPECT_EQ(wino3.plan(16, 1).block, 16);
    }
    for (const ConvWinograd* w : {&wino2, &wino3}) {
      const int c = w == &wino2 ? mid : big;
      const long fewest = large_l2 && 36.0 * c * c * 4 <= 4 * l2 ? ConvWinograd::kLargeL2BlockTiles
                                                                 : ConvWinograd::kStreamingBlockTiles;
      for (long tiles : {16L, 25L, 49L, 196L, 1000L})
        for (int threads : {1, 2}) {
          const ConvWinograd::Plan p = w->plan(tiles, threads);
          if (p.split != ConvWinograd::Split::blocked) continue;
          const long share = (tiles + threads - 1) / threads;
          for (int size : ConvWinograd::block_sizes(tiles, threads, p)) {
            if (refills_free(c))  // no floor: blocks as small as keep V and M within 3/4 of L2
              EXPECT_LE((size - 1) * 36.0 * c * 4, 0.75 * l2) << "tiles " << tiles << " threads " << threads;
            else
              EXPECT_GE(size, std::min(share, fewest)) << "tiles " << tiles << " threads " << threads;
          }
        }
    }
  }
}

TEST(ConvWinograd, SplitsByOutputChannelsWhereTheInputTransformIsCheap) {
  // 512 channels at 7x7, F(2,3) (16 tiles): U (16.8 MB) streams, so two threads split it;
  // the input transform is ~5% of the GEMM there, so each thread repeats it and takes half
  // of the output channels (nothing crosses cores) where V and half of M fit in 3/4 of
  // L2. Three threads would repeat it twice: phased. Results exact on every plan, with a
  // channel tail (509 outputs).
  const double l2 = static_cast<double>(cpu_info().l2_bytes);
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    const int c = 512;
    const std::vector<float> w(static_cast<size_t>(c) * c * 9, 0.25f), b(c, 0.f);
    ConvWinograd wino(ConvTester().ic(c).oc(c).kernel(3).pad(1).params(), w.data(), b.data(), isa, vlen, vlen, 2);
    const double v_bytes = 16.0 * c * 4 * 16;  // positions x channels x 4 bytes x tiles
    const bool fits = v_bytes * 1.5 <= 0.75 * l2;
    if (outgrows_half_l2(16.0 * c * c * 4)) {
      EXPECT_EQ(wino.plan(16, 2).split, fits ? ConvWinograd::Split::by_channels : ConvWinograd::Split::phased);
      EXPECT_EQ(wino.plan(16, 3).split, ConvWinograd::Split::phased);
    }
    EXPECT_EQ(wino.plan(16, 1).split, ConvWinograd::Split::blocked);
    for (int threads : {1, 2, 3})
      ConvTester().isa(isa).ic(c).oc(c - 3).input(7, 7).kernel(3).pad(1).bias(true).act("relu").threads(threads)
          .test_winograd(2, winograd_bound(2));
  }
}

TEST(ConvWinograd, HeadlineShapes) {
  for (Isa isa : jit_isas())
    for (int m : {2, 4, 5, 6}) {
      ConvTester().isa(isa).ic(64).oc(64).input(28, 28).kernel(3).pad(1).test_winograd(m, winograd_bound(m));
      ConvTester().isa(isa).ic(256).oc(256).input(14, 14).kernel(3).pad(1).test_winograd(m, winograd_bound(m));
      ConvTester().isa(isa).ic(96).oc(96).input(19, 21).kernel(3).pad(1).test_winograd(m, winograd_bound(m));
    }
}

TEST(ConvWinograd, DescribeShowsThePlansOfThePreparedShape) {
  // `jitconv dump` prints describe(): after prepare() it names the plan each thread count
  // takes for that input shape, as plan() computes it.
  for (Isa isa : jit_isas()) {
    const int vlen = isa_lanes(isa);
    const std::vector<float> w(64 * 64 * 9, 0.25f), b(64, 0.f);
    ConvWinograd wino(ConvTester().ic(64).oc(64).kernel(3).pad(1).params(), w.data(), b.data(), isa, vlen, vlen, 4);
    EXPECT_EQ(wino.describe().find("plan for"), std::string::npos);  // no shape yet
    wino.prepare(56, 56);
    const std::string text = wino.describe();
    const std::string one = "plan for 56x56 (196 tiles): 1 thread " + ConvWinograd::plan_name(wino.plan(196, 1));
    EXPECT_NE(text.find(one), std::string::npos) << text;
    EXPECT_EQ(ConvWinograd::plan_name(wino.plan(196, 1)).find("blocked, blocks of up to "), 0u);
    if (default_num_threads() > 1) {
      EXPECT_NE(text.find("; " + std::to_string(default_num_threads()) + " threads " +
                          ConvWinograd::plan_name(wino.plan(196, default_num_threads()))),
                std::string::npos)
          << text;
    }
  }
}

// The measurement behind winograd_bound (and the README's accuracy table): the worst error
// of each variant over 63 problems. Run with --gtest_also_run_disabled_tests.
TEST(ConvWinograd, DISABLED_ErrorStatistics) {
  const int channels[] = {8, 16, 24, 48, 64, 96, 128, 256, 40};
  const int sizes[] = {5, 7, 9, 14, 17, 28, 56};
  for (int m : {2, 4, 5, 6}) {
    double worst = 0;
    int problems = 0;
    for (int c : channels)
      for (int s : sizes) {
        if (c * c * s * s > 256 * 256 * 14 * 14) continue;  // keeps the scalar reference quick
        ConvTester t;
        t.ic(c).oc(c).input(s, s).kernel(3).pad(1).seed(c * 100 + s).test_winograd(m, 1.0);
        worst = std::max(worst, t.last_error());
        problems++;
      }
    std::printf("F(%d,3): worst relative error %.3g over %d problems\n", m, worst, problems);
  }
}
