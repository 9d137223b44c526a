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
