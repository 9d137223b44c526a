#include "jit/conv_direct_conf.h"

#include <algorithm>
#include <cmath>
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
  if (lane_unroll > 0 && lane_unroll < in_pack) os << "_lu" << lane_unroll;
  if (!explicit_bcast) os << "_eb";
  if (bias) os << "_bias";
  if (residual) os << "_res";
  if (prefetch_lines > 0) os << "_pf" << prefetch_lines;
  if (ic_blocked) os << "_icb";
  if (prefetch_next_row) os << "_pfr";
  if (act.type != ActivationType::none) os << "_" << act.kernel_tag();
  return os.str();
}

namespace {

// Throughput model of one reduction step (one input lane of one kernel tap) of a register
// block: ur_oc chunks x width pixels. Figures for Golden Cove / Zen 4 class cores: two
// FMA pipes, two 512-bit (three 256-bit) loads and ~5 sustained uops per cycle, 4-cycle
// FMA latency (each accumulator gets one FMA per step). When the group's weights do not
// stay in L1 every weight vector streams from L2, at about one 64-byte line per 2 cycles,
// and, when the layer's weights outgrow half of L2 (they come from L3 each pass), each
// costs a further kWeightVectorCycles: without it, the input-pass cost below moves 14-wide
// rows whose weights stream (3x3 256@14, 14 x 2 -> 5 x 4; AVX2 14 x 1 -> 5 x 2) to narrow
// blocks that re-read the weights three times per row (2-10% slower with the machine to
// itself). Weights that stay in L2 cost nothing more: narrow 4-chunk blocks that read the
// input once beat 14 x 2 blocks that read it twice (one thread, forced direct, x oneDNN,
// six interleaved rounds: 3x3 64@56 0.92 -> 0.96, 128@28 0.90 -> 0.96, d2 64@56 0.92 ->
// 0.98: equal with the machine to itself, ahead in the host's slow minutes).
constexpr double kWeightVectorCycles = 0.75;

double step_cycles(Isa isa, int ur_oc, int width, bool explicit_bcast, bool weights_in_l1,
                   bool weights_stream_free) {
  const double fmas = static_cast<double>(ur_oc) * width;
  const double loads = ur_oc + (explicit_bcast ? width : fmas);
  const double uops = fmas + ur_oc + (explicit_bcast ? width : 0);
  const double load_ports = isa == Isa::avx512 ? 2.0 : 3.0;
  double cycles = std::max({fmas / 2.0, loads / load_ports, uops / 5.0, 4.0});
  if (!weights_in_l1)
    cycles = std::max(cycles, 2.0 * ur_oc * (isa == Isa::avx512 ? 1.0 : 0.5)) +
             (weights_stream_free ? 0.0 : kWeightVectorCycles * ur_oc);
  return cycles + 0.25;  // loop and addressing overhead
}

struct Blocking {
  int ur_w = 1;
  bool explicit_bcast = true;
  double cycles = 0;  // per output row, per reduction step, summed over the groups given
};

int max_ur_w(Isa isa, int ur_oc, bool explicit_bcast, const Activation& act) {
  const int regs = isa == Isa::avx512 ? 32 : 16;
  const int reserved = std::max({ur_oc + (explicit_bcast ? 1 : 0), ActivationEmitter::temps_needed(isa, act), 1});
  return std::min(28, (regs - reserved) / ur_oc);
}

constexpr long kL1WeightBytes = 32 * 1024;  // a group's weights that stay in L1 beside the input
constexpr long kIcBlockBytes = 24 * 1024;   // target for one input-channel block's weights

// Best ur_w / broadcast form for a group of ur_oc chunks over a row of `ow` pixels.
Blocking best_row_blocking(Isa isa, int ur_oc, const ConvDirectProblem& p, int ow) {
  const int vlen = isa_lanes(isa);
  const int ic = p.ic_block > 0 ? p.ic_block : p.ic;
  const long group_weight_bytes = static_cast<long>(ic) * p.kh * p.kw * ur_oc * vlen * 4;
  const bool in_l1 = group_weight_bytes <= kL1WeightBytes;
  const double layer_weight_bytes = 4.0 * p.ic * p.oc * p.kh * p.kw;
  // Weights in half of L2, or past it where L3 keeps up (fast_l3), cost nothing beyond their loads.
  const bool stream_free =
      p.fast_l3 || (p.l2_bytes > 0 && layer_weight_bytes <= 0.5 * static_cast<double>(p.l2_bytes));
  Blocking best;
  best.cycles = 1e30;
  for (bool explicit_bcast : {true, false}) {
    if (!explicit_bcast && isa != Isa::avx512) continue;
    if (explicit_bcast && isa == Isa::avx512 && ur_oc == 1) continue;  // a broadcast per single FMA gains nothing
    const int widest = max_ur_w(isa, ur_oc, explicit_bcast, p.act);
    if (widest < 1) continue;
    const int blocks = (ow + widest - 1) / widest;
    const int ur_w = (ow + blocks - 1) / blocks;
    double cycles = 0;
    for (int ow0 = 0; ow0 < ow; ow0 += ur_w)
      cycles += step_cycles(isa, ur_oc, std::min(ur_w, ow - ow0), explicit_bcast, in_l1, stream_free);
    if (cycles < best.cycles - 1e-9) {
      best.cycles = cycles;
      best.ur_w = ur_w;
      best.explicit_bcast = explicit_bcast;
    }
  }
  return best;
}

constexpr int kTypicalWidth = 56;

// Cost of one pass of a chunk group over an input line, in cycles. The throughput model
// alone sees no difference between 14 x 2 and 6 x 4 blocks on a 1x1 layer, but 2-chunk
// groups read the input twice as often. Paired calls alternating in one process (ms of the
// old choice / the new, median of 400 pairs), one thread, AVX-512: 1x1 64->256 @56
// (ur_oc 2 -> 4) 1.04-1.14, 256->64 1.09-1.11, 256->128 s2 1.11, 32->64 @112 1.05,
// 1024->256 @14 1.01; 3x3 96@35 (2 -> 3) 1.05-1.07, 512@7 (2 -> 3) 1.04-1.05, 7x7 s2 ic3
// (2 -> 3) 1.05. AVX2 (1 -> 3 chunks of 8): 1x1 64->256 1.08, 256->128 s2 1.36, 7x7 s2 ic3
// 1.27. Four cycles a line reproduces the 1x1 gap.
constexpr double kInputLineCycles = 4.0;

// Largest kh-loop body (all kw taps x unrolled lanes) left fully unrolled. A 3x3 tap over
// 16 lanes at 14 x 2 is ~2100 instructions (~15 KB, and three such bodies for a row's
// left-edge, interior and right-edge blocks): past the uop cache, and past half of it when
// the core's other hyperthread runs, when the front end, not the FMA ports, sets the pace.
// Paired calls alternating in one process, one thread, ms full unroll / 4-lane loop (the
// median of 300 paired ratios): 3x3 64@56 1.054, 128@28 1.015, 256@14 1.019, 512@7 1.022,
// 96@35 1.021, d2 64@56 1.044, 3x3s2 128 0.999; 1x1 bodies (~700 instructions) lose from
// the loop (64->256 / 256->64 / 1024->256 / 256->128 s2: 1.01 / 0.97 / 0.97 / 0.92) and
// stay unrolled. Loops of two iterations lose: 3x3 8-lane / 4-lane loop 1.01-1.10; 5x5
// 40->120 (8 lanes, ~1760 instructions) full / 4-lane / 2-lane: 0.95-0.96 / 1 / 1.03-1.04 of
// the 4-lane time.
constexpr long kMaxKhBodyInstructions = 1024;

}  // namespace

