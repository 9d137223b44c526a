#include "runtime/conv_int8.h"

#include "runtime/error.h"
#include "runtime/layers/convolution.h"

namespace jitconv {

std::unique_ptr<ConvImpl> make_conv_int8(const layers::Convolution& layer, Isa isa, const Option& opt) {
  fail("Convolution ", layer.name, ": the int8 path is not built yet (set use_int8_inference = false)");
}

}  // namespace jitconv
