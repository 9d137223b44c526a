// The oneDNN wrapper: what it refuses (NotApplicable), that weights are taken at
// construction and inputs at set_input, that threads are restored, and the ISA cap.
#include <gtest/gtest.h>

#include <omp.h>

#include <memory>
#include <string>
#include <vector>

#include "reference/conv_ref.h"
#include "reference/reference_runner.h"
#include "tests/test_util.h"
#ifdef JITCONV_WITH_ONEDNN
#include "reference/onednn_conv.h"
#endif

using namespace jitconv;

#ifdef JITCONV_WITH_ONEDNN

namespace {

// oneDNN accepts an ISA cap only before its first kernel, so cap it to the ISA the
// suites run under (JITCONV_ISA) before any test: then every suite may build an
// OnednnConv for current_isa() as its oracle.
class OnednnIsaCap : public testing::Environment {
 public:
  void SetUp() override { onednn_cap_isa(current_isa()); }
};
testing::Environment* const kOnednnIsaCap = testing::AddGlobalTestEnvironment(new OnednnIsaCap);

ConvProblem problem_of(const std::string& text, const std::string& act = "none") {
  ConvProblem p;
  p.desc = parse_conv_desc(text);
  p.act = Activation::parse(act);
  return p;
}

std::vector<float> reference_output(const ConvProblem& p, const ConvData& data, const float* src, bool bias = true) {
  std::vector<float> dst(data.dst.size());
  reference_conv2d(p.desc, src, data.weights.data(), bias ? data.bias.data() : nullptr, dst.data(), p.act,
                   p.pad_value, 1);
  return dst;
}

std::vector<float> output_of(ConvRunner& runner, size_t size) {
  std::vector<float> dst(size);
  runner.run();
  runner.get_output(dst.data());
  return dst;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  const test::ErrorStats e = test::compare(got.data(), want.data(), want.size());
  EXPECT_FALSE(e.has_nan) << what;
  EXPECT_LE(e.max_rel(), 1e-5) << what << ": max abs " << e.max_abs;
}

// The message of the NotApplicable the constructor throws, or "" when it does not.
std::string refusal(const ConvProblem& p, OnednnVariant variant, Isa isa = current_isa()) {
  const ConvData data = make_random_conv_data(p.desc, 1);
  try {
    OnednnConv conv(p, data.weights.data(), data.bias.data(), 1, variant, isa);
  } catch (const NotApplicable& e) {
    return e.what();
  }
  return std::string();
}

}  // namespace

TEST(OnednnConv, BothVariantsFollowTheLatestInputAndOwnTheirWeights) {
  const ConvProblem p = problem_of("g2mb2ic32ih12iw9oc32kh3kw3sh1ph1", "relu");
  for (OnednnVariant variant : {OnednnVariant::direct_any, OnednnVariant::auto_blocked}) {
    if (variant == OnednnVariant::auto_blocked && current_isa() == Isa::scalar) continue;  // no blocking to use
    SCOPED_TRACE(onednn_variant_name(variant));
    ConvData data = make_random_conv_data(p.desc, 7);
    const ConvData other = make_random_conv_data(p.desc, 8);
    const std::vector<float> want_first = reference_output(p, data, data.src.data());
    const std::vector<float> want_other = reference_output(p, data, other.src.data());
    std::vector<float> weights = data.weights, bias = data.bias;
    OnednnConv conv(p, weights.data(), bias.data(), 2, variant, current_isa());
    std::fill(weights.begin(), weights.end(), 0.f);  // reordered at construction: no longer read
    std::fill(bias.begin(), bias.end(), 0.f);
    EXPECT_EQ(conv.algo(), std::string("onednn_") + onednn_variant_name(variant));
    EXPECT_FALSE(conv.impl_name().empty());
    EXPECT_EQ(conv.impl_name().find("ref"), std::string::npos) << conv.impl_name();
    EXPECT_EQ(conv.detail(), conv.impl_name());
    conv.set_input(data.src.data());
    expect_close(output_of(conv, data.dst.size()), want_first, "first input");
    conv.set_input(other.src.data());
    expect_close(output_of(conv, data.dst.size()), want_other, "second input");
  }
}

