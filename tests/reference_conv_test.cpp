// The scalar oracle: checked against oneDNN on a seeded random grid plus hand-written
// tails / dilated / padding cases for every activation, and on its own for what oneDNN
// cannot express (pad_value, threads, the runner wrapper).
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "reference/conv_ref.h"
#include "reference/default_shapes.h"
#include "reference/reference_runner.h"
#include "runtime/error.h"
#include "tests/test_util.h"
#ifdef JITCONV_WITH_ONEDNN
#include "reference/onednn_conv.h"
#endif

using namespace jitconv;

namespace {

std::vector<float> run_reference(const ConvDesc& d, const ConvData& data, const Activation& act = Activation(),
                                 float pad_value = 0.f, int threads = 1, bool with_bias = true) {
  std::vector<float> dst(data.dst.size());
  reference_conv2d(d, data.src.data(), data.weights.data(), with_bias ? data.bias.data() : nullptr, dst.data(), act,
                   pad_value, threads);
  return dst;
}

const char* const kActivations[] = {"none", "relu", "leaky:0.1", "clip:-0.8:1.5", "sigmoid", "mish", "hardswish"};

}  // namespace

TEST(ReferenceConv, OneByOneIdentityAddsBias) {
  const ConvDesc d = parse_conv_desc("mb2ic5ih7iw3oc5kh1kw1");
  ConvData data = make_random_conv_data(d, 1);
  std::fill(data.weights.begin(), data.weights.end(), 0.f);
  for (int o = 0; o < 5; o++) data.weights[o * 5 + o] = 1.f;
  const std::vector<float> out = run_reference(d, data);
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 5; c++)
      for (int i = 0; i < 21; i++)
        ASSERT_EQ(out[(n * 5 + c) * 21 + i], data.src[(n * 5 + c) * 21 + i] + data.bias[c]);
}

// Padding taps read pad_value: the same as convolving an explicitly padded input.
TEST(ReferenceConv, PadValueEqualsExplicitPadding) {
  const ConvDesc d = parse_conv_desc("g2mb1ic4ih6iw5oc6oh8ow5kh3kw2sh1sw2ph2pw1dh0dw1");
  ASSERT_EQ(d.pad_bottom, 2);
  const float pad_value = -0.75f;
  const ConvData data = make_random_conv_data(d, 2);
  const int ph = d.ih + d.pad_top + d.pad_bottom, pw = d.iw + d.pad_left + d.pad_right;
  ConvDesc padded_desc = d;
  padded_desc.ih = ph;
  padded_desc.iw = pw;
  padded_desc.pad_top = padded_desc.pad_bottom = padded_desc.pad_left = padded_desc.pad_right = 0;
  ConvData padded = data;
  padded.src.assign(static_cast<size_t>(d.ic) * ph * pw, pad_value);
  for (int c = 0; c < d.ic; c++)
    for (int y = 0; y < d.ih; y++)
      for (int x = 0; x < d.iw; x++)
        padded.src[(c * ph + y + d.pad_top) * pw + x + d.pad_left] = data.src[(c * d.ih + y) * d.iw + x];
  const std::vector<float> want = run_reference(padded_desc, padded);
  const std::vector<float> got = run_reference(d, data, Activation(), pad_value);
  const test::ErrorStats e = test::compare(got.data(), want.data(), want.size());
  EXPECT_EQ(e.max_abs, 0.0);
}

TEST(ReferenceConv, ThreadsAndActivationsAreConsistent) {
  const ConvDesc d = parse_conv_desc("g3mb2ic9ih11iw13oc12kh3kw5sh2sw1ph1pw2dh1dw0");
  const ConvData data = make_random_conv_data(d, 3);
  const std::vector<float> plain = run_reference(d, data);
  const std::vector<float> threaded = run_reference(d, data, Activation(), 0.f, 3);
  EXPECT_EQ(plain, threaded);
  const std::vector<float> relu = run_reference(d, data, Activation::parse("relu"));
  for (size_t i = 0; i < plain.size(); i++) ASSERT_EQ(relu[i], plain[i] > 0 ? plain[i] : 0.f);
  const std::vector<float> no_bias = run_reference(d, data, Activation(), 0.f, 1, false);
  const int plane = d.oh * d.ow;
  for (size_t i = 0; i < plain.size(); i++)
    ASSERT_NEAR(no_bias[i] + data.bias[(i / plane) % d.oc], plain[i], 1e-5f);
}

