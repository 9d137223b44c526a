#include "jit/gemm_gen.h"

#include <algorithm>
#include <cstddef>

#include "jit/store_emitter.h"
#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

GemmGenerator::GemmGenerator(const GemmConf& conf) : conf_(conf), activation_(*this, conf.isa, conf.act) {
  const int regs = conf.isa == Isa::avx512 ? 32 : 16;
  const bool bcast = conf.explicit_bcast || conf.isa != Isa::avx512;
  conf_.explicit_bcast = bcast;
  if (conf.nr * conf.ur_oc + conf.ur_oc + (bcast ? 1 : 0) > regs) fail(conf.name(), ": register block too large");
  if (conf.n_tail >= conf.nr) fail(conf.name(), ": tail must be shorter than a block");
  if (conf.residual && conf.out_pack != conf.vlen) fail(conf.name(), ": residual add needs out_pack == vlen");
}

Xmm GemmGenerator::vreg(int index) const {
  return conf_.isa == Isa::avx512 ? Xmm(Zmm(index)) : Xmm(Ymm(index));
}

// A narrow last chunk's k loop runs on ymm halves (JitGenerator::chunk_reg).
Xmm GemmGenerator::lane_reg(int oc, int index) const {
  return chunk_reg(conf_.isa, index, oc == conf_.ur_oc - 1 ? conf_.last_chunk_lanes : conf_.vlen);
}

std::vector<int> GemmGenerator::free_vregs(int width) const {
  std::vector<int> regs;
  const int total = conf_.isa == Isa::avx512 ? 32 : 16;
  for (int r = 0; r < total; r++) {
    const bool live = r < conf_.nr * conf_.ur_oc && r % conf_.nr < width;
    if (!live) regs.push_back(r);
  }
  return regs;
}

void GemmGenerator::emit_init(int width) {
  const GemmConf& c = conf_;
  Label l_fresh, l_done;
  mov(reg_tmp0, ptr[reg_args + offsetof(GemmArgs, flags)]);
  test(reg_tmp0, kGemmLoadAcc);
  jz(l_fresh, T_NEAR);
  mov(reg_tmp1, ptr[reg_args + offsetof(GemmArgs, acc_chunk_stride)]);
  mov(reg_tmp2, reg_acc_block);
  for (int oc = 0; oc < c.ur_oc; oc++) {
    for (int j = 0; j < width; j++) vmovups(vreg(acc(oc, j)), ptr[reg_tmp2 + j * c.vlen * 4]);
    if (oc + 1 < c.ur_oc) add(reg_tmp2, reg_tmp1);
  }
  jmp(l_done, T_NEAR);
  L(l_fresh);
  if (c.bias) mov(reg_tmp2, ptr[reg_args + offsetof(GemmArgs, bias)]);
  for (int oc = 0; oc < c.ur_oc; oc++)
    for (int j = 0; j < width; j++) {
      const Xmm a = vreg(acc(oc, j));
      if (c.bias)
        vmovups(a, ptr[reg_tmp2 + oc * c.vlen * 4]);
      else
        vxorps(a, a, a);
    }
  L(l_done);
}

