// The full specialization of one generated direct-convolution kernel. init_conv_direct_conf()
// computes it from the problem; ConvDirectGenerator only emits code from it; the driver
// (runtime/conv_direct.cpp) only prepares buffers and threads.
//
// One kernel call computes one output row (all ow) for ur_oc chunks of vlen output
// channels (vlen = 16 on AVX-512, 8 on AVX2), reading the unpadded input: padding taps
// on the left/right are skipped in generated edge blocks, top/bottom ones by the
// driver passing the valid kh range.
//
// When a group's weights outgrow L1 and a row has several register blocks, the driver
// splits the input channels into blocks whose weights stay in L1 and calls the kernel
// once per block (ic_blocked): the first call starts from the bias, later ones from the
// partial sums in dst, and only the last adds the residual and applies the activation.
//
//   src     = ic/in_pack  - [ih][iw][in_pack]          (a packed Mat, any cstep)
//   weights = ic/in_pack - kh - kw - in_pack - ur_oc - vlen   (one group of chunks)
//   dst     = oc/out_pack - [oh][ow][out_pack]
#pragma once
#include <string>

#include "runtime/activation.h"
#include "runtime/cpu.h"

namespace jitconv {

struct ConvDirectConf {
  Isa isa = Isa::avx512;
  int vlen = 16;  // fp32 lanes per vector register

  int iw = 0, ow = 0;  // unpadded input width, output width
  int kh = 1, kw = 1;
  int sw = 1;
  int dh = 1, dw = 1;  // dilation (1 = dense)
  int pad_left = 0;

  int in_pack = 1;    // elempack of src
  int out_pack = 16;  // elempack of dst (<= vlen)
  int ic_groups = 1;  // packed input channels one call reduces over (a block of them when ic_blocked)
  // One of several calls per row over blocks of input channels: args.flags say whether it
  // starts from dst and whether it finishes (residual, activation). Needs out_pack == vlen.
  bool ic_blocked = false;

  int ur_w = 1;   // output pixels per register block
  int ur_oc = 1;  // vlen-wide output-channel chunks per register block
  int last_chunk_lanes = 16;  // valid lanes of the group's last chunk (< vlen only in the oc tail)
  // Broadcast each input value once into a register and FMA it into the ur_oc chunks
  // (AVX2 always; AVX-512 when ur_oc > 1), instead of an embedded {1to16} memory operand
  // per FMA.
  bool explicit_bcast = true;
  // Input lanes per iteration of the lane loop inside each kernel tap (divides in_pack;
  // in_pack or 0: the lanes fully unrolled). See conv_direct_lane_unroll.
  int lane_unroll = 0;

  bool bias = false;
  // Add the residual (laid out like dst, at dst + args.residual_offset) before the
  // activation; needs out_pack == vlen.
  bool residual = false;
  Activation act;
  // Cache lines from args.prefetch to prefetch into L2 over one call, spread over its
  // input-channel steps (0: none). The driver points them at the next chunk group's
  // weights: when weights stream from memory, the group's first row would otherwise wait
  // on memory while later rows find it in L2.
  int prefetch_lines = 0;
  // 1x1 (kh = 1) only: prefetch into L2, spread over each input-channel step, the lines
  // the block reads from the input row args.prefetch_row_offset bytes below the current
  // one. The driver points it a few output rows ahead when the input outgrows L2: rows
  // read with a stride start a new hardware-prefetch stream in every channel plane and
  // would otherwise wait on L3 at each row. Calls that need none pass 0 (their own row).
  bool prefetch_next_row = false;

  // e.g. conv_direct_avx512_k3x3_s1_d1x1_p16to16_iw56ow56pl1_ic4_ur7x4_bias_relu
  std::string name() const;
};

struct ConvDirectProblem {
  int ic = 0, iw = 0;
  int oc = 0, ow = 0;
  int kh = 1, kw = 1, sw = 1, dh = 1, dw = 1, pad_left = 0;
  int in_pack = 1, out_pack = 1;
  bool bias = false;
  bool residual = false;
  Activation act;
  // Input channels per kernel call (0: all); see conv_direct_ic_block.
  int ic_block = 0;
  bool prefetch_next_row = false;  // see ConvDirectConf
  // The core's L2 size (0: unknown). The cost model takes weights that fit in half of it
  // to stream from L2 at no cost beyond their loads.
  long l2_bytes = 0;
  // Weights past half of L2 stream from L3 at no extra cost either (CpuInfo::fast_l3).
  bool fast_l3 = false;
};

// Output-channel chunks held in registers at once. It fixes the weight layout, so it is
// chosen at create_pipeline: for the output width when known (ow > 0), else for a
// typical one.
int conv_direct_ur_oc(Isa isa, const ConvDirectProblem& p);

// Input channels per kernel call for groups of ur_oc chunks: all of them unless a 1x1
// group's weights outgrow L1 while a row of p.ow pixels takes several register blocks
// (each block re-reads the weights) and the output is packed by whole vectors; then the
// most that keep one block's weights in about half of L1 (a multiple of in_pack).
int conv_direct_ic_block(Isa isa, const ConvDirectProblem& p, int ur_oc);

// The kernel configuration for a group of `chunks_in_group` chunks whose last chunk has
// `lanes_in_last_chunk` valid lanes; ur_w and the broadcast form are chosen for p.ow.
ConvDirectConf init_conv_direct_conf(Isa isa, const ConvDirectProblem& p, int chunks_in_group,
                                     int lanes_in_last_chunk);

// Lanes per lane-loop iteration for a configuration whose blocking is set: all of in_pack
// unless the kh loop's body (kw taps x lanes, fully unrolled) outgrows the front end's
// uop cache; then the largest power of two up to in_pack / 4 that fits (at least four
// iterations per tap), or 1 when none does.
int conv_direct_lane_unroll(const ConvDirectConf& c);

// Bytes between consecutive kh rows and between consecutive packed input channels of one
// group's weights.
inline long conv_direct_weight_kh_stride(const ConvDirectConf& c) {
  return static_cast<long>(c.kw) * c.in_pack * c.ur_oc * c.vlen * 4;
}

enum ConvDirectFlags : long {
  kDirectLoadDst = 1,  // ic_blocked: start from the partial sums in dst, not the bias
  kDirectFinal = 2,    // ic_blocked: the last block (residual, activation)
};

// The runtime arguments of one kernel call.
struct ConvDirectArgs {
  const float* src;         // first valid input row of this output row, column 0, channel group 0
  const float* weights;     // the group's weights, advanced to the first valid kh row
  const float* bias;        // ur_oc * vlen values (zero-padded), or null
  float* dst;               // output row, column 0, first plane of the group
  long kh_count;            // valid kernel rows (0: bias + activation only)
  long src_channel_stride;  // bytes between packed input channels (cstep * in_pack * 4)
  long dst_channel_stride;  // bytes between packed output channels (cstep * out_pack * 4)
  long src_row_stride;      // bytes between input rows (iw * in_pack * 4)
  long residual_offset;     // residual: bytes from dst to the matching residual element
  const void* prefetch;     // prefetch_lines: where this call's prefetches start
  long prefetch_row_offset; // prefetch_next_row: bytes from src to the input row to prefetch
  long flags;               // ic_blocked: ConvDirectFlags
};

using ConvDirectKernelFn = void (*)(const ConvDirectArgs*);

}  // namespace jitconv
