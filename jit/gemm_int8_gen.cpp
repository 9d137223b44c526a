#include "jit/gemm_int8_gen.h"

#include <cstddef>
#include <cstring>

#include "jit/store_emitter.h"
#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

GemmInt8Generator::GemmInt8Generator(const GemmInt8Conf& conf)
    : conf_(conf), activation_(*this, conf.isa, conf.act) {
  if (conf.isa == Isa::scalar) fail(conf.name(), ": the int8 kernel needs AVX2 or AVX-512");
  if (conf.vlen != isa_lanes(conf.isa)) fail(conf.name(), ": vlen must be ", isa_lanes(conf.isa));
  const int regs = conf.isa == Isa::avx512 ? 32 : 16;
  const int loop_regs = conf.ur_oc + 1 + (conf.dot == Int8Dot::madd16 ? 1 : 0);
  if (conf.ur_oc < 1 || conf.nr < 1 || conf.nr * conf.ur_oc + loop_regs > regs)
    fail(conf.name(), ": register block too large");
  if (regs - conf.nr * conf.ur_oc < gemm_int8_epilogue_temps(conf.isa, conf.act, conf.requantize))
    fail(conf.name(), ": too few registers left for the epilogue");
  if (conf.b_pixel_stride <= 0 || conf.b_pixel_stride * conf.nr > 0x7fffffffL)
    fail(conf.name(), ": pixel stride out of the 32-bit displacement range");
  if (conf.n_tail < 0 || conf.n_tail >= conf.nr) fail(conf.name(), ": tail must be shorter than a block");
  if (conf.last_chunk_lanes < 1 || conf.last_chunk_lanes > conf.vlen || conf.last_chunk_lanes % conf.out_pack)
    fail(conf.name(), ": the last chunk's lanes must be a multiple of the output elempack");
}

Xmm GemmInt8Generator::vreg(int index) const {
  return conf_.isa == Isa::avx512 ? Xmm(Zmm(index)) : Xmm(Ymm(index));
}

Address GemmInt8Generator::constant(Constant which) {
  table_used_ = true;
  return ptr[rip + table_ + static_cast<int>(which) * 64];
}

std::vector<int> GemmInt8Generator::free_vregs(int width) const {
  std::vector<int> regs;
  const int total = conf_.isa == Isa::avx512 ? 32 : 16;
  for (int r = 0; r < total; r++) {
    const bool live = r < conf_.nr * conf_.ur_oc && r % conf_.nr < width;
    if (!live) regs.push_back(r);
  }
  return regs;
}

void GemmInt8Generator::load_int(int reg, const Address& src) {
  if (conf_.isa == Isa::avx512)
    vmovdqu32(Zmm(reg), src);
  else
    vmovdqu(Ymm(reg), src);
}

void GemmInt8Generator::emit_dot(int acc_reg, int weight) {
  if (conf_.dot == Int8Dot::vnni) {
    // Unsigned input bytes are the first source, signed weights the second.
    vpdpbusd(vreg(acc_reg), vreg(bcast_reg()), vreg(weight),
             conf_.isa == Isa::avx512 ? EvexEncoding : VexEncoding);
  } else {
    vpmaddwd(vreg(product_reg()), vreg(bcast_reg()), vreg(weight));
    vpaddd(vreg(acc_reg), vreg(acc_reg), vreg(product_reg()));
  }
}

void GemmInt8Generator::emit_reduction(int width) {
  const GemmInt8Conf& c = conf_;
  const long a_step = static_cast<long>(c.ur_oc) * c.vlen * 4;
  Label l_segment, l_k;
  mov(reg_a, reg_a_base);
  xor_(reg_segment, reg_segment);
  L(l_segment);
  mov(reg_b, reg_b_block);
  add(reg_b, ptr[reg_offsets + reg_segment]);
  mov(reg_k_iter, ptr[reg_args + offsetof(GemmInt8Args, k_groups)]);
  L(l_k);
  for (int oc = 0; oc < c.ur_oc; oc++) load_int(weight_reg(oc), ptr[reg_a + oc * c.vlen * 4]);
  for (int j = 0; j < width; j++) {
    vpbroadcastd(vreg(bcast_reg()), dword[reg_b + j * c.b_pixel_stride]);
    for (int oc = 0; oc < c.ur_oc; oc++) emit_dot(acc(oc, j), weight_reg(oc));
  }
  add(reg_a, a_step);
  add(reg_b, 4);
  dec(reg_k_iter);
  jnz(l_k, T_NEAR);
  add(reg_segment, 8);
  cmp(reg_segment, reg_segment_end);
  jl(l_segment, T_NEAR);
}

