// Base of every code generator.
//
// Code is emitted into an Xbyak AutoGrow buffer, which Xbyak maps read+write only (no
// execute), and finish() flips it to read+execute with readyRE(): no page is ever
// writable and executable at once. Generators are built and finished by the
// KernelRegistry (jit/kernel_registry.h), which owns them for the life of the process.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include <xbyak/xbyak.h>

#include "runtime/cpu.h"

namespace jitconv {

class JitGenerator : public Xbyak::CodeGenerator {
 public:
  JitGenerator() : Xbyak::CodeGenerator(16 * 1024, Xbyak::AutoGrow) {}
  ~JitGenerator() override = default;

  // Emits the whole function. Called once by the registry.
  virtual void generate() = 0;

  // Resolves labels and makes the code read+execute. Returns the entry point.
  const uint8_t* finish();

  template <typename Fn>
  Fn entry() const {
    return reinterpret_cast<Fn>(const_cast<uint8_t*>(getCode()));
  }

 protected:
  // System V x86-64 argument registers.
  const Xbyak::Reg64 abi_param1 = rdi;
  const Xbyak::Reg64 abi_param2 = rsi;
  const Xbyak::Reg64 abi_param3 = rdx;
  const Xbyak::Reg64 abi_param4 = rcx;

  // Saves rbx, rbp, r12-r15 (the callee-saved registers generated code may use).
  void preamble();
  // Restores them, clears the upper vector state and returns.
  void postamble();

  // Vector register `index` for a chunk of `lanes` valid lanes: zmm on AVX-512, ymm on
  // AVX2, and on AVX-512 the ymm half for a chunk of 8 lanes or fewer. Zen 4 splits a zmm
  // FMA into two 256-bit halves, so a half-empty zmm chunk cost a whole one (1x1 24 -> 72:
  // 4.5 chunks computed as 5); a ymm op also zeroes the upper half, lanes no store writes
  // (the GEMM epilogue reads them as the padded lanes' zeros).
  static Xbyak::Xmm chunk_reg(Isa isa, int index, int lanes);

  // Software prefetch spread over a loop body. add_prefetch_lines appends the offsets
  // (rounded down to 64) of the cache lines holding [begin, begin + bytes) that `lines`
  // does not hold yet; prefetch_lines_due says how many of `count` prefetches spread evenly
  // over `steps` steps are due once step `step` (0-based) starts.
  static void add_prefetch_lines(std::vector<long>& lines, long begin, long bytes);
  static size_t prefetch_lines_due(size_t count, int steps, int step) {
    return (static_cast<size_t>(step + 1) * count + steps - 1) / steps;
  }
};

}  // namespace jitconv
