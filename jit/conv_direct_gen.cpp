#include "jit/conv_direct_gen.h"

#include <cstddef>

#include "jit/store_emitter.h"
#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

namespace {
constexpr int kIcCounterSlot = 0;   // [rsp + 0]: packed input channels left in this block
constexpr int kPrefetchSlot = 8;    // [rsp + 8]: next prefetch address
constexpr int kRowPrefetchSlot = 16;  // [rsp + 16]: args.prefetch_row_offset
constexpr int kLaneCounterSlot = 24;  // [rsp + 24]: lane-loop iterations left
constexpr int kStackBytes = 40;     // the slots, rounded so rsp stays 16-byte aligned
}

int ConvDirectGenerator::prefetch_lines_per_step() const {
  if (conf_.prefetch_lines <= 0) return 0;
  long steps = 0;
  for (const Block& b : plan_blocks()) steps += static_cast<long>(b.count) * conf_.ic_groups;
  return static_cast<int>((conf_.prefetch_lines + steps - 1) / steps);
}

ConvDirectGenerator::ConvDirectGenerator(const ConvDirectConf& conf)
    : conf_(conf), explicit_bcast_(conf.explicit_bcast || conf.isa != Isa::avx512), activation_(*this, conf.isa, conf.act) {
  const int regs = conf.isa == Isa::avx512 ? 32 : 16;
  const int used = conf.ur_w * conf.ur_oc + conf.ur_oc + (explicit_bcast_ ? 1 : 0);
  if (used > regs) fail(conf.name(), ": register block needs ", used, " vector registers");
  if (conf.lane_unroll < 0 || (conf.lane_unroll > 0 && conf.in_pack % conf.lane_unroll != 0))
    fail(conf.name(), ": lane_unroll ", conf.lane_unroll, " does not divide the input elempack ", conf.in_pack);
}

Xmm ConvDirectGenerator::vreg(int index) const {
  return conf_.isa == Isa::avx512 ? Xmm(Zmm(index)) : Xmm(Ymm(index));
}

// A narrow last chunk's FMAs run on ymm halves (JitGenerator::chunk_reg).
Xmm ConvDirectGenerator::lane_reg(int oc, int index) const {
  return chunk_reg(conf_.isa, index, oc == conf_.ur_oc - 1 ? conf_.last_chunk_lanes : conf_.vlen);
}

std::vector<int> ConvDirectGenerator::free_vregs(int width) const {
  // Weight and broadcast registers are idle once the reduction is done, and so are the
  // accumulators a narrow tail block does not use.
  std::vector<int> regs;
  const int total = conf_.isa == Isa::avx512 ? 32 : 16;
  for (int r = 0; r < total; r++) {
    const int chunk = r / conf_.ur_w, pixel = r % conf_.ur_w;
    const bool live_acc = r < conf_.ur_w * conf_.ur_oc && chunk < conf_.ur_oc && pixel < width;
    if (!live_acc) regs.push_back(r);
  }
  return regs;
}

std::vector<ConvDirectGenerator::Block> ConvDirectGenerator::plan_blocks() const {
  std::vector<Block> blocks;
  for (int ow0 = 0; ow0 < conf_.ow; ow0 += conf_.ur_w) {
    Block b{ow0, std::min(conf_.ur_w, conf_.ow - ow0), 1, true};
    for (int j = 0; j < b.width && b.clean; j++)
      for (int kw = 0; kw < conf_.kw; kw++)
        if (!tap_inside(input_col(ow0 + j, kw))) b.clean = false;
    // Merge runs of clean full-width blocks into one loop.
    if (!blocks.empty() && b.clean && blocks.back().clean && b.width == conf_.ur_w &&
        blocks.back().width == conf_.ur_w)
      blocks.back().count++;
    else
      blocks.push_back(b);
  }
  return blocks;
}

