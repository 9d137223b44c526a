// Emits one direct-convolution kernel from a ConvDirectConf (see conv_direct_conf.h for
// the layouts and the call contract).
//
// Register blocking: ur_oc x ur_w accumulators; for each (input channel, kh, kw) the
// ur_oc weight vectors are loaded once and each input value is broadcast once and
// multiplied into the ur_oc chunks. The output row is cut into ur_w-pixel blocks; blocks
// whose taps all fall inside the input run in a loop, blocks touching the left/right
// padding are emitted separately with the padding taps left out (no padded copy of the
// input exists).
#pragma once
#include <vector>

#include "jit/activation_emitter.h"
#include "jit/conv_direct_conf.h"
#include "jit/jit_generator.h"

namespace jitconv {

class ConvDirectGenerator : public JitGenerator {
 public:
  explicit ConvDirectGenerator(const ConvDirectConf& conf);
  void generate() override;

 private:
  struct Block {
    int ow0;      // first output column
    int width;    // output columns
    int count;    // consecutive equal clean blocks run as a loop (1 = emitted once)
    bool clean;   // every tap inside the input
  };
  std::vector<Block> plan_blocks() const;
  bool tap_inside(int col) const { return col >= 0 && col < conf_.iw; }
  // Input column of tap kw for output column ow.
  int input_col(int ow, int kw) const { return ow * conf_.sw - conf_.pad_left + kw * conf_.dw; }

  void emit_block(const Block& block);
  void emit_init(int width);
  void emit_reduction(const Block& block);
  void emit_epilogue(int width);

  Xbyak::Xmm vreg(int index) const;
  // vreg, or its ymm half in the FMAs of a narrow last chunk (JitGenerator::chunk_reg).
  Xbyak::Xmm lane_reg(int oc, int index) const;
  int acc(int chunk, int pixel) const { return chunk * conf_.ur_w + pixel; }
  int weight_reg(int chunk) const { return conf_.ur_w * conf_.ur_oc + chunk; }
  int bcast_reg() const { return conf_.ur_w * conf_.ur_oc + conf_.ur_oc; }
  std::vector<int> free_vregs(int width) const;
  int prefetch_lines_per_step() const;  // prefetch_lines spread over the call's ic steps
  std::vector<long> block_input_lines(const Block& block) const;  // see prefetch_next_row

  ConvDirectConf conf_;
  bool explicit_bcast_;
  ActivationEmitter activation_;

  // General-purpose registers (System V; rdi keeps the argument block).
  const Xbyak::Reg64 reg_args = rdi;
  const Xbyak::Reg64 reg_src_row = r8;     // args.src
  const Xbyak::Reg64 reg_w_row = r9;       // args.weights
  const Xbyak::Reg64 reg_dst_row = r11;    // args.dst
  const Xbyak::Reg64 reg_kh_count = r12;
  const Xbyak::Reg64 reg_pf_row = r12;     // prefetch_next_row: kh_count is read from args instead
  const Xbyak::Reg64 reg_src_cstride = r13;
  const Xbyak::Reg64 reg_kh_step = r14;    // dh * src row stride
  const Xbyak::Reg64 reg_block_iter = r15;
  const Xbyak::Reg64 reg_block_src = rax;  // src at the block's first tap column
  const Xbyak::Reg64 reg_block_dst = rbx;
  const Xbyak::Reg64 reg_ic_src = rcx;
  const Xbyak::Reg64 reg_ic_w = rdx;
  const Xbyak::Reg64 reg_src = rsi;
  const Xbyak::Reg64 reg_w = r10;
  const Xbyak::Reg64 reg_kh_iter = rbp;
};

}  // namespace jitconv
