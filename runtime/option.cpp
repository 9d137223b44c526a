#include "runtime/option.h"

#include <cstdlib>

#include "runtime/cpu.h"

namespace jitconv {

int default_num_threads() { return cpu_info().physical_cores; }

Option::Option() {
  num_threads = default_num_threads();
  const char* autotune = std::getenv("JITCONV_AUTOTUNE");
  use_autotune = autotune && autotune[0] == '1';
}

}  // namespace jitconv
