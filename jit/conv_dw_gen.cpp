#include "jit/conv_dw_gen.h"

#include <algorithm>
#include <cstddef>

#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

namespace {
constexpr int kRowsSlot = 0;  // [rsp + 0]: output rows left in this call
}

ConvDwGenerator::ConvDwGenerator(const ConvDwConf& conf)
    : conf_(conf),
      window_(conv_dw_window_vectors(conf.isa, conf.pack, conf.pixels, conf.sw, conf.kw, conf.dw)),
      activation_(*this, conf.isa, conf.act) {
  const int regs = conf.isa == Isa::avx512 ? 32 : 16;
  const bool aux = conf.pixels > 1 && (conf.isa == Isa::avx2 || gathers());
  const int used = window_ > 0 ? cut_reg() + 1 : aux ? aux_reg() + 1 : input_reg() + 1;
  if (conf.ur_w < 1 || used > regs) fail(conf.name(), ": register block needs ", used, " vector registers");
  if (conf.lanes() != 4 && conf.lanes() != 8 && conf.lanes() != 16)
    fail(conf.name(), ": ", conf.lanes(), " lanes per vector");
  if (conf.lanes() > isa_lanes(conf.isa)) fail(conf.name(), ": vector wider than ", isa_name(conf.isa), " has");
  if (conf.pixels > 1 && conf.sw > 2) fail(conf.name(), ": several pixels per vector need stride 1 or 2");
}

Xmm ConvDwGenerator::vreg(int index) const {
  if (conf_.lanes() == 16) return Zmm(index);
  if (conf_.lanes() == 8) return Ymm(index);
  return Xmm(index);
}

uint32_t ConvDwGenerator::input_mask(int col) const {
  uint32_t mask = 0;
  const uint32_t pixel_bits = (1u << conf_.pack) - 1;
  for (int i = 0; i < conf_.pixels; i++)
    if (column_inside(col + i)) mask |= pixel_bits << (i * conf_.pack);
  return mask;
}

std::vector<ConvDwGenerator::Block> ConvDwGenerator::plan_blocks() const {
  const ConvDwConf& c = conf_;
  const int vectors = (c.ow + c.pixels - 1) / c.pixels;
  // Input pixels one (vector, tap) reads: its own pixels, or with a stride-2 gather the
  // two vectors the even pixels are picked from.
  const int loaded = c.pixels == 1 ? 1 : c.pixels * c.sw;
  std::vector<Block> blocks;
  for (int v0 = 0; v0 < vectors; v0 += c.ur_w) {
    Block b{v0, std::min(c.ur_w, vectors - v0), 1, true};
    if (window_ > 0) {  // the window's loads run from the first tap column on
      const int first = input_col(v0 * c.pixels, 0);
      const int last = first + (b.width + window_ - 1) * c.pixels - 1;
      if (!column_inside(first) || !column_inside(last)) b.clean = false;
    }
    for (int v = v0; v < v0 + b.width && b.clean; v++) {
      if ((v + 1) * c.pixels > c.ow) b.clean = false;
      for (int kx = 0; kx < c.kw; kx++) {
        const int col = input_col(v * c.pixels, kx);
        if (!column_inside(col) || !column_inside(col + loaded - 1)) b.clean = false;
      }
    }
    if (!blocks.empty() && b.clean && blocks.back().clean && b.width == c.ur_w && blocks.back().width == c.ur_w)
      blocks.back().count++;
    else
      blocks.push_back(b);
  }
  return blocks;
}

void ConvDwGenerator::load_pack_broadcast(const Xmm& dst, const Address& src) {
  const int idx = dst.getIdx();
  if (conf_.pixels == 1)
    vmovups(dst, src);
  else if (conf_.pack == 1)
    vbroadcastss(dst, src);
  else if (conf_.isa == Isa::avx2)
    vbroadcastf128(Ymm(idx), src);  // pack 4, 2 pixels
  else if (conf_.pack == 4)
    vbroadcastf32x4(Zmm(idx), src);
  else
    vbroadcastf32x8(Zmm(idx), src);
}

void ConvDwGenerator::load_mask_vector(uint32_t mask) {
  auto it = std::find(table_masks_.begin(), table_masks_.end(), mask);
  if (it == table_masks_.end()) fail(conf_.name(), ": mask ", mask, " missing from the table");
  vmovups(vreg(aux_reg()), ptr[rip + mask_table_ + static_cast<int>(it - table_masks_.begin()) * 32]);
}

void ConvDwGenerator::gather_even(const Xmm& dst, const Operand& hi) {
  if (conf_.isa == Isa::avx512) {
    vpermt2ps(dst, vreg(aux_reg()), hi);
    return;
  }
  // AVX2, pack 1: [a0 a2 b0 b2 | a4 a6 b4 b6], then the 64-bit pairs in order 0 2 1 3.
  vshufps(dst, dst, hi, 0x88);
  vpermpd(Ymm(dst.getIdx()), Ymm(dst.getIdx()), 0xd8);
}

