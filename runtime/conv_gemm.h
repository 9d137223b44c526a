// Convolution on the GEMM microkernel (jit/gemm_gen.h): M = output channels, N = output
// pixels, K = ic (1x1) or ic*kh*kw. Forms:
//   pointwise  1x1, stride 1, no padding: B is the packed input itself, no copy
//   subsample  1x1 with stride or padding. Unpadded with wide output rows: one output row
//              per call, B read in place with the stride as its pixel step (no copy);
//              otherwise each pixel range is gathered into a panel (narrow rows would
//              re-stream the weights for a handful of pixels per call)
//   im2col     k x k: each pixel range is unrolled into a [K/16][pixels][16] panel
//   brgemm     k x k: batch-reduce over the kernel taps, one output row per call, no
//              im2col; the input is read in place (rows outside it leave the batch, left /
//              right padding comes from a per-task window of the valid rows). Unpacked
//              inputs (elempack 1, no width dilation) batch over kernel rows instead: a
//              row's kw taps of one channel are kw consecutive floats of the input, so they
//              are B's k packing and each batch entry reduces K = ic * kw (3x3 on RGB: 3
//              entries of 9, not 9 of 3)
// Panels are sized to stay in L2 and K is blocked so one A block stays in L1 (partial
// sums go through a per-thread buffer between K blocks).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "jit/gemm_conf.h"
#include "runtime/conv_impl.h"
#include "runtime/gemm_kernel_cache.h"

namespace jitconv {

class ConvGemm final : public ConvImpl {
 public:
  enum class Form { pointwise, subsample, im2col, brgemm };
  // form_name: "" (choose), "im2col" or "brgemm" for k x k problems.
  ConvGemm(const ConvParams& params, const float* weights, const float* bias, Isa isa, int in_pack, int out_pack,
           const std::string& form_name = std::string());

  int in_elempack() const override { return in_pack_; }
  int out_elempack() const override { return out_pack_; }
  void prepare(int ih, int iw) override;
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override;
  // The residual is added in the kernels' epilogue when the output is packed by vlen.
  bool fuses_residual() const override { return residual_; }
  void forward_residual(const Mat& bottom, const Mat& residual, Mat& top, const Option& opt) const override;
  std::string name() const override { return "gemm"; }
  std::string describe() const override;
  size_t weight_bytes() const override { return weights_.bytes() + bias_.bytes(); }
  Form form() const { return form_; }

 private:
  // residual_offset: bytes from an output element to its residual (fused residual only).
  void run(const Mat& bottom, const Mat* residual, Mat& top, const Option& opt) const;
  void forward_pointwise(const Mat& bottom, Mat& top, long residual_offset, const Option& opt) const;
  void forward_strided(const Mat& bottom, Mat& top, long residual_offset, const Option& opt) const;
  void forward_panels(const Mat& bottom, Mat& top, const ConvPads& pads, long residual_offset, const Option& opt) const;
  void forward_brgemm(const Mat& bottom, Mat& top, const ConvPads& pads, long residual_offset, const Option& opt) const;
  // Pixels per range of this form for `threads` threads, the last range taking the rest.
  // Pointwise (a task per range and chunk group): equal ranges of at most 256 pixels (one
  // thread: pointwise_stream_pixels()), a multiple of nr, making whole rounds of tasks for
  // the threads where possible (equal_range_length). Panels (every chunk group of a panel
  // runs in its task): 256 unless the panels do not divide among the threads, then equal
  // panels a round per thread (panel_length): a single panel of a 14x14 output ran on one
  // thread (two threads, forced im2col, x oneDNN: 3x3 256@14 0.49, one thread 0.85).
  long range_length(long pixels, int threads) const;
  // Pixels a pointwise chunk group streams through in a row (conv_gemm.cpp).
  long pointwise_stream_pixels() const;
  // Subsample problems read in place (unpadded, output rows of at least this many pixels).
  bool strided_in_place(int ow) const;
  // The kernels of chunk groups [0, groups) for calls over `pixels` pixels (looked up once
  // per forward, outside the threads' tasks), prefetching A where a_prefetch_lines says so.
  std::vector<GemmKernelCache::Kernel> group_kernels(const GemmKernelCache& cache, int pixels, int groups) const;
  struct RangeKernels {
    std::vector<GemmKernelCache::Kernel> full, last;  // for full ranges / the last range
  };
  RangeKernels range_kernels(const GemmKernelCache& cache, long pixels, long range_pixels, int groups) const;
  // Weights past L2 stream from L3 on every forward: each call of `cache`'s kernels then
  // prefetches the A block after its own (the next chunk group's, or its next K block),
  // this many lines per k group, so that all of it is in L2 when that call starts. 0 for
  // weights within L2 and for kernels that prefetch B or are batch-reduced (brgemm).
  int a_prefetch_lines(const GemmKernelCache& cache, int pixels) const;
  long k_block_for(int pixels) const;  // K per call over `pixels` pixels
  bool input_outgrows_half_l2(int ih, int iw) const;  // an ih x iw input of all ic channels
  // Pointwise calls over an ih x iw input prefetch B ahead in the first chunk group (see
  // kPointwisePrefetchMinPlanes in the .cpp).
  bool pointwise_prefetch(int ih, int iw) const;
  // Runs chunk groups [group_begin, group_end) x K blocks over `pixels` pixels of B (panel
  // or input) with `kernels` (group_kernels for this pixel count).
  void run_pixels(const std::vector<GemmKernelCache::Kernel>& kernels, const float* b, long b_k_stride, int pixels, float* c,
                  long c_plane_stride, float* acc, int group_begin, int group_end, long residual_offset,
                  long b_prefetch_offset = 0) const;

  ConvParams params_;
  Isa isa_;
  int vlen_;
  int in_pack_, out_pack_;
  Form form_;
  bool residual_;  // kernels add a residual input (params.residual and out_pack == vlen)
  GemmBlocking blocking_;
  int chunks_, groups_;
  int k_pack_;       // B's k packing (in_pack for 1x1 forms and brgemm, 16 for im2col, kw for brgemm rows)
  bool brgemm_rows_ = false;  // brgemm batched over kernel rows (see the form list)
  long k_total_;     // K padded to k_pack
  long k_block_;     // K per kernel call (multiple of k_pack)
  long group_floats_;
  Mat weights_;      // groups of [K][chunks in group][vlen]; brgemm: [tap][ic] for K, rows: [ky][ic][kx]
  Mat bias_;

  std::unique_ptr<GemmKernelCache> kernels_;
  std::unique_ptr<GemmKernelCache> strided_kernels_;  // subsample read in place: B's pixel step is the stride
  std::unique_ptr<GemmKernelCache> prefetch_kernels_;  // pointwise, prefetching B ahead (pointwise_prefetch)
};

}  // namespace jitconv
