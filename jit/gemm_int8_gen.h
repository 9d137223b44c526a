// Emits the int8 GEMM microkernel described by a GemmInt8Conf (layouts and call contract
// in gemm_int8_conf.h). Per 32-bit k group: ur_oc weight vectors are loaded, each pixel's
// group of B is broadcast once (vpbroadcastd) and dotted into the ur_oc chunks.
//
// Requantization (int8_scale_term > 100) keeps fp32 blobs: the value stored is what the
// int8 output would dequantize to, q / top_scale with q = ncnn's float2int8(v * top_scale)
// (round half away from zero as trunc(v + copysign(0.49999997, v)), exact for |v| < 2^23
// and so on the clamped range; saturation to [-127, 127]; NaN gives -127).
#pragma once
#include <vector>

#include "jit/activation_emitter.h"
#include "jit/gemm_int8_conf.h"
#include "jit/jit_generator.h"

namespace jitconv {

class GemmInt8Generator : public JitGenerator {
 public:
  explicit GemmInt8Generator(const GemmInt8Conf& conf);
  void generate() override;

 private:
  enum Constant { kSignMask, kRoundBias, kMinQ, kMaxQ, kConstantCount };

  void emit_block(int width);
  void emit_reduction(int width);
  void emit_dot(int acc_reg, int weight);
  void load_int(int reg, const Xbyak::Address& src);
  void emit_epilogue(int width);
  void emit_requantize(const std::vector<int>& accs, const std::vector<int>& temps);
  void emit_table();

  Xbyak::Xmm vreg(int index) const;
  Xbyak::Address constant(Constant which);
  int acc(int chunk, int pixel) const { return chunk * conf_.nr + pixel; }
  int weight_reg(int chunk) const { return conf_.nr * conf_.ur_oc + chunk; }
  int bcast_reg() const { return conf_.nr * conf_.ur_oc + conf_.ur_oc; }
  int product_reg() const { return bcast_reg() + 1; }
  std::vector<int> free_vregs(int width) const;

  GemmInt8Conf conf_;
  ActivationEmitter activation_;
  Xbyak::Label table_;
  bool table_used_ = false;

  const Xbyak::Reg64 reg_args = rdi;
  const Xbyak::Reg64 reg_a_base = r8;
  const Xbyak::Reg64 reg_b_block = r9;
  const Xbyak::Reg64 reg_b = r10;
  const Xbyak::Reg64 reg_a = r11;
  const Xbyak::Reg64 reg_k_iter = r12;
  const Xbyak::Reg64 reg_segment = r13;  // byte index into b_offsets
  const Xbyak::Reg64 reg_c_block = r14;
  const Xbyak::Reg64 reg_block_iter = r15;
  const Xbyak::Reg64 reg_offsets = rbx;
  const Xbyak::Reg64 reg_segment_end = rbp;
  const Xbyak::Reg64 reg_tmp0 = rax;
  const Xbyak::Reg64 reg_tmp1 = rcx;
  const Xbyak::Reg64 reg_tmp2 = rdx;
  const Xbyak::Reg64 reg_tmp3 = rsi;
};

}  // namespace jitconv
