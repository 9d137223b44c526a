// The int8 GEMM kernel contract (jit/gemm_int8_conf.h) in portable C++: what the int8
// convolution runs when no JIT ISA is available (JITCONV_ISA=scalar).
#pragma once
#include "jit/gemm_int8_conf.h"

namespace jitconv {

void gemm_int8_scalar(const GemmInt8Conf& conf, const GemmInt8Args& args);

}  // namespace jitconv
