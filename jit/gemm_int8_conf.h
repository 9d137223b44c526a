// The int8 GEMM microkernel: C[pixels][M] = dequant(sum over segments and K of A * B),
// the core of the int8 convolution (runtime/conv_int8_impl.h).
//
// Every operand moves in 32-bit groups of k: one group is 4 int8 values (vnni) or 2
// int16 values (madd16), so each int32 lane of a vector dot instruction reduces one
// group. Element (k, n) lives at byte (k / group_elems) * 4 + (k % group_elems) * elem_bytes
// of its group row:
//
//   A (weights) = [segment][k_group][ur_oc][vlen][4 bytes]        one chunk group
//   B (input)   = b + offsets[segment] + n * b_pixel_stride + k_group * 4
//                 (vnni: uint8 = quantized + 128; madd16: int16 = quantized)
//   C (output)  = [plane][pixel][out_pack] fp32
//
// The accumulators start from acc_init (vnni: -128 * sum of the channel's weights, which
// removes the +128 of the unsigned input; madd16: 0), so after the reduction they hold
// the exact int32 sums. The epilogue converts to fp32, multiplies by the per-channel
// dequantization scale, adds the bias, applies the activation and, when requantizing,
// rounds to the int8 grid of the top scale (see gemm_int8_gen.h) before the store.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/activation.h"
#include "runtime/cpu.h"

namespace jitconv {

// How a kernel multiplies bytes.
enum class Int8Dot {
  // vpdpbusd (AVX512-VNNI on zmm, AVX-VNNI on ymm): 4 u8 x s8 products per int32 lane,
  // no intermediate saturation.
  vnni,
  // vpmaddwd on int16 operands: 2 s16 x s16 products per int32 lane. Used without VNNI.
  // vpmaddubsw would take int8 operands, but its int16 pair sums saturate (255 * 127 * 2
  // > 32767) for u8 inputs; widening to int16 once, when the input is quantized, keeps
  // every product exact at the cost of twice the operand bytes. Two vector ops per 32
  // products: about fp32 FMA throughput, so madd16 buys exactness, not speed.
  madd16,
};

const char* int8_dot_name(Int8Dot dot);
// Values per 32-bit group and bytes per value.
inline int int8_dot_group_elems(Int8Dot dot) { return dot == Int8Dot::vnni ? 4 : 2; }
inline int int8_dot_elem_bytes(Int8Dot dot) { return dot == Int8Dot::vnni ? 1 : 2; }
// Whether this CPU can run `dot` at `isa` (vnni needs AVX512-VNNI or AVX-VNNI).
bool int8_dot_supported(Isa isa, Int8Dot dot);
// vnni where the CPU has it, madd16 otherwise. Scalar code uses madd16's layout.
Int8Dot default_int8_dot(Isa isa);

// Lanes per chunk of output channels: the vector width, and 16 for the portable
// scalar kernel (so every output elempack fits a chunk).
inline int gemm_int8_vlen(Isa isa) { return isa == Isa::scalar ? 16 : isa_lanes(isa); }

struct GemmInt8Conf {
  Isa isa = Isa::avx512;
  int vlen = 16;  // int32 / fp32 lanes per vector
  Int8Dot dot = Int8Dot::vnni;
  int ur_oc = 1;   // chunks of vlen output channels
  int nr = 1;      // pixels per register block
  int n_tail = 0;  // pixels of the trailing partial block
  long b_pixel_stride = 4;  // bytes between consecutive pixels of B
  int out_pack = 16;
  int last_chunk_lanes = 16;  // valid lanes of the last chunk (< vlen only at the oc tail)
  bool bias = false;
  bool requantize = false;  // round to the int8 grid of the top scale (int8_scale_term > 100)
  Activation act;

  // e.g. gemm_int8_avx512_vnni_m4x16_n6t2_bs256_o16_bias_relu_rq
  std::string name() const;
};

struct GemmInt8Args {
  const void* a;          // the chunk group's weights
  const void* b;          // B at the first pixel, before the segment offset
  const long* b_offsets;  // byte offset of each segment's B
  float* c;               // C at the first pixel of the group's first plane
  const int32_t* acc_init;  // ur_oc * vlen start values
  const float* scale;       // ur_oc * vlen dequantization scales
  const float* bias;        // ur_oc * vlen values, or null
  const float* requant;     // {top_scale, 1 / top_scale} when requantizing
  long segments;          // >= 1
  long k_groups;          // 32-bit k groups per segment, >= 1
  long n_blocks;          // full nr-pixel blocks before the tail
  long c_plane_stride;    // bytes between planes of C
};

using GemmInt8KernelFn = void (*)(const GemmInt8Args*);

struct GemmInt8Blocking {
  int ur_oc = 1;
  int nr = 1;
};

// Vector registers the epilogue needs besides the accumulators.
int gemm_int8_epilogue_temps(Isa isa, const Activation& act, bool requantize);
// Register blocking for `chunks` chunks of output channels.
GemmInt8Blocking choose_gemm_int8_blocking(Isa isa, Int8Dot dot, int chunks, const Activation& act, bool requantize);

// The configuration of one kernel: everything but the tail width and the last chunk's
// lanes comes from the blocking and the problem.
GemmInt8Conf init_gemm_int8_conf(Isa isa, Int8Dot dot, const GemmInt8Blocking& blocking, int ur_oc, int n_tail,
                                 long b_pixel_stride, int out_pack, int last_chunk_lanes, bool bias,
                                 bool requantize, const Activation& act);

}  // namespace jitconv
