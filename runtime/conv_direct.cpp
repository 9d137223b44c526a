#include "runtime/conv_direct.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "jit/conv_direct_gen.h"
#include "runtime/border.h"
#include "runtime/cpu.h"
#include "runtime/error.h"
#include "runtime/task_ranges.h"

namespace jitconv {

namespace {
// Distance of the input-row prefetch. One thread, 1x1 256->128 stride 2 @56 (x oneDNN,
// interleaved, three quiet rounds): none 0.865-0.874, one row 0.942-0.954, two rows
// 0.952-0.956; 1x1 256->64 stride 1 @56: none 0.966-0.973, two rows 1.003-1.008.
constexpr int kPrefetchRowsAhead = 2;
// A 1x1 stride-1 layer read as runs (below) prefetches each input-channel plane this many
// bytes ahead of the pixels a call reads instead: a whole run ahead (229 KB for 256
// channels) was out of L2 again before its turn, and with 32-256 planes streamed at once
// the hardware prefetchers lose track of them, as the pointwise GEMM found. One thread,
// forced direct, x oneDNN, three interleaved rounds, runs two runs ahead / 512 / 1024
// bytes ahead: 256->64 @56 0.94 / 1.04 / 1.03, 256->128 @56 0.93 / 0.99 / 1.00, 512->128
// @28 0.94 / 0.99 / 0.98, 128->512 @28 0.96 / 0.97 / 0.99, 32->64 @112 0.98 / 1.02 /
// 1.03. Only with rows outer (the first group's call prefetches for the others): layers
// whose weights outgrow half of L2 keep the row ahead, which an image of one run does
// not need (1024->256 @14, 2048->512 @7: 0.98 / 0.98 with none, 0.95 / 0.93 with every
// group prefetching 1 KB ahead); strided rows keep the row ahead (1x1 s2 256->128 @56
// 1.08 / 1.07 / 1.02, 512->256 @28 0.93 / 0.89 / 0.85).
constexpr long kRunPrefetchBytes = 1024;
// A 1x1 stride-1 convolution without padding reads each output pixel's input at the same
// offset, so its image can run as rows of any length: rows of a 14-pixel image leave the
// kernels 14 = 5 + 5 + 4 pixels to block and a pass over dst per input-channel block and
// row. Runs of up to this many pixels instead (one thread, forced direct, x oneDNN,
// interleaved, four rounds, image rows / runs of 28 / 98 / 196 / 392 / 784 pixels: 1x1
// 1024->256 @14 0.93 / 0.95 / 0.98 / 0.99-1.00 / - / -, 24->72 @56 1.08 / 1.01 / 1.12 /
// 1.14-1.16 / 1.15 / 1.16, 64->256 @56 0.97 / 0.96 / 0.98 / 0.98-1.00 / 0.99 / 0.99;
// 256->64 @56, 32->64 @112 and 512->128 @28 equal within 1-2%; two threads, runs of 224
// against image rows: every shape within the rounds' spread of +-3%).
constexpr int kMaxRunPixels = 224;
}  // namespace

ConvDirect::ConvDirect(const ConvParams& params, const float* weights, const float* bias, Isa isa, int in_pack,
                       int out_pack, const Tuning& tuning)
    : params_(params), isa_(isa), vlen_(isa_lanes(isa)), in_pack_(in_pack), out_pack_(out_pack),
      residual_(params.residual && out_pack == isa_lanes(isa)), prefetch_weights_(tuning.prefetch_weights) {
  if (isa == Isa::scalar) fail("direct JIT convolution needs AVX2 or AVX-512");
  if (params.ic % in_pack != 0) fail("ic ", params.ic, " is not divisible by input elempack ", in_pack);
  if (params.oc % out_pack != 0) fail("oc ", params.oc, " is not divisible by output elempack ", out_pack);
  if (out_pack > vlen_) fail("output elempack ", out_pack, " exceeds the ", isa_name(isa), " vector");
  ConvDirectProblem shape;
  shape.ic = params.ic;
  shape.oc = params.oc;
  shape.ow = tuning.expected_ow;
  shape.kh = params.kh;
  shape.kw = params.kw;
  shape.sw = params.sw;
  shape.dh = params.dh;
  shape.dw = params.dw;
  shape.in_pack = in_pack;
  shape.out_pack = out_pack;
  shape.act = params.act;
  shape.l2_bytes = static_cast<long>(cpu_info().l2_bytes);
  shape.fast_l3 = cpu_info().fast_l3;
  ur_oc_ = tuning.ur_oc > 0 ? tuning.ur_oc : conv_direct_ur_oc(isa, shape);
  chunks_ = (params.oc + vlen_ - 1) / vlen_;
  groups_ = (chunks_ + ur_oc_ - 1) / ur_oc_;
  const int ic = params.ic, kh = params.kh, kw = params.kw;
  group_floats_ = static_cast<long>(ic) * kh * kw * ur_oc_ * vlen_;

  // dst = group - [ic/in_pack][kh][kw][in_pack][chunk in group][vlen]
  weights_.create(static_cast<int>(group_floats_ * groups_));
  weights_.fill(0.f);
  float* w = weights_;
  for (int g = 0; g < groups_; g++) {
    const int chunk0 = g * ur_oc_;
    const int chunks_here = std::min(ur_oc_, chunks_ - chunk0);
    float* gw = w + g * group_floats_;
    for (int icg = 0; icg < ic / in_pack; icg++)
      for (int y = 0; y < kh; y++)
        for (int x = 0; x < kw; x++)
          for (int lane = 0; lane < in_pack; lane++)
            for (int c = 0; c < chunks_here; c++)
              for (int v = 0; v < vlen_; v++) {
                const int o = (chunk0 + c) * vlen_ + v;
                const int i = icg * in_pack + lane;
                if (o >= params.oc) continue;
                const long dst = ((((static_cast<long>(icg) * kh + y) * kw + x) * in_pack + lane) * chunks_here + c) *
                                     vlen_ + v;
                gw[dst] = weights[((static_cast<long>(o) * ic + i) * kh + y) * kw + x];
              }
  }
  if (params.bias) {
    bias_.create(chunks_ * vlen_);
    bias_.fill(0.f);
    memcpy(bias_.data, bias, params.oc * sizeof(float));
  }
}

int ConvDirect::run_count(int ih, int iw, const ConvPads& pads, int threads) const {
  if (params_.kh != 1 || params_.kw != 1 || params_.sh != 1 || params_.sw != 1 || pads.any()) return 0;
  const long pixels = static_cast<long>(ih) * iw;
  long runs = (pixels + kMaxRunPixels - 1) / kMaxRunPixels;
  // Several threads: about four tasks each (groups x runs), but no runs shorter than the
  // image's rows (a 14x14 image of one chunk group was one task: one thread did it all).
  if (threads > 1) runs = std::max(runs, std::min<long>(ih, (4L * threads + groups_ - 1) / groups_));
  return static_cast<int>(runs);
}

const ConvDirect::Kernels& ConvDirect::kernels_for(int ih, int iw, const ConvPads& pads, int threads) const {
  const int run_target = run_count(ih, iw, pads, threads);
  const std::vector<int> key = {ih, iw, pads.top, pads.left, pads.bottom, pads.right, run_target};
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(key);
  if (it != kernels_.end()) return it->second;
  Kernels k;
  const long pixels = static_cast<long>(ih) * iw;
  const bool runs = run_target > 0;
  if (runs) {
    k.run_pixels = static_cast<int>((pixels + run_target - 1) / run_target);
    k.runs = static_cast<int>((pixels + k.run_pixels - 1) / k.run_pixels);
    k.last_run_pixels = static_cast<int>(pixels - static_cast<long>(k.runs - 1) * k.run_pixels);
  }
  // pads are explicit here: after a pad_value copy they are zero for the padded input.
  const int ow = runs ? k.run_pixels
                     : checked_extent((static_cast<long long>(iw) + pads.left + pads.right - params_.extent_w()) /
                                              params_.sw + 1, "output width");
  const int oh = runs ? k.runs
                      : checked_extent((static_cast<long long>(ih) + pads.top + pads.bottom - params_.extent_h()) /
                                               params_.sh + 1, "output height");
  ConvDirectProblem p;
  p.ic = params_.ic;
  p.iw = runs ? k.run_pixels : iw;
  p.oc = params_.oc;
  p.ow = ow;
  p.kh = params_.kh;
  p.kw = params_.kw;
  p.sw = params_.sw;
  p.dh = params_.dh;
  p.dw = params_.dw;
  p.pad_left = pads.left;
  p.in_pack = in_pack_;
  p.out_pack = out_pack_;
  p.bias = params_.bias;
  p.residual = residual_;
  p.act = params_.act;
  p.prefetch_next_row = prefetch_input_rows(ih, iw);
  k.ic_block = conv_direct_ic_block(isa_, p, ur_oc_);
  k.ic_blocks = (params_.ic + k.ic_block - 1) / k.ic_block;
  // Rows 0 .. oh-2 of a group each prefetch one slice of the next group, a share per
  // input-channel block (only groups before the last have one: the main kernels).
  int prefetch_lines = 0;
  if (prefetch_weights_ && groups_ > 1 && !rows_outer(ih, iw)) {
    const long group_lines = (group_floats_ * 4 + 63) / 64;
    const long calls = static_cast<long>(std::max(1, oh - 1)) * k.ic_blocks;
    prefetch_lines = static_cast<int>((group_lines + calls - 1) / calls);
  }
  k.rows = kernel_set(p, k.ic_block, prefetch_lines);
  if (runs && k.last_run_pixels != k.run_pixels) {
    p.iw = p.ow = k.last_run_pixels;
    k.last_run = kernel_set(p, k.ic_block, prefetch_lines);
  }
  return kernels_.emplace(key, k).first->second;
}

ConvDirect::KernelSet ConvDirect::kernel_set(ConvDirectProblem p, int ic_block, int prefetch_lines) const {
  KernelSet set;
  const int last_chunks = chunks_ - (groups_ - 1) * ur_oc_;
  const int last_lanes = params_.oc - (chunks_ - 1) * vlen_;
  const int ic_blocks = (params_.ic + ic_block - 1) / ic_block;
  const int tail_ic = params_.ic - (ic_blocks - 1) * ic_block;
  p.ic_block = ic_block;
  set.main_conf = init_conv_direct_conf(isa_, p, ur_oc_, vlen_);
  set.last_conf = init_conv_direct_conf(isa_, p, last_chunks, last_lanes);
  p.ic_block = tail_ic;
  set.main_tail_conf = init_conv_direct_conf(isa_, p, ur_oc_, vlen_);
  set.last_tail_conf = init_conv_direct_conf(isa_, p, last_chunks, last_lanes);
  set.main_conf.prefetch_lines = prefetch_lines;
  set.main_tail_conf.prefetch_lines = prefetch_lines;
  auto make = [](const ConvDirectConf& conf) {
    return KernelRegistry::instance().get(conf.name(), [conf] { return std::make_unique<ConvDirectGenerator>(conf); });
  };
  const bool tail = tail_ic != ic_block;
  if (groups_ > 1) set.main = make(set.main_conf);
  set.last = make(set.last_conf);
  if (groups_ > 1 && tail) set.main_tail = make(set.main_tail_conf);
  if (tail) set.last_tail = make(set.last_tail_conf);
  for (const JitKernelPtr& kernel : {set.main, set.last, set.main_tail, set.last_tail})
    if (kernel && std::find(kernel_names_.begin(), kernel_names_.end(), kernel->name()) == kernel_names_.end())
      kernel_names_.push_back(kernel->name());
  return set;
}

bool ConvDirect::input_outgrows_half_l2(int ih, int iw) const {
  return outgrows_half_l2(static_cast<double>(params_.ic) * ih * iw * 4);
}

bool ConvDirect::rows_outer(int ih, int iw) const {
  return groups_ > 1 && !outgrows_half_l2(static_cast<double>(weights_.bytes())) && input_outgrows_half_l2(ih, iw);
}

bool ConvDirect::prefetch_input_rows(int ih, int iw) const { return params_.kh == 1 && input_outgrows_half_l2(ih, iw); }

void ConvDirect::prepare(int ih, int iw) {
  for (int threads : {1, default_num_threads()}) kernels_for(ih, iw, params_.pads_for(ih, iw), threads);
}

void ConvDirect::forward(const Mat& bottom, Mat& top, const Option& opt) const {
  if (residual_) fail("direct convolution built for a residual input: call forward_residual");
  run(bottom, nullptr, top, opt);
}

void ConvDirect::forward_residual(const Mat& bottom, const Mat& residual, Mat& top, const Option& opt) const {
  if (!residual_) ConvImpl::forward_residual(bottom, residual, top, opt);
  run(bottom, &residual, top, opt);
}

void ConvDirect::run(const Mat& bottom_in, const Mat* residual, Mat& top, const Option& opt) const {
  if (bottom_in.dims != 3) fail("direct convolution expects a 3-D input, got dims ", bottom_in.dims);
  if (bottom_in.elempack != in_pack_ || bottom_in.c * bottom_in.elempack != params_.ic)
    fail("direct convolution expects ", params_.ic, " channels packed by ", in_pack_, ", got ",
         bottom_in.c * bottom_in.elempack, " packed by ", bottom_in.elempack);
  ConvPads pads = params_.pads_for(bottom_in.h, bottom_in.w);
  int oh, ow;
  params_.output_size(bottom_in.h, bottom_in.w, oh, ow);
  // Padding taps are skipped by the kernels; only a non-zero pad value needs real padding.
  Mat bottom = bottom_in;
  if (params_.pad_value != 0.f && pads.any()) {
    Option pad_opt = opt;
    pad_opt.blob_allocator = opt.workspace_allocator;
    copy_make_border(bottom_in, bottom, pads.top, pads.bottom, pads.left, pads.right, params_.pad_value, pad_opt);
    pads = ConvPads();
  }
  int ih = bottom.h, iw = bottom.w;
  const Kernels& k = kernels_for(ih, iw, pads, opt.num_threads);
  top.create(ow, oh, params_.oc / out_pack_, static_cast<size_t>(out_pack_) * 4, out_pack_, opt.blob_allocator);
  const long residual_offset = residual ? residual_byte_offset(*residual, top) : 0;
  const bool rows_first = rows_outer(ih, iw);
  const bool prefetch_rows = prefetch_input_rows(ih, iw);
  if (k.runs > 0) {  // the image as rows of run_pixels (the last one of last_run_pixels)
    ih = oh = k.runs;
    iw = ow = k.run_pixels;
  }

  const long src_cstride = static_cast<long>(bottom.cstep) * in_pack_ * 4;
  const long dst_cstride = static_cast<long>(top.cstep) * out_pack_ * 4;
  const long src_row = static_cast<long>(iw) * in_pack_ * 4;
  const KernelSet& set = k.rows;
  const long kh_stride = conv_direct_weight_kh_stride(set.main ? set.main_conf : set.last_conf);
  const long kh_stride_last = conv_direct_weight_kh_stride(set.last_conf);
  const int ic_blocks = k.ic_blocks;
  const long block_packs = k.ic_block / in_pack_;  // packed input channels per full block
  // [row kernels, the shorter last run's][main, last, main_tail, last_tail]
  ConvDirectKernelFn fns[2][4] = {};
  for (int r = 0; r < 2; r++) {
    const KernelSet& ks = r == 0 || !k.last_run.last ? k.rows : k.last_run;
    fns[r][0] = ks.main ? ks.main->entry<ConvDirectKernelFn>() : nullptr;
    fns[r][1] = ks.last->entry<ConvDirectKernelFn>();
    fns[r][2] = ks.main_tail ? ks.main_tail->entry<ConvDirectKernelFn>() : fns[r][0];
    fns[r][3] = ks.last_tail ? ks.last_tail->entry<ConvDirectKernelFn>() : fns[r][1];
  }
  const int kh = params_.kh, dh = params_.dh, sh = params_.sh;
  const long planes_per_group = static_cast<long>(ur_oc_) * vlen_ / out_pack_;
  const float* weights = weights_;
  const float* bias = params_.bias ? static_cast<const float*>(bias_) : nullptr;
  const unsigned char* src = static_cast<const unsigned char*>(bottom.data);
  unsigned char* dst = static_cast<unsigned char*>(top.data);
  const int groups = groups_;
  const int ur_oc = ur_oc_, vlen = vlen_;
  const long group_floats = group_floats_;
  const int pad_top = pads.top;

  // Tasks (group, row) in the order chosen above, each weighted by its group's chunks.
  // Every thread starts on a contiguous run of tasks holding an equal share of the work:
  // with a plain static split a short last group left a thread idle (7x7 s2 ic3 -> 64 in
  // groups of 3 + 1 chunks on two threads: 0.78x oneDNN, one thread 1.10x). Threads that
  // finish early take over the ends of the others' runs (task_ranges.h).
  const long task_count = static_cast<long>(groups) * oh;
  const int last_chunks = chunks_ - (groups - 1) * ur_oc;
  std::vector<long> work_before(task_count + 1, 0);
  for (long task = 0; task < task_count; task++) {
    const int g = static_cast<int>(rows_first ? task % groups : task / oh);
    work_before[task + 1] = work_before[task] + (g == groups - 1 ? last_chunks : ur_oc);
  }
  const int threads = std::max(1, opt.num_threads);
  std::vector<long> bounds(threads + 1);
  const long total = work_before[task_count];
  for (int t = 0; t <= threads; t++)
    bounds[t] = std::lower_bound(work_before.begin(), work_before.end(), total * t / threads) - work_before.begin();
  TaskRanges ranges(bounds);
  const long slice_bytes = static_cast<long>(set.main_conf.prefetch_lines) * 64;  // next group's weights per call
  run_task_ranges(ranges, threads, [&](long task, int) {
    const int g = static_cast<int>(rows_first ? task % groups : task / oh);
    const int oy = static_cast<int>(rows_first ? task / groups : task % oh);
    const bool last = g == groups - 1;
    const int iy0 = oy * sh - pad_top;
    const int kh_begin = iy0 >= 0 ? 0 : (-iy0 + dh - 1) / dh;
    const int kh_end = ih - iy0 > 0 ? std::min(kh, (ih - iy0 + dh - 1) / dh) : 0;
    const long group_kh_stride = last ? kh_stride_last : kh_stride;
    ConvDirectArgs args;
    args.kh_count = std::max(0, kh_end - kh_begin);
    const unsigned char* src_rows = src + static_cast<long>(iy0 + kh_begin * dh) * src_row;
    const float* group_weights = weights + g * group_floats + kh_begin * group_kh_stride / 4;
    args.bias = bias ? bias + static_cast<long>(g) * ur_oc * vlen : nullptr;
    args.dst = reinterpret_cast<float*>(dst + g * planes_per_group * dst_cstride +
                                        static_cast<long>(oy) * ow * out_pack_ * 4);
    args.src_channel_stride = src_cstride;
    args.dst_channel_stride = dst_cstride;
    args.src_row_stride = src_row;
    args.residual_offset = residual_offset;
    // The input row kPrefetchRowsAhead output rows below, fetched once per row: by the
    // row's first group when rows are outer, else by every group (each sweeps the whole
    // input); other calls point at their own row, which is in cache. Runs with rows outer:
    // the first group's lines kRunPrefetchBytes ahead in each plane.
    args.prefetch_row_offset = 0;
    const long ahead_row = iy0 + static_cast<long>(kPrefetchRowsAhead) * sh;  // sh may be near INT_MAX
    if (k.runs > 0 && rows_first) {
      if (g == 0) args.prefetch_row_offset = kRunPrefetchBytes;
    } else if (prefetch_rows && ahead_row < ih && (!rows_first || g == 0)) {
      args.prefetch_row_offset = static_cast<long>(ahead_row - iy0) * src_row;  // kh is 1
    }
    // Prefetch slice (oy, block) of the next group (the last row re-touches the first
    // slices, which are in cache by then: no branch in the kernel).
    const char* next_group = reinterpret_cast<const char*>(weights + (g + 1) * group_floats);
    for (int b = 0; b < ic_blocks; b++) {
      // Blocks of block_packs packed channels; the weights of a block are contiguous:
      // [packs][kh][kw][in_pack][chunks][vlen].
      args.src = reinterpret_cast<const float*>(src_rows + b * block_packs * src_cstride);
      args.weights = group_weights + b * block_packs * kh * group_kh_stride / 4;
      args.prefetch = next_group + ((oy + 1 < oh ? static_cast<long>(oy) : 0) * ic_blocks + b) * slice_bytes;
      args.flags = (b > 0 ? static_cast<long>(kDirectLoadDst) : 0L) | (b + 1 == ic_blocks ? static_cast<long>(kDirectFinal) : 0L);
      const bool tail = b + 1 == ic_blocks;
      fns[k.runs > 0 && oy == oh - 1 ? 1 : 0][(last ? 1 : 0) + (tail ? 2 : 0)](&args);
    }
  });
}

std::string ConvDirect::describe() const {
  std::ostringstream os;
  os << "direct " << isa_name(isa_) << " elempack " << in_pack_ << "->" << out_pack_ << " ur_oc " << ur_oc_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : kernels_)
      if (entry.second.ic_blocks > 1) {
        os << " input channels in blocks of " << entry.second.ic_block;
        break;
      }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& n : kernel_names_) os << "\n  kernel " << n;
  return os.str();
}

}  // namespace jitconv
