// Intel-syntax listing of generated code (Zydis), for `jitconv dump`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace jitconv {

// One line per instruction: "  offset:  instruction". Bytes that do not decode (the
// constant tables kernels append after their code) are listed as .byte rows.
std::string disassemble(const uint8_t* code, size_t size);

}  // namespace jitconv
