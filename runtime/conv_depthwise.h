// Depthwise convolution (group == ic == oc): every channel convolved with its own
// kh x kw filter. Packed blobs (elempack 4/8/16 within the ISA's vector) run on the
// generated kernels of jit/conv_dw_gen.h; elempack 1, the scalar ISA and kernels too
// wide for a register block run on the per-ISA loops of conv_depthwise_simd.inl.
//
// Threads split (channel pack x block of output rows); every output row is computed by
// the same code whichever thread and block it falls in, so results do not depend on
// the thread count.
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "jit/conv_dw_conf.h"
#include "jit/kernel_registry.h"
#include "runtime/conv_impl.h"
#include "runtime/cpu.h"

namespace jitconv {

class ConvDepthwise final : public ConvImpl {
 public:
  enum class Kernel {
    automatic,  // generated where conv_dw_jit_supported(), else the per-ISA loops
    jit,        // generated (throws when unsupported)
    loops,      // the per-ISA loops
  };
  // params.ic == params.oc == channels; weights: channels x kh x kw (ncnn's order for
  // group == channels); bias: channels values or null. pack: elempack of input and
  // output (1, 4, 8 or 16; must divide the channel count).
  ConvDepthwise(const ConvParams& params, const float* weights, const float* bias, Isa isa, int pack,
                Kernel kernel = Kernel::automatic);

  int in_elempack() const override { return pack_; }
  int out_elempack() const override { return pack_; }
  void prepare(int ih, int iw) override;
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override;
  std::string name() const override { return "depthwise"; }
  std::string describe() const override;
  size_t weight_bytes() const override { return weights_.bytes() + bias_.bytes(); }
  bool generated() const { return use_jit_; }

 private:
  struct Kernels {
    JitKernelPtr edge;      // any valid kernel-row range
    JitKernelPtr interior;  // rows with every kernel row inside (null: the edge kernel serves them)
  };
  // The kernels for an (unpadded or pre-padded) input width and left padding.
  const Kernels& kernels_for(int iw, int pad_left, int ow) const;
  void forward_jit(const Mat& bottom, Mat& top, const ConvPads& pads, int oh, int ow, const Option& opt) const;
  void forward_loops(const Mat& bottom, Mat& top, const ConvPads& pads, int oh, int ow, const Option& opt) const;
  int rows_per_task(int packs, int oh, int num_threads) const;

  ConvParams params_;
  Isa isa_;
  int pack_;
  int channels_;
  bool use_jit_;
  Mat weights_;  // channels/pack - [kh][kw][pack]
  Mat bias_;     // channels values (empty without bias)

  mutable std::mutex mutex_;
  mutable std::map<std::vector<int>, Kernels> kernels_;  // by (iw, pad_left, ow)
};

}  // namespace jitconv
