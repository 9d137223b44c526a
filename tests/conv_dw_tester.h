// Fluent tester for depthwise and grouped convolution against reference/conv_ref
// (reference_conv2d with g groups, double accumulation):
//
//   DwTester().channels(19).input(11, 13).kernel(5).stride(2).pad(2).elempack(1)
//             .act("mish").isa(Isa::avx2).test_depthwise();
//   DwTester().channels(20, 40).groups(4).kernel(3).pad(1).test_grouped("direct");
//
// The tolerance is relative to the largest |output| and scales with the accumulation
// length (ic/g)*kh*kw, as ConvTester's does.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "reference/conv_ref.h"
#include "runtime/conv_depthwise.h"
#include "runtime/conv_depthwise_grouped.h"
#include "runtime/error.h"
#include "runtime/packing.h"
#include "tests/conv_shape_builder.h"
#include "tests/conv_tester.h"
#include "tests/test_util.h"

namespace jitconv {
namespace test {

class DwTester : public ConvShapeBuilder<DwTester> {
 public:
  DwTester() : ConvShapeBuilder(9, 9, 7) {}

  DwTester& channels(int c) { ic_ = oc_ = groups_ = c; return *this; }
  DwTester& channels(int ic, int oc) { ic_ = ic; oc_ = oc; return *this; }
  DwTester& groups(int g) { groups_ = g; return *this; }
  using ConvShapeBuilder::elempack;
  DwTester& elempack(int p) { in_pack_ = out_pack_ = p; return *this; }
  DwTester& kernel_kind(ConvDepthwise::Kernel k) { kind_ = k; return *this; }
  // Expect the depthwise path to run generated code (true) or the loops (false).
  DwTester& expect_generated(bool g) { expect_generated_ = g ? 1 : 0; return *this; }

  std::string label() const { return shape_label() + " groups " + std::to_string(groups_); }

  // Returns the output (oc x oh x ow, dense) for bit-identity checks between runs.
  std::vector<float> test_depthwise() const {
    const Isa isa = isa_;
    const ConvDepthwise::Kernel kind = kind_;
    const int expect = expect_generated_;
    return run([isa, kind, expect](const ConvParams& p, const float* w, const float* b, int in_pack, int) {
      auto impl = std::make_unique<ConvDepthwise>(p, w, b, isa, in_pack, kind);
      if (expect >= 0) {
        EXPECT_EQ(impl->generated(), expect == 1);
      }
      return std::unique_ptr<ConvImpl>(std::move(impl));
    });
  }

  // algo: the per-group path ("" = the path table).
  std::vector<float> test_grouped(const std::string& algo = std::string(), bool packing = true) const {
    const Isa isa = isa_;
    const int groups = groups_;
    const int ih = ih_, iw = iw_;
    return run([=](const ConvParams& p, const float* w, const float* b, int in_pack, int out_pack) {
      Option opt;
      opt.use_packing_layout = packing;
      return std::unique_ptr<ConvImpl>(new ConvGrouped(p, groups, w, b, isa, in_pack, out_pack, algo, opt, ih, iw));
    });
  }

 private:
  template <typename Make>
  std::vector<float> run(Make make) const {
    SCOPED_TRACE(label());
    const ConvParams p = params();
    const ConvDesc d = reference_desc(groups_);
    const int oh = d.oh, ow = d.ow;
    const int icg = ic_ / groups_;
    const std::vector<float> src = random_vector(static_cast<size_t>(ic_) * ih_ * iw_, seed_);
    const std::vector<float> weights = random_vector(static_cast<size_t>(oc_) * icg * kh_ * kw_, seed_ + 1);
    const std::vector<float> bias = random_vector(oc_, seed_ + 2);

    std::vector<float> expected(static_cast<size_t>(oc_) * oh * ow);
    reference_conv2d(d, src.data(), weights.data(), bias_ ? bias.data() : nullptr, expected.data(), act_, pad_value_);

    const int in_pack = in_pack_ ? in_pack_ : preferred_elempack(isa_, ic_);
    const int out_pack = out_pack_ ? out_pack_ : preferred_elempack(isa_, oc_);
    std::unique_ptr<ConvImpl> impl = make(p, weights.data(), bias_ ? bias.data() : nullptr, in_pack, out_pack);
    const std::vector<float> got = run_planar(*impl, src, in_pack, impl->out_elempack(), oh, ow);
    const ErrorStats s = compare(got.data(), expected.data(), got.size());
    const double k = static_cast<double>(icg) * kh_ * kw_;
    // A grouped layer's groups take the path table's choice: a Winograd run ("winogradM3")
    // gets its variant's bound, a direct one fp32's.
    const std::string path = impl->describe();
    double tol = 2e-7 * std::sqrt(k) + 1e-6;
    const size_t winograd = path.find("winograd");
    if (winograd != std::string::npos && winograd + 8 < path.size())
      tol = std::max(tol, winograd_bound(path[winograd + 8] - '0'));
    EXPECT_FALSE(s.has_nan);
    EXPECT_LE(s.max_rel(), tol) << "max abs error " << s.max_abs << " at " << s.worst_index << " (got "
                                << got[s.worst_index] << ", expected " << expected[s.worst_index] << ")";
    return got;
  }

  int groups_ = 16;
  ConvDepthwise::Kernel kind_ = ConvDepthwise::Kernel::automatic;
  int expect_generated_ = -1;
};

// The elempacks a depthwise blob of `channels` channels can have under `isa` (1 always;
// 4/8/16 when they divide the channel count and fit the vector, 4 also on scalar).
inline std::vector<int> depthwise_packs(Isa isa, int channels) {
  std::vector<int> packs = {1};
  for (int p : {4, 8, 16})
    if (channels % p == 0 && (p == 4 || p <= isa_lanes(isa))) packs.push_back(p);
  return packs;
}

}  // namespace test
}  // namespace jitconv
