// Driver of the generated direct-convolution kernels (jit/conv_direct_gen.h): lays the
// weights out once, then per forward threads the kernel calls over
// (output-channel group x output row) with OpenMP (1x1 stride-1 unpadded images: rows of
// up to 224 pixels cut from the whole image, more runs on more threads). Every output value
// is summed over its inputs in the same order however the work is cut (input-channel blocks
// pass partial sums through dst as exact fp32), so results do not depend on the thread count.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "jit/conv_direct_conf.h"
#include "jit/kernel_registry.h"
#include "runtime/conv_impl.h"

namespace jitconv {

class ConvDirect final : public ConvImpl {
 public:
  // weights: oc x ic x kh x kw; bias: oc values or null. in_pack/out_pack: the layouts of
  // input and output blobs (out_pack <= the ISA's vector width).
  struct Tuning {
    int expected_ow = 0;  // output width when known at create_pipeline (tunes the weight layout)
    int ur_oc = 0;        // force the chunk-group size (tests); 0 = cost model
    // The weights stream from memory (Option::weights_cold): each row of a chunk group
    // prefetches a share of the next group's weights into L2.
    bool prefetch_weights = false;
  };
  ConvDirect(const ConvParams& params, const float* weights, const float* bias, Isa isa, int in_pack, int out_pack,
             const Tuning& tuning);

  int in_elempack() const override { return in_pack_; }
  int out_elempack() const override { return out_pack_; }
  void prepare(int ih, int iw) override;
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override;
  // The residual is added in the kernels' epilogue when the output is packed by vlen.
  bool fuses_residual() const override { return residual_; }
  void forward_residual(const Mat& bottom, const Mat& residual, Mat& top, const Option& opt) const override;
  std::string name() const override { return "direct"; }
  std::string describe() const override;
  size_t weight_bytes() const override { return weights_.bytes() + bias_.bytes(); }

 private:
  // The kernels of one row width.
  struct KernelSet {
    // main: every chunk group but the final one; last: the final group (its own kernel
    // when it has fewer chunks). *_tail: the trailing partial input-channel block.
    ConvDirectConf main_conf, last_conf, main_tail_conf, last_tail_conf;
    JitKernelPtr main, last, main_tail, last_tail;
  };
  struct Kernels {
    KernelSet rows;      // every row (runs: every run but a shorter last one)
    KernelSet last_run;  // runs: the shorter last run's (unused otherwise)
    int ic_block = 0;    // input channels per call
    int ic_blocks = 1;   // calls per output row
    // 1x1 stride-1 unpadded problems: the image as `runs` rows of run_pixels pixels, the
    // last one last_run_pixels (0: the image's own rows).
    int run_pixels = 0, runs = 0, last_run_pixels = 0;
  };
  // 1x1 stride-1 unpadded problems: how many runs to cut the image into for `threads`
  // threads (0: other problems keep the image's rows).
  int run_count(int ih, int iw, const ConvPads& pads, int threads) const;
  const Kernels& kernels_for(int ih, int iw, const ConvPads& pads, int threads) const;
  // The kernels of row problem p for input-channel blocks of ic_block (under mutex_).
  KernelSet kernel_set(ConvDirectProblem p, int ic_block, int prefetch_lines) const;
  void run(const Mat& bottom, const Mat* residual, Mat& top, const Option& opt) const;
  // Task order: row-major (every group of a row back to back) when the input outgrows L2
  // but all the weights fit in it, so each input row is read from memory once instead of
  // once per group; otherwise group-major, keeping one group's weights hot.
  bool rows_outer(int ih, int iw) const;
  // Kernels prefetch the next output row's input (prefetch_next_row) when the input
  // outgrows half of L2.
  bool prefetch_input_rows(int ih, int iw) const;
  bool input_outgrows_half_l2(int ih, int iw) const;  // an ih x iw input of all ic channels

  ConvParams params_;
  Isa isa_;
  int vlen_;
  int in_pack_, out_pack_;
  int ur_oc_;
  bool residual_;    // kernels add a residual input (params.residual and out_pack == vlen)
  bool prefetch_weights_;
  int chunks_;       // ceil(oc / vlen)
  int groups_;       // ceil(chunks / ur_oc)
  long group_floats_;  // weights per full group
  Mat weights_;      // groups of [ic/in_pack][kh][kw][in_pack][chunks][vlen], zero-padded
  Mat bias_;         // chunks * vlen values, zero-padded (empty without bias)

  mutable std::mutex mutex_;
  mutable std::map<std::vector<int>, Kernels> kernels_;  // by (ih, iw, pads, run_count)
  mutable std::vector<std::string> kernel_names_;
};

}  // namespace jitconv
