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
// Independent accumulation chains that keep two FMA pipes of 4-cycle latency busy.
constexpr int kMinChains = 8;
// Input vectors a sliding window may hold (beyond it, per-tap loads).
constexpr int kMaxWindow = 6;

int vector_registers(Isa isa) { return isa == Isa::avx512 ? 32 : 16; }

// Registers besides accumulators and taps: the input, a second input for stride-2
// gathers, and with several pixels per vector the gather indices (AVX-512) or the edge
// mask (AVX2, which has no k registers); a sliding window and the tap cut from it.
int input_registers(Isa isa, int pack, int pixels, int sw, int kw, int dw) {
  const int window = conv_dw_window_vectors(isa, pack, pixels, sw, kw, dw);
  if (window > 0) return window + 1;
  if (pixels == 1) return 1;
  const bool gather = sw == 2;
  return 1 + (gather ? 1 : 0) + (isa == Isa::avx2 || gather ? 1 : 0);
}

// Accumulators that fit beside the kw tap registers and the input registers; the
// activation's scratch registers reuse those once the reduction is done.
int max_ur_w(Isa isa, const ConvDwProblem& p, int pixels) {
  const Activation& act = p.act;
  const int kw = p.kw;
  const int regs = vector_registers(isa);
  const int after_taps = regs - kw - input_registers(isa, p.pack, pixels, p.sw, kw, p.dw);
  const int after_temps = regs - ActivationEmitter::temps_needed(isa, act);
  return std::min({kMaxUrW, after_taps, after_temps});
}

}  // namespace

std::string ConvDwConf::name() const {
  std::ostringstream os;
  os << "conv_dw_" << isa_name(isa) << "_p" << pack << "x" << pixels << "_kw" << kw << "_s" << sw << "_d" << dw
     << "_iw" << iw << "ow" << ow << "pl" << pad_left << "_ur" << ur_w << "a" << acc_sets;
  if (kh) os << "_kh" << kh;
  if (bias) os << "_bias";
  if (act.type != ActivationType::none) os << "_" << act.kernel_tag();
  return os.str();
}

int conv_dw_pixels_per_vector(Isa isa, int pack, int sw) {
  if (isa == Isa::scalar || (pack != 1 && pack != 4 && pack != 8 && pack != 16) || pack > isa_lanes(isa)) return 0;
  const int lanes = isa_lanes(isa);
  // A stride-2 gather costs permutes (port 5) per tap and vector: about 3 cycles per
  // kernel row of a 3-tap vector on AVX-512 (one vpermt2ps per tap), 6 on AVX2 (vshufps
  // + vpermpd). That pays when a vector holds 4 pixels or more; with 2 a narrower vector
  // per pixel is as fast (1.5 cycles per pixel and kernel row) and simpler.
  if (pack < lanes && (sw == 1 || (sw == 2 && lanes / pack >= 4))) return lanes / pack;
  return pack == 1 ? 0 : 1;  // a narrower vector per pixel (xmm for pack 4, ymm for 8)
}

bool conv_dw_jit_supported(Isa isa, int kw, int sw, int pack, const Activation& act) {
  const int pixels = conv_dw_pixels_per_vector(isa, pack, sw);
  ConvDwProblem p;
  p.kw = kw;
  p.sw = sw;
  p.pack = pack;
  p.act = act;
  return pixels > 0 && kw >= 1 && max_ur_w(isa, p, pixels) >= 1;
}

int conv_dw_window_vectors(Isa isa, int pack, int pixels, int sw, int kw, int dw) {
  if (isa != Isa::avx512 || pixels == 1 || sw != 1) return 0;
  const int lanes = pixels * pack;
  const int window = ((kw - 1) * dw * pack + lanes - 1) / lanes + 1;
  return window <= kMaxWindow ? window : 0;  // wide dilated rows load per tap instead
}

ConvDwConf init_conv_dw_conf(Isa isa, const ConvDwProblem& p) {
  if (!conv_dw_jit_supported(isa, p.kw, p.sw, p.pack, p.act))
    fail("no depthwise kernel for kw ", p.kw, " stride ", p.sw, " elempack ", p.pack, " on ", isa_name(isa));
  if (p.iw <= 0 || p.ow <= 0 || p.sw <= 0 || p.dw <= 0 || p.pad_left < 0)
    fail("depthwise kernel: bad geometry iw ", p.iw, " ow ", p.ow, " sw ", p.sw, " dw ", p.dw, " pad_left ",
         p.pad_left);
  ConvDwConf c;
  c.isa = isa;
  c.pack = p.pack;
  c.pixels = conv_dw_pixels_per_vector(isa, p.pack, p.sw);
  c.iw = p.iw;
  c.ow = p.ow;
  c.kw = p.kw;
  c.sw = p.sw;
  c.dw = p.dw;
  c.pad_left = p.pad_left;
  c.bias = p.bias;
  c.act = p.act;
  // Equal blocks: a row of 30 vectors runs as 2 x 15, not 28 + 2.
  const int vectors = (p.ow + c.pixels - 1) / c.pixels;
  const int widest = max_ur_w(isa, p, c.pixels);
  const int blocks = (vectors + widest - 1) / widest;
  c.ur_w = (vectors + blocks - 1) / blocks;
  const int fixed = p.kw + input_registers(isa, p.pack, c.pixels, p.sw, p.kw, p.dw);
  c.acc_sets = std::min(p.kw, (kMinChains + c.ur_w - 1) / c.ur_w);
  while (c.acc_sets > 1 && c.ur_w * c.acc_sets + fixed > vector_registers(isa)) c.acc_sets--;
  return c;
}

bool conv_dw_interior_conf(const ConvDwConf& edge, int kh, ConvDwConf& interior) {
  interior = edge;
  interior.kh = kh;
  const int fixed =
      kh * edge.kw + input_registers(edge.isa, edge.pack, edge.pixels, edge.sw, edge.kw, edge.dw);
  while (interior.acc_sets > 1 && interior.ur_w * interior.acc_sets + fixed > vector_registers(edge.isa))
    interior.acc_sets--;
  const int regs = vector_registers(edge.isa);
  // The activation's scratch registers must leave the taps (and gather indices) alone.
  const int gather_indices = edge.isa == Isa::avx512 && edge.pixels > 1 && edge.sw == 2 ? 1 : 0;
  const int scratch = regs - edge.ur_w - kh * edge.kw - gather_indices;
  return kh >= 1 && interior.ur_w * interior.acc_sets + fixed <= regs &&
         scratch >= ActivationEmitter::temps_needed(edge.isa, edge.act);
}

}  // namespace jitconv
