#include "runtime/conv_int8_quantize.h"

namespace jitconv {

void run_quantize_to_image(Isa isa, const Int8QuantizeJob& job) {
  switch (isa) {
    case Isa::avx512: return avx512::quantize_to_image(job);
    case Isa::avx2: return avx2::quantize_to_image(job);
    case Isa::scalar: return scalar::quantize_to_image(job);
  }
}

}  // namespace jitconv
