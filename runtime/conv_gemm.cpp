#include "runtime/conv_gemm.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "jit/gemm_gen.h"
#include "runtime/border.h"
#include "runtime/conv_panels_kernels.h"
#include "runtime/cpu.h"
#include "runtime/error.h"
#include "runtime/task_ranges.h"

namespace jitconv {

namespace {
constexpr int kIm2colPack = 16;  // im2col panels pack K by a 64-byte line per pixel
constexpr long kPanelPixels = 256;  // pixels per task: panels of a few hundred KB stay in L2
// Calls over this many pixels take all of K at once when the group's A is at most this
// big: it then streams from L2 once per call instead of the partial sums making a round
// trip per K block (one thread, x oneDNN, K blocked for L1 / whole: 1x1 256->64 @56
// 0.97 / 1.05, 512->128 @28 0.98 / 1.00, 1024->256 @14 0.99 / 1.00; on 49-pixel calls
// the blocks win: 2048->512 @7 0.95-1.00 / 0.95, 512->2048 @7 0.98 / 0.96).
constexpr long kWholeKMinPixels = 128;
constexpr long kWholeKMaxABytes = 256 * 1024;
// Pointwise B is read in place, one stream per channel plane (ic / in_pack of them). With
// many planes, more streams than the hardware prefetchers follow, the first chunk group's
// call over a range waited on L3 for every line; it now prefetches into L2 the lines
// kPointwisePrefetchBlocks register blocks ahead in each plane (the other groups find the
// range in L2). Zen 3 (AVX2), one thread, x oneDNN, three interleaved rounds, prefetching
// 512 / 768 / 1536 bytes (2.7 / 4 / 8 blocks of 6 pixels) ahead against none: 256->64 @56
// 1.00 / 1.01 / 1.00 against 0.92, 256->128 @56 0.96 / 0.95 / 0.94 against 0.93, 1024->256
// @14 0.98 / 1.00 / 0.98 against 0.97 (4096 bytes: 0.92 at 256->64); 64->256 @56 (8
// planes) and 32->64 @112 (4) unchanged or slower.
// AVX-512 hosts were not measured with it (their 1x1 layers ran at 0.99-1.20x without).
constexpr long kPointwisePrefetchMinPlanes = 16;
// Pixels a 1x1 stride-1 layer's calls stream through per chunk group: the longest run, up
// to kPointwiseRangePixels, whose B (ic floats a pixel) stays within half of L2 for the
// chunk groups after the first. Its calls then keep their input and output plane streams
// going for thousands of pixels instead of restarting them (and the hardware prefetchers'
// training) every kPanelPixels. One thread takes such runs as its ranges; several threads
// keep ranges of kPanelPixels, so that the tasks taken over between threads at the end stay
// small, and order their tasks so that each group walks a run's ranges in a row.
// Zen 4, x oneDNN, three interleaved rounds, 256-pixel ranges -> runs, one thread: 16->96
// @112 0.885 -> 0.934 (0.855 -> 0.970 in a second set), 64->128 @112 0.972 -> 1.000,
// 64->256 @56 0.976 -> 0.983, 24->72 / 24->144 / 32->64 / 256->128 / 512->256 within 1%;
// AVX2 on the same host 16->96 1.011 -> 1.064, 32->64 1.001 -> 1.057, 64->128 @112 0.975
// -> 1.007 (without the L2 bound 0.995 -> 0.855 there: six chunk groups re-read its B from
// L3). Two threads, ranges of 256 / 1024 / 2048 / 4096 pixels: 32->64 @112 0.98 / 0.98 /
// 0.95 / 0.97, 64->128 @112 0.99-1.00 / 0.98 / 0.97 / 0.98; 256-pixel ranges in runs:
// 16->96 @112 0.945 -> 0.987, 64->256 @56 0.972 -> 0.984, 128->256 @56 0.981 -> 1.005,
// 256->128 @56 0.987 -> 1.011, six other 1x1 layers within 1%.
constexpr long kPointwiseRangePixels = 4096;
constexpr long kPointwisePrefetchBlocks = 4;
}  // namespace

ConvGemm::ConvGemm(const ConvParams& params, const float* weights, const float* bias, Isa isa, int in_pack,
                   int out_pack, const std::string& form_name)
    : params_(params), isa_(isa), vlen_(isa_lanes(isa)), in_pack_(in_pack), out_pack_(out_pack),
      residual_(params.residual && out_pack == isa_lanes(isa)) {
  if (isa == Isa::scalar) fail("GEMM convolution needs AVX2 or AVX-512");
  if (params.ic % in_pack != 0 || params.oc % out_pack != 0 || out_pack > vlen_)
    fail("GEMM convolution: bad elempacks ", in_pack, "->", out_pack, " for ", params.to_string());
  const bool pointwise_kernel = params.kh == 1 && params.kw == 1;
  const bool no_pad = params.pad_top == 0 && params.pad_left == 0 && params.pad_bottom == 0 && params.pad_right == 0;
  if (pointwise_kernel)
    form_ = params.sh == 1 && params.sw == 1 && no_pad ? Form::pointwise : Form::subsample;
  else
    form_ = form_name == "brgemm" ? Form::brgemm : Form::im2col;
  if (!form_name.empty() && form_name != "im2col" && form_name != "brgemm") fail("unknown GEMM form '", form_name, "'");

  chunks_ = (params.oc + vlen_ - 1) / vlen_;
  blocking_ = form_ == Form::pointwise ? choose_pointwise_blocking(isa, chunks_, params.ic, params.act)
                                       : choose_gemm_blocking(isa, chunks_, params.act);
  groups_ = (chunks_ + blocking_.ur_oc - 1) / blocking_.ur_oc;
  const int taps = params.kh * params.kw;
  brgemm_rows_ = form_ == Form::brgemm && in_pack == 1 && params.kw > 1 && params.dw == 1;
  k_pack_ = form_ == Form::im2col ? kIm2colPack : brgemm_rows_ ? params.kw : in_pack;
  const bool one_by_one = form_ == Form::pointwise || form_ == Form::subsample;
  const long k_logical = static_cast<long>(params.ic) * (one_by_one ? 1 : taps);
  k_total_ = (k_logical + k_pack_ - 1) / k_pack_ * k_pack_;
  // One A block (k_block x ur_oc x vlen floats) should stay in about half of L1.
  const long l1_half = static_cast<long>(cpu_info().l1d_bytes) / 2;
  const long per_k = static_cast<long>(blocking_.ur_oc) * vlen_ * 4;
  long k_block = std::max<long>(k_pack_, l1_half / per_k / k_pack_ * k_pack_);
  if (form_ == Form::brgemm || k_total_ <= k_block + k_block / 4) k_block = k_total_;
  k_block_ = k_block;
  group_floats_ = k_total_ * blocking_.ur_oc * vlen_;

  // dst = group - [K][chunk in group][vlen]; K order per form (see header).
  weights_.create(static_cast<int>(group_floats_ * groups_));
  weights_.fill(0.f);
  float* w = weights_;
  const int ic = params.ic, kh = params.kh, kw = params.kw;
  for (int g = 0; g < groups_; g++) {
    const int chunk0 = g * blocking_.ur_oc;
    const int here = std::min(blocking_.ur_oc, chunks_ - chunk0);
    float* gw = w + g * group_floats_;
    for (long kk = 0; kk < k_logical; kk++) {
      int ch, y = 0, x = 0;
      if (one_by_one) {
        ch = static_cast<int>(kk);
      } else if (form_ == Form::im2col) {  // (icg, y, x, lane)
        const int lane = static_cast<int>(kk % in_pack);
        long rest = kk / in_pack;
        x = static_cast<int>(rest % kw);
        rest /= kw;
        y = static_cast<int>(rest % kh);
        ch = static_cast<int>(rest / kh) * in_pack + lane;
      } else if (brgemm_rows_) {  // (ky, channel, kx)
        y = static_cast<int>(kk / (static_cast<long>(ic) * kw));
        ch = static_cast<int>(kk / kw % ic);
        x = static_cast<int>(kk % kw);
      } else {  // brgemm: (tap, channel)
        const int tap = static_cast<int>(kk / ic);
        ch = static_cast<int>(kk % ic);
        y = tap / kw;
        x = tap % kw;
      }
      for (int c = 0; c < here; c++)
        for (int v = 0; v < vlen_; v++) {
          const int o = (chunk0 + c) * vlen_ + v;
          if (o >= params.oc) continue;
          gw[(kk * here + c) * vlen_ + v] = weights[((static_cast<long>(o) * ic + ch) * kh + y) * kw + x];
        }
    }
  }
  if (params.bias) {
    bias_.create(chunks_ * vlen_);
    bias_.fill(0.f);
    memcpy(bias_.data, bias, params.oc * sizeof(float));
  }
  GemmConf base;
  base.isa = isa_;
  base.vlen = vlen_;
  base.ur_oc = blocking_.ur_oc;
  base.nr = blocking_.nr;
  base.k_pack = k_pack_;
  base.b_pixel_stride = form_ == Form::brgemm ? static_cast<long>(params_.sw) * in_pack_ * 4 : k_pack_ * 4L;
  base.out_pack = out_pack_;
  base.explicit_bcast = blocking_.explicit_bcast;
  base.bias = params_.bias;
  base.residual = residual_;
  base.act = params_.act;
  base.batch_reduce = form_ == Form::brgemm;
  kernels_ = std::make_unique<GemmKernelCache>(base, params_.oc);
  if (form_ == Form::pointwise && isa_ == Isa::avx2) {
    GemmConf prefetching = base;
    prefetching.prefetch_b = true;
    prefetch_kernels_ = std::make_unique<GemmKernelCache>(prefetching, params_.oc);
  }
  if (form_ == Form::subsample && no_pad) {
    GemmConf strided = base;
    strided.b_pixel_stride = static_cast<long>(params_.sw) * in_pack_ * 4;
    strided.prefetch_b = true;  // rows ahead when the input outgrows L2 (forward_strided)
    strided_kernels_ = std::make_unique<GemmKernelCache>(strided, params_.oc);
  }
}

void ConvGemm::prepare(int ih, int iw) {
  int oh, ow;
  params_.output_size(ih, iw, oh, ow);
  if (form_ == Form::brgemm) {
    for (int g = 0; g < groups_; g++) kernels_->get(g, ow % blocking_.nr);
  } else if (strided_in_place(ow)) {
    for (int g = 0; g < groups_; g++) strided_kernels_->get(g, ow % blocking_.nr);
  } else {  // pointwise or panels: ranges of range_length pixels, the last one the rest
    const long pixels = static_cast<long>(oh) * ow;
    for (int threads : {1, default_num_threads()}) {  // the kernels forward looks up
      const long range = range_length(pixels, threads);
      range_kernels(*kernels_, pixels, range, groups_);
      if (pointwise_prefetch(ih, iw)) range_kernels(*prefetch_kernels_, pixels, range, 1);
    }
  }
}

namespace {
// Below this output width a row-per-call subsample re-reads each group's weights for too
// few pixels (measured, 1x1 s2, ms, in place / panels: ow 28 256->128 0.35 / 0.41, ow 14
// 512->1024 1.63 / 1.41, ow 7 1024->2048 2.40 / 1.47).
constexpr int kStridedMinWidth = 28;
// Output rows ahead for the input prefetch. One thread, 1x1 256->128 s2 @56, x oneDNN over
// three interleaved rounds: 1 row 0.96-1.01, 2 rows 1.00-1.01, 3 rows 0.92-0.98, 4 rows
// 0.97-1.00 (none: 0.89).
constexpr int kStridedPrefetchRows = 2;
}  // namespace

bool ConvGemm::strided_in_place(int ow) const { return strided_kernels_ && ow >= kStridedMinWidth; }

bool ConvGemm::input_outgrows_half_l2(int ih, int iw) const {
  return outgrows_half_l2(static_cast<double>(params_.ic) * ih * iw * 4);
}

bool ConvGemm::pointwise_prefetch(int ih, int iw) const {
  return prefetch_kernels_ && k_total_ / k_pack_ >= kPointwisePrefetchMinPlanes && input_outgrows_half_l2(ih, iw);
}

long ConvGemm::k_block_for(int pixels) const {
  const long a_group_bytes = k_total_ * blocking_.ur_oc * vlen_ * 4;
  return pixels >= kWholeKMinPixels && a_group_bytes <= kWholeKMaxABytes ? k_total_ : k_block_;
}

int ConvGemm::a_prefetch_lines(const GemmKernelCache& cache, int pixels) const {
  // Kernels that prefetch B or reduce over a batch cannot also prefetch A.
  if (cache.base().prefetch_b || cache.base().batch_reduce || weights_.bytes() <= cpu_info().l2_bytes) return 0;
  const long k_block = k_block_for(pixels);
  const long a_lines = (k_block * blocking_.ur_oc * vlen_ * 4 + 63) / 64;
  const long steps = static_cast<long>((pixels + blocking_.nr - 1) / blocking_.nr) * (k_block / k_pack_);
  return static_cast<int>((a_lines + steps - 1) / steps);
}

std::vector<GemmKernelCache::Kernel> ConvGemm::group_kernels(const GemmKernelCache& cache, int pixels,
                                                             int groups) const {
  const int a_lines = a_prefetch_lines(cache, pixels);
  std::vector<GemmKernelCache::Kernel> kernels;
  for (int g = 0; g < groups; g++) kernels.push_back(cache.get(g, pixels % blocking_.nr, 0, a_lines));
  return kernels;
}

void ConvGemm::run_pixels(const std::vector<GemmKernelCache::Kernel>& kernels, const float* b, long b_k_stride, int pixels, float* c,
                          long c_plane_stride, float* acc, int group_begin, int group_end,
                          long residual_offset, long b_prefetch_offset) const {
  const long k_block = k_block_for(pixels);
  const long k_blocks = (k_total_ + k_block - 1) / k_block;
  const float* weights = weights_;
  const float* weights_end = weights + static_cast<long>(weights_.total());
  const long planes_per_group = static_cast<long>(blocking_.ur_oc) * vlen_ / out_pack_;
  for (int g = group_begin; g < group_end; g++) {
    const GemmKernelCache::Kernel& kernel = kernels[g];
    const GemmConf& conf = *kernel.conf;
    for (long kb = 0; kb < k_blocks; kb++) {
      const long k0 = kb * k_block;
      const long k_here = std::min(k_block, k_total_ - k0);
      GemmArgs args{};
      args.a = static_cast<const float*>(weights_) + g * group_floats_ + k0 * conf.ur_oc * vlen_;
      args.b = reinterpret_cast<const float*>(reinterpret_cast<const char*>(b) + (k0 / k_pack_) * b_k_stride);
      args.c = reinterpret_cast<float*>(reinterpret_cast<char*>(c) + g * planes_per_group * c_plane_stride);
      args.acc = acc;
      args.bias = params_.bias ? static_cast<const float*>(bias_) + static_cast<long>(g) * blocking_.ur_oc * vlen_ : nullptr;
      if (residual_) {
        args.residual = reinterpret_cast<const float*>(reinterpret_cast<const char*>(args.c) + residual_offset);
        args.residual_plane_stride = c_plane_stride;
      }
      args.k_groups = k_here / k_pack_;
      args.n_blocks = pixels / blocking_.nr;
      args.b_k_stride = b_k_stride;
      args.c_plane_stride = c_plane_stride;
      args.acc_chunk_stride = static_cast<long>(pixels) * vlen_ * 4;
      args.b_prefetch_offset = b_prefetch_offset;
      // The A block after this one (the last one's wraps to the first): read next by this
      // task or the one after it, which kernels with prefetch_a_lines fetch meanwhile.
      const float* next_a = args.a + k_here * conf.ur_oc * vlen_;
      args.a_prefetch = next_a < weights_end ? next_a : weights;
      args.flags = (kb > 0 ? static_cast<long>(kGemmLoadAcc) : 0L) | (kb == k_blocks - 1 ? static_cast<long>(kGemmFinal) : 0L);
      kernel.fn(&args);
    }
  }
}

long ConvGemm::pointwise_stream_pixels() const {
  const long b_pixel_bytes = static_cast<long>(params_.ic) * 4;
  const long fits_half_l2 = static_cast<long>(cpu_info().l2_bytes / 2) / b_pixel_bytes;
  return std::max(kPanelPixels, std::min(kPointwiseRangePixels, fits_half_l2));
}

long ConvGemm::range_length(long pixels, int threads) const {
  if (form_ == Form::pointwise) {
    const long max_range = threads == 1 ? pointwise_stream_pixels() : kPanelPixels;
    return equal_range_length(pixels, max_range, threads, groups_, blocking_.nr);
  }
  return panel_length(pixels, kPanelPixels, threads, blocking_.nr);
}

ConvGemm::RangeKernels ConvGemm::range_kernels(const GemmKernelCache& cache, long pixels, long range_pixels,
                                               int groups) const {
  const long ranges = (pixels + range_pixels - 1) / range_pixels;
  return {group_kernels(cache, static_cast<int>(range_pixels), groups),
          group_kernels(cache, static_cast<int>(pixels - (ranges - 1) * range_pixels), groups)};
}

void ConvGemm::forward_pointwise(const Mat& bottom, Mat& top, long residual_offset, const Option& opt) const {
  const long pixels = static_cast<long>(bottom.w) * bottom.h;
  const int threads = std::max(1, opt.num_threads);
  const long range_pixels = range_length(pixels, threads);
  const long ranges = (pixels + range_pixels - 1) / range_pixels;
  const long c_plane_stride = static_cast<long>(top.cstep) * out_pack_ * 4;
  const long b_k_stride = static_cast<long>(bottom.cstep) * in_pack_ * 4;
  const bool blocked_k = k_block_ < k_total_;
  const long acc_floats = blocked_k ? static_cast<long>(blocking_.ur_oc) * vlen_ * range_pixels : 0;
  Mat acc;
  if (blocked_k) acc.create(static_cast<int>(acc_floats * threads), 4u, 1, opt.workspace_allocator);
  const int groups = groups_;
  // Kernels looked up once per forward: the cache's lookups lock, and a lock taken per task
  // went back and forth between the cores.
  const RangeKernels kernels = range_kernels(*kernels_, pixels, range_pixels, groups_);
  const bool prefetch = pointwise_prefetch(bottom.h, bottom.w);
  // Only the first chunk group prefetches: its kernels alone (those prepare() generated).
  const RangeKernels prefetching = prefetch ? range_kernels(*prefetch_kernels_, pixels, range_pixels, 1) : RangeKernels();
  const long prefetch_offset = kPointwisePrefetchBlocks * blocking_.nr * in_pack_ * 4L;
  // Tasks in runs of stream_ranges consecutive ranges per chunk group (one range when a
  // range is already a whole stream, as on one thread): a thread's consecutive calls then
  // continue the same plane streams, while ranges of kPanelPixels keep the tasks taken over
  // between threads small.
  const long stream_ranges = std::max(1L, pointwise_stream_pixels() / range_pixels);
  run_tasks(ranges * groups, threads, [&](long task, int thread) {
    const long block = task / (groups * stream_ranges), base = block * stream_ranges;
    const long here = std::min(stream_ranges, ranges - base);
    const long within = task - block * groups * stream_ranges;
    const long range = base + within % here;
    const int g = static_cast<int>(within / here);
    const long p0 = range * range_pixels;
    const int n = static_cast<int>(std::min(range_pixels, pixels - p0));
    float* acc_buf = blocked_k ? static_cast<float*>(acc.data) + acc_floats * thread : nullptr;
    const float* b = static_cast<const float*>(bottom.data) + p0 * in_pack_;
    float* c = static_cast<float*>(top.data) + p0 * out_pack_;
    const bool prefetching_group = prefetch && g == 0;
    const RangeKernels& use = prefetching_group ? prefetching : kernels;
    run_pixels(n == range_pixels ? use.full : use.last, b, b_k_stride, n, c, c_plane_stride, acc_buf, g, g + 1,
               residual_offset, prefetching_group ? prefetch_offset : 0);
  });
}

void ConvGemm::forward_strided(const Mat& bottom, Mat& top, long residual_offset, const Option& opt) const {
  const int oh = top.h, ow = top.w;
  const long c_plane_stride = static_cast<long>(top.cstep) * out_pack_ * 4;
  const long b_k_stride = static_cast<long>(bottom.cstep) * in_pack_ * 4;
  const long src_row = static_cast<long>(params_.sh) * bottom.w * in_pack_;  // floats per output row
  const bool blocked_k = k_block_ < k_total_;
  const long acc_floats = blocked_k ? static_cast<long>(blocking_.ur_oc) * vlen_ * ow : 0;
  Mat acc;
  const int threads = std::max(1, opt.num_threads);
  if (blocked_k) acc.create(static_cast<int>(acc_floats * threads), 4u, 1, opt.workspace_allocator);
  const int groups = groups_;
  // Inputs past half of L2: the row's first group prefetches the input row two output rows
  // ahead (as the direct kernels do); other calls touch their own lines.
  const bool prefetch = input_outgrows_half_l2(bottom.h, bottom.w);
  const long ahead = kStridedPrefetchRows * src_row * 4;
  // Row-major tasks: the groups of one row run back to back while its input is in cache.
  const std::vector<GemmKernelCache::Kernel> kernels = group_kernels(*strided_kernels_, ow, groups_);
  run_tasks(static_cast<long>(oh) * groups, threads, [&](long task, int thread) {
    const int oy = static_cast<int>(task / groups), g = static_cast<int>(task % groups);
    const long pf_offset = prefetch && g == 0 && oy + kStridedPrefetchRows < oh ? ahead : 0;
    float* acc_buf = blocked_k ? static_cast<float*>(acc.data) + acc_floats * thread : nullptr;
    const float* b = static_cast<const float*>(bottom.data) + oy * src_row;
    float* c = static_cast<float*>(top.data) + static_cast<long>(oy) * ow * out_pack_;
    run_pixels(kernels, b, b_k_stride, ow, c, c_plane_stride, acc_buf, g, g + 1, residual_offset, pf_offset);
  });
}

void ConvGemm::forward_panels(const Mat& bottom, Mat& top, const ConvPads& pads, long residual_offset,
                              const Option& opt) const {
  const ConvParams& p = params_;
  const int oh = top.h, ow = top.w;
  const long pixels = static_cast<long>(oh) * ow;
  const int threads = std::max(1, opt.num_threads);
  const long range_pixels = range_length(pixels, threads);
  const long ranges = (pixels + range_pixels - 1) / range_pixels;
  const long panel_floats = k_total_ * kPanelPixels;
  const long acc_floats = static_cast<long>(blocking_.ur_oc) * vlen_ * kPanelPixels;
  Mat work;
  work.create(static_cast<int>((panel_floats + acc_floats) * threads), 4u, 1, opt.workspace_allocator);
  const long c_plane_stride = static_cast<long>(top.cstep) * out_pack_ * 4;
  const int ip = in_pack_, kh = p.kh, kw = p.kw, icg_count = p.ic / ip;
  const long src_cstep = static_cast<long>(bottom.cstep) * ip;
  const bool im2col = form_ == Form::im2col;
  const RangeKernels kernels = range_kernels(*kernels_, pixels, range_pixels, groups_);
  run_tasks(ranges, threads, [&](long range, int thread) {
    float* panel = static_cast<float*>(work.data) + (panel_floats + acc_floats) * thread;
    float* acc = panel + panel_floats;
    const long p0 = range * range_pixels;
    const int n = static_cast<int>(std::min(range_pixels, pixels - p0));
    // panel = [K / k_pack][n][k_pack]
    const long b_k_stride = static_cast<long>(n) * k_pack_ * 4;
    ConvPanelJob job{};
    job.src = static_cast<const float*>(bottom.data);
    job.src_cstep = src_cstep;
    job.ih = bottom.h;
    job.iw = bottom.w;
    job.in_pack = ip;
    job.channel_packs = icg_count;
    job.kh = im2col ? kh : 1;
    job.kw = im2col ? kw : 1;
    job.sh = p.sh;
    job.sw = p.sw;
    job.dh = p.dh;
    job.dw = p.dw;
    job.pad_top = pads.top;
    job.pad_left = pads.left;
    job.pad_value = p.pad_value;
    job.ow = ow;
    job.pixel_begin = p0;
    job.pixels = n;
    job.k_pack = k_pack_;
    job.panel = panel;
    JITCONV_SIMD_CALL_ISA(isa_, build_conv_panel, job);
    float* c = static_cast<float*>(top.data) + p0 * out_pack_;
    run_pixels(n == range_pixels ? kernels.full : kernels.last, panel, b_k_stride, n, c, c_plane_stride, acc, 0, groups_, residual_offset);
  });
}

void ConvGemm::forward_brgemm(const Mat& bottom, Mat& top, const ConvPads& pads_in, long residual_offset,
                              const Option& opt) const {
  const ConvParams& p = params_;
  // No padded copy of the whole input: kernel rows above / below it are left out of the
  // batch, and with left / right padding each task copies just its valid kernel rows into
  // a zero-bordered window (a few KB that stay in L1). Only a non-zero pad value, which
  // the missing rows would not add, still pads a whole copy.
  Mat src = bottom;
  ConvPads pads = pads_in;
  if (p.pad_value != 0.f && pads.any()) {
    Option pad_opt = opt;
    pad_opt.blob_allocator = opt.workspace_allocator;
    copy_make_border(bottom, src, pads.top, pads.bottom, pads.left, pads.right, p.pad_value, pad_opt);
    pads = ConvPads();
  }
  const int oh = top.h, ow = top.w, ih = src.h, iw = src.w, ip = in_pack_;
  const bool windowed = pads.left > 0 || pads.right > 0;
  const int window_w = iw + pads.left + pads.right;
  const long window_floats = windowed ? static_cast<long>(p.ic) * p.kh * window_w : 0;  // [ic/ip][kh][window_w][ip]
  // Batch entries: every tap, or (rows) every kernel row with its kw taps as k lanes.
  const int taps_per_row = brgemm_rows_ ? 1 : p.kw;
  const int max_entries = p.kh * taps_per_row;
  const long entry_k = brgemm_rows_ ? static_cast<long>(p.ic) * p.kw : p.ic;
  const long c_plane_stride = static_cast<long>(top.cstep) * out_pack_ * 4;
  const long b_k_stride = windowed ? static_cast<long>(p.kh) * window_w * ip * 4 : static_cast<long>(src.cstep) * ip * 4;
  const long planes_per_group = static_cast<long>(blocking_.ur_oc) * vlen_ / out_pack_;
  const int groups = groups_;
  const int threads = std::max(1, opt.num_threads);
  std::vector<const float*> lists(static_cast<size_t>(2) * max_entries * threads);
  Mat windows;
  if (windowed) windows.create(static_cast<int>(window_floats * threads), 4u, 1, opt.workspace_allocator);
  const float* src_data = static_cast<const float*>(src.data);
  const std::vector<GemmKernelCache::Kernel> kernels = group_kernels(*kernels_, ow, groups_);

  // Tasks by output row, chunk groups inner: a thread runs a row's groups one after the
  // other, so its window is built once per row instead of once per (row, group) and the
  // kernel rows stay in L1 across the groups (one thread, x oneDNN, forced GEMM on RGB
  // first layers: see README, "On an AVX2-only machine"). A task takes all of a row's
  // groups where that still gives each thread 32 tasks (the tail a thread waits for stays
  // ~1/32 of its work), else an equal part of them: one task's set-up (list, arguments,
  // the row's window check) is paid once per row instead of once per group (x oneDNN, four
  // rounds, two threads: 7x7s2 RGB 0.88 -> 0.94, 3x3s2 RGB 0.75 -> 0.88, 3x3 64@56 0.89 ->
  // 0.91; one thread: RGB within +-0.02, 96@35 1.05 -> 1.02, 5x5 1.03 -> 1.10).
  const int group_parts = static_cast<int>(std::min<long>(groups, std::max<long>(1, (32L * threads + oh - 1) / oh)));
  std::vector<int> window_row(threads, -1);  // the output row each thread's window holds
  auto input_row = [&](int cg, int y) {  // row y of channel group cg in the (unpadded) input
    return src_data + cg * src.cstep * ip + static_cast<long>(y) * iw * ip;
  };
  run_tasks(static_cast<long>(oh) * group_parts, threads, [&](long task, int thread) {
    const int oy = static_cast<int>(task / group_parts), part = static_cast<int>(task % group_parts);
    const int g_begin = groups * part / group_parts, g_end = groups * (part + 1) / group_parts;
    const float** a_list = lists.data() + static_cast<size_t>(2) * max_entries * thread;
    const float** b_list = a_list + max_entries;
    const int iy0 = oy * p.sh - pads.top;
    const int y_begin = iy0 >= 0 ? 0 : std::min(p.kh, (-iy0 + p.dh - 1) / p.dh);
    const int y_end = std::max(y_begin, ih - iy0 > 0 ? std::min(p.kh, (ih - iy0 + p.dh - 1) / p.dh) : 0);
    const int rows = y_end - y_begin;
    const float* row0;  // kernel row y_begin, padded column 0, channel group 0
    long row_stride;    // floats between the kernel rows of row0
    if (windowed) {
      float* window = static_cast<float*>(windows.data) + window_floats * thread;
      if (window_row[thread] != oy) {
        for (int cg = 0; cg < p.ic / ip; cg++)
          for (int r = 0; r < rows; r++) {
            const float* in = input_row(cg, iy0 + (y_begin + r) * p.dh);
            float* out = window + (static_cast<long>(cg) * p.kh + r) * window_w * ip;
            std::memset(out, 0, sizeof(float) * pads.left * ip);
            std::memcpy(out + static_cast<long>(pads.left) * ip, in, sizeof(float) * iw * ip);
            std::memset(out + static_cast<long>(pads.left + iw) * ip, 0, sizeof(float) * pads.right * ip);
          }
        // Into L2 while this row's groups run, the input rows the next output row's window
        // adds: its copy otherwise waits on L3 for them.
        for (int r = 0; r < p.kh; r++) {
          const int y = iy0 + p.sh + r * p.dh;
          if (y <= iy0 + (p.kh - 1) * p.dh || y < 0 || y >= ih) continue;
          for (int cg = 0; cg < p.ic / ip; cg++) {
            const char* line = reinterpret_cast<const char*>(input_row(cg, y));
            for (long b = 0; b < static_cast<long>(iw) * ip * 4; b += 64) __builtin_prefetch(line + b, 0, 2);
          }
        }
        window_row[thread] = oy;
      }
      row0 = window;
      row_stride = static_cast<long>(window_w) * ip;
    } else {
      row0 = src_data + static_cast<long>(iy0 + y_begin * p.dh) * iw * ip;
      row_stride = static_cast<long>(p.dh) * iw * ip;
    }
    for (int r = 0; r < rows; r++)
      for (int x = 0; x < taps_per_row; x++)
        b_list[r * taps_per_row + x] = row0 + r * row_stride + static_cast<long>(x) * p.dw * ip;
    GemmArgs args{};
    args.a = reinterpret_cast<const float*>(a_list);
    args.b = reinterpret_cast<const float*>(b_list);
    args.k_groups = p.ic / ip;  // rows: ic groups of kw lanes
    args.n_blocks = ow / blocking_.nr;
    args.b_k_stride = b_k_stride;
    args.c_plane_stride = c_plane_stride;
    args.flags = kGemmFinal;
    args.batch = static_cast<long>(rows) * taps_per_row;  // 0: bias and activation only
    if (residual_) args.residual_plane_stride = c_plane_stride;
    for (int g = g_begin; g < g_end; g++) {
      const float* gw = static_cast<const float*>(weights_) + g * group_floats_;
      const long entry_floats = entry_k * kernels_->chunks_in(g) * vlen_;
      for (int r = 0; r < rows; r++)
        for (int x = 0; x < taps_per_row; x++)
          a_list[r * taps_per_row + x] = gw + ((y_begin + r) * taps_per_row + x) * entry_floats;
      args.c = reinterpret_cast<float*>(static_cast<char*>(top.data) + g * planes_per_group * c_plane_stride +
                                        static_cast<long>(oy) * ow * out_pack_ * 4);
      args.bias = p.bias ? static_cast<const float*>(bias_) + static_cast<long>(g) * blocking_.ur_oc * vlen_ : nullptr;
      if (residual_) args.residual = reinterpret_cast<const float*>(reinterpret_cast<const char*>(args.c) + residual_offset);
      kernels[g].fn(&args);
    }
  });
}

void ConvGemm::forward(const Mat& bottom, Mat& top, const Option& opt) const {
  if (residual_) fail("GEMM convolution built for a residual input: call forward_residual");
  run(bottom, nullptr, top, opt);
}

void ConvGemm::forward_residual(const Mat& bottom, const Mat& residual, Mat& top, const Option& opt) const {
  if (!residual_) ConvImpl::forward_residual(bottom, residual, top, opt);
  run(bottom, &residual, top, opt);
}

void ConvGemm::run(const Mat& bottom, const Mat* residual, Mat& top, const Option& opt) const {
  if (bottom.dims != 3 || bottom.elempack != in_pack_ || bottom.c * bottom.elempack != params_.ic)
    fail("GEMM convolution expects ", params_.ic, " channels packed by ", in_pack_);
  int oh, ow;
  params_.output_size(bottom.h, bottom.w, oh, ow);
  const ConvPads pads = params_.pads_for(bottom.h, bottom.w);
  top.create(ow, oh, params_.oc / out_pack_, static_cast<size_t>(out_pack_) * 4, out_pack_, opt.blob_allocator);
  const long residual_offset = residual ? residual_byte_offset(*residual, top) : 0;
  switch (form_) {
    case Form::pointwise: forward_pointwise(bottom, top, residual_offset, opt); break;
    case Form::subsample:
      if (strided_in_place(ow)) {
        forward_strided(bottom, top, residual_offset, opt);
        break;
      }
      forward_panels(bottom, top, pads, residual_offset, opt);
      break;
    case Form::im2col: forward_panels(bottom, top, pads, residual_offset, opt); break;
    case Form::brgemm: forward_brgemm(bottom, top, pads, residual_offset, opt); break;
  }
}

std::string ConvGemm::describe() const {
  static const char* const kForms[] = {"pointwise", "subsample", "im2col", "brgemm"};
  std::ostringstream os;
  os << "gemm " << isa_name(isa_) << " " << kForms[static_cast<int>(form_)] << (brgemm_rows_ ? " (kernel rows)" : "")
     << " elempack " << in_pack_ << "->"
     << out_pack_ << " tile " << blocking_.ur_oc << "x" << blocking_.nr << " K " << k_total_ << " in blocks of "
     << k_block_;
  for (const std::string& n : kernels_->names()) os << "\n  kernel " << n;
  if (strided_kernels_ && !strided_kernels_->names().empty()) {
    os << "\n  strided rows of " << kStridedMinWidth << "+ pixels read in place by:";
    for (const std::string& n : strided_kernels_->names()) os << "\n  kernel " << n;
  }
  if (prefetch_kernels_ && !prefetch_kernels_->names().empty()) {
    os << "\n  first chunk group over inputs of " << kPointwisePrefetchMinPlanes
       << "+ planes past half of L2, prefetching B ahead:";
    for (const std::string& n : prefetch_kernels_->names()) os << "\n  kernel " << n;
  }
  return os.str();
}

}  // namespace jitconv
