#include "jit/gemm_int8_conf.h"

#include <algorithm>
#include <sstream>

#include "jit/activation_emitter.h"

namespace jitconv {

namespace {
// Wider blocks add little once the weights are reused this often, and every distinct
// width is another tail kernel.
constexpr int kMaxNr = 12;
}  // namespace

const char* int8_dot_name(Int8Dot dot) { return dot == Int8Dot::vnni ? "vnni" : "madd16"; }

bool int8_dot_supported(Isa isa, Int8Dot dot) {
  if (!isa_supported(isa)) return false;
  if (dot == Int8Dot::madd16) return true;
  if (isa == Isa::avx512) return cpu_info().avx512_vnni;
  if (isa == Isa::avx2) return cpu_info().avx_vnni;
  return false;
}

Int8Dot default_int8_dot(Isa isa) {
  return isa != Isa::scalar && int8_dot_supported(isa, Int8Dot::vnni) ? Int8Dot::vnni : Int8Dot::madd16;
}

std::string GemmInt8Conf::name() const {
  std::ostringstream os;
  os << "gemm_int8_" << isa_name(isa) << "_" << int8_dot_name(dot) << "_m" << ur_oc << "x" << vlen << "_n" << nr;
  if (n_tail) os << "t" << n_tail;
  os << "_bs" << b_pixel_stride << "_o" << out_pack;
  if (last_chunk_lanes != vlen) os << "_lanes" << last_chunk_lanes;
  if (bias) os << "_bias";
  if (act.type != ActivationType::none) os << "_" << act.kernel_tag();
  if (requantize) os << "_rq";
  return os.str();
}

int gemm_int8_epilogue_temps(Isa isa, const Activation& act, bool requantize) {
  // The requantization holds the top scale, its inverse and one scratch; the store one.
  return std::max({ActivationEmitter::temps_needed(isa, act), requantize ? 3 : 0, 1});
}

GemmInt8Blocking choose_gemm_int8_blocking(Isa isa, Int8Dot dot, int chunks, const Activation& act,
                                           bool requantize) {
  GemmInt8Blocking b;
  if (isa == Isa::scalar) {
    b.ur_oc = std::min(chunks, 2);
    b.nr = 4;
    return b;
  }
  const int regs = isa == Isa::avx512 ? 32 : 16;
  // AVX-512: 4 chunks x 6 pixels (24 accumulators, each broadcast feeds 4 dots); AVX2:
  // 2 x 6. A lone chunk takes more pixels instead.
  b.ur_oc = std::min(chunks, isa == Isa::avx512 ? 4 : 2);
  // Loop registers: ur_oc weight vectors, the broadcast, and madd16's product.
  const int loop_regs = b.ur_oc + 1 + (dot == Int8Dot::madd16 ? 1 : 0);
  const int reserved = std::max(loop_regs, gemm_int8_epilogue_temps(isa, act, requantize));
  b.nr = std::max(1, std::min(kMaxNr, (regs - reserved) / b.ur_oc));
  return b;
}

GemmInt8Conf init_gemm_int8_conf(Isa isa, Int8Dot dot, const GemmInt8Blocking& blocking, int ur_oc, int n_tail,
                                 long b_pixel_stride, int out_pack, int last_chunk_lanes, bool bias,
                                 bool requantize, const Activation& act) {
  GemmInt8Conf c;
  c.isa = isa;
  c.vlen = gemm_int8_vlen(isa);
  c.dot = dot;
  c.ur_oc = ur_oc;
  c.nr = blocking.nr;
  c.n_tail = n_tail;
  c.b_pixel_stride = b_pixel_stride;
  c.out_pack = out_pack;
  c.last_chunk_lanes = last_chunk_lanes;
  c.bias = bias;
  c.requantize = requantize;
  c.act = act;
  return c;
}

}  // namespace jitconv
