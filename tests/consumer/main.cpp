// A tiny application built against the installed jitconv package.
#include <cstdio>

#include "jitconv.h"

int main() {
  jitconv::Mat m(5, 3, 20);
  m.fill(1.5f);
  jitconv::Option opt;
  jitconv::Mat packed;
  jitconv::convert_packing(m, packed, 4, opt);
  if (packed.elempack != 4 || packed.c != 5) return 1;
  std::printf("consumer ok: isa %s, %d channels packed by %d\n", jitconv::isa_name(jitconv::current_isa()), packed.c,
              packed.elempack);
  return 0;
}
