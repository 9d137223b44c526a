#include "jit/activation_emitter.h"

#include <cstring>

#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

ActivationEmitter::ActivationEmitter(CodeGenerator& gen, Isa isa, const Activation& act)
    : gen_(gen), isa_(isa), act_(act) {}

int ActivationEmitter::temps_needed(Isa isa, const Activation& act) {
  switch (act.type) {
    case ActivationType::none:
    case ActivationType::relu:
    case ActivationType::clip: return 0;
    case ActivationType::leaky_relu: return isa == Isa::avx512 ? 0 : 1;
    case ActivationType::hardswish: return 1;
    case ActivationType::sigmoid: return 2;
    case ActivationType::mish: return 3;
  }
  return 3;
}

Xmm ActivationEmitter::vec(int index) const { return isa_ == Isa::avx512 ? Xmm(Zmm(index)) : Xmm(Ymm(index)); }

Address ActivationEmitter::constant(Constant which) {
  used_ = true;
  return gen_.ptr[gen_.rip + table_ + static_cast<int>(which) * 64];
}

void ActivationEmitter::emit_exp(const Xmm& v, const Xmm& t0, const Xmm& t1) {
  CodeGenerator& g = gen_;
  g.vminps(v, v, constant(kExpHi));
  g.vmaxps(v, v, constant(kExpLo));
  g.vmulps(t0, v, constant(kLog2e));
  if (isa_ == Isa::avx512)
    g.vrndscaleps(t0, t0, 0);  // round to nearest even
  else
    g.vroundps(t0, t0, 0);
  g.vfnmadd231ps(v, t0, constant(kLn2Hi));  // r = x - n * ln2 in two steps
  g.vfnmadd231ps(v, t0, constant(kLn2Lo));
  g.vmovups(t1, constant(kP6));
  g.vfmadd213ps(t1, v, constant(kP5));
  g.vfmadd213ps(t1, v, constant(kP4));
  g.vfmadd213ps(t1, v, constant(kP3));
  g.vfmadd213ps(t1, v, constant(kP2));
  g.vfmadd213ps(t1, v, constant(kP1));
  g.vfmadd213ps(t1, v, constant(kOne));  // p(r) ~ exp(r)
  if (isa_ == Isa::avx512) {
    g.vscalefps(v, t1, t0);
  } else {
    g.vcvtps2dq(t0, t0);
    g.vpaddd(t0, t0, constant(kExponentBias));
    g.vpslld(t0, t0, 23);  // 2^n as float bits
    g.vmulps(v, t1, t0);
  }
}

void ActivationEmitter::apply(const std::vector<int>& regs, const std::vector<int>& temps) {
  if (static_cast<int>(temps.size()) < temps_needed(isa_, act_))
    fail("ActivationEmitter: ", act_.name(), " needs ", temps_needed(isa_, act_), " scratch registers, got ",
         temps.size());
  CodeGenerator& g = gen_;
  for (int r : regs) {
    const Xmm x = vec(r);
    switch (act_.type) {
      case ActivationType::none: break;
      case ActivationType::relu: g.vmaxps(x, x, constant(kZero)); break;
      case ActivationType::leaky_relu:
        if (isa_ == Isa::avx512) {
          g.vcmpps(g.k1, x, constant(kZero), 1 /* LT_OS */);
          g.vmulps(Zmm(r) | g.k1, x, constant(kAlpha));
        } else {
          const Xmm t = vec(temps[0]);
          g.vmulps(t, x, constant(kAlpha));
          g.vblendvps(x, x, t, x);  // the sign bit of x selects x * alpha
        }
        break;
      case ActivationType::clip:
        g.vmaxps(x, x, constant(kAlpha));
        g.vminps(x, x, constant(kBeta));
        break;
      case ActivationType::hardswish: {
        const Xmm t = vec(temps[0]);
        g.vmulps(t, x, constant(kAlpha));
        g.vaddps(t, t, constant(kBeta));
        g.vmaxps(t, t, constant(kZero));
        g.vminps(t, t, constant(kOne));
        g.vmulps(x, x, t);
        break;
      }
      case ActivationType::sigmoid: {
        const Xmm t0 = vec(temps[0]), t1 = vec(temps[1]);
        g.vxorps(t0, t0, t0);
        g.vsubps(x, t0, x);
        emit_exp(x, t0, t1);
        g.vaddps(x, x, constant(kOne));
        g.vmovups(t0, constant(kOne));
        g.vdivps(x, t0, x);
        break;
      }
      case ActivationType::mish: {
        // tanh(log(1 + u)) = n / (n + 2) with u = exp(x), n = u (u + 2).
        const Xmm u = vec(temps[0]), t0 = vec(temps[1]), t1 = vec(temps[2]);
        g.vminps(u, x, constant(kMishClamp));
        emit_exp(u, t0, t1);
        g.vaddps(t0, u, constant(kTwo));
        g.vmulps(u, u, t0);
        g.vaddps(t0, u, constant(kTwo));
        g.vdivps(u, u, t0);
        g.vmulps(x, x, u);
        break;
      }
    }
  }
}

void ActivationEmitter::emit_table() {
  if (!used_) return;
  float values[kConstantCount] = {};
  values[kZero] = 0.f;
  values[kOne] = 1.f;
  values[kTwo] = 2.f;
  values[kAlpha] = act_.alpha;
  values[kBeta] = act_.beta;
  values[kExpHi] = 88.0f;  // e^88 < FLT_MAX, so 2^n never overflows the AVX2 exponent trick
  values[kExpLo] = -87.33654f;
  values[kLog2e] = 1.44269504088896341f;
  values[kLn2Hi] = 0.693359375f;  // exactly representable high part of ln 2
  values[kLn2Lo] = -2.12194440e-4f;
  values[kP6] = 1.f / 720.f;
  values[kP5] = 1.f / 120.f;
  values[kP4] = 1.f / 24.f;
  values[kP3] = 1.f / 6.f;
  values[kP2] = 0.5f;
  values[kP1] = 1.f;
  values[kMishClamp] = 20.f;  // n / (n + 2) is 1.0f long before exp(20)^2 overflows
  uint32_t bias_bits = 127;
  memcpy(&values[kExponentBias], &bias_bits, 4);
  gen_.align(64);
  gen_.L(table_);
  for (int i = 0; i < kConstantCount; i++) {
    uint32_t bits;
    memcpy(&bits, &values[i], 4);
    for (int lane = 0; lane < 16; lane++) gen_.dd(bits);
  }
}

}  // namespace jitconv
