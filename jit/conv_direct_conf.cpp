#include "jit/conv_direct_conf.h"

#include <algorithm>
#include <sstream>

#include "jit/activation_emitter.h"
#include "runtime/error.h"

namespace jitconv {

std::string ConvDirectConf::name() const {
  std::ostringstream os;
  os << "conv_direct_" << isa_name(isa) << "_k" << kh << "x" << kw << "_s" << sw << "_d" << dh << "x" << dw << "_p"
     << in_pack << "to" << out_pack << "_iw" << iw << "ow" << ow << "pl" << pad_left << "_ic" << ic_groups << "_ur"
     << ur_w << "x" << ur_oc;
  if (last_chunk_lanes != vlen) os << "_lanes" << last_chunk_lanes;
  if (!explicit_bcast) os << "_eb";
  if (bias) os << "_bias";
  if (act.type != ActivationType::none) os << "_" << act.name();
  return os.str();
}

int conv_direct_ur_oc(Isa isa, int oc) {
  const int vlen = isa_lanes(isa);
  const int chunks = (oc + vlen - 1) / vlen;
  const int max_ur = isa == Isa::avx512 ? 4 : 2;
  if (chunks <= max_ur) return chunks;
  // Prefer a group size that divides the chunks so no tail kernel is needed.
  for (int ur = max_ur; ur >= max_ur - 1 && ur >= 2; ur--)
    if (chunks % ur == 0) return ur;
  return max_ur;
}

ConvDirectConf init_conv_direct_conf(Isa isa, const ConvDirectProblem& p, int chunks_in_group,
                                     int lanes_in_last_chunk) {
  if (isa == Isa::scalar) fail("direct convolution kernels need AVX2 or AVX-512");
  ConvDirectConf c;
  c.isa = isa;
  c.vlen = isa_lanes(isa);
  if (p.out_pack > c.vlen) fail("output elempack ", p.out_pack, " is wider than the ", isa_name(isa), " vector");
  if (p.ic % p.in_pack != 0) fail("ic ", p.ic, " is not a multiple of the input elempack ", p.in_pack);
  c.iw = p.iw;
  c.ow = p.ow;
  c.kh = p.kh;
  c.kw = p.kw;
  c.sw = p.sw;
  c.dh = p.dh;
  c.dw = p.dw;
  c.pad_left = p.pad_left;
  c.in_pack = p.in_pack;
  c.out_pack = p.out_pack;
  c.ic_groups = p.ic / p.in_pack;
  c.ur_oc = chunks_in_group;
  c.last_chunk_lanes = lanes_in_last_chunk;
  c.bias = p.bias;
  c.act = p.act;

  // Accumulators fill the register file beside the ur_oc weight vectors and the broadcast
  // register; the epilogue reuses those as scratch, so they must also cover what the
  // activation needs.
  c.explicit_bcast = isa != Isa::avx512 || c.ur_oc > 1;
  const int regs = isa == Isa::avx512 ? 32 : 16;
  const int reserved = std::max({c.ur_oc + (c.explicit_bcast ? 1 : 0), ActivationEmitter::temps_needed(isa, c.act), 1});
  int max_ur_w = (regs - reserved) / c.ur_oc;
  max_ur_w = std::min(max_ur_w, 28);
  // Spread ow over blocks of equal size so the tail block wastes little.
  const int blocks = (p.ow + max_ur_w - 1) / max_ur_w;
  c.ur_w = std::max(1, (p.ow + blocks - 1) / blocks);
  return c;
}

}  // namespace jitconv
