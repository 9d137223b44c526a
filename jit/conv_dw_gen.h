// Emits one depthwise-convolution kernel from a ConvDwConf (see conv_dw_conf.h for the
// layouts and the call contract).
//
// Register use (vector registers as wide as the elempack):
//   0 .. ur_w-1            accumulators, one output pixel each
//   ur_w .. ur_w+kw-1      the kw taps of the current kernel row
//   ur_w+kw                the input vector being multiplied in
// Per kernel row, each input column the block needs is loaded once and multiplied into
// every accumulator whose window covers it (up to kw of them, fewer with stride). The
// output row is cut into ur_w-pixel blocks; blocks whose taps all fall inside the input
// run in a loop, blocks touching the left/right padding are emitted on their own with
// the padding columns left out (there is no padded copy of the input).
#pragma once
#include <vector>

#include "jit/activation_emitter.h"
#include "jit/conv_dw_conf.h"
#include "jit/jit_generator.h"

namespace jitconv {

class ConvDwGenerator : public JitGenerator {
 public:
  explicit ConvDwGenerator(const ConvDwConf& conf);
  void generate() override;

 private:
  struct Block {
    int ow0;     // first output column
    int width;   // output columns
    int count;   // consecutive equal clean blocks run as a loop (1 = emitted once)
    bool clean;  // every tap inside the input
  };
  std::vector<Block> plan_blocks() const;
  bool column_inside(int col) const { return col >= 0 && col < conf_.iw; }
  // Input column of tap kx for output column ox.
  int input_col(int ox, int kx) const { return ox * conf_.sw - conf_.pad_left + kx * conf_.dw; }

  void emit_block(const Block& block);
  void emit_reduction(const Block& block);
  void emit_epilogue(int width);

  Xbyak::Xmm vreg(int index) const;
  int acc(int pixel) const { return pixel; }
  int weight_reg(int kx) const { return conf_.ur_w + kx; }
  int input_reg() const { return conf_.ur_w + conf_.kw; }

  ConvDwConf conf_;
  int vector_bytes_;
  ActivationEmitter activation_;

  // General-purpose registers (System V; rdi keeps the argument block).
  const Xbyak::Reg64 reg_args = rdi;
  const Xbyak::Reg64 reg_src_row = r8;  // input of the current output row
  const Xbyak::Reg64 reg_dst_row = r9;
  const Xbyak::Reg64 reg_weights = r10;
  const Xbyak::Reg64 reg_bias = r11;
  const Xbyak::Reg64 reg_kh_count = r12;
  const Xbyak::Reg64 reg_kh_step = r13;
  const Xbyak::Reg64 reg_row_step = r14;
  const Xbyak::Reg64 reg_rows = r15;
  const Xbyak::Reg64 reg_block_src = rax;  // input at the block's first tap column
  const Xbyak::Reg64 reg_block_dst = rbx;
  const Xbyak::Reg64 reg_block_iter = rcx;
  const Xbyak::Reg64 reg_src = rdx;
  const Xbyak::Reg64 reg_w = rsi;
  const Xbyak::Reg64 reg_kh_iter = rbp;
};

}  // namespace jitconv
