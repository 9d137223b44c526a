// Dilated stride-1 convolutions split into d x d undilated sub-convolutions (the
// "dilated" path), through the Convolution layer, against the scalar reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "reference/conv_ref.h"
#include "runtime/conv_runner.h"
#include "tests/test_util.h"

using namespace jitconv;

namespace {

// Returns the output (threads: the forward's OpenMP threads).
std::vector<float> check_dilated(Isa isa, const std::string& desc_text, const char* act, double tolerance,
                                 int threads = 2) {
  SCOPED_TRACE(desc_text + " " + act + " " + isa_name(isa) + " threads " + std::to_string(threads));
  ConvProblem problem;
  problem.desc = parse_conv_desc(desc_text);
  problem.act = Activation::parse(act);
  const ConvDesc& d = problem.desc;
  const std::vector<float> w = test::random_vector(static_cast<size_t>(d.oc) * d.ic * d.kh * d.kw, 1);
  const std::vector<float> b = test::random_vector(d.oc, 2);
  const std::vector<float> x = test::random_vector(static_cast<size_t>(d.mb) * d.ic * d.ih * d.iw, 3);
  std::unique_ptr<ConvRunner> runner = make_conv_runner(problem, "dilated", isa, threads, w.data(), b.data());
  EXPECT_NE(runner->detail().find("dilated split"), std::string::npos) << runner->detail();
  runner->set_input(x.data());
  runner->run();
  std::vector<float> got(static_cast<size_t>(d.mb) * d.oc * d.oh * d.ow), pre(got.size());
  runner->get_output(got.data());
  reference_conv2d(d, x.data(), w.data(), b.data(), pre.data(), Activation(), 0.f, 2);
  std::vector<float> expected(pre.size());
  for (size_t i = 0; i < pre.size(); i++) expected[i] = problem.act.apply(pre[i]);
  test::ErrorStats s = test::compare(got.data(), expected.data(), got.size());
  for (float v : pre) s.max_ref = std::max(s.max_ref, static_cast<double>(std::fabs(v)));
  EXPECT_FALSE(s.has_nan);
  EXPECT_LE(s.max_rel(), tolerance) << "at " << s.worst_index;
  return got;
}

}  // namespace

TEST(ConvDilated, SplitsMatchTheReference) {
  // Inner paths: Winograd for 3x3 with enough channels (bound of F(6,3)), direct otherwise.
  for (Isa isa : test::jit_isas()) {
    check_dilated(isa, "mb1ic64ih30oc64oh30kh3ph2dh1", "none", 7e-5);
    check_dilated(isa, "mb2ic16ih17iw23oc24kh3kw3ph3pw3dh2dw2", "relu", 7e-5);      // d = 3, odd sizes
    check_dilated(isa, "mb1ic5ih11oc7kh3ph2dh1", "leaky:0.1", 1e-5);        // few channels: direct inside
    check_dilated(isa, "mb1ic8ih15oc12kh5ph4dh1", "clip:-1:1", 1e-5);       // 5x5 d2
    check_dilated(isa, "mb1ic32ih9iw12oc40oh9ow12kh3kw3ph2pw2dh1dw1", "mish", 7e-5);
    check_dilated(isa, "mb1ic24ih13oc16kh3ph0dh1", "sigmoid", 7e-5);        // no padding: valid only
    check_dilated(isa, "mb1ic16ih4oc16oh4kh3ph2dh1", "none", 7e-5);         // sub-images smaller than a tile
    check_dilated(isa, "mb1ic12ih10iw13oc20kh3kw3ph2pw2dh1dw1", "none", 7e-5);  // elempack 4 in and out
    check_dilated(isa, "mb1ic16ih12oc16kh3ph1dh1", "none", 7e-5);         // pad < dilation: residues differ
  }
}

TEST(ConvDilated, SameValuesOnAnyThreadCount) {
  // Every sub-image's gather, inner convolution and scatter split across the threads: the
  // values do not depend on the split, bit for bit (a tile's or a pixel's sums never do).
  for (Isa isa : test::jit_isas())
    for (const char* desc : {"mb1ic32ih23iw21oc40kh3kw3ph2pw2dh1dw1",   // d = 2: 4 sub-images of unequal sizes
                             "mb1ic16ih20oc24kh3ph3dh2",                // d = 3: 9 sub-images
                             "mb1ic5ih13oc7kh3ph2dh1"}) {               // d = 2, direct inside, elempack 1
      const std::vector<float> one = check_dilated(isa, desc, "relu", 7e-5, 1);
      for (int threads : {2, 3, 4}) {
        const std::vector<float> got = check_dilated(isa, desc, "relu", 7e-5, threads);
        ASSERT_EQ(got.size(), one.size());
        EXPECT_EQ(0, memcmp(got.data(), one.data(), got.size() * sizeof(float))) << desc << " threads " << threads;
      }
    }
}

TEST(ConvDilated, OnlyForStrideOneSquareKernels) {
  ConvProblem problem;
  problem.desc = parse_conv_desc("mb1ic16ih20oc16kh3sh2ph2dh1");
  const std::vector<float> w = test::random_vector(16 * 16 * 9, 1);
  if (test::jit_isas().empty()) GTEST_SKIP() << "no JIT ISA on this CPU";
  EXPECT_THROW(make_conv_runner(problem, "dilated", test::jit_isas()[0], 1, w.data(), nullptr), NotApplicable);
}
