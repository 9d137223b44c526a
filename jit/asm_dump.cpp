#include "jit/asm_dump.h"

#include <Zydis/Zydis.h>

#include <cstdio>
#include <sstream>

namespace jitconv {

std::string disassemble(const uint8_t* code, size_t size) {
  std::ostringstream os;
  size_t offset = 0;
  char line[160];
  while (offset < size) {
    ZydisDisassembledInstruction insn;
    if (ZYAN_SUCCESS(ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, offset, code + offset, size - offset, &insn))) {
      std::snprintf(line, sizeof(line), "  %6zx:  %s\n", offset, insn.text);
      os << line;
      offset += insn.info.length;
      continue;
    }
    // Data (constant tables): up to 16 bytes per row.
    const size_t n = size - offset < 16 ? size - offset : 16;
    std::snprintf(line, sizeof(line), "  %6zx:  .byte", offset);
    os << line;
    for (size_t i = 0; i < n; i++) {
      std::snprintf(line, sizeof(line), " 0x%02x", code[offset + i]);
      os << line;
    }
    os << "\n";
    offset += n;
  }
  return os.str();
}

}  // namespace jitconv
