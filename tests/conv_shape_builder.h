// What the fluent convolution testers (ConvTester, DwTester, Int8ConvTester) share: the
// problem's shape, padding, bias, activation, ISA, elempacks, threads and seed, set by
// chained calls that return the tester itself, and the ConvParams / reference ConvDesc /
// trace label they describe. Each tester adds its own settings and checks.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "reference/conv_ref.h"
#include "runtime/activation.h"
#include "runtime/conv_impl.h"
#include "runtime/conv_params.h"
#include "runtime/cpu.h"
#include "runtime/packing.h"

namespace jitconv {
namespace test {

template <typename Tester>
class ConvShapeBuilder {
 public:
  Tester& ic(int v) { ic_ = v; return self(); }
  Tester& oc(int v) { oc_ = v; return self(); }
  Tester& input(int h, int w) { ih_ = h; iw_ = w; return self(); }
  Tester& kernel(int k) { kh_ = kw_ = k; return self(); }
  Tester& kernel(int h, int w) { kh_ = h; kw_ = w; return self(); }
  Tester& stride(int s) { sh_ = sw_ = s; return self(); }
  Tester& stride(int h, int w) { sh_ = h; sw_ = w; return self(); }
  Tester& dilation(int d) { dh_ = dw_ = d; return self(); }
  Tester& dilation(int h, int w) { dh_ = h; dw_ = w; return self(); }
  Tester& pad(int p) { pt_ = pl_ = pb_ = pr_ = p; return self(); }
  Tester& pad(int top, int left, int bottom, int right) {
    pt_ = top; pl_ = left; pb_ = bottom; pr_ = right;
    return self();
  }
  Tester& pad_value(float v) { pad_value_ = v; return self(); }
  Tester& bias(bool b) { bias_ = b; return self(); }
  Tester& act(const std::string& a) { act_ = Activation::parse(a); return self(); }
  Tester& isa(Isa i) { isa_ = i; return self(); }
  // 0 = the elempack a network would use for that channel count.
  Tester& elempack(int in, int out) { in_pack_ = in; out_pack_ = out; return self(); }
  Tester& threads(int n) { threads_ = n; return self(); }
  Tester& seed(uint32_t s) { seed_ = s; return self(); }

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

  // The problem for reference/conv_ref: batch 1, `groups` groups, the output size and the
  // pads (SAME-style pads resolved) of an ih_ x iw_ input.
  ConvDesc reference_desc(int groups = 1) const {
    const ConvParams p = params();
    ConvDesc d;
    d.mb = 1;
    d.g = groups;
    d.ic = ic_;
    d.ih = ih_;
    d.iw = iw_;
    d.oc = oc_;
    p.output_size(ih_, iw_, d.oh, d.ow);
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
    return d;
  }

  // What a failure is traced with: the parameters, input size, ISA, elempacks, threads.
  std::string shape_label() const {
    return params().to_string() + " in " + std::to_string(ih_) + "x" + std::to_string(iw_) + " isa " +
           isa_name(isa_) + " elempack " + std::to_string(in_pack_) + "->" + std::to_string(out_pack_) +
           " threads " + std::to_string(threads_);
  }

 protected:
  ConvShapeBuilder(int ih, int iw, uint32_t seed) : ih_(ih), iw_(iw), seed_(seed) {}

  // Packs src (ic_ planes of ih_ x iw_) to in_pack, runs impl on threads_ threads and
  // returns its output as oc_ planes of oh x ow: zeros where the output came out in
  // another shape (the EXPECTs say so) or the output elempack is not out_pack.
  std::vector<float> run_planar(const ConvImpl& impl, const std::vector<float>& src, int in_pack, int out_pack,
                                int oh, int ow) const {
    Option opt;
    opt.num_threads = threads_;
    const long plane = static_cast<long>(ih_) * iw_;
    Mat plain(iw_, ih_, ic_);
    for (int c = 0; c < ic_; c++)
      std::copy(src.begin() + c * plane, src.begin() + (c + 1) * plane, static_cast<float*>(plain.channel(c).data));
    Mat packed;
    convert_packing(plain, packed, in_pack, opt);
    EXPECT_EQ(packed.elempack, in_pack);
    Mat top;
    impl.forward(packed, top, opt);
    EXPECT_EQ(top.elempack, out_pack);
    Mat out;
    convert_packing(top, out, 1, opt);
    EXPECT_EQ(out.w, ow);
    EXPECT_EQ(out.h, oh);
    EXPECT_EQ(out.c, oc_);
    std::vector<float> got(static_cast<size_t>(oc_) * oh * ow);
    if (out.w != ow || out.h != oh || out.c != oc_ || top.elempack != out_pack) return got;
    const long out_plane = static_cast<long>(oh) * ow;
    for (int c = 0; c < oc_; c++) {
      const float* channel = static_cast<const float*>(out.channel(c).data);
      std::copy(channel, channel + out_plane, got.begin() + c * out_plane);
    }
    return got;
  }

  int ic_ = 16, oc_ = 16;
  int ih_, iw_;
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
  uint32_t seed_;

 private:
  Tester& self() { return static_cast<Tester&>(*this); }
};

}  // namespace test
}  // namespace jitconv