void GemmGenerator::emit_k_loop(int width) {
  const GemmConf& c = conf_;
  Label l_k, l_end;
  // The prefetch stream lives in two stack slots between k loops (the block's init and
  // finish use the temporaries) and in two temporaries the loop leaves free during it.
  if (c.prefetch_x_lines > 0) {
    mov(reg_x_next, x_prefetch_next);
    mov(reg_x_left, x_prefetch_left);
  }
  mov(reg_k_iter, ptr[reg_args + offsetof(GemmArgs, k_groups)]);
  test(reg_k_iter, reg_k_iter);
  jz(l_end, T_NEAR);
  L(l_k);
  const int a_bytes = c.a_fp16 ? 2 : 4;
  // prefetch_b: the block's B lines of this k group (offsets from reg_b, rounded to 64),
  // at reg_b + reg_pf_offset, spread evenly over the lanes.
  std::vector<long> pf_lines;
  if (c.prefetch_b)
    for (int j = 0; j < width; j++) add_prefetch_lines(pf_lines, j * c.b_pixel_stride, c.k_pack * 4L);
  size_t pf_next = 0, pf_a_next = 0, pf_x_next = 0;
  const size_t pf_a_lines = static_cast<size_t>(std::max(0, c.prefetch_a_lines));
  const size_t pf_x_lines = static_cast<size_t>(std::max(0, c.prefetch_x_lines));
  for (int lane = 0; lane < c.k_pack; lane++) {
    for (; pf_next < prefetch_lines_due(pf_lines.size(), c.k_pack, lane); pf_next++)
      prefetcht1(ptr[reg_b + reg_pf_offset + pf_lines[pf_next]]);
    for (; pf_a_next < prefetch_lines_due(pf_a_lines, c.k_pack, lane); pf_a_next++)
      prefetcht1(ptr[reg_pf_a + static_cast<long>(pf_a_next) * 64]);
    for (; pf_x_next < prefetch_lines_due(pf_x_lines, c.k_pack, lane); pf_x_next++) emit_x_prefetch();
    for (int oc = 0; oc < c.ur_oc; oc++) {
      const Address w = ptr[reg_a + (static_cast<long>(lane) * c.ur_oc + oc) * c.vlen * a_bytes];
      if (c.a_fp16)
        vcvtph2ps(lane_reg(oc, weight_reg(oc)), w);
      else
        vmovups(lane_reg(oc, weight_reg(oc)), w);
    }
    for (int j = 0; j < width; j++) {
      const Address src = ptr[reg_b + j * c.b_pixel_stride + lane * 4];
      if (c.explicit_bcast) {
        vbroadcastss(vreg(bcast_reg()), src);
        for (int oc = 0; oc < c.ur_oc; oc++)
          vfmadd231ps(lane_reg(oc, acc(oc, j)), lane_reg(oc, weight_reg(oc)), lane_reg(oc, bcast_reg()));
      } else {
        for (int oc = 0; oc < c.ur_oc; oc++)
          vfmadd231ps(lane_reg(oc, acc(oc, j)), lane_reg(oc, weight_reg(oc)), ptr_b[reg_b + j * c.b_pixel_stride + lane * 4]);
      }
    }
  }
  add(reg_a, static_cast<long>(c.k_pack) * c.ur_oc * c.vlen * a_bytes);
  add(reg_b, reg_b_kstride);
  if (pf_a_lines > 0) add(reg_pf_a, static_cast<long>(pf_a_lines) * 64);
  dec(reg_k_iter);
  jnz(l_k, T_NEAR);
  L(l_end);
  if (c.prefetch_x_lines > 0) {
    mov(x_prefetch_next, reg_x_next);
    mov(x_prefetch_left, reg_x_left);
  }
}

// One line of the driver's stream, if any is left (in registers for the k loop: emit_k_loop).
void GemmGenerator::emit_x_prefetch() {
  Label l_none;
  test(reg_x_left, reg_x_left);
  jle(l_none, T_NEAR);
  prefetcht1(ptr[reg_x_next]);
  add(reg_x_next, 64);
  dec(reg_x_left);
  L(l_none);
}

void GemmGenerator::emit_reduction(int width) {
  if (!conf_.batch_reduce) {
    mov(reg_a, reg_a_arg);
    mov(reg_b, reg_b_block);
    emit_k_loop(width);
    return;
  }
  Label l_batch, l_end;
  mov(reg_tmp2, ptr[reg_args + offsetof(GemmArgs, batch)]);
  shl(reg_tmp2, 3);
  xor_(reg_batch, reg_batch);
  test(reg_tmp2, reg_tmp2);
  jz(l_end, T_NEAR);
  L(l_batch);
  mov(reg_a, ptr[reg_a_arg + reg_batch]);
  mov(reg_b, ptr[reg_args + offsetof(GemmArgs, b)]);
  mov(reg_b, ptr[reg_b + reg_batch]);
  add(reg_b, reg_b_block);
  emit_k_loop(width);
  add(reg_batch, 8);
  cmp(reg_batch, reg_tmp2);
  jl(l_batch, T_NEAR);
  L(l_end);
}

