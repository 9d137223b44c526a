// The register-resident Winograd transforms (AVX-512: every variant both ways; AVX2: F(2,3)
// and F(4,3) both ways) against the stack form they replace: same
// factorization, same roundings, so the outputs must match bit for bit, over runs of
// tiles with arbitrary strides, edges, bias, residual and activations. (The convolution
// tests check the forms each ISA runs against the scalar reference.)
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "jit/kernel_registry.h"
#include "jit/winograd_gen.h"
#include "runtime/cpu.h"

using namespace jitconv;

namespace {

WinogradTransformFn kernel_for(const WinogradTransformConf& conf) {
  JitKernelPtr k = KernelRegistry::instance().get(
      conf.name(), [conf] { return std::make_unique<WinogradTransformGenerator>(conf); });
  return k->entry<WinogradTransformFn>();
}

// Runs one transform over `count` tiles in both forms and compares every float of the
// destination (which starts out filled with the same garbage, so stray writes show too).
// Returns false (comparing nothing) where the ISA has no register form of `conf`.
bool expect_forms_equal(WinogradTransformConf conf, int count, unsigned seed) {
  conf.stack_pass = false;
  if (!conf.in_registers()) return false;
  const int A = conf.m + 2, vlen = conf.vlen;
  const long vbytes = vlen * 4L;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  // Input side: rows of (count * m + 2 + 3) pixels (times the pixel step), 2 spare rows;
  // V / M side: positions `panel` floats apart with 5 spare vectors, tiles one vector apart.
  const int step = conf.pixel_step;
  const long row_pixels = (static_cast<long>(count) * conf.m + 5) * step;
  const long image_floats = (A + 2) * row_pixels * vlen;
  const long panel = (static_cast<long>(count) + 5) * vlen;
  const long panel_floats = A * A * panel;
  std::vector<float> image(image_floats), panels(panel_floats), bias(vlen), residual(image_floats);
  for (float& v : image) v = dist(rng);
  for (float& v : panels) v = dist(rng);
  for (float& v : bias) v = dist(rng);
  for (float& v : residual) v = dist(rng);

  WinogradTransformArgs args{};
  args.count = count;
  args.bias = bias.data();
  args.pad_value = 0.75f;  // edge windows: the value of their pixels in the padding
  if (conf.input) {
    args.src = image.data() + vlen;  // one pixel in: nothing aligned to the row start
    args.src_stride = row_pixels * vbytes;
    args.src_tile_step = conf.m * step * vbytes;
    args.dst_stride = panel * 4;
    args.dst_tile_step = vbytes;
  } else {
    args.src = panels.data() + vlen;
    args.src_stride = panel * 4;
    args.src_tile_step = vbytes;
    args.dst_stride = row_pixels * vbytes;
    args.dst_tile_step = conf.m * step * vbytes;
  }
  std::vector<float> results[2];
  for (int form = 0; form < 2; form++) {
    conf.stack_pass = form == 1;
    EXPECT_EQ(conf.in_registers(), form == 0) << conf.name();
    std::vector<float> dst = conf.input ? panels : image;  // same starting garbage for both forms
    args.dst = dst.data() + vlen;
    // The residual is laid out like the output: the same offset from every output pixel.
    args.residual_offset = reinterpret_cast<char*>(residual.data()) - reinterpret_cast<char*>(dst.data());
    kernel_for(conf)(&args);
    results[form] = dst;
  }
  EXPECT_EQ(results[0].size(), results[1].size());
  if (results[0].size() != results[1].size()) return true;
  long differ = 0;
  for (size_t i = 0; i < results[0].size(); i++) differ += memcmp(&results[0][i], &results[1][i], 4) != 0;
  EXPECT_EQ(differ, 0) << conf.name() << " count " << count;
  // And the transform wrote something: the destination is not the garbage it started as.
  EXPECT_NE(0, memcmp(results[0].data(), (conf.input ? panels : image).data(), results[0].size() * 4)) << conf.name();
  return true;
}

}  // namespace