Opmask ConvDwGenerator::mask_reg(uint32_t mask) {
  for (const auto& preloaded : mask_regs_)
    if (preloaded.first == mask) return Opmask(preloaded.second);
  mov(reg_mask, mask);
  kmovw(Opmask(scratch_k_), reg_mask);
  return Opmask(scratch_k_);
}

void ConvDwGenerator::load_masked(const Xmm& dst, long offset, uint32_t mask) {
  if (mask == 0) {
    vxorps(dst, dst, dst);
    return;
  }
  if (mask == full_mask()) {
    vmovups(dst, ptr[reg_src + offset]);
    return;
  }
  // Lanes outside the mask read nothing (no fault past the row or the buffer) and are zero.
  if (conf_.isa == Isa::avx512) {
    vmovups(dst | mask_reg(mask) | T_z, ptr[reg_src + offset]);
  } else {
    load_mask_vector(mask);
    vmaskmovps(dst, vreg(aux_reg()), ptr[reg_src + offset]);
  }
}

std::pair<uint32_t, uint32_t> ConvDwGenerator::tap_masks(const Block& block, int v, int kx) const {
  if (block.clean) return {full_mask(), full_mask()};
  const int col = input_col((block.v0 + v) * conf_.pixels, kx);
  return {input_mask(col), conf_.sw == 2 ? input_mask(col + conf_.pixels) : 0u};
}

std::vector<uint32_t> ConvDwGenerator::partial_masks(const std::vector<Block>& blocks) const {
  std::vector<uint32_t> masks;
  auto add = [&](uint32_t m) {
    if (m != 0 && m != full_mask() && std::find(masks.begin(), masks.end(), m) == masks.end()) masks.push_back(m);
  };
  if (conf_.pixels == 1) return masks;
  for (const Block& block : blocks) {
    const int first_col = input_col(block.v0 * conf_.pixels, 0);
    for (int j = 0; window_ > 0 && !block.clean && j < block.width + window_ - 1; j++)
      add(input_mask(first_col + j * conf_.pixels));
    for (int v = 0; v < block.width; v++) {
      for (int kx = 0; window_ == 0 && kx < conf_.kw; kx++) {
        const std::pair<uint32_t, uint32_t> m = tap_masks(block, v, kx);
        add(m.first);
        if (conf_.sw == 2) add(m.second);
      }
      const int pixels_left = conf_.ow - (block.v0 + v) * conf_.pixels;
      if (pixels_left < conf_.pixels) add((1u << (pixels_left * conf_.pack)) - 1);
    }
  }
  return masks;
}

void ConvDwGenerator::emit_reduction_single(const Block& block, int ky) {
  const ConvDwConf& c = conf_;
  const int block_col = input_col(block.v0, 0);
  const int span = (block.width - 1) * c.sw + (c.kw - 1) * c.dw + 1;
  for (int col = 0; col < span; col++) {
    if (!block.clean && !column_inside(block_col + col)) continue;  // a padding column
    // (pixel, tap) pairs whose window covers this column.
    std::vector<std::pair<int, int>> uses;
    for (int kx = 0; kx < c.kw; kx++) {
      const int offset = col - kx * c.dw;
      if (offset < 0 || offset % c.sw != 0) continue;
      const int j = offset / c.sw;
      if (j < block.width) uses.emplace_back(j, kx);
    }
    if (uses.empty()) continue;
    vmovups(vreg(input_reg()), ptr[reg_src + static_cast<long>(col) * pixel_bytes()]);
    for (const auto& use : uses)
      vfmadd231ps(vreg(acc(use.first, use.second % c.acc_sets)), vreg(tap_reg(ky, use.second)), vreg(input_reg()));
  }
}

void ConvDwGenerator::emit_multi_tap(const Block& block, int v, int ky, int kx) {
  const ConvDwConf& c = conf_;
  const int col = input_col((block.v0 + v) * c.pixels, kx);
  const long offset = static_cast<long>(col - input_col(block.v0 * c.pixels, 0)) * pixel_bytes();
  const Xmm sum = vreg(acc(v, kx % c.acc_sets)), tap = vreg(tap_reg(ky, kx)), in = vreg(input_reg());
  const std::pair<uint32_t, uint32_t> masks = tap_masks(block, v, kx);
  if (c.sw == 1) {
    const uint32_t mask = masks.first;
    if (mask == 0) return;
    if (mask == full_mask()) {
      vfmadd231ps(sum, tap, ptr[reg_src + offset]);
    } else {
      load_masked(in, offset, mask);
      vfmadd231ps(sum, tap, in);
    }
    return;
  }
  // Stride 2: the even pixels of the two vectors from `col` (any dilation moves col only).
  const uint32_t lo = masks.first, hi = masks.second;
  if (lo == 0 && hi == 0) return;
  const long hi_offset = offset + c.pixels * pixel_bytes();
  load_masked(in, offset, lo);
  if (hi == full_mask()) {
    gather_even(in, ptr[reg_src + hi_offset]);
  } else {
    load_masked(vreg(input2_reg()), hi_offset, hi);
    gather_even(in, vreg(input2_reg()));
  }
  vfmadd231ps(sum, tap, in);
}