TEST(ReferenceRunner, MatchesReferenceAndCopiesItsWeights) {
  ConvProblem problem;
  problem.desc = parse_conv_desc("mb2ic6ih9oc4kh3ph1");
  problem.act = Activation::parse("leaky:0.2");
  problem.pad_value = 0.5f;
  ConvData data = make_random_conv_data(problem.desc, 4);
  const std::vector<float> want = run_reference(problem.desc, data, problem.act, problem.pad_value);
  std::unique_ptr<ConvRunner> runner =
      make_reference_conv_runner(problem, 2, data.weights.data(), data.bias.data());
  EXPECT_EQ(runner->algo(), "reference");
  std::fill(data.weights.begin(), data.weights.end(), 0.f);  // the runner owns a copy
  runner->set_input(data.src.data());
  std::fill(data.src.begin(), data.src.end(), 0.f);  // and of the input
  runner->run();
  std::vector<float> got(want.size());
  runner->get_output(got.data());
  EXPECT_EQ(got, want);

  std::unique_ptr<ConvRunner> no_bias = make_reference_conv_runner(problem, 1, data.weights.data(), nullptr);
  no_bias->set_input(data.src.data());
  no_bias->run();
  no_bias->get_output(got.data());
  for (float v : got) ASSERT_EQ(v, 0.f) << "zero weights, zero input and no bias";
}

TEST(ReferenceRunner, RandomDataIsSizedSeededAndBounded) {
  const ConvDesc d = parse_conv_desc("g2mb3ic4ih5iw7oc6kh3kw2");
  const ConvData a = make_random_conv_data(d, 9), b = make_random_conv_data(d, 9), c = make_random_conv_data(d, 10);
  EXPECT_EQ(a.src.size(), 3u * 4 * 5 * 7);
  EXPECT_EQ(a.weights.size(), 6u * 2 * 3 * 2);
  EXPECT_EQ(a.bias.size(), 6u);
  EXPECT_EQ(a.dst.size(), 3u * 6 * d.oh * d.ow);
  EXPECT_EQ(a.src, b.src);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_NE(a.src, c.src);
  for (float v : a.src) ASSERT_TRUE(v >= -1.f && v <= 1.f) << v;
}

TEST(DefaultShapes, SixteenNamedBatchOneLayers) {
  const std::vector<ConvDesc> shapes = default_shapes();
  ASSERT_EQ(shapes.size(), 16u);
  for (const ConvDesc& d : shapes) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_EQ(d.mb, 1) << d.name;
  }
}

// The built-in list is our own text; it must describe the same problems as bench_core.txt.
TEST(DefaultShapes, MatchTheSharedHeadlineSet) {
  const std::string path = std::string(JITCONV_SHARED_DIR) + "/shapes/bench_core.txt";
  if (!std::ifstream(path)) GTEST_SKIP() << path << " is absent (the shared folder sits beside the clone in CI)";
  const std::vector<ShapeFileEntry> entries = read_shape_file(path);
  const std::vector<ConvDesc> shapes = default_shapes();
  ASSERT_EQ(entries.size(), shapes.size());
  for (size_t i = 0; i < shapes.size(); i++) {
    ASSERT_TRUE(entries[i].error.empty()) << entries[i].error;
    EXPECT_EQ(to_string(entries[i].desc), to_string(shapes[i]));
  }
}

#ifdef JITCONV_WITH_ONEDNN