TEST(WinogradTransform, RegisterFormMatchesStackFormBitForBit) {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::avx512, Isa::avx2})
    if (isa_supported(isa)) isas.push_back(isa);
  if (isas.empty()) GTEST_SKIP() << "needs AVX2 or AVX-512";
  for (Isa isa : isas) {
    // Transforms compared per variant and direction (AVX2 has no register form of some).
    std::map<std::pair<int, bool>, int> compared;
    auto expect_equal = [&](const WinogradTransformConf& conf, int count, unsigned seed) {
      if (expect_forms_equal(conf, count, seed)) compared[{conf.m, conf.input}]++;
    };
    for (int m : {2, 4, 6})
      for (int count : {1, 2, 5}) {
        WinogradTransformConf conf;
        conf.isa = isa;
        conf.vlen = isa_lanes(isa);
        conf.m = m;
        conf.input = true;
        // A dilated layer's sub-images: pixels 2 or 3 vectors apart, both ways.
        for (int step : {2, 3}) {
          conf.pixel_step = step;
          expect_equal(conf, count, 700 * m + 10 * step + count);
          conf.edge = WinogradEdge{1, 0, 2, 1};
          expect_equal(conf, count, 800 * m + 10 * step + count);
          conf.edge = WinogradEdge();
          conf.input = false;
          conf.bias = conf.residual = true;
          conf.act = Activation::parse("leaky:0.1");
          expect_equal(conf, count, 900 * m + 10 * step + count);
          conf.input = true;
          conf.bias = conf.residual = false;
          conf.act = Activation();
          conf.pixel_step = 1;
        }
        expect_equal(conf, count, 100 * m + count);
        // Edge windows (rows / columns in the padding read as pad_value), up to a window
        // entirely in the padding.
        const int A = m + 2;
        const WinogradEdge edges[] = {{1, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 1, 0},
                                      {0, 0, 0, 3}, {2, 1, 1, 2}, {A, 0, 0, 0}};
        for (const WinogradEdge& edge : edges) {
          conf.edge = edge;
          expect_equal(conf, count, 600 * m + count);
        }
        conf.edge = WinogradEdge();
        conf.input = false;
        expect_equal(conf, count, 200 * m + count);
        conf.bias = true;
        expect_equal(conf, count, 300 * m + count);
        conf.residual = true;
        for (const char* act : {"relu", "leaky:0.1", "clip:-0.5:0.5", "sigmoid", "mish", "hardswish:0.2:0.5"}) {
          conf.act = Activation::parse(act);
          expect_equal(conf, count, 400 * m + count);
        }
        conf.bias = false;
        expect_equal(conf, count, 500 * m + count);
      }
    // Every transform with a register form on this ISA was compared.
    for (int m : {2, 4, 6})
      for (bool input : {true, false}) {
        WinogradTransformConf conf;
        conf.isa = isa;
        conf.m = m;
        conf.input = input;
        EXPECT_EQ(compared[std::make_pair(m, input)] > 0, conf.in_registers()) << conf.name();
      }
    if (isa == Isa::avx2) {
      // Per count: inputs 2 dilation steps x (plain, edge) + plain + 6 edges; outputs 2
      // dilation steps + 3 plain + 6 activations, of which sigmoid and mish need more
      // scratch registers than the F(4,3) output leaves.
      EXPECT_EQ(compared[std::make_pair(4, true)], 3 * 11);
      EXPECT_EQ(compared[std::make_pair(2, true)], 3 * 11);
      EXPECT_EQ(compared[std::make_pair(4, false)], 3 * 9);
      EXPECT_EQ(compared[std::make_pair(2, false)], 3 * 11);
    }
  }
}

TEST(WinogradTransform, FormsByIsaAndTile) {
  WinogradTransformConf conf;
  conf.isa = Isa::avx512;
  for (int m : {2, 4, 6}) {
    conf.m = m;
    conf.input = true;
    EXPECT_TRUE(conf.in_registers()) << m;
    conf.input = false;
    EXPECT_TRUE(conf.in_registers()) << m;
  }
  // AVX2's 16 vectors: F(2,3) and F(4,3) both ways (the output while the activation's scratch
  // registers fit beside the bias); F(6,3) goes through the stack.
  conf.isa = Isa::avx2;
  for (int m : {2, 4, 6})
    for (bool input : {true, false}) {
      conf.m = m;
      conf.input = input;
      EXPECT_EQ(conf.in_registers(), m != 6) << conf.name();
    }
  conf.input = false;
  conf.bias = true;
  conf.act = Activation::parse("hardswish:0.2:0.5");  // one scratch register
  conf.m = 4;
  EXPECT_TRUE(conf.in_registers());
  conf.act = Activation::parse("sigmoid");  // two
  EXPECT_FALSE(conf.in_registers());
  conf.bias = false;
  EXPECT_TRUE(conf.in_registers());
  conf.act = Activation::parse("mish");  // three
  EXPECT_FALSE(conf.in_registers());
  conf.m = 2;
  EXPECT_TRUE(conf.in_registers());
  conf.bias = false;
  conf.act = Activation();
  conf.input = true;
  conf.m = 4;
  conf.isa = Isa::avx512;
  conf.stack_pass = true;
  EXPECT_FALSE(conf.in_registers());
  EXPECT_NE(conf.name().find("_stack"), std::string::npos);
}

