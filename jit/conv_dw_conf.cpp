#include "jit/conv_dw_conf.h"

#include <algorithm>
#include <sstream>

#include "jit/activation_emitter.h"
#include "runtime/error.h"

namespace jitconv {

namespace {

// Wider blocks amortize each input load over more taps; beyond this the edge blocks
// (emitted separately) only grow the code.
constexpr int kMaxUrW = 28;

int vector_registers(Isa isa) { return isa == Isa::avx512 ? 32 : 16; }

// Accumulators that fit beside the kw weight registers and the input register; the
// activation's scratch registers reuse those once the reduction is done.
int max_ur_w(Isa isa, int kw, const Activation& act) {
  const int regs = vector_registers(isa);
  const int after_weights = regs - kw - 1;
  const int after_temps = regs - ActivationEmitter::temps_needed(isa, act);
  return std::min({kMaxUrW, after_weights, after_temps});
}

}  // namespace

std::string ConvDwConf::name() const {
  std::ostringstream os;
  os << "conv_dw_" << isa_name(isa) << "_p" << pack << "_kw" << kw << "_s" << sw << "_d" << dw << "_iw" << iw << "ow"
     << ow << "pl" << pad_left << "_ur" << ur_w;
  if (bias) os << "_bias";
  if (act.type != ActivationType::none) os << "_" << act.kernel_tag();
  return os.str();
}

bool conv_dw_jit_supported(Isa isa, int kw, int pack, const Activation& act) {
  if (isa == Isa::scalar) return false;
  if (pack != 4 && pack != 8 && pack != 16) return false;
  if (pack > isa_lanes(isa)) return false;
  return kw >= 1 && max_ur_w(isa, kw, act) >= 1;
}

ConvDwConf init_conv_dw_conf(Isa isa, const ConvDwProblem& p) {
  if (!conv_dw_jit_supported(isa, p.kw, p.pack, p.act))
    fail("no depthwise kernel for kw ", p.kw, " elempack ", p.pack, " on ", isa_name(isa));
  if (p.iw <= 0 || p.ow <= 0 || p.sw <= 0 || p.dw <= 0 || p.pad_left < 0)
    fail("depthwise kernel: bad geometry iw ", p.iw, " ow ", p.ow, " sw ", p.sw, " dw ", p.dw, " pad_left ",
         p.pad_left);
  ConvDwConf c;
  c.isa = isa;
  c.pack = p.pack;
  c.iw = p.iw;
  c.ow = p.ow;
  c.kw = p.kw;
  c.sw = p.sw;
  c.dw = p.dw;
  c.pad_left = p.pad_left;
  c.bias = p.bias;
  c.act = p.act;
  // Equal blocks: a row of 30 runs as 2 x 15, not 28 + 2.
  const int widest = max_ur_w(isa, p.kw, p.act);
  const int blocks = (p.ow + widest - 1) / widest;
  c.ur_w = (p.ow + blocks - 1) / blocks;
  return c;
}

}  // namespace jitconv