std::vector<long> ConvDirectGenerator::block_input_lines(const Block& block) const {
  // Byte offsets (from the block's first tap column), rounded down to 64, of every input
  // pixel one ic step of the block reads in a row; all count-many loop iterations.
  const int pixel_bytes = conf_.in_pack * 4;
  const int block_col = input_col(block.ow0, 0);
  std::vector<long> lines;
  for (int j = 0; j < block.width; j++)
    for (int kw = 0; kw < conf_.kw; kw++) {
      const int col = block_col + j * conf_.sw + kw * conf_.dw;
      if (tap_inside(col)) add_prefetch_lines(lines, static_cast<long>(col - block_col) * pixel_bytes, pixel_bytes);
    }
  return lines;
}

void ConvDirectGenerator::emit_init(int width) {
  Label l_fresh, l_done;
  if (conf_.ic_blocked) {  // a later input-channel block: the partial sums are in dst
    const Reg64 reg_plane = reg_src, reg_plane_stride = reg_w;  // both set by the reduction
    test(qword[reg_args + offsetof(ConvDirectArgs, flags)], kDirectLoadDst);
    jz(l_fresh, T_NEAR);
    mov(reg_plane, reg_block_dst);
    mov(reg_plane_stride, ptr[reg_args + offsetof(ConvDirectArgs, dst_channel_stride)]);
    for (int c = 0; c < conf_.ur_oc; c++) {
      for (int j = 0; j < width; j++) vmovups(vreg(acc(c, j)), ptr[reg_plane + j * conf_.vlen * 4]);
      if (c + 1 < conf_.ur_oc) add(reg_plane, reg_plane_stride);
    }
    jmp(l_done, T_NEAR);
    L(l_fresh);
  }
  if (conf_.bias) mov(reg_src, ptr[reg_args + offsetof(ConvDirectArgs, bias)]);
  for (int c = 0; c < conf_.ur_oc; c++)
    for (int j = 0; j < width; j++) {
      const Xmm a = vreg(acc(c, j));
      if (conf_.bias)
        vmovups(a, ptr[reg_src + c * conf_.vlen * 4]);
      else
        vxorps(a, a, a);
    }
  if (conf_.ic_blocked) L(l_done);
}