void GemmInt8Generator::emit_requantize(const std::vector<int>& accs, const std::vector<int>& temps) {
  const Xmm top = vreg(temps[0]), inv_top = vreg(temps[1]), half = vreg(temps[2]);
  mov(reg_tmp0, ptr[reg_args + offsetof(GemmInt8Args, requant)]);
  vbroadcastss(top, dword[reg_tmp0]);
  vbroadcastss(inv_top, dword[reg_tmp0 + 4]);
  for (int r : accs) {
    const Xmm x = vreg(r);
    vmulps(x, x, top);
    vmaxps(x, x, constant(kMinQ));  // a NaN takes the second operand: -127
    vminps(x, x, constant(kMaxQ));
    vandps(half, x, constant(kSignMask));
    vorps(half, half, constant(kRoundBias));
    vaddps(x, x, half);
    // Through int32 and back (truncating): the int8 value 0 is +0, never -0.
    vcvttps2dq(x, x);
    vcvtdq2ps(x, x);
    vmulps(x, x, inv_top);
  }
}

void GemmInt8Generator::emit_epilogue(int width) {
  const GemmInt8Conf& c = conf_;
  std::vector<int> live;
  mov(reg_tmp0, ptr[reg_args + offsetof(GemmInt8Args, scale)]);
  if (c.bias) mov(reg_tmp1, ptr[reg_args + offsetof(GemmInt8Args, bias)]);
  for (int oc = 0; oc < c.ur_oc; oc++)
    for (int j = 0; j < width; j++) {
      const Xmm x = vreg(acc(oc, j));
      // sum * scale, then + bias: ncnn's order, two roundings (no FMA).
      vcvtdq2ps(x, x);
      vmulps(x, x, ptr[reg_tmp0 + oc * c.vlen * 4]);
      if (c.bias) vaddps(x, x, ptr[reg_tmp1 + oc * c.vlen * 4]);
      live.push_back(acc(oc, j));
    }
  const std::vector<int> temps = free_vregs(width);
  if (c.act.type != ActivationType::none) activation_.apply(live, temps);
  if (c.requantize) emit_requantize(live, temps);
  PackedStoreEmitter store(*this, c.isa, c.out_pack);
  mov(reg_tmp2, reg_c_block);
  mov(reg_tmp1, ptr[reg_args + offsetof(GemmInt8Args, c_plane_stride)]);
  for (int oc = 0; oc < c.ur_oc; oc++) {
    std::vector<int> accs;
    for (int j = 0; j < width; j++) accs.push_back(acc(oc, j));
    store.store_chunk(accs, reg_tmp2, reg_tmp1, oc == c.ur_oc - 1 ? c.last_chunk_lanes : c.vlen, temps);
  }
}

void GemmInt8Generator::emit_block(int width) {
  const GemmInt8Conf& c = conf_;
  mov(reg_tmp0, ptr[reg_args + offsetof(GemmInt8Args, acc_init)]);
  for (int oc = 0; oc < c.ur_oc; oc++)
    for (int j = 0; j < width; j++) load_int(acc(oc, j), ptr[reg_tmp0 + oc * c.vlen * 4]);
  emit_reduction(width);
  emit_epilogue(width);
}

void GemmInt8Generator::emit_table() {
  if (!table_used_) return;
  uint32_t values[kConstantCount];
  const float round_bias = 0.49999997f;  // the largest float below 0.5
  const float min_q = -127.f, max_q = 127.f;
  values[kSignMask] = 0x80000000u;
  memcpy(&values[kRoundBias], &round_bias, 4);
  memcpy(&values[kMinQ], &min_q, 4);
  memcpy(&values[kMaxQ], &max_q, 4);
  align(64);
  L(table_);
  for (uint32_t bits : values)
    for (int lane = 0; lane < 16; lane++) dd(bits);
}

void GemmInt8Generator::generate() {
  const GemmInt8Conf& c = conf_;
  preamble();
  mov(reg_a_base, ptr[reg_args + offsetof(GemmInt8Args, a)]);
  mov(reg_b_block, ptr[reg_args + offsetof(GemmInt8Args, b)]);
  mov(reg_c_block, ptr[reg_args + offsetof(GemmInt8Args, c)]);
  mov(reg_offsets, ptr[reg_args + offsetof(GemmInt8Args, b_offsets)]);
  mov(reg_segment_end, ptr[reg_args + offsetof(GemmInt8Args, segments)]);
  shl(reg_segment_end, 3);
  Label l_blocks, l_tail;
  mov(reg_block_iter, ptr[reg_args + offsetof(GemmInt8Args, n_blocks)]);
  test(reg_block_iter, reg_block_iter);
  jz(l_tail, T_NEAR);
  L(l_blocks);
  emit_block(c.nr);
  add(reg_b_block, c.nr * c.b_pixel_stride);
  add(reg_c_block, c.nr * c.out_pack * 4);
  dec(reg_block_iter);
  jnz(l_blocks, T_NEAR);
  L(l_tail);
  if (c.n_tail > 0) emit_block(c.n_tail);
  postamble();
  activation_.emit_table();
  emit_table();
}

}  // namespace jitconv
