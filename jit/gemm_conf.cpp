#include "jit/gemm_conf.h"

#include <algorithm>
#include <sstream>

#include "jit/activation_emitter.h"

namespace jitconv {

std::string GemmConf::name() const {
  std::ostringstream os;
  os << "gemm_" << isa_name(isa) << "_m" << ur_oc << "x" << vlen << "_n" << nr;
  if (n_tail) os << "t" << n_tail;
  os << "_kp" << k_pack << "_bs" << b_pixel_stride << "_o" << out_pack;
  if (last_chunk_lanes != vlen) os << "_lanes" << last_chunk_lanes;
  if (!explicit_bcast) os << "_eb";
  if (batch_reduce) os << "_br";
  if (a_fp16) os << "_af16";
  if (prefetch_b) os << "_pfb";
  if (prefetch_a_lines > 0) os << "_pfa" << prefetch_a_lines;
  if (prefetch_x_lines > 0) os << "_pfx" << prefetch_x_lines;
  if (bias) os << "_bias";
  if (residual) os << "_res";
  if (act.type != ActivationType::none) os << "_" << act.kernel_tag();
  return os.str();
}

int gemm_max_nr(Isa isa, int ur_oc, bool explicit_bcast, const Activation& act) {
  const int regs = isa == Isa::avx512 ? 32 : 16;
  // The epilogue reuses the weight/broadcast registers as scratch (residual, activation, stores).
  const int reserved = std::max({ur_oc + (explicit_bcast ? 1 : 0), ActivationEmitter::temps_needed(isa, act), 1});
  return std::max(1, std::min(28, (regs - reserved) / ur_oc));
}

GemmBlocking choose_gemm_blocking(Isa isa, int chunks, const Activation& act) {
  GemmBlocking b;
  if (isa == Isa::avx512) {
    // 4 chunks x 6 pixels: 0.42 loads per FMA and each B value feeds 4 FMAs; narrower M
    // trades B reuse for more pixels.
    b.ur_oc = std::min(chunks, 4);
    if (chunks == 5 || chunks == 10) b.ur_oc = 5;
    if (chunks == 6 || chunks == 9) b.ur_oc = 3;
    b.explicit_bcast = b.ur_oc > 1;
  } else {
    b.ur_oc = std::min(chunks, 2);
    if (chunks % 3 == 0) b.ur_oc = 3;
    b.explicit_bcast = true;
  }
  b.nr = gemm_max_nr(isa, b.ur_oc, b.explicit_bcast, act);
  return b;
}

GemmBlocking choose_pointwise_blocking(Isa isa, int chunks, long k, const Activation& act) {
  GemmBlocking b = choose_gemm_blocking(isa, chunks, act);
  // On AVX2, 40 and 64 output channels (5 and 8 chunks) take 3 chunks x 4 pixels, groups
  // of 3 and a last one of 2, instead of 2 x 6: B, read in place, goes through L2 once per
  // group, and each group broadcasts 4 values per 12 FMAs instead of 6. Zen 3, x oneDNN,
  // six interleaved rounds, 2 x 6 -> 3 x 4: 256->64 @56 1.02 -> 1.06, 32->64 @112 0.97 ->
  // 1.02, 24->40 @56 0.90 -> 0.99 (two threads 1.01 -> 1.02, 1.00 -> 1.03, 0.92 -> 1.00).
  // Not on more chunks: 64->256 @56 0.99 -> 1.00, but 1024->256 and 256->1024 @14 fell
  // from 1.10 / 1.11 to 1.05 / 1.04 on two threads (11 or 43 groups split 196 pixels into
  // ranges too short to take K whole).
  if (isa == Isa::avx2 && (chunks == 5 || chunks == 8)) {
    b.ur_oc = 3;  // explicit broadcasts, as every AVX2 blocking
    b.nr = gemm_max_nr(isa, b.ur_oc, b.explicit_bcast, act);
  }
  // AVX-512, K of 32 or less: broadcasts from memory free the broadcast register, and 4 x 7
  // pixels take all 32 (28 accumulators): 7 pixels share the prologue and epilogue that
  // a short K does not hide. Zen 4, one thread, x oneDNN, 4 x 6 -> 4 x 7 alternating in
  // one process (300 runs each, after oneDNN): 16->96 @112 0.77 -> 0.87, 32->64 @112 0.90
  // -> 0.97 and 0.91 -> 0.97, 32->192 @56 0.947 -> 0.958, 48->128 @28 0.975 -> 0.982,
  // 64->256 @28 0.964 -> 0.985, @56 0.962 -> 0.956 (in `jitconv bench` 0.96-0.99 -> 0.93);
  // with K in blocks (256->64 @56) 1.02 -> 0.91 and 1024->256 @14 0.997 -> 0.983: K up to
  // 32 only. Only where zmm runs on 256-bit halves: on a full-width core (Zen 5) an FMA
  // with a broadcast from memory issues slower than one on a register (the GEMM kernel in
  // L1: 4 x 7 with broadcasts from memory 185-190 GFLOP/s against 4 x 6's 248-255), and
  // 4 x 6 takes the layers back: Zen 5, one thread, x oneDNN, alternating in one process
  // (300 runs), 4 x 7 -> 4 x 6: 32->64 @112 0.83 -> 0.94, 32->192 @56 0.83 -> 0.90, 16->96
  // @112 0.737 -> 0.749.
  if (half_rate_zmm(isa) && b.ur_oc == 4 && k <= 32) {
    b.explicit_bcast = false;
    b.nr = gemm_max_nr(isa, b.ur_oc, b.explicit_bcast, act);
  }
  return b;
}

}  // namespace jitconv

namespace jitconv {

GemmBlocking choose_gemm_blocking_for_k(Isa isa, int chunks, long k, long l1_bytes, const Activation& act) {
  GemmBlocking b = choose_gemm_blocking(isa, chunks, act);
  const long vlen_bytes = isa_lanes(isa) * 4L;
  // Two thirds of L1 for A; B and C take the rest. Measured on the GEMM microkernel:
  // K = 256 with a 64 KB A panel runs at 55-75% of peak, with a 32 KB one at ~95%.
  // AVX2 keeps 2 chunks whatever K: one chunk broadcasts each B value for a single FMA and
  // doubles the passes over B, which costs more than A panels coming from L2 (Zen 3,
  // Winograd layers, x oneDNN, three interleaved rounds, 1 x 14 -> 2 x 6 or 3 x 4 tiles:
  // 512@7 F(2,3) 1.67 -> 1.93, 512@14 2.48 -> 2.83-2.85, 512@28 3.33 -> 3.61-3.64, AlexNet
  // 384@13 2.18 -> 2.48-2.50 and 384->256 @13 2.15 -> 2.41-2.48; 3 x 4 instead of 2 x 6 at
  // 256->384 @13: 2.49 -> 2.51).
  const long budget = l1_bytes * 2 / 3;
  const int fewest = isa == Isa::avx2 ? std::min(b.ur_oc, 2) : 1;
  while (b.ur_oc > fewest && k * b.ur_oc * vlen_bytes > budget) b.ur_oc--;
  b.explicit_bcast = b.ur_oc > 1 || isa != Isa::avx512;
  b.nr = gemm_max_nr(isa, b.ur_oc, b.explicit_bcast, act);
  return b;
}

}  // namespace jitconv
