#include "runtime/conv_int8_impl.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "jit/gemm_int8_gen.h"
#include "runtime/conv_int8_quantize.h"
#include "runtime/error.h"

namespace jitconv {

namespace {
// Below this many input channels a kernel tap fills too few k groups for the rows form
// (ic 3 in groups of 4 wastes a quarter of every dot), so k x k problems gather panels.
constexpr int kIm2colMaxIc = 16;

bool finite_positive(float v) { return std::isfinite(v) && v > 0.f; }

}  // namespace

ConvInt8::ConvInt8(const ConvParams& params, const int8_t* weights, const Int8Scales& scales, const float* bias,
                   Isa isa, int in_pack, int out_pack)
    : ConvInt8(params, weights, scales, bias, isa, in_pack, out_pack, Tuning()) {}

ConvInt8::ConvInt8(const ConvParams& params, const int8_t* weights, const Int8Scales& scales, const float* bias,
                   Isa isa, int in_pack, int out_pack, const Tuning& tuning)
    : params_(params), isa_(isa), vlen_(gemm_int8_vlen(isa)), in_pack_(in_pack), out_pack_(out_pack) {
  const ConvParams& p = params;
  if (p.ic <= 0 || p.oc <= 0 || p.kh <= 0 || p.kw <= 0) fail("int8 convolution: bad geometry ", p.to_string());
  for (int pack : {in_pack, out_pack})
    if (pack != 1 && pack != 4 && pack != 8 && pack != 16)
      fail("int8 convolution: elempack ", pack, " is not 1/4/8/16");
  if (p.ic % in_pack || p.oc % out_pack || out_pack > vlen_)
    fail("int8 convolution: elempacks ", in_pack, "->", out_pack, " do not fit ", p.to_string(), " on ", isa_name(isa));
  const long reduction = static_cast<long>(p.ic) * p.kh * p.kw;
  if (reduction > kMaxInt8Reduction)
    fail("int8 convolution: ic*kh*kw = ", reduction, " exceeds ", kMaxInt8Reduction,
         ", the longest reduction an int32 sum holds");
  if (static_cast<int>(scales.weight.size()) != p.oc)
    fail("int8 convolution: ", scales.weight.size(), " weight scales for ", p.oc, " output channels");
  // ncnn2table writes 127 / absmax with no guard: an all-zero output channel (a pruned
  // filter) or a blob that was zero through calibration gets an infinite scale. ncnn then
  // dequantizes with 1 / (bottom * weight) = 0, and the output is activation(bias): so here.
  for (int o = 0; o < p.oc; o++)
    if (!(scales.weight[o] >= 0.f))
      fail("int8 convolution: weight scale ", o, " is ", scales.weight[o], " (must be >= 0)");
  if (!(scales.bottom > 0.f)) fail("int8 convolution: bottom blob scale is ", scales.bottom, " (must be > 0)");
  if (scales.requantize && !finite_positive(scales.top))
    fail("int8 convolution: top blob scale is ", scales.top, " (must be finite and > 0)");
  if (!std::isfinite(p.pad_value)) fail("int8 convolution: pad_value ", p.pad_value, " is not finite");

  const bool absent_isa = tuning.generate_only && !isa_supported(isa);  // kernels generated, never run
  if (absent_isa)
    dot_ = tuning.dot ? *tuning.dot : (isa == Isa::avx512 ? Int8Dot::vnni : Int8Dot::madd16);
  else
    dot_ = tuning.dot ? *tuning.dot : default_int8_dot(isa);
  if (isa != Isa::scalar && !absent_isa && !int8_dot_supported(isa, dot_))
    fail("int8 convolution: ", int8_dot_name(dot_), " dot products are not available at ", isa_name(isa),
         " on this CPU");
  group_elems_ = int8_dot_group_elems(dot_);
  elem_bytes_ = int8_dot_elem_bytes(dot_);
  const bool pointwise = p.kh == 1 && p.kw == 1;
  form_ = tuning.form ? *tuning.form : (!pointwise && p.ic < kIm2colMaxIc ? Form::im2col : Form::rows);
  const int taps = p.kh * p.kw;
  // A 1x1 kernel's pads do not depend on the input size (SAME gives none).
  subsample_ = form_ == Form::rows && pointwise && (p.sh > 1 || p.sw > 1) && !p.pads_for(1, 1).any();
  step_h_ = subsample_ ? 1 : p.sh;
  step_w_ = subsample_ ? 1 : p.sw;
  if (form_ == Form::rows) {
    pixel_elems_ = (p.ic + group_elems_ - 1) / group_elems_ * group_elems_;
    segments_ = taps;
    k_groups_ = pixel_elems_ / group_elems_;
  } else {
    pixel_elems_ = p.ic;
    segments_ = 1;
    k_groups_ = (reduction + group_elems_ - 1) / group_elems_;
  }
  chunks_ = (p.oc + vlen_ - 1) / vlen_;
  blocking_ = choose_gemm_int8_blocking(isa, dot_, chunks_, p.act, scales.requantize);
  groups_ = (chunks_ + blocking_.ur_oc - 1) / blocking_.ur_oc;
  group_bytes_ = segments_ * k_groups_ * blocking_.ur_oc * vlen_ * 4;

  // The unsigned vnni input is q + 128: the 128 of each tap cancels against acc_init.
  const int offset = dot_ == Int8Dot::vnni ? 128 : 0;
  zero_elem_ = offset;
  pad_elem_ = float_to_int8(p.pad_value * scales.bottom) + offset;
  pack_weights(weights);

  const long lanes = static_cast<long>(chunks_) * vlen_;
  acc_init_.create(static_cast<int>(lanes));
  scale_.create(static_cast<int>(lanes));
  acc_init_.fill(0);
  scale_.fill(0.f);
  int32_t* init = acc_init_;
  float* scale = scale_;
  for (int o = 0; o < p.oc; o++) {
    const int8_t* w = weights + o * reduction;
    int64_t sum = 0;
    for (long k = 0; k < reduction; k++) sum += w[k];
    // The kernel's int32 adds wrap; the wrapped start value still yields the exact sum.
    init[o] = static_cast<int32_t>(static_cast<uint32_t>(-offset * sum));
    // ncnn: a zero weight scale gives scale 0 instead of infinity; an infinite one (or an
    // infinite bottom scale) gives 1 / inf = 0. The input is still quantized with the
    // infinite scale: int8_round_clamp takes +-inf to +-127 and NaN (0 * inf) to -127, and
    // the sums it makes are multiplied by 0.
    const bool zero_scale = scales.weight[o] == 0.f || std::isinf(scales.weight[o]) || std::isinf(scales.bottom);
    scale[o] = zero_scale ? 0.f : 1.f / (scales.bottom * scales.weight[o]);
  }
  if (p.bias) {
    if (!bias) fail("int8 convolution: bias requested but none given");
    bias_.create(static_cast<int>(lanes));
    bias_.fill(0.f);
    memcpy(bias_.data, bias, p.oc * sizeof(float));
  }
  bottom_scale_ = scales.bottom;
  requantize_ = scales.requantize;
  if (scales.requantize) {
    requant_[0] = scales.top;
    requant_[1] = 1.f / scales.top;
  }
}

void ConvInt8::pack_weights(const int8_t* weights) {
  const ConvParams& p = params_;
  const long reduction = static_cast<long>(p.ic) * p.kh * p.kw;
  if (group_bytes_ * groups_ > INT_MAX)
    fail("int8 convolution: packed weights would take ", group_bytes_ * groups_, " bytes (more than 2 GiB)");
  weights_.create(static_cast<int>(group_bytes_ * groups_), static_cast<size_t>(1));
  memset(weights_.data, 0, group_bytes_ * groups_);
  uint8_t* base = weights_;
  for (int g = 0; g < groups_; g++) {
    const int chunk0 = g * blocking_.ur_oc;
    const int here = std::min(blocking_.ur_oc, chunks_ - chunk0);
    uint8_t* gw = base + g * group_bytes_;
    for (long s = 0; s < segments_; s++)
      for (long kg = 0; kg < k_groups_; kg++)
        for (int e = 0; e < group_elems_; e++) {
          // The OIHW offset of this k within one output channel, or -1 for padding.
          long k_offset = -1;
          if (form_ == Form::rows) {
            const long ch = kg * group_elems_ + e;
            if (ch < p.ic) k_offset = ch * p.kh * p.kw + s;
          } else {
            const long k = kg * group_elems_ + e;  // (ky, kx, ch) order
            if (k < reduction) {
              const long ch = k % p.ic, tap = k / p.ic;
              k_offset = ch * p.kh * p.kw + tap;
            }
          }
          if (k_offset < 0) continue;
          for (int c = 0; c < here; c++)
            for (int lane = 0; lane < vlen_; lane++) {
              const long o = static_cast<long>(chunk0 + c) * vlen_ + lane;
              if (o >= p.oc) continue;
              const int8_t w = weights[o * reduction + k_offset];
              uint8_t* dst = gw + (((s * k_groups_ + kg) * here + c) * vlen_ + lane) * 4 + e * elem_bytes_;
              if (elem_bytes_ == 1) {
                memcpy(dst, &w, 1);
              } else {
                const int16_t wide = w;
                memcpy(dst, &wide, 2);
              }
            }
        }
  }
}

const ConvInt8::Kernels& ConvInt8::kernels_for(int n_tail) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(n_tail);
  if (it != kernels_.end()) return it->second;
  const long pixel_stride = form_ == Form::rows ? static_cast<long>(step_w_) * pixel_elems_ * elem_bytes_
                                                : k_groups_ * 4;
  auto conf = [&](int ur_oc, int lanes) {
    return init_gemm_int8_conf(isa_, dot_, blocking_, ur_oc, n_tail, pixel_stride, out_pack_, lanes, params_.bias,
                               requantize_, params_.act);
  };
  Kernels k;
  k.conf_main = conf(blocking_.ur_oc, vlen_);
  k.conf_last = conf(chunks_ - (groups_ - 1) * blocking_.ur_oc, params_.oc - (chunks_ - 1) * vlen_);
  if (isa_ != Isa::scalar) {
    auto make = [](const GemmInt8Conf& c) {
      return KernelRegistry::instance().get(c.name(), [c] { return std::make_unique<GemmInt8Generator>(c); });
    };
    if (groups_ > 1) k.main = make(k.conf_main);
    k.last = make(k.conf_last);
    for (const JitKernelPtr& kernel : {k.main, k.last})
      if (kernel && std::find(kernel_names_.begin(), kernel_names_.end(), kernel->name()) == kernel_names_.end())
        kernel_names_.push_back(kernel->name());
  }
  return kernels_.emplace(n_tail, k).first->second;
}

}  // namespace jitconv
