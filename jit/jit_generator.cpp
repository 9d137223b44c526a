#include "jit/jit_generator.h"

namespace jitconv {

Xbyak::Xmm JitGenerator::chunk_reg(Isa isa, int index, int lanes) {
  if (isa != Isa::avx512) return Xbyak::Ymm(index);
  return lanes <= 8 ? Xbyak::Xmm(Xbyak::Ymm(index)) : Xbyak::Xmm(Xbyak::Zmm(index));
}

const uint8_t* JitGenerator::finish() {
  readyRE();
  return getCode();
}

void JitGenerator::preamble() {
  push(rbx);
  push(rbp);
  push(r12);
  push(r13);
  push(r14);
  push(r15);
}

void JitGenerator::postamble() {
  vzeroupper();
  pop(r15);
  pop(r14);
  pop(r13);
  pop(r12);
  pop(rbp);
  pop(rbx);
  ret();
}

void JitGenerator::add_prefetch_lines(std::vector<long>& lines, long begin, long bytes) {
  for (long byte : {begin, begin + bytes - 1}) {
    const long line = byte / 64 * 64;
    bool present = false;
    for (long l : lines) present = present || l == line;
    if (!present) lines.push_back(line);
  }
}

}  // namespace jitconv
