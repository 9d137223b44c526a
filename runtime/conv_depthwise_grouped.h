// Grouped convolution (1 < group, not the depthwise case): each group is an ordinary
// convolution of ic/g -> oc/g channels, run one after another (each multi-threaded) by
// a Convolution layer of its own, so groups take every path the Convolution path table
// offers (direct, GEMM, Winograd, ...). A run is one group, or k small groups merged
// into one convolution with zero weights between them when that makes their channels
// whole packs (see kMaxMergedGroups).
//
// Input: when a run's channels are a multiple of the input elempack they are whole packs
// and the run reads a channel_range view of the blob (no copy). Otherwise the channels
// straddle packs and are gathered into a blob of their own (one pass over the input per
// forward, reading it at scalar granularity).
// Output: each run computes into its own blob, which is copied into the run's planes of
// the output (one extra pass over the output: a layer allocates its top). When the run's
// output elempack differs from the blob's, the copy scatters lanes across packs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/conv_impl.h"
#include "runtime/cpu.h"
#include "runtime/layer.h"

namespace jitconv {

// int8 inference as ncnn's ConvolutionDepthWise does it: each group's weights carry that
// group's scale, one scale quantizes the whole input, and int8_scale_term > 100 requantizes
// the output with the top scale. Each run is then an int8 Convolution (runtime/conv_int8.h)
// whose output channels take their group's scale.
struct GroupedInt8 {
  const int8_t* weights = nullptr;  // int8 weights in ncnn's order, or null: the fp32 ones, quantized
  std::vector<float> group_scales;  // one per group
  float bottom = 1.f;
  bool requantize = false;
  float top = 1.f;
};

class ConvGrouped final : public ConvImpl {
 public:
  // params: the whole problem (ic and oc over all groups); weights: groups x oc/g x ic/g
  // x kh x kw (ncnn's order); bias: oc values or null. algo: the per-run path ("direct",
  // "gemm", "brgemm", "scalar", ...; "" = the Convolution path table). ih/iw: the input
  // size when known (kernels are generated for it now), else 0. int8: run every group as
  // an int8 convolution (algo is then not used).
  ConvGrouped(const ConvParams& params, int groups, const float* weights, const float* bias, Isa isa, int in_pack,
              int out_pack, const std::string& algo, const Option& opt, int ih = 0, int iw = 0,
              const GroupedInt8* int8 = nullptr);

  int in_elempack() const override { return in_pack_; }
  int out_elempack() const override { return out_pack_; }
  void forward(const Mat& bottom, Mat& top, const Option& opt) const override;
  std::string name() const override { return "grouped"; }
  std::string describe() const override;
  size_t weight_bytes() const override;

 private:
  ConvParams params_;
  int groups_;
  Isa isa_;
  int in_pack_, out_pack_;
  int merged_ = 1;      // groups per run
  int run_in_pack_;     // the layout a run reads (a view of the input, or a gathered copy)
  std::vector<std::unique_ptr<Layer>> runs_;  // layers::Convolution, one per run
};

// Copies scalar channels [src_c0, src_c0 + count) of src into channels [dst_c0, ...) of
// dst (both 3-D fp32 with equal w and h; their elempacks may differ).
void copy_channels(const Mat& src, int src_c0, Mat& dst, int dst_c0, int count, int num_threads);

}  // namespace jitconv