void ConvDwGenerator::emit_reduction_window(const Block& block, int ky) {
  const ConvDwConf& c = conf_;
  const int lanes = c.lanes();
  const int first_col = input_col(block.v0 * c.pixels, 0);  // reg_src points here
  auto load_window = [&](int j) {
    const uint32_t mask = block.clean ? full_mask() : input_mask(first_col + j * c.pixels);
    load_masked(vreg(window_reg(j)), static_cast<long>(j) * lanes * 4, mask);
  };
  for (int j = 0; j + 1 < window_; j++) load_window(j);
  for (int v = 0; v < block.width; v++) {
    load_window(v + window_ - 1);
    for (int kx = 0; kx < c.kw; kx++) {
      // Tap kx starts kx * dw pixels into the window: vector v + q, shifted r lanes.
      const int shift = kx * c.dw * c.pack, q = shift / lanes, r = shift % lanes;
      Xmm in = vreg(window_reg(v + q));
      if (r != 0) {
        valignd(vreg(cut_reg()), vreg(window_reg(v + q + 1)), in, r);
        in = vreg(cut_reg());
      }
      vfmadd231ps(vreg(acc(v, kx % c.acc_sets)), vreg(tap_reg(ky, kx)), in);
    }
  }
}

void ConvDwGenerator::emit_reduction_multi(const Block& block, int ky) {
  if (window_ > 0) {
    emit_reduction_window(block, ky);
    return;
  }
  // Tap-major: consecutive FMAs go to different accumulators.
  for (int kx = 0; kx < conf_.kw; kx++)
    for (int v = 0; v < block.width; v++) emit_multi_tap(block, v, ky, kx);
}

void ConvDwGenerator::emit_epilogue(const Block& block) {
  const ConvDwConf& c = conf_;
  const int regs = c.isa == Isa::avx512 ? 32 : 16;
  if (c.act.type != ActivationType::none) {
    std::vector<int> live, temps;
    for (int v = 0; v < block.width; v++) live.push_back(acc(v));
    // The gather indices (and an interior kernel's taps) live across rows.
    const bool indices = gathers() && c.isa == Isa::avx512;
    const int taps_begin = tap_reg(0, 0), taps_end = c.kh ? taps_begin + tap_count() : taps_begin;
    for (int r = block.width; r < regs; r++)
      if (!(indices && r == aux_reg()) && !(r >= taps_begin && r < taps_end)) temps.push_back(r);
    activation_.apply(live, temps);
  }
  const long vector_bytes = c.pixels * pixel_bytes();
  for (int v = 0; v < block.width; v++) {
    const Address dst = ptr[reg_block_dst + v * vector_bytes];
    const int pixels_left = c.ow - (block.v0 + v) * c.pixels;
    if (pixels_left >= c.pixels) {
      vmovups(dst, vreg(acc(v)));
    } else if (c.isa == Isa::avx512) {  // the row's last, partial vector
      vmovups(dst | mask_reg((1u << (pixels_left * c.pack)) - 1), vreg(acc(v)));
    } else {
      load_mask_vector((1u << (pixels_left * c.pack)) - 1);
      vmaskmovps(dst, vreg(aux_reg()), vreg(acc(v)));
    }
  }
}

