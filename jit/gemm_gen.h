// Emits the GEMM microkernel described by a GemmConf (layouts and call contract in
// gemm_conf.h). Per k: ur_oc weight vectors are loaded, each of the nr B values is
// broadcast once and multiplied into the ur_oc chunks.
#pragma once
#include <vector>

#include "jit/activation_emitter.h"
#include "jit/gemm_conf.h"
#include "jit/jit_generator.h"

namespace jitconv {

class GemmGenerator : public JitGenerator {
 public:
  explicit GemmGenerator(const GemmConf& conf);
  void generate() override;

 private:
  void emit_block(int width);
  void emit_init(int width);
  void emit_reduction(int width);
  void emit_k_loop(int width);
  void emit_x_prefetch();
  void emit_finish(int width);

  Xbyak::Xmm vreg(int index) const;
  // vreg, or its ymm half for the k loop of a narrow last chunk (JitGenerator::chunk_reg).
  Xbyak::Xmm lane_reg(int oc, int index) const;
  int acc(int chunk, int pixel) const { return chunk * conf_.nr + pixel; }
  int weight_reg(int chunk) const { return conf_.nr * conf_.ur_oc + chunk; }
  int bcast_reg() const { return conf_.nr * conf_.ur_oc + conf_.ur_oc; }
  std::vector<int> free_vregs(int width) const;

  GemmConf conf_;
  ActivationEmitter activation_;

  const Xbyak::Reg64 reg_args = rdi;
  const Xbyak::Reg64 reg_a_arg = r8;      // args.a
  const Xbyak::Reg64 reg_b_block = r9;    // B at the block (batch: pixel byte offset)
  const Xbyak::Reg64 reg_b = r10;
  const Xbyak::Reg64 reg_a = r11;
  const Xbyak::Reg64 reg_k_iter = r12;
  const Xbyak::Reg64 reg_b_kstride = r13;
  const Xbyak::Reg64 reg_c_block = r14;
  const Xbyak::Reg64 reg_acc_block = r15;
  const Xbyak::Reg64 reg_block_iter = rax;
  const Xbyak::Reg64 reg_res_block = rbx;
  const Xbyak::Reg64 reg_batch = rbp;  // byte index into the pointer lists
  const Xbyak::Reg64 reg_pf_offset = rbp;  // prefetch_b (never batch-reduced)
  const Xbyak::Reg64 reg_pf_a = rbp;       // prefetch_a_lines (neither batch-reduced nor prefetch_b)
  // prefetch_x_lines: the stream's next line and the lines left, in two stack slots across
  // register blocks (reg_x_next / reg_x_left within a k loop).
  static constexpr int kXPrefetchStackBytes = 16;
  const Xbyak::Address x_prefetch_next = ptr[rsp];
  const Xbyak::Address x_prefetch_left = qword[rsp + 8];
  const Xbyak::Reg64 reg_tmp0 = rcx;
  const Xbyak::Reg64 reg_tmp1 = rdx;
  const Xbyak::Reg64 reg_tmp2 = rsi;
  // The stream in the k loop: temporaries no k loop uses (a batch-reduced one keeps its
  // batch end in reg_tmp2).
  const Xbyak::Reg64 reg_x_next = reg_tmp1;
  const Xbyak::Reg64 reg_x_left = reg_tmp0;
};

}  // namespace jitconv
