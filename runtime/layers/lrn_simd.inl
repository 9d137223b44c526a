// LRN's normalization step as a plain loop; pow(base, -beta) as exp(-beta * ln(base))
// (base >= bias > 0, checked by the layer). Included per ISA.
#include "runtime/layers/lrn_kernels.h"
#include "runtime/layers/simd_math.h"

namespace jitconv {
namespace JITCONV_SIMD_NS {

void lrn_normalize(float* x, const float* square_sum, long n, float bias, float alpha_div_size, float beta) {
  namespace sm = simd_math;
  for (long i = 0; i < n; i++) x[i] *= sm::exp_f(-beta * sm::log_f(bias + alpha_div_size * square_sum[i]));
}

}  // namespace JITCONV_SIMD_NS
}  // namespace jitconv