void ConvDwGenerator::emit_block(const Block& block) {
  const ConvDwConf& c = conf_;
  const long vector_bytes = c.pixels * pixel_bytes();
  lea(reg_block_src, ptr[reg_src_row + static_cast<long>(input_col(block.v0 * c.pixels, 0)) * pixel_bytes()]);
  lea(reg_block_dst, ptr[reg_dst_row + block.v0 * vector_bytes]);
  Label l_loop, l_kh, l_kh_done;
  if (block.count > 1) {
    mov(reg_block_iter, block.count);
    L(l_loop);
  }
  for (int set = 0; set < c.acc_sets; set++)
    for (int v = 0; v < block.width; v++) {
      const Xmm a = vreg(acc(v, set));
      if (!c.bias || set > 0)
        vxorps(a, a, a);
      else if (v == 0)
        load_pack_broadcast(a, ptr[reg_bias]);
      else
        vmovaps(a, vreg(acc(0)));
    }
  mov(reg_src, reg_block_src);
  auto reduce_row = [&](int ky) {
    if (c.pixels == 1)
      emit_reduction_single(block, ky);
    else
      emit_reduction_multi(block, ky);
  };
  if (c.kh) {  // interior rows: the taps are in registers, the kernel rows unrolled
    for (int ky = 0; ky < c.kh; ky++) {
      if (ky > 0) add(reg_src, reg_kh_step);
      reduce_row(ky);
    }
  } else {
    mov(reg_w, reg_weights);
    mov(reg_kh_iter, reg_kh_count);
    test(reg_kh_iter, reg_kh_iter);
    jz(l_kh_done, T_NEAR);
    L(l_kh);
    for (int kx = 0; kx < c.kw; kx++) load_pack_broadcast(vreg(tap_reg(0, kx)), ptr[reg_w + kx * pixel_bytes()]);
    reduce_row(0);
    add(reg_src, reg_kh_step);
    add(reg_w, c.kw * pixel_bytes());
    dec(reg_kh_iter);
    jnz(l_kh, T_NEAR);
    L(l_kh_done);
  }
  for (int set = 1; set < c.acc_sets; set++)
    for (int v = 0; v < block.width; v++) vaddps(vreg(acc(v)), vreg(acc(v)), vreg(acc(v, set)));
  emit_epilogue(block);
  if (block.count > 1) {
    add(reg_block_src, c.ur_w * c.pixels * c.sw * pixel_bytes());
    add(reg_block_dst, c.ur_w * vector_bytes);
    dec(reg_block_iter);
    jnz(l_loop, T_NEAR);
  }
}

void ConvDwGenerator::generate() {
  const bool gather = gathers() && conf_.isa == Isa::avx512;
  preamble();
  sub(rsp, 8);
  mov(reg_src_row, ptr[reg_args + offsetof(ConvDwArgs, src)]);
  mov(reg_weights, ptr[reg_args + offsetof(ConvDwArgs, weights)]);
  mov(reg_bias, ptr[reg_args + offsetof(ConvDwArgs, bias)]);
  mov(reg_dst_row, ptr[reg_args + offsetof(ConvDwArgs, dst)]);
  mov(reg_kh_count, ptr[reg_args + offsetof(ConvDwArgs, kh_count)]);
  mov(reg_row_step, ptr[reg_args + offsetof(ConvDwArgs, src_row_step)]);
  mov(reg_kh_step, ptr[reg_args + offsetof(ConvDwArgs, src_kh_step)]);
  mov(reg_block_iter, ptr[reg_args + offsetof(ConvDwArgs, rows)]);
  mov(qword[rsp + kRowsSlot], reg_block_iter);
  if (gather) vmovups(vreg(aux_reg()), ptr[rip + gather_indices_]);
  for (int t = 0; conf_.kh && t < tap_count(); t++)
    load_pack_broadcast(vreg(tap_reg(0, t)), ptr[reg_weights + t * pixel_bytes()]);
  const std::vector<Block> blocks = plan_blocks();
  // AVX-512: k2..k7 hold the edge masks; with more masks than that, k7 is set at each
  // use. AVX2: the masks are vectors in a table after the code.
  const std::vector<uint32_t> masks = partial_masks(blocks);
  if (conf_.isa != Isa::avx512) table_masks_ = masks;
  const int preloaded = conf_.isa != Isa::avx512 ? 0 : masks.size() <= 6 ? static_cast<int>(masks.size()) : 5;
  for (int i = 0; i < preloaded; i++) {
    mov(reg_mask, masks[i]);
    kmovw(Opmask(2 + i), reg_mask);
    mask_regs_.emplace_back(masks[i], 2 + i);
  }
  Label l_row;
  L(l_row);
  {
    for (const Block& block : blocks) emit_block(block);
    add(reg_src_row, reg_row_step);
    add(reg_dst_row, static_cast<long>(conf_.ow) * pixel_bytes());
    dec(qword[rsp + kRowsSlot]);
    jnz(l_row, T_NEAR);
  }
  add(rsp, 8);
  postamble();
  activation_.emit_table();
  if (!table_masks_.empty()) {
    align(32);
    L(mask_table_);
    for (uint32_t mask : table_masks_)
      for (int lane = 0; lane < conf_.lanes(); lane++) dd((mask >> lane) & 1 ? 0xffffffffu : 0u);
  }
  if (gather) {
    // Lane l of the result takes lane l of pixel 2 * (l / pack) of the two loaded vectors.
    align(64);
    L(gather_indices_);
    for (int lane = 0; lane < conf_.lanes(); lane++)
      dd(static_cast<uint32_t>(2 * (lane / conf_.pack) * conf_.pack + lane % conf_.pack));
  }
}

}  // namespace jitconv
