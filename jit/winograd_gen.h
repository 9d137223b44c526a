// Emits a Winograd transform kernel from a WinogradTransformConf (see winograd_conf.h).
// Two passes per tile: the rows (alpha values each), then the columns. The 1-D
// transforms are the factored B^T / A^T of the points {0, +-1, +-2, +-1/2} and infinity
// (F(5,3): {0, +-1, +-2, 1/2} and infinity; its input rows share no factors and run as
// plain sums of products, in the stack form only).
// Where the register file holds them (conf.in_registers(): AVX-512, and on AVX2 F(2,3)
// and F(4,3) both ways), the row pass computes one group of output columns of every row
// into registers and the column pass transforms them straight out, overwriting dead
// values (no stack round trip, no register copies; F(4,3), TSC ticks per tile of 16
// channels, V / M in L2:
// output 231 -> 159, input 400 -> 360; in L1: 126 -> 99 and 136-168 -> 116). Otherwise the
// row pass goes through a stack buffer, constants are broadcast memory operands and
// registers are reused as soon as a value is dead so AVX2's 16 suffice.
#pragma once
#include <deque>
#include <functional>
#include <vector>

#include "jit/activation_emitter.h"
#include "jit/jit_generator.h"
#include "jit/winograd_conf.h"

namespace jitconv {

class WinogradTransformGenerator : public JitGenerator {
 public:
  explicit WinogradTransformGenerator(const WinogradTransformConf& conf);
  void generate() override;

  // A 1-D transform's source (a list of alpha or m addresses) and sink (per output:
  // store to this address after optional bias/activation).
  struct Lane {
    Xbyak::Reg64 base;
    long offset;
    // The pixel lies outside the tensor (an edge tile): a load reads args.pad_value instead,
    // a store is dropped.
    bool outside = false;
  };

 private:
  enum Constant { kC0_25, kC0_5, kC1_25, kC2, kC2_5, kC4, kC4_25, kC5, kC5_25, kC8, kC16, kC32, kC0_125, kC0_0625,
                  kC0_03125, kC1_5, kC3_5, kC4_5, kC6, kConstantCount };
  // The constant equal to |value| (F(5,3)'s generic 1-D input transform); fails if none.
  Constant constant_of(double value) const;
  Xbyak::Xmm vec(int index) const;
  int vector_registers() const { return conf_.isa == Isa::avx512 ? 32 : 16; }
  Xbyak::Address constant(Constant c);
  // The factor c as an operand of the stack form's 1-D transforms: its register when
  // hoist_constants put it in one, else its memory operand.
  const Xbyak::Operand& coef(Constant c);
  // Loads the stack form's most used constants into the registers beyond `reserved`.
  void hoist_constants(int reserved);
  int take();             // a free vector register
  void give(int reg);     // back to the pool
  void load(int reg, const Lane& from);
  void store(const Lane& to, int reg, bool finish);
  // Input 1-D transform: alpha inputs -> alpha outputs.
  void input_1d(const std::vector<Lane>& in, const std::vector<Lane>& out, bool finish);
  // Output 1-D transform: alpha inputs -> m outputs.
  void output_1d(const std::vector<Lane>& in, const std::vector<Lane>& out, bool finish);
  void emit_table();
  // Loads reg_src, reg_dst and reg_count from the arguments.
  void load_tile_args();
  // The loop over reg_count tiles around `body`, stepping reg_src and reg_dst by the tile steps.
  void tile_loop(const std::function<void()>& body);
  // The register-resident forms (winograd_reg_gen.cpp); same arithmetic, same results.
  void generate_input_in_registers();
  void generate_output_in_registers();
  void generate_output63_in_registers();  // F(6,3): its own register and pointer plan

  WinogradTransformConf conf_;
  ActivationEmitter activation_;
  Xbyak::Label table_;
  std::vector<int> free_;
  int constant_reg_[kConstantCount];  // -1: not in a register (set by the constructor)
  std::deque<Xbyak::Xmm> operands_;       // keep what coef() hands out alive
  std::deque<Xbyak::Address> addresses_;
  int bias_reg_ = -1;

  const Xbyak::Reg64 reg_args = rdi;
  const Xbyak::Reg64 reg_src = r8;
  const Xbyak::Reg64 reg_dst = r9;
  const Xbyak::Reg64 reg_count = r10;
  const Xbyak::Reg64 reg_src_stride = r11;
  const Xbyak::Reg64 reg_dst_stride = r12;
  const Xbyak::Reg64 reg_row = r13;   // walking pointer along strided rows / panels
  const Xbyak::Reg64 reg_tmp = rsp;   // the column buffer lives on the stack
  const Xbyak::Reg64 reg_residual = rsi;  // output pass 2: residual_offset (walk[7] otherwise)
};

}  // namespace jitconv