void GemmGenerator::emit_finish(int width) {
  const GemmConf& c = conf_;
  Label l_partial, l_done;
  mov(reg_tmp0, ptr[reg_args + offsetof(GemmArgs, flags)]);
  test(reg_tmp0, kGemmFinal);
  jz(l_partial, T_NEAR);
  if (c.residual) {
    mov(reg_tmp2, reg_res_block);
    mov(reg_tmp1, ptr[reg_args + offsetof(GemmArgs, residual_plane_stride)]);
    for (int oc = 0; oc < c.ur_oc; oc++) {
      for (int j = 0; j < width; j++) vaddps(vreg(acc(oc, j)), vreg(acc(oc, j)), ptr[reg_tmp2 + j * c.vlen * 4]);
      if (oc + 1 < c.ur_oc) add(reg_tmp2, reg_tmp1);
    }
  }
  const std::vector<int> temps = free_vregs(width);
  if (c.act.type != ActivationType::none) {
    std::vector<int> live;
    for (int oc = 0; oc < c.ur_oc; oc++)
      for (int j = 0; j < width; j++) live.push_back(acc(oc, j));
    activation_.apply(live, temps);
  }
  PackedStoreEmitter store(*this, c.isa, c.out_pack);
  mov(reg_tmp2, reg_c_block);
  mov(reg_tmp1, ptr[reg_args + offsetof(GemmArgs, c_plane_stride)]);
  for (int oc = 0; oc < c.ur_oc; oc++) {
    std::vector<int> accs;
    for (int j = 0; j < width; j++) accs.push_back(acc(oc, j));
    store.store_chunk(accs, reg_tmp2, reg_tmp1, oc == c.ur_oc - 1 ? c.last_chunk_lanes : c.vlen, temps);
  }
  jmp(l_done, T_NEAR);
  L(l_partial);
  mov(reg_tmp1, ptr[reg_args + offsetof(GemmArgs, acc_chunk_stride)]);
  mov(reg_tmp2, reg_acc_block);
  for (int oc = 0; oc < c.ur_oc; oc++) {
    for (int j = 0; j < width; j++) vmovups(ptr[reg_tmp2 + j * c.vlen * 4], vreg(acc(oc, j)));
    if (oc + 1 < c.ur_oc) add(reg_tmp2, reg_tmp1);
  }
  L(l_done);
}

void GemmGenerator::emit_block(int width) {
  emit_init(width);
  emit_reduction(width);
  emit_finish(width);
}

void GemmGenerator::generate() {
  const GemmConf& c = conf_;
  if (c.prefetch_b && c.batch_reduce) fail(c.name(), ": B prefetch is for plain (not batch-reduced) calls");
  if (c.prefetch_a_lines > 0 && (c.batch_reduce || c.prefetch_b))
    fail(c.name(), ": A prefetch is for plain calls without B prefetch");
  preamble();
  if (c.prefetch_b) mov(reg_pf_offset, ptr[reg_args + offsetof(GemmArgs, b_prefetch_offset)]);
  if (c.prefetch_a_lines > 0) mov(reg_pf_a, ptr[reg_args + offsetof(GemmArgs, a_prefetch)]);
  if (c.prefetch_x_lines > 0) {
    sub(rsp, kXPrefetchStackBytes);
    mov(reg_tmp0, ptr[reg_args + offsetof(GemmArgs, x_prefetch)]);
    mov(x_prefetch_next, reg_tmp0);
    mov(reg_tmp0, ptr[reg_args + offsetof(GemmArgs, x_prefetch_lines)]);
    mov(x_prefetch_left, reg_tmp0);
  }
  mov(reg_a_arg, ptr[reg_args + offsetof(GemmArgs, a)]);
  if (c.batch_reduce)
    xor_(reg_b_block, reg_b_block);
  else
    mov(reg_b_block, ptr[reg_args + offsetof(GemmArgs, b)]);
  mov(reg_c_block, ptr[reg_args + offsetof(GemmArgs, c)]);
  mov(reg_acc_block, ptr[reg_args + offsetof(GemmArgs, acc)]);
  mov(reg_res_block, ptr[reg_args + offsetof(GemmArgs, residual)]);
  mov(reg_b_kstride, ptr[reg_args + offsetof(GemmArgs, b_k_stride)]);
  Label l_blocks, l_tail;
  mov(reg_block_iter, ptr[reg_args + offsetof(GemmArgs, n_blocks)]);
  test(reg_block_iter, reg_block_iter);
  jz(l_tail, T_NEAR);
  L(l_blocks);
  emit_block(c.nr);
  add(reg_b_block, c.nr * c.b_pixel_stride);
  add(reg_c_block, c.nr * c.out_pack * 4);
  add(reg_acc_block, c.nr * c.vlen * 4);
  add(reg_res_block, c.nr * c.out_pack * 4);
  dec(reg_block_iter);
  jnz(l_blocks, T_NEAR);
  L(l_tail);
  if (c.n_tail > 0) emit_block(c.n_tail);
  if (c.prefetch_x_lines > 0) add(rsp, kXPrefetchStackBytes);
  postamble();
  activation_.emit_table();
}

}  // namespace jitconv
