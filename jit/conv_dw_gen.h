// Emits one depthwise-convolution kernel from a ConvDwConf (see conv_dw_conf.h for the
// layouts, the pixels-per-vector forms and the call contract).
//
// Vector registers (each pixels * pack lanes wide), A = ur_w * acc_sets:
//   0 .. A-1               accumulators: set s of vector v in s * ur_w + v
//   A .. A+T-1             taps (broadcast across pixels): the kw of the current kernel
//                          row (T = kw), or all kh * kw for the call (interior-rows kernels)
//   A+T ..                 input vector, a second one for stride-2 gathers, then with
//                          several pixels per vector an auxiliary register: the gather
//                          indices on AVX-512 (loaded once per call), the edge mask of a
//                          vmaskmovps on AVX2 (loaded from a table at each use)
// AVX-512 edge masks live in k2..k7, set once per call (k1 belongs to the activation).
// One pixel per vector: per kernel row, each input column the block needs is loaded once
// and multiplied into every accumulator whose window covers it (up to kw of them).
// Several pixels per vector: each (vector, tap) reads its own unaligned input vector,
// masked where it straddles the left/right edge of the row.
// The output row is cut into blocks of ur_w vectors; blocks whose taps all fall inside
// the input run in a loop, blocks touching the padding are emitted on their own with the
// padding taps left out (there is no padded copy of the input).
#pragma once
#include <cstdint>
#include <utility>
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
    int v0;      // first vector (output pixel v0 * pixels)
    int width;   // vectors
    int count;   // consecutive equal clean blocks run as a loop (1 = emitted once)
    bool clean;  // every tap of every lane inside the input, every vector whole
  };
  std::vector<Block> plan_blocks() const;
  bool column_inside(int col) const { return col >= 0 && col < conf_.iw; }
  // Input column of tap kx for output column ox.
  int input_col(int ox, int kx) const { return ox * conf_.sw - conf_.pad_left + kx * conf_.dw; }
  // Lane mask of `pixels` consecutive input pixels from column `col`: a pixel's pack
  // lanes are set when it lies inside the input.
  uint32_t input_mask(int col) const;

  void emit_block(const Block& block);
  // One kernel row (ky selects the taps of an interior-rows kernel).
  void emit_reduction_single(const Block& block, int ky);  // pixels == 1
  void emit_reduction_multi(const Block& block, int ky);   // pixels > 1
  void emit_reduction_window(const Block& block, int ky);  // pixels > 1, sliding window
  // acc += tap * input vector of tap (ky, kx) for vector v of the block.
  void emit_multi_tap(const Block& block, int v, int ky, int kx);
  void emit_epilogue(const Block& block);
  // Loads the pack values at `src` into every pixel slot of `dst`.
  void load_pack_broadcast(const Xbyak::Xmm& dst, const Xbyak::Address& src);
  // dst = the input vector at byte offset `offset` of reg_src, lanes outside `mask` zero.
  void load_masked(const Xbyak::Xmm& dst, long offset, uint32_t mask);
  // The k register holding `mask` (AVX-512): preloaded, or set now in the scratch one.
  Xbyak::Opmask mask_reg(uint32_t mask);
  // Loads `mask` into the auxiliary register as a vmaskmovps lane mask (AVX2).
  void load_mask_vector(uint32_t mask);
  // dst = the even pixels of the two vectors in dst and `hi` (stride-2 gather).
  void gather_even(const Xbyak::Xmm& dst, const Xbyak::Operand& hi);
  // Input lane masks of tap kx for vector v: {first, second} loaded vector (second only
  // for stride-2 gathers); all-ones for clean blocks.
  std::pair<uint32_t, uint32_t> tap_masks(const Block& block, int v, int kx) const;
  // Every partial mask the kernel uses (edge loads, the last vector's store).
  std::vector<uint32_t> partial_masks(const std::vector<Block>& blocks) const;

  Xbyak::Xmm vreg(int index) const;
  int acc(int v, int set = 0) const { return set * conf_.ur_w + v; }
  int tap_count() const { return conf_.kh ? conf_.kh * conf_.kw : conf_.kw; }
  int tap_reg(int ky, int kx) const { return conf_.ur_w * conf_.acc_sets + (conf_.kh ? ky * conf_.kw : 0) + kx; }
  int input_reg() const { return conf_.ur_w * conf_.acc_sets + tap_count(); }
  bool gathers() const { return conf_.pixels > 1 && conf_.sw == 2; }
  int window_reg(int j) const { return input_reg() + j % window_; }  // window vector j
  int cut_reg() const { return input_reg() + window_; }              // a tap's input cut from it
  int input2_reg() const { return input_reg() + 1; }
  int aux_reg() const { return input_reg() + (gathers() ? 2 : 1); }
  long pixel_bytes() const { return static_cast<long>(conf_.pack) * 4; }
  uint32_t full_mask() const { return conf_.lanes() >= 32 ? 0xffffffffu : (1u << conf_.lanes()) - 1; }

  ConvDwConf conf_;
  int window_;  // conv_dw_window_vectors() (0: per-tap loads)
  ActivationEmitter activation_;
  Xbyak::Label gather_indices_;
  std::vector<std::pair<uint32_t, int>> mask_regs_;  // AVX-512: preloaded (mask, k index)
  int scratch_k_ = 7;
  Xbyak::Label mask_table_;               // AVX2: one 32-byte lane mask per partial mask
  std::vector<uint32_t> table_masks_;

  // General-purpose registers (System V; rdi keeps the argument block).
  const Xbyak::Reg64 reg_args = rdi;
  const Xbyak::Reg64 reg_src_row = r8;  // input of the current output row
  const Xbyak::Reg64 reg_dst_row = r9;
  const Xbyak::Reg64 reg_weights = r10;
  const Xbyak::Reg64 reg_bias = r11;
  const Xbyak::Reg64 reg_kh_count = r12;
  const Xbyak::Reg64 reg_kh_step = r13;
  const Xbyak::Reg64 reg_row_step = r14;
  const Xbyak::Reg32 reg_mask = r15d;  // staging for k-register masks
  const Xbyak::Reg64 reg_block_src = rax;  // input at the block's first tap column
  const Xbyak::Reg64 reg_block_dst = rbx;
  const Xbyak::Reg64 reg_block_iter = rcx;
  const Xbyak::Reg64 reg_src = rdx;
  const Xbyak::Reg64 reg_w = rsi;
  const Xbyak::Reg64 reg_kh_iter = rbp;
};

}  // namespace jitconv
