#include "jit/conv_dw_gen.h"

#include <cstddef>

#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

ConvDwGenerator::ConvDwGenerator(const ConvDwConf& conf)
    : conf_(conf), vector_bytes_(conf.pack * 4), activation_(*this, conf.isa, conf.act) {
  const int regs = conf.isa == Isa::avx512 ? 32 : 16;
  if (conf.ur_w < 1 || conf.ur_w + conf.kw + 1 > regs)
    fail(conf.name(), ": register block needs ", conf.ur_w + conf.kw + 1, " vector registers");
  if (conf.pack > isa_lanes(conf.isa)) fail(conf.name(), ": elempack wider than the ", isa_name(conf.isa), " vector");
}

Xmm ConvDwGenerator::vreg(int index) const {
  if (conf_.pack == 16) return Zmm(index);
  if (conf_.pack == 8) return Ymm(index);
  return Xmm(index);
}

std::vector<ConvDwGenerator::Block> ConvDwGenerator::plan_blocks() const {
  std::vector<Block> blocks;
  for (int ow0 = 0; ow0 < conf_.ow; ow0 += conf_.ur_w) {
    Block b{ow0, std::min(conf_.ur_w, conf_.ow - ow0), 1, true};
    for (int j = 0; j < b.width && b.clean; j++)
      for (int kx = 0; kx < conf_.kw; kx++)
        if (!column_inside(input_col(ow0 + j, kx))) b.clean = false;
    if (!blocks.empty() && b.clean && blocks.back().clean && b.width == conf_.ur_w && blocks.back().width == conf_.ur_w)
      blocks.back().count++;
    else
      blocks.push_back(b);
  }
  return blocks;
}

void ConvDwGenerator::emit_reduction(const Block& block) {
  const ConvDwConf& c = conf_;
  const int block_col = input_col(block.ow0, 0);
  const int span = (block.width - 1) * c.sw + (c.kw - 1) * c.dw + 1;
  Label l_kh, l_done;

  mov(reg_src, reg_block_src);
  mov(reg_w, reg_weights);
  mov(reg_kh_iter, reg_kh_count);
  test(reg_kh_iter, reg_kh_iter);
  jz(l_done, T_NEAR);
  L(l_kh);
  {
    for (int kx = 0; kx < c.kw; kx++) vmovups(vreg(weight_reg(kx)), ptr[reg_w + kx * vector_bytes_]);
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
      vmovups(vreg(input_reg()), ptr[reg_src + static_cast<long>(col) * vector_bytes_]);
      for (const auto& use : uses) vfmadd231ps(vreg(acc(use.first)), vreg(weight_reg(use.second)), vreg(input_reg()));
    }
    add(reg_src, reg_kh_step);
    add(reg_w, c.kw * vector_bytes_);
    dec(reg_kh_iter);
    jnz(l_kh, T_NEAR);
  }
  L(l_done);
}

void ConvDwGenerator::emit_epilogue(int width) {
  const int regs = conf_.isa == Isa::avx512 ? 32 : 16;
  if (conf_.act.type != ActivationType::none) {
    std::vector<int> live, temps;
    for (int j = 0; j < width; j++) live.push_back(acc(j));
    for (int r = width; r < regs; r++) temps.push_back(r);
    activation_.apply(live, temps);
  }
  for (int j = 0; j < width; j++) vmovups(ptr[reg_block_dst + static_cast<long>(j) * vector_bytes_], vreg(acc(j)));
}

void ConvDwGenerator::emit_block(const Block& block) {
  const ConvDwConf& c = conf_;
  lea(reg_block_src, ptr[reg_src_row + static_cast<long>(input_col(block.ow0, 0)) * vector_bytes_]);
  lea(reg_block_dst, ptr[reg_dst_row + static_cast<long>(block.ow0) * vector_bytes_]);
  Label l_loop;
  if (block.count > 1) {
    mov(reg_block_iter, block.count);
    L(l_loop);
  }
  for (int j = 0; j < block.width; j++) {
    const Xmm a = vreg(acc(j));
    if (c.bias)
      vmovups(a, ptr[reg_bias]);
    else
      vxorps(a, a, a);
  }
  emit_reduction(block);
  emit_epilogue(block.width);
  if (block.count > 1) {
    add(reg_block_src, static_cast<long>(c.ur_w) * c.sw * vector_bytes_);
    add(reg_block_dst, static_cast<long>(c.ur_w) * vector_bytes_);
    dec(reg_block_iter);
    jnz(l_loop, T_NEAR);
  }
}

void ConvDwGenerator::generate() {
  preamble();
  mov(reg_src_row, ptr[reg_args + offsetof(ConvDwArgs, src)]);
  mov(reg_weights, ptr[reg_args + offsetof(ConvDwArgs, weights)]);
  mov(reg_bias, ptr[reg_args + offsetof(ConvDwArgs, bias)]);
  mov(reg_dst_row, ptr[reg_args + offsetof(ConvDwArgs, dst)]);
  mov(reg_kh_count, ptr[reg_args + offsetof(ConvDwArgs, kh_count)]);
  mov(reg_rows, ptr[reg_args + offsetof(ConvDwArgs, rows)]);
  mov(reg_row_step, ptr[reg_args + offsetof(ConvDwArgs, src_row_step)]);
  mov(reg_kh_step, ptr[reg_args + offsetof(ConvDwArgs, src_kh_step)]);
  const std::vector<Block> blocks = plan_blocks();
  Label l_row;
  L(l_row);
  {
    for (const Block& block : blocks) emit_block(block);
    add(reg_src_row, reg_row_step);
    add(reg_dst_row, static_cast<long>(conf_.ow) * vector_bytes_);
    dec(reg_rows);
    jnz(l_row, T_NEAR);
  }
  postamble();
  activation_.emit_table();
}

}  // namespace jitconv