void ConvDirectGenerator::emit_reduction(const Block& block) {
  const ConvDirectConf& c = conf_;
  const int ip = c.in_pack;
  const long kh_w_stride = conv_direct_weight_kh_stride(c);
  const long ic_w_stride = kh_w_stride * c.kh;
  // Absolute input column of the block's first output column (static blocks only check it).
  const int block_col = input_col(block.ow0, 0);
  Label l_ic, l_kh, l_kh_done;

  mov(reg_ic_src, reg_block_src);
  mov(reg_ic_w, reg_w_row);
  mov(qword[rsp + kIcCounterSlot], c.ic_groups);
  const int pf_lines = prefetch_lines_per_step();
  const std::vector<long> row_lines = c.prefetch_next_row ? block_input_lines(block) : std::vector<long>();
  // The lanes in a loop of lane_unroll-lane iterations: a fully unrolled tap of 16 lanes
  // is ~700 instructions, and the kh loop body (all taps) outgrows the uop cache.
  const int unroll = c.lane_unroll > 0 ? c.lane_unroll : ip;
  const bool rolled = unroll < ip;
  L(l_ic);
  {
    if (pf_lines > 0) {  // reg_src is free until it is set below
      mov(reg_src, qword[rsp + kPrefetchSlot]);
      for (int i = 0; i < pf_lines; i++) prefetcht1(ptr[reg_src + i * 64]);
      add(qword[rsp + kPrefetchSlot], pf_lines * 64);
    }
    if (!row_lines.empty()) {  // reg_pf_row: this step's lines of the row to prefetch
      mov(reg_pf_row, qword[rsp + kRowPrefetchSlot]);
      add(reg_pf_row, reg_ic_src);
    }
    mov(reg_src, reg_ic_src);
    mov(reg_w, reg_ic_w);
    if (c.prefetch_next_row)  // r12 holds the prefetch pointer instead
      mov(reg_kh_iter, ptr[reg_args + offsetof(ConvDirectArgs, kh_count)]);
    else
      mov(reg_kh_iter, reg_kh_count);
    test(reg_kh_iter, reg_kh_iter);
    jz(l_kh_done, T_NEAR);
    L(l_kh);
    {
      // The row prefetches (kh is 1 with them), spread evenly over the kw x lane steps, or
      // issued per tap when the lanes are rolled.
      size_t pf_next = 0;
      auto prefetch_rows_until = [&](size_t due) {
        for (; pf_next < due; pf_next++) prefetcht1(ptr[reg_pf_row + row_lines[pf_next]]);
      };
      for (int kw = 0; kw < c.kw; kw++) {
        // Pixels of this block whose tap kw lies inside the input.
        std::vector<int> pixels;
        for (int j = 0; j < block.width; j++)
          if (block.clean || tap_inside(block_col + j * c.sw + kw * c.dw)) pixels.push_back(j);
        if (pixels.empty()) continue;
        Label l_lane;
        if (rolled) {
          mov(qword[rsp + kLaneCounterSlot], ip / unroll);
          L(l_lane);
        }
        // lane: relative to the pointers, which advance when rolled.
        for (int lane = 0; lane < (rolled ? unroll : ip); lane++) {
          if (!rolled) prefetch_rows_until(prefetch_lines_due(row_lines.size(), c.kw * ip, kw * ip + lane));
          const long w_off = (static_cast<long>(kw * ip + lane) * c.ur_oc) * c.vlen * 4;
          for (int oc = 0; oc < c.ur_oc; oc++) vmovups(lane_reg(oc, weight_reg(oc)), ptr[reg_w + w_off + oc * c.vlen * 4]);
          for (int j : pixels) {
            const long src_off = (static_cast<long>(j * c.sw + kw * c.dw) * ip + lane) * 4;
            if (explicit_bcast_) {
              vbroadcastss(vreg(bcast_reg()), ptr[reg_src + src_off]);
              for (int oc = 0; oc < c.ur_oc; oc++)
                vfmadd231ps(lane_reg(oc, acc(oc, j)), lane_reg(oc, weight_reg(oc)), lane_reg(oc, bcast_reg()));
            } else {
              for (int oc = 0; oc < c.ur_oc; oc++)
                vfmadd231ps(lane_reg(oc, acc(oc, j)), lane_reg(oc, weight_reg(oc)), ptr_b[reg_src + src_off]);
            }
          }
        }
        if (rolled) {
          add(reg_src, unroll * 4);
          add(reg_w, static_cast<long>(unroll) * c.ur_oc * c.vlen * 4);
          dec(qword[rsp + kLaneCounterSlot]);
          jnz(l_lane, T_NEAR);
          sub(reg_src, ip * 4);
          sub(reg_w, static_cast<long>(ip) * c.ur_oc * c.vlen * 4);
          prefetch_rows_until(prefetch_lines_due(row_lines.size(), c.kw, kw));  // this tap's share at once
        }
      }
      prefetch_rows_until(row_lines.size());  // lines due at trailing all-padding taps (skipped above)
      add(reg_src, reg_kh_step);
      add(reg_w, kh_w_stride);
      dec(reg_kh_iter);
      jnz(l_kh, T_NEAR);
    }
    L(l_kh_done);
    add(reg_ic_src, reg_src_cstride);
    add(reg_ic_w, ic_w_stride);
    dec(qword[rsp + kIcCounterSlot]);
    jnz(l_ic, T_NEAR);
  }
}