int conv_direct_ic_block(Isa isa, const ConvDirectProblem& p, int ur_oc) {
  const int vlen = isa_lanes(isa);
  const long per_channel = static_cast<long>(p.kh) * p.kw * ur_oc * vlen * 4;
  if (p.out_pack != vlen || p.ic <= p.in_pack || p.ic * per_channel <= kL1WeightBytes) return p.ic;
  // k x k kernels keep whole groups: their taps reuse each loaded input row kh x kw times
  // and, blocked, they lose more to the extra passes over dst and the smaller groups the
  // cost model then picks than they gain (one thread, x oneDNN, whole / blocks of 24 KB /
  // 40 KB: 3x3 64@56 0.99-1.01 / 0.90 / 0.95-0.96, 96@35 0.98 / 0.90 / 0.95, d2 64@56
  // 0.97-1.00 / 0.88-0.90 / 0.95-0.97). 1x1 with 256 and more input channels gain
  // (256->64 @56 0.88 -> 0.94, 1024->256 @14 0.88 -> 1.01).
  if (p.kh * p.kw > 1) return p.ic;
  ConvDirectProblem whole = p;
  whole.ic_block = 0;
  const int ow = p.ow > 0 ? p.ow : 56;
  if (best_row_blocking(isa, ur_oc, whole, ow).ur_w >= ow) return p.ic;  // one block per row reads them once anyway
  const long block = std::max<long>(p.in_pack, kIcBlockBytes / per_channel / p.in_pack * p.in_pack);
  return static_cast<int>(std::min<long>(block, p.ic));
}

