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
#include "tests/conv_tester.h"
#include "tests/test_util.h"

namespace jitconv {
namespace test {

class DwTester {
 public:
  DwTester& channels(int c) { ic_ = oc_ = groups_ = c; return *this; }
  DwTester& channels(int ic, int oc) { ic_ = ic; oc_ = oc; return *this; }
  DwTester& groups(int g) { groups_ = g; return *this; }
  DwTester& input(int h, int w) { ih_ = h; iw_ = w; return *this; }
  DwTester& kernel(int k) { kh_ = kw_ = k; return *this; }
  DwTester& kernel(int h, int w) { kh_ = h; kw_ = w; return *this; }
  DwTester& stride(int s) { sh_ = sw_ = s; return *this; }
  DwTester& stride(int h, int w) { sh_ = h; sw_ = w; return *this; }
  DwTester& dilation(int d) { dh_ = dw_ = d; return *this; }
  DwTester& dilation(int h, int w) { dh_ = h; dw_ = w; return *this; }
  DwTester& pad(int p) { pt_ = pl_ = pb_ = pr_ = p; return *this; }
  DwTester& pad(int top, int left, int bottom, int right) {
    pt_ = top; pl_ = left; pb_ = bottom; pr_ = right;
    return *this;
  }
  DwTester& pad_value(float v) { pad_value_ = v; return *this; }
  DwTester& bias(bool b) { bias_ = b; return *this; }
  DwTester& act(const std::string& a) { act_ = Activation::parse(a); return *this; }
  DwTester& isa(Isa i) { isa_ = i; return *this; }
  // 0 = the elempack a network would use for the channel count.
  DwTester& elempack(int p) { in_pack_ = out_pack_ = p; return *this; }
  DwTester& elempack(int in, int out) { in_pack_ = in; out_pack_ = out; return *this; }
  DwTester& threads(int n) { threads_ = n; return *this; }
  DwTester& seed(uint32_t s) { seed_ = s; return *this; }
  DwTester& kernel_kind(ConvDepthwise::Kernel k) { kind_ = k; return *this; }
  // Expect the depthwise path to run generated code (true) or the loops (false).
  DwTester& expect_generated(bool g) { expect_generated_ = g ? 1 : 0; return *this; }

  ConvParams params() const {
    ConvParams p;
    p.ic = ic_;
    p.oc = oc_;
    p.kh = kh_;
    p.kw = kw_;
    p.sh = sh_;
    p.sw = sw_;
    p.dh = dh_;
    p.dw = dw_;
    p.pad_top = pt_;
    p.pad_left = pl_;
    p.pad_bottom = pb_;
    p.pad_right = pr_;
    p.pad_value = pad_value_;
    p.bias = bias_;
    p.act = act_;
    return p;
  }

  std::string label() const {
    return params().to_string() + " g" + std::to_string(groups_) + " in " + std::to_string(ih_) + "x" +
           std::to_string(iw_) + " isa " + isa_name(isa_) + " elempack " + std::to_string(in_pack_) + "->" +
           std::to_string(out_pack_) + " threads " + std::to_string(threads_);
  }

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
    int oh = 0, ow = 0;
    p.output_size(ih_, iw_, oh, ow);
    const int icg = ic_ / groups_;
    const std::vector<float> src = random_vector(static_cast<size_t>(ic_) * ih_ * iw_, seed_);
    const std::vector<float> weights = random_vector(static_cast<size_t>(oc_) * icg * kh_ * kw_, seed_ + 1);
    const std::vector<float> bias = random_vector(oc_, seed_ + 2);

    ConvDesc d;
    d.mb = 1;
    d.g = groups_;
    d.ic = ic_;
    d.ih = ih_;
    d.iw = iw_;
    d.oc = oc_;
    d.oh = oh;
    d.ow = ow;
    d.kh = kh_;
    d.kw = kw_;
    d.sh = sh_;
    d.sw = sw_;
    d.dilation_h = dh_;
    d.dilation_w = dw_;
    const ConvPads pads = p.pads_for(ih_, iw_);
    d.pad_top = pads.top;
    d.pad_left = pads.left;
    d.pad_bottom = pads.bottom;
    d.pad_right = pads.right;
    std::vector<float> expected(static_cast<size_t>(oc_) * oh * ow);
    reference_conv2d(d, src.data(), weights.data(), bias_ ? bias.data() : nullptr, expected.data(), act_, pad_value_);

    const int in_pack = in_pack_ ? in_pack_ : preferred_elempack(isa_, ic_);
    const int out_pack = out_pack_ ? out_pack_ : preferred_elempack(isa_, oc_);
    std::unique_ptr<ConvImpl> impl = make(p, weights.data(), bias_ ? bias.data() : nullptr, in_pack, out_pack);
    Option opt;
    opt.num_threads = threads_;
    Mat plain(iw_, ih_, ic_);
    for (int c = 0; c < ic_; c++)
      std::copy(src.begin() + static_cast<long>(c) * ih_ * iw_, src.begin() + static_cast<long>(c + 1) * ih_ * iw_,
                static_cast<float*>(plain.channel(c).data));
    Mat packed;
    convert_packing(plain, packed, in_pack, opt);
    EXPECT_EQ(packed.elempack, in_pack);
    Mat top;
    impl->forward(packed, top, opt);
    EXPECT_EQ(top.elempack, impl->out_elempack());
    Mat out;
    convert_packing(top, out, 1, opt);
    EXPECT_EQ(out.w, ow);
    EXPECT_EQ(out.h, oh);
    EXPECT_EQ(out.c, oc_);
    std::vector<float> got(expected.size());
    if (out.w != ow || out.h != oh || out.c != oc_) return got;
    for (int c = 0; c < oc_; c++)
      std::copy(static_cast<const float*>(out.channel(c).data),
                static_cast<const float*>(out.channel(c).data) + static_cast<long>(oh) * ow,
                got.begin() + static_cast<long>(c) * oh * ow);
    const ErrorStats s = compare(got.data(), expected.data(), got.size());
    const double k = static_cast<double>(icg) * kh_ * kw_;
    const double tol = 2e-7 * std::sqrt(k) + 1e-6;
    EXPECT_FALSE(s.has_nan);
    EXPECT_LE(s.max_rel(), tol) << "max abs error " << s.max_abs << " at " << s.worst_index << " (got "
                                << got[s.worst_index] << ", expected " << expected[s.worst_index] << ")";
    return got;
  }

  int ic_ = 16, oc_ = 16, groups_ = 16;
  int ih_ = 9, iw_ = 9;
  int kh_ = 3, kw_ = 3;
  int sh_ = 1, sw_ = 1;
  int dh_ = 1, dw_ = 1;
  int pt_ = 0, pl_ = 0, pb_ = 0, pr_ = 0;
  float pad_value_ = 0.f;
  bool bias_ = true;
  Activation act_;
  Isa isa_ = Isa::avx512;
  int in_pack_ = 0, out_pack_ = 0;
  int threads_ = 1;
  uint32_t seed_ = 7;
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
