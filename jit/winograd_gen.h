// Emits a Winograd transform kernel from a WinogradTransformConf (see winograd_conf.h).
// Two passes per tile: the columns (alpha values each) into a stack buffer, then the rows
// out. The 1-D transforms are the factored B^T / A^T of the points {0, +-1, +-2, +-1/2}
// and infinity, with constants as broadcast memory operands; registers are reused as
// soon as a value is dead so AVX2's 16 suffice.
#pragma once
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
  };

 private:
  enum Constant { kC0_25, kC0_5, kC1_25, kC2, kC2_5, kC4, kC4_25, kC5, kC5_25, kC8, kC16, kC32, kC0_125, kC0_0625,
                  kC0_03125, kConstantCount };
  Xbyak::Xmm vec(int index) const;
  Xbyak::Address constant(Constant c);
  int take();             // a free vector register
  void give(int reg);     // back to the pool
  void load(int reg, const Lane& from);
  void store(const Lane& to, int reg, bool finish);
  // Input 1-D transform: alpha inputs -> alpha outputs.
  void input_1d(const std::vector<Lane>& in, const std::vector<Lane>& out, bool finish);
  // Output 1-D transform: alpha inputs -> m outputs.
  void output_1d(const std::vector<Lane>& in, const std::vector<Lane>& out, bool finish);
  void emit_table();

  WinogradTransformConf conf_;
  ActivationEmitter activation_;
  Xbyak::Label table_;
  std::vector<int> free_;
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
