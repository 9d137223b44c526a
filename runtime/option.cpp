#include "runtime/option.h"

#include <cstdlib>

#include "runtime/cpu.h"

namespace jitconv {

int default_num_threads() { return cpu_info().physical_cores; }

Option::Option() {
  num_threads = default_num_threads();
  const char* autotune = std::getenv("JITCONV_AUTOTUNE");
  use_autotune = autotune && autotune[0] == '1';
  const char* cold = std::getenv("JITCONV_WEIGHTS_COLD");
  weights_cold = cold && cold[0] == '1';
  const char* fusion = std::getenv("JITCONV_RESIDUAL_FUSION");
  use_residual_fusion = !(fusion && fusion[0] == '0');
}

}  // namespace jitconv
