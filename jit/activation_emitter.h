// Emits ncnn's fused activations on vector registers, for every kernel family.
//
// All work is in registers; constants live in a table the emitter appends to the code
// (emit_table(), after the function's ret), each replicated across 64 bytes so it serves
// zmm and ymm memory operands alike. sigmoid and mish use a vectorized exp:
// exp(x) = 2^n * p(r), n = round(x / ln2), r = x - n ln2 (Cody-Waite split), p a
// degree-6 polynomial; scaled with vscalefps on AVX-512 and exponent arithmetic on AVX2.
#pragma once
#include <vector>
#include <xbyak/xbyak.h>

#include "runtime/activation.h"
#include "runtime/cpu.h"

namespace jitconv {

class ActivationEmitter {
 public:
  ActivationEmitter(Xbyak::CodeGenerator& gen, Isa isa, const Activation& act);

  // Scratch vector registers apply() needs.
  static int temps_needed(Isa isa, const Activation& act);
  // Applies the activation to registers `regs` (indices), using `temps` as scratch
  // (at least temps_needed()). On AVX-512, k1 may be clobbered.
  void apply(const std::vector<int>& regs, const std::vector<int>& temps);
  // Appends the constant table; call once, after the last instruction of the function.
  void emit_table();

 private:
  enum Constant {
    kZero,
    kOne,
    kTwo,
    kAlpha,
    kBeta,
    kExpHi,
    kExpLo,
    kLog2e,
    kLn2Hi,
    kLn2Lo,
    kP6,
    kP5,
    kP4,
    kP3,
    kP2,
    kP1,
    kMishClamp,
    kExponentBias,
    kConstantCount
  };
  Xbyak::Xmm vec(int index) const;
  Xbyak::Address constant(Constant which);
  // v = exp(v); t0, t1 scratch.
  void emit_exp(const Xbyak::Xmm& v, const Xbyak::Xmm& t0, const Xbyak::Xmm& t1);

  Xbyak::CodeGenerator& gen_;
  Isa isa_;
  Activation act_;
  Xbyak::Label table_;
  bool used_ = false;
};

}  // namespace jitconv