TEST(WinogradTransform, OutputEdgesStoreOnlyInside) {
  // An output edge kernel (the tile's last rows / columns past the tensor) must store
  // exactly the plain kernel's values inside and leave every other float untouched, in
  // both forms, with bias, residual and activation.
  struct Form {
    Isa isa;
    bool stack;
  };
  std::vector<Form> forms;
  if (isa_supported(Isa::avx512)) forms.insert(forms.end(), {{Isa::avx512, false}, {Isa::avx512, true}});
  if (isa_supported(Isa::avx2)) forms.insert(forms.end(), {{Isa::avx2, false}, {Isa::avx2, true}});
  if (forms.empty()) GTEST_SKIP() << "needs AVX2 or AVX-512";
  for (const Form& form : forms)
    for (int m : {2, 4, 6}) {
      const int A = m + 2, vlen = isa_lanes(form.isa), count = 3;
      const long vbytes = vlen * 4L;
      const long row_pixels = count * m + 3, panel = (count + 2L) * vlen;
      std::mt19937 rng(m * 31 + vlen);
      std::uniform_real_distribution<float> dist(-2.f, 2.f);
      std::vector<float> panels(A * A * panel), bias(vlen), garbage((m + 2) * row_pixels * vlen);
      for (float& v : panels) v = dist(rng);
      for (float& v : bias) v = dist(rng);
      for (float& v : garbage) v = dist(rng);
      const std::vector<float> residual = garbage;
      WinogradTransformConf conf;
      conf.isa = form.isa;
      conf.vlen = vlen;
      conf.m = m;
      conf.input = false;
      conf.stack_pass = form.stack;
      conf.bias = conf.residual = true;
      conf.act = Activation::parse("leaky:0.1");
      auto run = [&](const WinogradTransformConf& c) {
        std::vector<float> dst = garbage;
        WinogradTransformArgs args{};
        args.src = panels.data();
        args.src_stride = panel * 4;
        args.src_tile_step = vbytes;
        args.dst = dst.data() + row_pixels * vlen;  // one spare row above
        args.dst_stride = row_pixels * vbytes;
        args.dst_tile_step = m * vbytes;
        args.bias = bias.data();
        args.count = count;
        args.residual_offset = reinterpret_cast<const char*>(residual.data()) - reinterpret_cast<const char*>(dst.data());
        kernel_for(c)(&args);
        return dst;
      };
      const std::vector<float> plain = run(conf);
      for (const WinogradEdge& edge : std::vector<WinogradEdge>{{0, 1, 0, 0}, {0, 0, 0, 1}, {0, m - 1, 0, m - 1}, {0, m, 0, 0}}) {
        WinogradTransformConf edged = conf;
        edged.edge = edge;
        const std::vector<float> got = run(edged);
        long wrong = 0, written = 0;
        for (long i = 0; i < static_cast<long>(got.size()); i++) {
          const long pixel = i / vlen, row = pixel / row_pixels - 1, x = pixel % row_pixels;
          const bool in_tile = row >= 0 && row < m && x < count * m;
          const bool inside = in_tile && !edge.outside(static_cast<int>(row), static_cast<int>(x % m), m);
          if (memcmp(&got[i], inside ? &plain[i] : &garbage[i], 4) != 0) wrong++;
          written += inside;
        }
        EXPECT_EQ(wrong, 0) << edged.name();
        EXPECT_EQ(written, static_cast<long>(m - edge.bottom) * (m - edge.right) * count * vlen) << edged.name();
      }
    }
}