TEST(OnednnConv, WithoutBiasAndDepthwise) {
  for (const char* text : {"mb1ic7ih10oc5kh3ph1", "g12mb1ic12ih9oc12kh3sh2ph1", "g6mb1ic6ih8oc12kh5ph2"}) {
    SCOPED_TRACE(text);
    const ConvProblem p = problem_of(text, "leaky:0.25");
    const ConvData data = make_random_conv_data(p.desc, 3);
    OnednnConv conv(p, data.weights.data(), nullptr, 1, OnednnVariant::direct_any, current_isa());
    conv.set_input(data.src.data());
    expect_close(output_of(conv, data.dst.size()), reference_output(p, data, data.src.data(), false), text);
  }
}

TEST(OnednnConv, RestoresTheOpenMpThreadCount) {
  const int before = omp_get_max_threads();
  const ConvProblem p = problem_of("mb1ic16ih14oc16kh3ph1");
  const ConvData data = make_random_conv_data(p.desc, 1);
  const int threads = before == 3 ? 2 : 3;
  OnednnConv conv(p, data.weights.data(), data.bias.data(), threads, OnednnVariant::direct_any, current_isa());
  EXPECT_EQ(omp_get_max_threads(), before);
  conv.set_input(data.src.data());
  std::vector<float> dst(data.dst.size());
  conv.run();
  EXPECT_EQ(omp_get_max_threads(), before);
  conv.get_output(dst.data());
  EXPECT_EQ(omp_get_max_threads(), before);
}

TEST(OnednnConv, RefusesWhatItCannotComputeTheSameWay) {
  ConvProblem padded = problem_of("mb1ic4ih8oc4kh3ph1");
  padded.pad_value = 1.f;
  EXPECT_NE(refusal(padded, OnednnVariant::direct_any).find("zeros"), std::string::npos);

  // ncnn's default hardswish (alpha 0.2) is not oneDNN 2.6's (alpha 1/6).
  EXPECT_NE(refusal(problem_of("mb1ic4ih8oc4kh3", "hardswish:0.2:0.5"), OnednnVariant::direct_any).find("hardswish"),
            std::string::npos);
  EXPECT_EQ(refusal(problem_of("mb1ic4ih8oc4kh3", "hardswish"), OnednnVariant::direct_any), "");

  EXPECT_NE(refusal(problem_of("mb1ic4ih8oc4kh3"), OnednnVariant::auto_blocked, Isa::scalar), "");

  // Three input channels in nChw16c: oneDNN has only its (very slow) reference code.
  if (current_isa() == Isa::avx512) {
    const std::string why = refusal(problem_of("mb1ic3ih224oc64oh112kh7sh2ph3"), OnednnVariant::auto_blocked);
    EXPECT_NE(why.find("reference implementation"), std::string::npos) << why;
  }
}

TEST(OnednnConv, IsaCapAppliesOnlyBeforeTheFirstKernel) {
  // Make sure oneDNN has generated code in this process, which fixes its ISA.
  const ConvProblem p = problem_of("mb1ic8ih8oc8kh3");
  const ConvData data = make_random_conv_data(p.desc, 1);
  OnednnConv conv(p, data.weights.data(), data.bias.data(), 1, OnednnVariant::direct_any, current_isa());
  EXPECT_NO_THROW(onednn_cap_isa(Isa::avx512));  // no cap requested: nothing to refuse
  if (cpu_info().hardware_isa == Isa::avx512 && current_isa() == Isa::avx512) {
    EXPECT_THROW(onednn_cap_isa(Isa::avx2), Error);
    // oneDNN runs AVX-512 code now; asking it for an AVX2 run cannot be honoured.
    EXPECT_NE(refusal(p, OnednnVariant::direct_any, Isa::avx2).find("capped"), std::string::npos);
  }
  EXPECT_NE(onednn_version().find("cpu runtime"), std::string::npos) << onednn_version();
}

#else

TEST(OnednnConv, Wrapper) { GTEST_SKIP() << "built without oneDNN (JITCONV_WITH_ONEDNN off)"; }

#endif
