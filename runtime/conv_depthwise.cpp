#include "runtime/conv_depthwise.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "jit/conv_dw_gen.h"
#include "runtime/border.h"
#include "runtime/conv_depthwise_kernels.h"
#include "runtime/error.h"

namespace jitconv {

ConvDepthwise::ConvDepthwise(const ConvParams& params, const float* weights, const float* bias, Isa isa, int pack,
                             Kernel kernel)
    : params_(params), isa_(isa), pack_(pack), channels_(params.ic) {
  if (params.bias && !bias) fail("depthwise convolution: bias enabled but no bias values given");
  if (params.ic != params.oc) fail("depthwise convolution needs ic == oc, got ", params.ic, " and ", params.oc);
  if (pack != 1 && pack != 4 && pack != 8 && pack != 16) fail("depthwise convolution: bad elempack ", pack);
  if (channels_ % pack != 0)
    fail("depthwise convolution: ", channels_, " channels are not divisible by elempack ", pack);
  if (pack > 4 && pack > isa_lanes(isa))
    fail("depthwise convolution: elempack ", pack, " is wider than the ", isa_name(isa), " vector");
  const bool jit_ok = conv_dw_jit_supported(isa, params.kw, params.sw, pack, params.act);
  if (kernel == Kernel::jit && !jit_ok)
    fail("no generated depthwise kernel for kw ", params.kw, " stride ", params.sw, " elempack ", pack, " on ",
         isa_name(isa));
  use_jit_ = kernel == Kernel::jit || (kernel == Kernel::automatic && jit_ok);

  // dst = channels/pack - [kh][kw][pack]; src is ncnn's [channel][kh][kw].
  const int taps = params.kh * params.kw;
  weights_.create(channels_ * taps);
  float* w = weights_;
  for (int c = 0; c < channels_; c++)
    for (int t = 0; t < taps; t++)
      w[(static_cast<long>(c / pack) * taps + t) * pack + c % pack] = weights[static_cast<long>(c) * taps + t];
  if (params.bias) {
    bias_.create(channels_);
    memcpy(bias_.data, bias, channels_ * sizeof(float));
  }
}

const ConvDepthwise::Kernels& ConvDepthwise::kernels_for(int iw, int pad_left, int ow) const {
  const std::vector<int> key = {iw, pad_left, ow};
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(key);
  if (it != kernels_.end()) return it->second;
  ConvDwProblem p;
  p.iw = iw;
  p.ow = ow;
  p.kw = params_.kw;
  p.sw = params_.sw;
  p.dw = params_.dw;
  p.pad_left = pad_left;
  p.pack = pack_;
  p.bias = params_.bias;
  p.act = params_.act;
  auto make = [](const ConvDwConf& conf) {
    return KernelRegistry::instance().get(conf.name(), [conf] { return std::make_unique<ConvDwGenerator>(conf); });
  };
  const ConvDwConf edge = init_conv_dw_conf(isa_, p);
  Kernels k;
  k.edge = make(edge);
  ConvDwConf interior;
  if (conv_dw_interior_conf(edge, params_.kh, interior)) k.interior = make(interior);
  return kernels_.emplace(key, k).first->second;
}

void ConvDepthwise::prepare(int ih, int iw) {
  if (!use_jit_) return;
  ConvPads pads = params_.pads_for(ih, iw);
  int oh, ow;
  params_.output_size(ih, iw, oh, ow);
  if (params_.pad_value != 0.f && pads.any()) {
    iw += pads.left + pads.right;
    pads = ConvPads();
  }
  kernels_for(iw, pads.left, ow);
}

int ConvDepthwise::rows_per_task(int packs, int oh, int num_threads) const {
  // Whole planes keep each pack's input rows streaming through the cache once; split
  // the rows only when there are too few packs to keep every thread busy.
  if (num_threads <= 1) return oh;
  const int want_tasks = 4 * num_threads;
  const int chunks = std::min(oh, std::max(1, (want_tasks + packs - 1) / packs));
  return (oh + chunks - 1) / chunks;
}

void ConvDepthwise::forward(const Mat& bottom_in, Mat& top, const Option& opt) const {
  if (bottom_in.dims != 3) fail("depthwise convolution expects a 3-D input, got dims ", bottom_in.dims);
  if (bottom_in.elempack != pack_ || bottom_in.c * bottom_in.elempack != channels_ ||
      bottom_in.elemsize != 4u * static_cast<size_t>(pack_))
    fail("depthwise convolution expects ", channels_, " fp32 channels packed by ", pack_, ", got ",
         bottom_in.c * bottom_in.elempack, " packed by ", bottom_in.elempack, " (elemsize ", bottom_in.elemsize, ")");
  ConvPads pads = params_.pads_for(bottom_in.h, bottom_in.w);
  int oh, ow;
  params_.output_size(bottom_in.h, bottom_in.w, oh, ow);
  // Padding taps are skipped; only a non-zero pad value needs a padded copy.
  Mat bottom = bottom_in;
  if (params_.pad_value != 0.f && pads.any()) {
    Option pad_opt = opt;
    pad_opt.blob_allocator = opt.workspace_allocator;
    copy_make_border(bottom_in, bottom, pads.top, pads.bottom, pads.left, pads.right, params_.pad_value, pad_opt);
    pads = ConvPads();
  }
  top.create(ow, oh, channels_ / pack_, static_cast<size_t>(pack_) * 4, pack_, opt.blob_allocator);
  if (use_jit_)
    forward_jit(bottom, top, pads, oh, ow, opt);
  else
    forward_loops(bottom, top, pads, oh, ow, opt);
}

void ConvDepthwise::forward_jit(const Mat& bottom, Mat& top, const ConvPads& pads, int oh, int ow,
                                const Option& opt) const {
  const Kernels& kernels = kernels_for(bottom.w, pads.left, ow);
  const ConvDwKernelFn edge_fn = kernels.edge->entry<ConvDwKernelFn>();
  const ConvDwKernelFn interior_fn = (kernels.interior ? kernels.interior : kernels.edge)->entry<ConvDwKernelFn>();
  const int ih = bottom.h, kh = params_.kh, sh = params_.sh, dh = params_.dh;
  const int packs = channels_ / pack_;
  const long row_bytes = static_cast<long>(bottom.w) * pack_ * 4;
  const long src_pack_floats = static_cast<long>(bottom.cstep) * pack_;
  const long dst_pack_floats = static_cast<long>(top.cstep) * pack_;
  const int taps = kh * params_.kw;
  const int pad_top = pads.top;
  // Output rows whose every kernel row is inside the input: [inner_begin, inner_end).
  // Row oy reads input rows oy*sh - pad_top .. that + (kh-1)*dh.
  const int inner_begin = std::min(oh, (pad_top + sh - 1) / sh);
  const int last_row_room = ih - 1 - (kh - 1) * dh + pad_top;  // largest oy*sh with the last tap inside
  const int inner_end = last_row_room < 0 ? inner_begin : std::max(inner_begin, std::min(oh, last_row_room / sh + 1));
  const int rows_per = rows_per_task(packs, oh, opt.num_threads);
  const int chunks = (oh + rows_per - 1) / rows_per;
  const float* src = bottom;
  float* dst = top;
  const float* weights = weights_;
  const float* bias = params_.bias ? static_cast<const float*>(bias_) : nullptr;

#pragma omp parallel for num_threads(opt.num_threads) schedule(static)
  for (long task = 0; task < static_cast<long>(packs) * chunks; task++) {
    const int q = static_cast<int>(task / chunks);
    const int row_end = std::min(oh, static_cast<int>(task % chunks) * rows_per + rows_per);
    ConvDwArgs args;
    args.bias = bias ? bias + q * pack_ : nullptr;
    args.src_row_step = sh * row_bytes;
    args.src_kh_step = dh * row_bytes;
    for (int oy = static_cast<int>(task % chunks) * rows_per; oy < row_end;) {
      const int iy0 = oy * sh - pad_top;
      int kh_begin = 0, kh_end = kh, rows = 1;
      const bool interior = oy >= inner_begin && oy < inner_end;
      if (interior) {
        rows = std::min(row_end, inner_end) - oy;
      } else {
        kh_begin = iy0 >= 0 ? 0 : (-iy0 + dh - 1) / dh;
        kh_end = ih - iy0 > 0 ? std::min(kh, (ih - iy0 + dh - 1) / dh) : 0;
      }
      args.kh_count = std::max(0, kh_end - kh_begin);
      args.rows = rows;
      args.src = src + q * src_pack_floats + static_cast<long>(iy0 + kh_begin * dh) * bottom.w * pack_;
      args.weights = weights + static_cast<long>(q) * taps * pack_ + static_cast<long>(kh_begin) * params_.kw * pack_;
      args.dst = dst + q * dst_pack_floats + static_cast<long>(oy) * ow * pack_;
      (interior ? interior_fn : edge_fn)(&args);
      oy += rows;
    }
  }
}

void ConvDepthwise::forward_loops(const Mat& bottom, Mat& top, const ConvPads& pads, int oh, int ow,
                                  const Option& opt) const {
  DepthwiseJob job;
  job.src = bottom;
  job.src_cstep = static_cast<long>(bottom.cstep) * pack_;
  job.ih = bottom.h;
  job.iw = bottom.w;
  job.dst = top;
  job.dst_cstep = static_cast<long>(top.cstep) * pack_;
  job.oh = oh;
  job.ow = ow;
  job.weights = weights_;
  job.bias = params_.bias ? static_cast<const float*>(bias_) : nullptr;
  job.packs = channels_ / pack_;
  job.lanes = pack_;
  job.kh = params_.kh;
  job.kw = params_.kw;
  job.sh = params_.sh;
  job.sw = params_.sw;
  job.dh = params_.dh;
  job.dw = params_.dw;
  job.pad_top = pads.top;
  job.pad_left = pads.left;
  job.act = params_.act;
  job.rows_per_task = rows_per_task(job.packs, oh, opt.num_threads);
  job.num_threads = opt.num_threads;
  // The layer's ISA, not current_isa(): a pipeline made under a cap keeps its choice.
  switch (isa_) {
    case Isa::avx512: avx512::conv_depthwise_simd(job); break;
    case Isa::avx2: avx2::conv_depthwise_simd(job); break;
    default: scalar::conv_depthwise_simd(job); break;
  }
}

std::string ConvDepthwise::describe() const {
  std::ostringstream os;
  os << "depthwise " << isa_name(isa_) << " elempack " << pack_ << (use_jit_ ? " generated" : " loops");
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& kv : kernels_)
    for (const JitKernelPtr& k : {kv.second.edge, kv.second.interior})
      if (k && std::find(names.begin(), names.end(), k->name()) == names.end()) names.push_back(k->name());
  for (const std::string& n : names) os << "\n  kernel " << n;
  return os.str();
}

}  // namespace jitconv