int conv_direct_ur_oc(Isa isa, const ConvDirectProblem& p) {
  const int vlen = isa_lanes(isa);
  const int chunks = (p.oc + vlen - 1) / vlen;
  // 5-6 chunks (4-pixel blocks) measured below 4: 1x1 1024->256 @14 0.97, 256->128 s2 0.98.
  const int max_ur = isa == Isa::avx512 ? 4 : 3;
  const int ow = p.ow > 0 ? p.ow : kTypicalWidth;
  // Every group reads the input rows again: the input lines one reduction step of a row
  // brings in from L2 (each line serves in_pack lane steps of its pixel).
  const double span_w = static_cast<double>(ow - 1) * p.sw + static_cast<double>(p.kw - 1) * p.dw + 1;
  const double row_lines = static_cast<double>(p.ic) / p.in_pack * p.kh * std::ceil(span_w * p.in_pack * 4 / 64);
  const double pass_cycles = kInputLineCycles * row_lines / (static_cast<double>(p.ic) * p.kh * p.kw);
  int best_ur = 1, best_groups = chunks;
  double best_cycles = 1e30;
  double min_cycles = 1e30;  // the cheapest group size's cost: near ties are judged against it
  for (int ur = 1; ur <= std::min(max_ur, chunks); ur++) {
    const int full = chunks / ur, rest = chunks % ur;
    ConvDirectProblem blocked = p;
    blocked.ic_block = conv_direct_ic_block(isa, p, ur);
    double cycles = full * (best_row_blocking(isa, ur, blocked, ow).cycles + pass_cycles);
    if (rest) cycles += best_row_blocking(isa, rest, blocked, ow).cycles + pass_cycles;
    // Near ties go to fewer groups (each group re-reads the input rows); between equal
    // group counts to the cheaper split (96@35: 3 + 3 chunks, not 4 + 2: 0.95 -> 1.00x).
    min_cycles = std::min(min_cycles, cycles);
    const int groups = full + (rest ? 1 : 0);
    if (cycles <= min_cycles * 1.015 && (groups < best_groups || cycles < best_cycles)) {
      best_ur = ur;
      best_groups = groups;
      best_cycles = cycles;
    }
  }
  return best_ur;
}

int conv_direct_lane_unroll(const ConvDirectConf& c) {
  // Instructions per input lane of one tap: the weight loads, then per pixel a broadcast
  // and ur_oc FMAs (or ur_oc FMAs with an embedded broadcast).
  const long per_lane = c.ur_oc + static_cast<long>(c.ur_w) * (c.ur_oc + (c.explicit_bcast ? 1 : 0));
  auto body = [&](int lanes) { return c.kw * lanes * per_lane; };
  if (body(c.in_pack) <= kMaxKhBodyInstructions) return c.in_pack;
  // Rolled: at least four iterations per tap (two-iteration loops measured slower than both
  // the full unroll and a four-iteration loop).
  int unroll = c.in_pack / 4;
  while (unroll > 1 && body(unroll) > kMaxKhBodyInstructions) unroll /= 2;
  return std::max(1, unroll);
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
  const int ic = p.ic_block > 0 ? p.ic_block : p.ic;
  if (ic % p.in_pack != 0) fail("input-channel block ", ic, " is not a multiple of the input elempack ", p.in_pack);
  c.ic_groups = ic / p.in_pack;
  c.ic_blocked = ic < p.ic;
  if (c.ic_blocked && p.out_pack != c.vlen)
    fail("input-channel blocks need output elempack ", c.vlen, ", got ", p.out_pack);
  c.ur_oc = chunks_in_group;
  c.last_chunk_lanes = lanes_in_last_chunk;
  c.bias = p.bias;
  c.residual = p.residual;
  if (c.residual && c.out_pack != c.vlen) fail("a fused residual needs output elempack ", c.vlen, ", got ", c.out_pack);
  c.act = p.act;
  if (p.prefetch_next_row && p.kh != 1) fail("the input-row prefetch is for 1x1 kernels, got kh ", p.kh);
  c.prefetch_next_row = p.prefetch_next_row;
  const Blocking b = best_row_blocking(isa, c.ur_oc, p, p.ow);
  c.ur_w = b.ur_w;
  c.explicit_bcast = b.explicit_bcast;
  c.lane_unroll = conv_direct_lane_unroll(c);
  return c;
}

}  // namespace jitconv
