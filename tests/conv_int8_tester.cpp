#include "tests/conv_int8_tester.h"

#include <cstring>
#include <random>

namespace jitconv {
namespace test {

struct Int8ConvTester::Problem {
  ConvDesc desc;
  std::vector<float> src;
  std::vector<float> weights_fp32;  // what the int8 weights approximate
  std::vector<int8_t> weights_int8;
  std::vector<float> weight_scales;
  std::vector<float> scale_in;  // 1 / (bottom * weight_scale), 0 for a zero scale
  std::vector<float> bias;
  float bottom = 1.f;
  float top = 1.f;
  std::vector<float> fp32_out;  // reference_conv2d with weights_fp32
  std::vector<float> expected;  // reference_conv2d_int8
  std::vector<int32_t> sums;
};

namespace {

float abs_max(const float* v, size_t n) {
  float m = 0.f;
  for (size_t i = 0; i < n; i++) m = std::max(m, std::fabs(v[i]));
  return m;
}

}  // namespace

std::string Int8ConvTester::label() const {
  std::string s = shape_label();
  if (tuning_.dot) s += std::string(" dot ") + int8_dot_name(*tuning_.dot);
  if (tuning_.form) s += *tuning_.form == ConvInt8::Form::rows ? " form rows" : " form im2col";
  s += fp32_weights_ ? " fp32 weights" : " int8 weights";
  if (requantize_) s += " requantize";
  if (zero_channel_) s += " zero channel";
  return s;
}

Int8ConvTester::Problem Int8ConvTester::make_problem() const {
  Problem pr;
  pr.desc = reference_desc();
  const ConvDesc& d = pr.desc;

  const long per_oc = static_cast<long>(ic_) * kh_ * kw_;
  pr.src = random_vector(static_cast<size_t>(ic_) * ih_ * iw_, seed_);
  pr.bias = random_vector(oc_, seed_ + 2);
  pr.weight_scales.assign(oc_, 0.f);
  if (fp32_weights_) {
    pr.weights_fp32 = random_vector(static_cast<size_t>(oc_) * per_oc, seed_ + 1);
    for (int o = 0; o < oc_; o++) {
      float* w = pr.weights_fp32.data() + o * per_oc;
      for (long k = 0; k < per_oc; k++) w[k] *= (zero_channel_ && o == oc_ - 1) ? 0.f : 1.f + o % 4;
      const float m = abs_max(w, per_oc);
      pr.weight_scales[o] = m > 0.f ? 127.f / m : 0.f;
    }
    pr.bottom = 127.f / std::max(abs_max(pr.src.data(), pr.src.size()), std::fabs(pad_value_));
    pr.weights_int8 = reference_quantize_weights(pr.weights_fp32.data(), oc_, per_oc, pr.weight_scales.data());
  } else {
    std::mt19937 rng(seed_ + 1);
    std::uniform_int_distribution<int> dist(-weight_max_, weight_max_);
    pr.weights_int8.resize(static_cast<size_t>(oc_) * per_oc);
    pr.weights_fp32.resize(pr.weights_int8.size());
    pr.bottom = std::ldexp(1.f, bottom_log2_);
    for (int o = 0; o < oc_; o++) {
      const bool zero = zero_channel_ && o == oc_ - 1;
      pr.weight_scales[o] = zero ? 0.f : std::ldexp(1.f, -(bottom_log2_ + o % 3));
      for (long k = 0; k < per_oc; k++) {
        const int8_t q = zero ? 0 : static_cast<int8_t>(dist(rng));
        pr.weights_int8[o * per_oc + k] = q;
        pr.weights_fp32[o * per_oc + k] = zero ? 0.f : q / pr.weight_scales[o];  // exact: a power of two
      }
    }
  }
  pr.scale_in.resize(oc_);
  for (int o = 0; o < oc_; o++)
    pr.scale_in[o] = pr.weight_scales[o] == 0.f ? 0.f : 1.f / (pr.bottom * pr.weight_scales[o]);

  const size_t out_count = static_cast<size_t>(oc_) * d.oh * d.ow;
  pr.fp32_out.resize(out_count);
  reference_conv2d(d, pr.src.data(), pr.weights_fp32.data(), bias_ ? pr.bias.data() : nullptr, pr.fp32_out.data(), act_,
                   pad_value_);
  pr.top = top_scale_ > 0.f ? top_scale_ : 100.f / std::max(abs_max(pr.fp32_out.data(), out_count), 1e-3f);
  Int8RefScales rs;
  rs.weight = pr.weight_scales.data();
  rs.bottom = pr.bottom;
  rs.requantize = requantize_;
  rs.top = pr.top;
  pr.expected.resize(out_count);
  pr.sums.resize(out_count);
  reference_conv2d_int8(d, pr.src.data(), pr.weights_int8.data(), rs, bias_ ? pr.bias.data() : nullptr,
                        pr.expected.data(), act_, pad_value_, pr.sums.data());
  return pr;
}

// |int8 result - fp32 result| <= L * sum_k (|x_k| * 0.5 / s_w + |w_q,k / s_w| * 0.5 / s_b)
// (+ 0.5 / s_top when requantizing), L the activation's Lipschitz constant: the error of
// quantizing both operands to half a step, propagated through the products. The small
// floor covers fp32 rounding of the dequantization and of the fp32 oracle itself.
void Int8ConvTester::check_bound(const Problem& pr, const std::vector<float>& out, const char* what) const {
  const ConvDesc& d = pr.desc;
  const double lipschitz = activation_lipschitz(act_);
  const double half_b = 0.5 / pr.bottom;
  const double floor = 1e-5 * (abs_max(pr.fp32_out.data(), pr.fp32_out.size()) + 1.0);
  const long plane = static_cast<long>(d.oh) * d.ow;
  int failures = 0;
  for (int o = 0; o < d.oc && failures < 5; o++) {
    const double sw = pr.weight_scales[o];
    const double half_w = sw > 0 ? 0.5 / sw : 0.0;
    const int8_t* wq = pr.weights_int8.data() + static_cast<long>(o) * d.ic * d.kh * d.kw;
    for (int y = 0; y < d.oh; y++)
      for (int x = 0; x < d.ow; x++) {
        double bound = 0;
        for (int c = 0; c < d.ic; c++)
          for (int ky = 0; ky < d.kh; ky++)
            for (int kx = 0; kx < d.kw; kx++) {
              const int iy = y * d.sh - d.pad_top + ky * d.dilation_h, ix = x * d.sw - d.pad_left + kx * d.dilation_w;
              const bool inside = iy >= 0 && iy < d.ih && ix >= 0 && ix < d.iw;
              const double v = inside ? pr.src[(static_cast<long>(c) * d.ih + iy) * d.iw + ix] : pad_value_;
              const long k = (static_cast<long>(c) * d.kh + ky) * d.kw + kx;
              const double wq_real = sw > 0 ? wq[k] / sw : 0.0;
              bound += std::fabs(v) * half_w + std::fabs(wq_real) * half_b;
            }
        bound = lipschitz * bound + floor + (requantize_ ? 0.5 / pr.top : 0.0);
        const long i = o * plane + static_cast<long>(y) * d.ow + x;
        const double err = std::fabs(static_cast<double>(out[i]) - pr.fp32_out[i]);
        if (!(err <= bound)) {
          ADD_FAILURE() << what << " leaves the quantization bound at channel " << o << " (" << y << ", " << x
                        << "): got " << out[i] << ", fp32 " << pr.fp32_out[i] << ", error " << err << " > bound "
                        << bound;
          failures++;
        }
      }
  }
}

std::vector<float> Int8ConvTester::test() const {
  SCOPED_TRACE(label());
  const Problem pr = make_problem();
  const ConvDesc& d = pr.desc;
  const long per_oc = static_cast<long>(ic_) * kh_ * kw_;
  std::vector<int8_t> weights = pr.weights_int8;
  if (fp32_weights_) {
    weights = quantize_conv_weights(pr.weights_fp32.data(), oc_, per_oc, pr.weight_scales.data());
    EXPECT_TRUE(weights == pr.weights_int8) << "runtime weight quantization differs from the reference";
  }
  Int8Scales scales;
  scales.weight = pr.weight_scales;
  scales.bottom = pr.bottom;
  scales.requantize = requantize_;
  scales.top = pr.top;
  const int in_pack = in_pack_ ? in_pack_ : preferred_elempack(isa_, ic_);
  const int out_pack = out_pack_ ? out_pack_ : preferred_elempack(isa_, oc_);
  ConvInt8 impl(params(), weights.data(), scales, bias_ ? pr.bias.data() : nullptr, isa_, in_pack, out_pack, tuning_);
  if (tuning_.dot) {
    EXPECT_EQ(impl.dot(), *tuning_.dot);
  }
  if (tuning_.form) {
    EXPECT_EQ(impl.form(), *tuning_.form);
  }

  Option opt;
  opt.num_threads = threads_;
  Mat plain(iw_, ih_, ic_);
  for (int c = 0; c < ic_; c++)
    std::copy(pr.src.begin() + static_cast<long>(c) * ih_ * iw_, pr.src.begin() + static_cast<long>(c + 1) * ih_ * iw_,
              static_cast<float*>(plain.channel(c).data));
  Mat packed;
  convert_packing(plain, packed, in_pack, opt);
  Mat top;
  impl.forward(packed, top, opt);
  EXPECT_EQ(top.elempack, out_pack);
  Mat out;
  convert_packing(top, out, 1, opt);
  EXPECT_EQ(out.w, d.ow);
  EXPECT_EQ(out.h, d.oh);
  EXPECT_EQ(out.c, oc_);
  const long plane = static_cast<long>(d.oh) * d.ow;
  std::vector<float> got(pr.expected.size());
  for (int c = 0; c < oc_; c++)
    std::copy(static_cast<const float*>(out.channel(c).data), static_cast<const float*>(out.channel(c).data) + plane,
              got.begin() + c * plane);

  const bool exact = activation_exact_in_jit(act_);
  const double max_ref = abs_max(pr.expected.data(), pr.expected.size());
  // sigmoid / mish: the kernel's exp is a polynomial (~1e-7 relative); a requantized
  // value may then land on the neighbouring int8 step.
  const double approx_tol = 2e-6 * (max_ref + 1.0) + (requantize_ ? 1.0 / pr.top : 0.0);
  const bool read_sums = !fp32_weights_ && !bias_ && act_.type == ActivationType::none && !requantize_;
  int failures = 0;
  for (size_t i = 0; i < got.size() && failures < 5; i++) {
    const bool ok = exact ? memcmp(&got[i], &pr.expected[i], sizeof(float)) == 0
                          : std::fabs(static_cast<double>(got[i]) - pr.expected[i]) <= approx_tol;
    if (!ok) {
      ADD_FAILURE() << "output " << i << " (channel " << i / plane << "): got " << got[i] << ", int8 reference "
                    << pr.expected[i] << " (int32 sum " << pr.sums[i] << ")";
      failures++;
    }
    const int o = static_cast<int>(i / plane);
    if (read_sums && pr.scale_in[o] != 0.f && failures < 5) {
      // scale_in is a power of two and |sum| < 2^24, so the output holds the sum exactly.
      if (std::abs(pr.sums[i]) >= (1 << 24)) {
        ADD_FAILURE() << "test setup: sum " << pr.sums[i] << " is not exact in fp32";
        failures++;
        continue;
      }
      const double sum = static_cast<double>(got[i]) / pr.scale_in[o];
      if (sum != static_cast<double>(pr.sums[i])) {
        ADD_FAILURE() << "int32 sum " << i << ": kernel " << sum << ", reference " << pr.sums[i];
        failures++;
      }
    }
  }
  if (check_fp32_bound_ && top_scale_ == 0.f) {  // an explicit top scale may saturate on purpose
    check_bound(pr, pr.expected, "the int8 reference");
    check_bound(pr, got, "the int8 kernel");
  }
  return got;
}

}  // namespace test
}  // namespace jitconv