namespace {

// Compares the reference with every oneDNN variant that applies; returns how many did.
int compare_with_onednn(const std::string& text, const std::string& act_text, uint32_t seed) {
  ConvProblem problem;
  problem.desc = parse_conv_desc(text);
  problem.act = Activation::parse(act_text);
  const ConvData data = make_random_conv_data(problem.desc, seed);
  const std::vector<float> want = run_reference(problem.desc, data, problem.act);
  int compared = 0;
  // A variant that does not apply (e.g. only oneDNN's reference code) has nothing independent to add.
  for (const auto& onednn :
       make_onednn_variants(problem, data.weights.data(), data.bias.data(), 1, current_isa(), nullptr)) {
    onednn->set_input(data.src.data());
    onednn->run();
    std::vector<float> got(want.size());
    onednn->get_output(got.data());
    const test::ErrorStats e = test::compare(got.data(), want.data(), want.size());
    EXPECT_FALSE(e.has_nan) << text << " " << act_text << " " << onednn->algo();
    EXPECT_LE(e.max_rel(), 1e-5) << text << " act " << act_text << " via " << onednn->algo() << " ("
                                 << onednn->impl_name() << "): max abs " << e.max_abs << " at " << e.worst_index;
    compared++;
  }
  return compared;
}

std::string random_problem(std::mt19937& rng) {
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int kind = pick(0, 3);  // plain, grouped, depthwise (x2 weight)
  const int g = kind == 0 ? 1 : kind == 1 ? pick(2, 3) : pick(2, 9);
  const int icg = kind >= 2 ? 1 : pick(1, 7);
  const int ocg = kind == 2 ? 1 : pick(1, 7);
  std::string t = (g > 1 ? "g" + std::to_string(g) : std::string()) + "mb" + std::to_string(pick(1, 2));
  t += "ic" + std::to_string(g * icg) + "ih" + std::to_string(pick(1, 17)) + "iw" + std::to_string(pick(1, 17));
  t += "oc" + std::to_string(g * ocg) + "kh" + std::to_string(pick(1, 5)) + "kw" + std::to_string(pick(1, 5));
  t += "sh" + std::to_string(pick(1, 3)) + "sw" + std::to_string(pick(1, 3));
  t += "dh" + std::to_string(pick(0, 2)) + "dw" + std::to_string(pick(0, 2));
  if (pick(0, 3) == 0)  // output given: padding derived, often asymmetric
    t += "oh" + std::to_string(pick(1, 17)) + "ow" + std::to_string(pick(1, 17));
  else
    t += "ph" + std::to_string(pick(0, 2)) + "pw" + std::to_string(pick(0, 2));
  return t;
}

}  // namespace

TEST(ReferenceConvVsOnednn, RandomGrid) {
  std::mt19937 rng(20240611);
  int problems = 0, compared = 0;
  for (int trial = 0; trial < 2000 && problems < 240; trial++) {
    const std::string text = random_problem(rng);
    try {
      parse_conv_desc(text);
    } catch (const Error&) {
      continue;  // kernel wider than the padded input, negative implied padding, ...
    }
    const char* act = kActivations[problems % 7];
    SCOPED_TRACE(text + " " + act);
    if (compare_with_onednn(text, act, static_cast<uint32_t>(trial)) > 0) compared++;
    problems++;
    if (HasFailure()) return;
  }
  EXPECT_GE(compared, 200) << "of " << problems << " problems";
}

TEST(ReferenceConvVsOnednn, TailsDilationsAndPaddingEveryActivation) {
  const char* const kCases[] = {
      // channel and spatial tails
      "mb1ic17ih13oc31kh3ph1", "mb1ic3ih7iw11oc5kh3kw1ph1pw0", "mb1ic33ih5oc65kh1", "mb2ic15ih9oc17kh3sh2ph1",
      "mb1ic1ih1oc1kh1", "mb1ic64ih14oc48kh3ph1",
      // dilation
      "mb1ic16ih20oc16kh3dh1ph2", "mb1ic8ih23oc12kh3dh2ph3", "mb1ic5ih17iw19oc7kh3kw5dh2dw1ph2pw2",
      // padding: wider than half the kernel, output larger than input, implied bottom/right
      "mb1ic8ih6oc8kh5ph4", "mb1ic4ih3oc4kh3ph2", "mb1ic6ih10iw9oc6oh12ow10kh3kw3ph1pw1", "mb1ic4ih7oc4oh4kh3sh2ph1",
      "mb1ic5ih8oc3oh3kh3sh3ph0",
      // groups, depthwise, depthwise with multiplier, 1-D
      "g4mb1ic16ih11oc32kh3ph1", "g24mb1ic24ih13oc24kh3sh2ph1", "g7mb2ic7ih9oc14kh5ph2", "mb1ic5iw31oc7kw5pw2"};
  int compared = 0;
  for (const char* text : kCases)
    for (const char* act : kActivations) {
      SCOPED_TRACE(std::string(text) + " " + act);
      compared += compare_with_onednn(text, act, 5) > 0;
    }
  EXPECT_GE(compared, static_cast<int>(sizeof(kCases) / sizeof(kCases[0])) * 6);
}

#else

TEST(ReferenceConvVsOnednn, RandomGrid) { GTEST_SKIP() << "built without oneDNN (JITCONV_WITH_ONEDNN off)"; }

#endif
