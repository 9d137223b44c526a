// The GEMM microkernel: C[pixels][M] (+)= A[K][M] * B[K][pixels], the core that 1x1
// convolutions, im2col convolutions, Winograd's batched multiplies and InnerProduct share.
//
//   A (weights) = [K][ur_oc][vlen]                          one chunk group, K-major
//                 (fp32, or fp16 when a_fp16)
//   B (input)   = [K / k_pack][pixel][k_pack]               element (k, n) at
//                   b + (k / k_pack) * b_k_stride + n * b_pixel_stride + (k % k_pack) * 4
//   C (output)  = [plane][pixel][out_pack]                  final results (elempack layout)
//   acc         = [chunk][pixel][vlen]                      partial sums between K blocks
//
// One call computes n_blocks * nr + n_tail pixels for ur_oc chunks over a K range (or,
// batch-reduced, over several (A, B) pairs, e.g. one per kernel tap). Flags say whether
// it starts from the partial sums in acc and whether it finishes (bias, residual,
// activation, store in out_pack) or leaves partial sums in acc.
#pragma once
#include <string>

#include "runtime/activation.h"
#include "runtime/cpu.h"

namespace jitconv {

struct GemmConf {
  Isa isa = Isa::avx512;
  int vlen = 16;
  int ur_oc = 1;  // chunks of vlen output channels
  int nr = 1;     // pixels per register block
  int n_tail = 0;  // pixels of the trailing partial block
  int k_pack = 1;  // lanes of k stored together in B (the k loop unrolls them)
  long b_pixel_stride = 4;  // bytes between consecutive pixels of B
  int out_pack = 16;
  int last_chunk_lanes = 16;
  bool explicit_bcast = true;
  bool bias = false;
  bool residual = false;  // add a tensor laid out like C before the activation (out_pack == vlen)
  bool batch_reduce = false;  // A/B come as pointer lists
  // A holds fp16 values (converted with vcvtph2ps as they are loaded): half the bytes for
  // weight-streaming GEMVs (InnerProduct with fp16 weight storage, as ncnn's x86 does).
  bool a_fp16 = false;
  // Not batch-reduced: at each k group, prefetch into L2 the lines of the block's B pixels
  // args.b_prefetch_offset bytes further on, spread over the group's lanes. The strided 1x1
  // driver points it at input rows ahead: strided rows start a new hardware-prefetch stream
  // in every channel plane and would otherwise wait on L3. The pointwise driver (AVX2, 16+
  // planes) points it a few register blocks ahead along the same planes.
  bool prefetch_b = false;
  // Not batch-reduced, not with prefetch_b: at each k group (every pass over K), prefetch
  // into L2 this many lines of A from args.a_prefetch onwards, advancing it. Drivers that
  // stream A panels larger than L2 can share out (sum of all passes) the next panel's
  // lines over the current call, so it arrives from L3 before it is needed.
  int prefetch_a_lines = 0;
  // A stream of the driver's own lines, fetched into L2 while the call computes: at each k
  // group, up to this many lines from args.x_prefetch onwards, args.x_prefetch_lines in
  // all per call (the count runs out first when the driver has fewer). The Winograd driver
  // fetches the next tile block's input rows and the current block's output rows with it:
  // a block's transforms otherwise wait on L3 or memory for them, while its GEMM leaves
  // the memory system idle.
  int prefetch_x_lines = 0;
  Activation act;

  std::string name() const;
};

enum GemmFlags : long {
  kGemmLoadAcc = 1,  // start from acc instead of bias/zero
  kGemmFinal = 2,    // finish into C; otherwise store partial sums to acc
};

struct GemmArgs {
  const float* a;         // A, or (batch_reduce) const float* const* list
  const float* b;         // B at the first pixel, or (batch_reduce) const float* const* list
  float* c;               // C at the first pixel of the first plane
  float* acc;             // partial sums at the first pixel of chunk 0
  const float* bias;      // ur_oc * vlen values (zero-padded) or null
  const float* residual;  // like C, or null
  long k_groups;          // K / k_pack (per batch entry)
  long n_blocks;          // full nr-pixel blocks before the tail
  long b_k_stride;        // bytes between k groups of B
  long c_plane_stride;    // bytes between planes of C
  long acc_chunk_stride;  // bytes between chunks of acc
  long residual_plane_stride;
  long flags;             // GemmFlags
  long batch;             // batch_reduce: number of (A, B) pairs
  long b_prefetch_offset; // prefetch_b: bytes from each B line to the line to prefetch
  const void* a_prefetch; // prefetch_a_lines: the first line to prefetch
  const void* x_prefetch; // prefetch_x_lines: the first line of the stream's slice
  long x_prefetch_lines;  // prefetch_x_lines: lines in the slice
};

using GemmKernelFn = void (*)(const GemmArgs*);

// Register blocking for the GEMM kernel: ur_oc chunks x nr pixels.
struct GemmBlocking {
  int ur_oc = 1;
  int nr = 1;
  bool explicit_bcast = true;
};
// For M = `chunks` chunks and a long pixel dimension.
GemmBlocking choose_gemm_blocking(Isa isa, int chunks, const Activation& act);
// For a 1x1 stride-1 layer (B read in place, once per chunk group) of k input channels.
GemmBlocking choose_pointwise_blocking(Isa isa, int chunks, long k, const Activation& act);
// For a full-K call (no K blocking): the widest group whose A panel (k x ur_oc x vlen
// floats) stays in L1 beside B, then as many pixels as the registers allow.
GemmBlocking choose_gemm_blocking_for_k(Isa isa, int chunks, long k, long l1_bytes, const Activation& act);
// The widest nr for a given ur_oc and broadcast form.
int gemm_max_nr(Isa isa, int ur_oc, bool explicit_bcast, const Activation& act);

}  // namespace jitconv