void ConvDirectGenerator::emit_epilogue(int width) {
  const ConvDirectConf& c = conf_;
  std::vector<int> temps = free_vregs(width);
  Label l_store;
  if (c.ic_blocked && (c.residual || c.act.type != ActivationType::none)) {  // only the last block finishes
    test(qword[reg_args + offsetof(ConvDirectArgs, flags)], kDirectFinal);
    jz(l_store, T_NEAR);
  }
  if (c.residual) {  // out_pack == vlen: chunk oc of pixel j is one vector of its plane
    const Reg64 reg_res = reg_ic_src, reg_res_plane_stride = reg_ic_w;  // idle after the reduction
    mov(reg_res, ptr[reg_args + offsetof(ConvDirectArgs, residual_offset)]);
    add(reg_res, reg_block_dst);
    mov(reg_res_plane_stride, ptr[reg_args + offsetof(ConvDirectArgs, dst_channel_stride)]);
    for (int oc = 0; oc < c.ur_oc; oc++) {
      for (int j = 0; j < width; j++) vaddps(vreg(acc(oc, j)), vreg(acc(oc, j)), ptr[reg_res + j * c.vlen * 4]);
      if (oc + 1 < c.ur_oc) add(reg_res, reg_res_plane_stride);
    }
  }
  if (c.act.type != ActivationType::none) {
    std::vector<int> live;
    for (int oc = 0; oc < c.ur_oc; oc++)
      for (int j = 0; j < width; j++) live.push_back(acc(oc, j));
    activation_.apply(live, temps);
  }
  L(l_store);
  PackedStoreEmitter store(*this, c.isa, c.out_pack);
  const Reg64 reg_plane = reg_src, reg_plane_stride = reg_w;
  mov(reg_plane, reg_block_dst);
  mov(reg_plane_stride, ptr[reg_args + offsetof(ConvDirectArgs, dst_channel_stride)]);
  for (int oc = 0; oc < c.ur_oc; oc++) {
    std::vector<int> accs;
    for (int j = 0; j < width; j++) accs.push_back(acc(oc, j));
    const int lanes = oc == c.ur_oc - 1 ? c.last_chunk_lanes : c.vlen;
    store.store_chunk(accs, reg_plane, reg_plane_stride, lanes, temps);
  }
}

void ConvDirectGenerator::emit_block(const Block& block) {
  const ConvDirectConf& c = conf_;
  const long src_step = static_cast<long>(c.ur_w) * c.sw * c.in_pack * 4;
  const long dst_step = static_cast<long>(c.ur_w) * c.out_pack * 4;
  lea(reg_block_src, ptr[reg_src_row + static_cast<long>(input_col(block.ow0, 0)) * c.in_pack * 4]);
  lea(reg_block_dst, ptr[reg_dst_row + static_cast<long>(block.ow0) * c.out_pack * 4]);
  Label l_loop;
  if (block.count > 1) {
    mov(reg_block_iter, block.count);
    L(l_loop);
  }
  emit_init(block.width);
  emit_reduction(block);
  emit_epilogue(block.width);
  if (block.count > 1) {
    add(reg_block_src, src_step);
    add(reg_block_dst, dst_step);
    dec(reg_block_iter);
    jnz(l_loop, T_NEAR);
  }
}

void ConvDirectGenerator::generate() {
  preamble();
  sub(rsp, kStackBytes);
  if (conf_.prefetch_lines > 0) {
    mov(rax, ptr[reg_args + offsetof(ConvDirectArgs, prefetch)]);
    mov(qword[rsp + kPrefetchSlot], rax);
  }
  if (conf_.prefetch_next_row) {
    mov(rax, ptr[reg_args + offsetof(ConvDirectArgs, prefetch_row_offset)]);
    mov(qword[rsp + kRowPrefetchSlot], rax);
  }
  mov(reg_src_row, ptr[reg_args + offsetof(ConvDirectArgs, src)]);
  mov(reg_w_row, ptr[reg_args + offsetof(ConvDirectArgs, weights)]);
  mov(reg_dst_row, ptr[reg_args + offsetof(ConvDirectArgs, dst)]);
  if (!conf_.prefetch_next_row) mov(reg_kh_count, ptr[reg_args + offsetof(ConvDirectArgs, kh_count)]);
  mov(reg_src_cstride, ptr[reg_args + offsetof(ConvDirectArgs, src_channel_stride)]);
  mov(reg_kh_step, ptr[reg_args + offsetof(ConvDirectArgs, src_row_stride)]);
  if (conf_.dh > 1) imul(reg_kh_step, reg_kh_step, conf_.dh);
  for (const Block& block : plan_blocks()) emit_block(block);
  add(rsp, kStackBytes);
  postamble();
  activation_.emit_table();
}

}  // namespace jitconv
